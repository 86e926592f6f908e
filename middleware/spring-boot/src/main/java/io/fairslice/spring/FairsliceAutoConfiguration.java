package io.fairslice.spring;

import io.fairslice.middleware.Fairslice;
import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.FairsliceConfigException;
import io.fairslice.middleware.FairsliceFilter;
import io.fairslice.middleware.FairsliceInitializer;
import io.fairslice.middleware.spi.RequestListener;
import io.fairslice.middleware.config.ConfigKeys;
import io.fairslice.middleware.config.ConfigSources;
import io.fairslice.middleware.internal.GuardedListeners;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.DispatcherType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.logging.Logger;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnNotWarDeployment;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletContextInitializer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.task.TaskDecorator;

/**
 * fairslice in a Spring Boot application's embedded Tomcat. Boot does not run the servlet container initializers of
 * the jars on its class path (the middleware's {@link FairsliceInitializer} registers the filter in a WAR), so this
 * registers {@link FairsliceFilter} the way that initializer does: on {@code /*}, first, for REQUEST and ASYNC
 * dispatches, async supported. Its settings are the application's {@code fairslice.*} properties
 * ({@code application.properties} or {@code .yml}, profiles, {@code --fairslice.policy=observe} on the command line,
 * system properties), passed to the filter as init parameters; a bad key or value stops the application's startup
 * with a message naming it and the property source that set it. A {@code -Dfairslice.<key>} system property wins over
 * every other source, the command line's too, as the filter merges its sources. In a WAR deployed to a standalone
 * Tomcat it does nothing: there the jar's servlet container initializer registers the filter, and
 * {@link FairsliceWarAutoConfiguration} hands it the application's properties. Its meters go to the
 * application's {@link MeterRegistry} when it has one (Actuator's, which {@code /actuator/prometheus} exports), or
 * several of which one is primary, else to Micrometer's global registry (logged when it has several, none primary).
 * Work handed to the application's task executor (a controller's {@code Callable}, {@code @Async}) counts as its
 * request's ({@link #fairsliceTasks}). {@code fairslice.enabled=false} registers nothing.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnNotWarDeployment // a WAR: the jar's initializer registers the filter (FairsliceWarAutoConfiguration)
@Conditional(FairsliceAutoConfiguration.Enabled.class)
public class FairsliceAutoConfiguration {

    private static final Logger LOG = Logger.getLogger(FairsliceAutoConfiguration.class.getName());

    /**
     * The filter registration's bean name. An application that declares a bean of this name, a {@code FairsliceFilter}
     * bean or a {@code FilterRegistrationBean} of any name and declared type holding a {@code FairsliceFilter}
     * replaces it: with a registration of its
     * own under another name, two filters ran, the second passing every request on, each with its scheduler, meters
     * and MBean, and, ours ordered first, the application's own registration and its parameters went unused.
     */
    public static final String FILTER_BEAN = "fairsliceFilter";
    /** The name of fairslice's {@code TaskDecorator} bean. */
    public static final String TASKS_BEAN = "fairsliceTasks";
    private static final String PREFIX = ConfigKeys.PREFIX;
    /** Read by the filter from a system property or a context parameter, never from its init parameters. */
    private static final String CONFIG_FILE = ConfigKeys.CONFIG_FILE_PROPERTY;

    @Bean(name = FILTER_BEAN)
    @ConditionalOnMissingBean(name = FILTER_BEAN, value = FairsliceFilter.class,
            parameterizedContainer = FilterRegistrationBean.class)
    public FilterRegistrationBean<FairsliceFilter> fairsliceFilter(ConfigurableEnvironment environment,
                                                                   ListableBeanFactory beans) {
        FilterRegistrationBean<FairsliceFilter> registration = new FilterRegistrationBean<>(new FairsliceFilter());
        List<String> own = applicationsRegistrations(beans);
        if (!own.isEmpty()) {
            // typed FilterRegistrationBean<Filter> (or raw), the application's registration escapes the condition
            // above, which matches declared types: two filters ran, each with its scheduler, meters and MBean
            registration.setEnabled(false);
            LOG.info(() -> "fairslice: the application registers fairslice's filter itself (" + String.join(", ", own)
                    + "), so fairslice's own registration stands down");
            return registration;
        }
        registration.setName(FairsliceInitializer.FILTER_NAME);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        registration.setAsyncSupported(true);
        registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
        registration.addUrlPatterns("/*");
        Map<String, String> settings = settings(environment);
        settings.remove(CONFIG_FILE);
        validate(environment, settings);
        registration.setInitParameters(settings);
        return registration;
    }

    /**
     * The names of the application's filter registrations that hold a {@link FairsliceFilter}, whatever their declared
     * type; fairslice's own, being created, left out.
     */
    private static List<String> applicationsRegistrations(ListableBeanFactory beans) {
        List<String> own = new ArrayList<>();
        for (String name : beans.getBeanNamesForType(FilterRegistrationBean.class, true, false)) {
            if (!name.equals(FILTER_BEAN) && beans.getBean(name) instanceof FilterRegistrationBean<?> registration
                    && registration.getFilter() instanceof FairsliceFilter) {
                own.add(name);
            }
        }
        return own;
    }

    /**
     * Checks the settings as the filter will merge them (a {@code fairslice.properties} file first, these, system
     * properties last), the request listeners' ({@code kernel-probe.*}) by their own rules too, so that a bad key or
     * value stops the application's startup with a message that names it and the property source that set it. The
     * filter checks again as it starts; a failure there would only say that Tomcat failed to start, the reason in the
     * log above it. What only a listener's start can find (that this platform cannot apply a setting) stays there.
     */
    static void validate(ConfigurableEnvironment environment, Map<String, String> settings) {
        ClassLoader loader = FairsliceAutoConfiguration.class.getClassLoader();
        // Boot's server.servlet.context-parameters reach the filter as context parameters: checked here too (until
        // 2026-12-07 a typo there failed only as Tomcat started)
        Map<String, String> contextParams = new LinkedHashMap<>();
        Binder.get(environment).bind(CONTEXT_PARAMETERS, Bindable.mapOf(String.class, String.class))
                .orElse(Map.of()).forEach((name, value) -> {
                    if (name.startsWith(PREFIX)) {
                        contextParams.put(name, value);
                    }
                });
        String file = configFile(environment);
        if (file != null) {
            contextParams.put(CONFIG_FILE, file);
        }
        validate(environment, settings, ConfigSources.FILTER_PARAMETER_ORIGIN, file, loader,
                () -> ConfigSources.merge(contextParams::get, List.copyOf(contextParams.keySet()), settings,
                        name -> null, loader, System.getProperties()));
    }

    /** Boot's context parameters of the embedded server's servlet context. */
    private static final String CONTEXT_PARAMETERS = "server.servlet.context-parameters";

    /**
     * Checks the sources as {@code merge} merges them, where {@code settings} are the environment's properties that
     * the filter reads as parameters of {@code origin} ({@link ConfigSources#FILTER_PARAMETER_ORIGIN}; in a WAR
     * {@link ConfigSources#CONTEXT_PARAMETER_ORIGIN}), and {@code file} is the environment's {@code fairslice.config}
     * that it reads as a context parameter (null: none, or a WAR's context has its own): a bad value one of them gives
     * is blamed on the property source that set it, not on the parameter.
     */
    static void validate(ConfigurableEnvironment environment, Map<String, String> settings, String origin,
                         String file, ClassLoader loader, Supplier<ConfigSources.Merged> merge) {
        ConfigSources.Merged merged = null;
        FairsliceConfig config = null;
        try {
            List<RequestListener> listeners = GuardedListeners.discover(loader);
            merged = merge.get();
            config = FairsliceConfig.parse(merged.keys(), GuardedListeners.declaredSettings(listeners));
            GuardedListeners.check(listeners, config);
        } catch (IllegalArgumentException e) {
            String where = null;
            String key = e instanceof FairsliceConfigException c ? c.key()
                    : config == null ? null : GuardedListeners.settingNamedIn(config, e.getMessage());
            if (key != null && merged != null) {
                where = merged.originOf(key);
                String property = PREFIX + key;
                // the parameters are the environment's: name the property source that set the value, unless the
                // value is another source's (a -D system property, which the filter reads last)
                if (settings.containsKey(property) && (origin + property).equals(where)) {
                    where = "by " + property + " in " + sourceOf(environment, property);
                }
            } else if (e instanceof FairsliceConfigException c && c.origin() != null) {
                // the file, read before anything is merged, as the refusal says it was named; the context parameter
                // the environment gave named by its property source (a WAR's context's own, which wins, was named
                // by Boot's source of it, servletContextInitParams, where any other key's own is a context parameter)
                where = (ConfigSources.CONTEXT_PARAMETER_ORIGIN + CONFIG_FILE).equals(c.origin())
                        && c.value().equals(file) ? "by " + CONFIG_FILE + " in " + sourceOf(environment, CONFIG_FILE)
                        : c.origin();
            }
            throw new IllegalStateException(e.getMessage() + (where == null ? "" : " (set " + where + ")")
                    + indexHint(key), e);
        }
    }

    /** The name of the property source that gave {@code name} its value ({@link #setting}). */
    private static String sourceOf(ConfigurableEnvironment environment, String name) {
        Setting setting = setting(environment, name);
        return setting == null ? "the environment" : setting.source();
    }

    /** The properties file to read first, {@code fairslice.config}, or null. */
    private static String configFile(ConfigurableEnvironment environment) {
        Setting setting = setting(environment, CONFIG_FILE);
        return setting == null ? null : setting.value();
    }

    /**
     * Work that a request hands to the application's task executor, as a {@link Fairslice#task} of that request: Boot
     * applies the {@code TaskDecorator} beans to the executor it builds ({@code applicationTaskExecutor}), which
     * Spring MVC runs a controller's {@code Callable} on and {@code @Async} methods use; several are composed, so an
     * application's own (a tracing context's, say) and this one both apply. Without it fairslice sees only the
     * microseconds of the dispatch that started the work: the page is learnt light and its class is charged next to
     * nothing, whatever the work costs. A bean of this name of the application's own replaces it.
     */
    @Bean(name = TASKS_BEAN)
    @ConditionalOnMissingBean(name = TASKS_BEAN)
    public TaskDecorator fairsliceTasks() {
        return Fairslice::task;
    }

    /**
     * Says so when Boot builds no task executor ({@code applicationTaskExecutor}), because the application defines an
     * executor of its own: the decorator then reaches nothing, and that executor's work is not counted as the
     * requests' unless the application wraps it ({@link Fairslice#executor}).
     */
    @Bean
    public SmartInitializingSingleton fairsliceTasksCheck(ListableBeanFactory beans) {
        String boots = TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME;
        return () -> {
            String conflict = decoratorConflict(org.springframework.boot.SpringBootVersion.getVersion(),
                    List.of(beans.getBeanNamesForType(TaskDecorator.class)));
            if (conflict != null) {
                LOG.warning(conflict);
            }
            if (!beans.containsBean(boots)) {
                LOG.info(() -> "fairslice: Boot's task executor (" + boots + ") is not in use,"
                        + " so work that requests hand to the application's own executor (a Callable, @Async) is"
                        + " not counted as theirs unless that executor is wrapped with Fairslice.executor(...)"
                        + " (docs/user-guide.md, \"Spring Boot\")");
            }
        };
    }

    /** Major and minor of Spring Boot's version ({@code 3.4.2}). */
    private static final Pattern BOOT_VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\..*");

    /**
     * What to say when Boot applies no task decorator at all: before 3.5 it applies one only when it is the only
     * {@code TaskDecorator} bean (spring-boot#45295), so fairslice's beside the application's own turned both off,
     * without a word. Null when Boot composes them (3.5 and later, or a version it cannot tell) or there is one.
     */
    static String decoratorConflict(String bootVersion, List<String> decorators) {
        Matcher version = bootVersion == null ? null : BOOT_VERSION.matcher(bootVersion);
        if (decorators.size() < 2 || version == null || !version.matches()) {
            return null;
        }
        int major = Integer.parseInt(version.group(1));
        if (major > 3 || major == 3 && Integer.parseInt(version.group(2)) >= 5) {
            return null;
        }
        return "fairslice: Spring Boot " + bootVersion + " applies a TaskDecorator to its task executor only when"
                + " there is one, and there are " + decorators + ", so it applies none: neither the application's"
                + " nor fairslice's (work handed to the executor is not counted as its request's). Use Boot 3.5 or"
                + " later, which composes them, or replace your TaskDecorator bean by one named " + TASKS_BEAN
                + " that applies both (runnable -> Fairslice.task(yours.decorate(runnable)))";
    }

    /**
     * Before the filter starts: the application's meter registry for its meters, and {@code fairslice.config} (a
     * properties file to read first) where the filter looks for it.
     */
    @Bean
    public ServletContextInitializer fairsliceContext(ObjectProvider<MeterRegistry> registries,
                                                      ConfigurableEnvironment environment) {
        return context -> {
            MeterRegistry registry = registries.getIfUnique();
            if (registry != null) {
                context.setAttribute(FairsliceFilter.METER_REGISTRY_ATTRIBUTE, registry);
            } else {
                long count = registries.stream().count();
                if (count > 1) { // several, none primary (with none at all the global registry is expected)
                    LOG.warning(() -> "fairslice: the application has " + count + " MeterRegistry beans and none is"
                            + " @Primary, so fairslice's meters go to Micrometer's global registry"
                            + " (Metrics.globalRegistry), not to any of them; mark the one to use @Primary"
                            + " (docs/user-guide.md, \"Spring Boot\")");
                }
            }
            String file = configFile(environment);
            if (file != null) {
                context.setInitParameter(CONFIG_FILE, file);
            }
        };
    }

    /**
     * Every {@code fairslice.*} property the environment lists, by the name it was written with (not folded by Boot's
     * relaxed binding, which would also turn a rule's number or a listener's setting into map keys of its own, and
     * take {@code class.batch-jobs.share} for {@code class.batchjobs.share}), with the value of the first property
     * source, in Boot's order of precedence, that gives it a value that is not blank (placeholders resolved; an
     * environment variable such as {@code FAIRSLICE_POLICY} too, {@link #variableKeys}): a blank value sets nothing,
     * as in the filter's own sources, so {@code -Dfairslice.policy=$POLICY} with {@code POLICY} unset leaves
     * {@code fairslice.policy=observe} of {@code application.properties}. Names whose every value is blank are left
     * out. One property source that lists both {@code fairslice.rule.1} and {@code fairslice.rule[1]} is refused
     * ({@link #twoSpellings}).
     */
    static Map<String, String> settings(ConfigurableEnvironment environment) {
        Map<String, String> settings = new TreeMap<>();
        Set<String> seen = new HashSet<>();
        // about a hundred names are looked up: the environment variables' relaxed views are found once for them all
        Map<PropertySource<?>, ConfigurationPropertySource> views = relaxedViews(environment);
        Consumer<String> read = name -> {
            if (seen.add(name)) {
                Setting setting = setting(environment, name, views);
                if (setting != null) {
                    settings.put(name, setting.value());
                }
            }
        };
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (source instanceof EnumerablePropertySource<?> enumerable) {
                for (String name : enumerable.getPropertyNames()) {
                    String key = numberedKey(name);
                    if (!key.equals(name) && enumerable.containsProperty(key)) {
                        throw new IllegalArgumentException(twoSpellings(key, name, enumerable));
                    }
                    if (key.startsWith(PREFIX)) {
                        read.accept(key);
                    }
                }
            }
        }
        Map<String, Set<String>> listenerSettings = listenerSettings();
        variableKeys(environment, listenerSettings).forEach(read);
        // the per-class keys of the classes now known (FAIRSLICE_CLASSES may have named them)
        classKeys(settings.getOrDefault(PREFIX + ConfigKeys.CLASSES, DEFAULT_CLASSES), listenerSettings).forEach(read);
        return settings;
    }

    private static final String DEFAULT_CLASSES = ConfigKeys.ALL.stream()
            .filter(spec -> spec.name().equals(ConfigKeys.CLASSES)).findFirst().orElseThrow().defaultValue();
    /** {@code FAIRSLICE_RULE_1}, or with the application's environment prefix, {@code MYAPP_FAIRSLICE_RULE_1}. */
    private static final Pattern NUMBERED_VARIABLE =
            Pattern.compile("(?:[A-Z0-9]+_)*FAIRSLICE_(RULE|ROUTE)_([0-9]+)", Pattern.CASE_INSENSITIVE);
    /** Boot's name for a number key under {@code rule:} or {@code route:} in YAML ({@code 1: ...}): an index. */
    private static final Pattern INDEXED_NUMBERED = Pattern.compile("(" + Pattern.quote(PREFIX)
            + "(?:" + Pattern.quote(ConfigKeys.RULE_PREFIX) + "|" + Pattern.quote(ConfigKeys.ROUTE_PREFIX)
            + "))([1-9][0-9]*)");

    /**
     * {@code name} as fairslice's key: {@code fairslice.rule[1]} is {@code fairslice.rule.1}. YAML's natural way to
     * write a rule, {@code 1: heavy path=/reports/**} under {@code rule:}, reaches Boot as {@code fairslice.rule[1]}
     * (its name for a list item or a number key, which its own binding takes for {@code rule.1}); it stopped the
     * application as no key of fairslice's. Other indexed names are left as they are, refused with a hint
     * ({@link #indexHint}): a YAML list's ({@code classes[0]}; {@code rule[0]}, the first of a list of rules).
     */
    static String numberedKey(String name) {
        int open = name.indexOf('[');
        if (open < 0 || !name.endsWith("]")) {
            return name;
        }
        String dotted = name.substring(0, open) + "." + name.substring(open + 1, name.length() - 1);
        return INDEXED_NUMBERED.matcher(dotted).matches() ? dotted : name;
    }

    /**
     * The message refusing a property source that sets one rule or route by both its names ({@code fairslice.rule.1}
     * and Boot's {@code fairslice.rule[1]}: both spellings in one file, or a flat key beside YAML's number key),
     * whatever the values: the source answers for one of them, and the other went unused without a word. Across
     * sources Boot's order of precedence decides, as for any key ({@link #setting}).
     */
    private static String twoSpellings(String key, String indexed, PropertySource<?> source) {
        int open = indexed.indexOf('[');
        return "fairslice: " + key + " and " + indexed + " are both set in " + source.getName() + " ('"
                + source.getProperty(key) + "' and '" + source.getProperty(indexed) + "'), two names of one key, "
                + key.substring(PREFIX.length()) + ": keep one (" + indexed + " is how Spring Boot names YAML's "
                + indexed.substring(open + 1, indexed.length() - 1) + ": under "
                + indexed.substring(PREFIX.length(), open) + ":)";
    }

    /** The indexed name Boot gives {@code key} ({@code fairslice.rule[1]} for {@code fairslice.rule.1}), or null. */
    private static String indexedName(String key) {
        Matcher m = INDEXED_NUMBERED.matcher(key);
        return m.matches() ? m.group(1).substring(0, m.group(1).length() - 1) + "[" + m.group(2) + "]" : null;
    }

    /**
     * What to add to the message for a key Boot wrote with an index ({@code classes[0]}, a YAML list's first item):
     * fairslice takes lists comma-separated, and the message alone said only that it is not a key.
     */
    static String indexHint(String key) {
        int open = key == null ? -1 : key.indexOf('[');
        if (open < 0) {
            return "";
        }
        String base = key.substring(0, open);
        boolean numbered = (base + ".").equals(ConfigKeys.RULE_PREFIX) || (base + ".").equals(ConfigKeys.ROUTE_PREFIX);
        return "; " + PREFIX + key + " is how Spring Boot names an item of a YAML list (or a number key): "
                + (numbered ? "write each " + base + " under its number, 1 and up (" + PREFIX + base + ".1: ...), not"
                        + " as a YAML list"
                        : "write " + PREFIX + base + " as one value, a list comma-separated (" + PREFIX
                                + "classes: interactive,reports)");
    }

    /**
     * The keys, with the prefix, that an environment variable may set without another source naming them: Boot lists a
     * variable only by its own name, {@code FAIRSLICE_SHARE_QUANTUM}, which could be {@code share.quantum} or
     * {@code share-quantum}, so the variables are looked up by the names fairslice knows: every key of
     * {@link ConfigKeys#ALL}, {@code enabled} included (a value that is not a boolean is then refused as the filter
     * refuses it; left out until 2026-12-07, {@code FAIRSLICE_ENABLED=no} left fairslice on without a word), and
     * {@code fairslice.config} (a WAR lost it), the request listeners' settings, and {@code rule.<n>} and
     * {@code route.<n>} for each {@code FAIRSLICE_RULE_<n>} or {@code FAIRSLICE_ROUTE_<n>}; the per-class ones,
     * {@link #classKeys}, for the classes these settle. A misspelt variable matches no key and sets nothing (it may be
     * another program's: the launcher's {@code FAIRSLICE_JAVA_OPTS}), and so does one for a class that only a
     * {@code fairslice.properties} file names.
     */
    static List<String> variableKeys(ConfigurableEnvironment environment, Map<String, Set<String>> listenerSettings) {
        List<String> keys = new ArrayList<>();
        for (ConfigKeys.Spec spec : ConfigKeys.ALL) {
            if (!spec.name().contains("<")) {
                keys.add(PREFIX + spec.name());
            }
        }
        keys.add(CONFIG_FILE); // a WAR hands it on as a context parameter; embedded, configFile reads it
        listenerSettings.forEach((listener, names) -> names.stream().filter(n -> !n.contains("*"))
                .forEach(n -> keys.add(PREFIX + listener + "." + n)));
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (source instanceof SystemEnvironmentPropertySource variables) {
                for (String name : variables.getPropertyNames()) {
                    Matcher m = NUMBERED_VARIABLE.matcher(name);
                    if (m.matches()) {
                        keys.add(PREFIX + m.group(1).toLowerCase(Locale.ROOT) + "." + m.group(2));
                    }
                }
            }
        }
        return keys;
    }

    /**
     * The per-class keys of the classes a {@code classes} value names: {@code class.<class>.share} and the others, and
     * the listeners' settings that end in a class ({@code kernel-probe.nice.<class>}, declared {@code nice.*}).
     */
    static List<String> classKeys(String classes, Map<String, Set<String>> listenerSettings) {
        List<String> keys = new ArrayList<>();
        for (String name : classes.split(",")) {
            String cls = name.trim();
            if (cls.isEmpty()) {
                continue; // the validation names it
            }
            for (ConfigKeys.Spec spec : ConfigKeys.ALL) {
                if (spec.name().startsWith(ConfigKeys.CLASS_PREFIX + "<class>.")) {
                    keys.add(PREFIX + spec.name().replace("<class>", cls));
                }
            }
            listenerSettings.forEach((listener, names) -> names.stream().filter(n -> n.endsWith(".*"))
                    .forEach(n -> keys.add(PREFIX + listener + "." + n.substring(0, n.length() - 1) + cls)));
        }
        return keys;
    }

    /**
     * The request listeners' declared settings by listener ({@code nice.*}: one per class); none when two listeners
     * share a name (the validation says so).
     */
    static Map<String, Set<String>> listenerSettings() {
        try {
            return GuardedListeners.declaredSettings(GuardedListeners.discover(
                    FairsliceAutoConfiguration.class.getClassLoader()));
        } catch (IllegalArgumentException e) {
            return Map.of(); // two listeners of one name: the validation says so
        }
    }

    /**
     * Boot's relaxed view of {@code source} as the application's binding sees it: with the application's environment
     * prefix ({@code SpringApplication.setEnvironmentPrefix("myapp")}: {@code MYAPP_FAIRSLICE_POLICY}), which
     * {@code ConfigurationPropertySource.from} leaves out (until 2026-12-07 fairslice read none of the prefixed
     * variables, {@code MYAPP_FAIRSLICE_ENABLED=false} included).
     */
    private static ConfigurationPropertySource relaxedView(ConfigurableEnvironment environment,
                                                           PropertySource<?> source) {
        for (ConfigurationPropertySource view : ConfigurationPropertySources.get(environment)) {
            if (view.getUnderlyingSource() == source) {
                return view;
            }
        }
        return ConfigurationPropertySource.from(source);
    }

    /** The {@link #relaxedView} of each environment variables' source of {@code environment}, by identity. */
    private static Map<PropertySource<?>, ConfigurationPropertySource> relaxedViews(
            ConfigurableEnvironment environment) {
        Map<PropertySource<?>, ConfigurationPropertySource> views = new IdentityHashMap<>();
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (source instanceof SystemEnvironmentPropertySource) {
                views.put(source, relaxedView(environment, source));
            }
        }
        return views;
    }

    /** A setting's value and the name of the property source that gave it. */
    record Setting(String value, String source) {
    }

    /**
     * The first value of {@code name} that is not blank, walking the property sources in order of precedence, or
     * null. Each source is asked for the name as written; the environment variables by Boot's rules for them
     * ({@code FAIRSLICE_POLICY} for {@code fairslice.policy}, {@code FAIRSLICE_CLASS_BATCHJOBS_SHARE} or
     * {@code FAIRSLICE_CLASS_BATCH_JOBS_SHARE} for {@code fairslice.class.batch-jobs.share}).
     */
    static Setting setting(ConfigurableEnvironment environment, String name) {
        return setting(environment, name, relaxedViews(environment));
    }

    /** {@link #setting(ConfigurableEnvironment, String)}, the environment variables read through {@code views}. */
    private static Setting setting(ConfigurableEnvironment environment, String name,
                                   Map<PropertySource<?>, ConfigurationPropertySource> views) {
        ConfigurationPropertyName relaxed = ConfigurationPropertyName.ofIfValid(name);
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (ConfigurationPropertySources.isAttachedConfigurationPropertySource(source)) {
                continue; // Boot's relaxed view of all the others
            }
            Object raw;
            if (source instanceof SystemEnvironmentPropertySource && relaxed != null) {
                ConfigurationPropertySource variables = views.get(source);
                ConfigurationProperty property = variables == null ? null
                        : variables.getConfigurationProperty(relaxed);
                raw = property == null ? null : property.getValue();
            } else {
                raw = source.getProperty(name);
                String indexed = raw == null ? indexedName(name) : null;
                raw = indexed == null ? raw : source.getProperty(indexed);
            }
            if (raw == null) {
                continue;
            }
            String value = raw instanceof String text ? text
                    : environment.getConversionService().convert(raw, String.class);
            try {
                value = value == null ? null : environment.resolveRequiredPlaceholders(value);
            } catch (IllegalArgumentException e) { // Spring's message names the placeholder, not the property
                throw new IllegalArgumentException("fairslice: " + name + " (from " + source.getName() + "): "
                        + e.getMessage(), e);
            }
            if (value != null && !value.isBlank()) {
                return new Setting(value, source.getName());
            }
        }
        return null;
    }

    /**
     * {@code fairslice.enabled} read as the filter reads its settings: a {@code -D} system property that is not blank
     * first, then the first value that is not blank in Boot's sources ({@link #setting}). Anything but {@code false}
     * (in any case) registers fairslice, whose filter then refuses a value that is not a boolean. Boot's
     * {@code @ConditionalOnProperty} took the highest source's value, blank included: {@code -Dfairslice.enabled=}
     * over {@code application.properties}' {@code fairslice.enabled=false} registered the filter and its task
     * decorator.
     */
    static final class Enabled extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String name = PREFIX + ConfigKeys.ENABLED;
            ConfigSources.Named system = ConfigSources.systemProperty(name, System.getProperties());
            Setting setting = system != null ? new Setting(system.value(), "a system property")
                    : context.getEnvironment() instanceof ConfigurableEnvironment environment
                            ? setting(environment, name)
                            : null;
            if (setting != null && ConfigKeys.turnsOff(setting.value())) {
                return ConditionOutcome.noMatch(name + "=false (" + setting.source() + ")");
            }
            return ConditionOutcome.match(setting == null ? name + " not set"
                    : name + "=" + setting.value() + " (" + setting.source() + ")");
        }
    }
}
