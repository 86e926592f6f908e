package io.fairslice.middleware;

import io.fairslice.middleware.classify.RequestClassifier;
import io.fairslice.middleware.classify.Rule;
import io.fairslice.middleware.classify.Route;
import io.fairslice.middleware.classify.RoutePattern;
import io.fairslice.middleware.classify.RouteTable;
import io.fairslice.middleware.config.BootPropertyFiles;
import io.fairslice.middleware.config.ConfigKeys;
import io.fairslice.middleware.config.ConfigSources;
import io.fairslice.middleware.internal.ApplicationNames;
import io.fairslice.middleware.internal.GuardedListeners;
import io.fairslice.middleware.internal.Loggers;
import io.fairslice.middleware.internal.YieldGate;
import io.fairslice.middleware.jmx.FairsliceControl;
import io.fairslice.middleware.metrics.FairsliceMetrics;
import io.fairslice.middleware.metrics.MeterNames;
import io.fairslice.middleware.schedule.Clock;
import io.fairslice.middleware.schedule.CollectorPauses;
import io.fairslice.middleware.schedule.Scheduler;
import io.fairslice.middleware.schedule.Ticket;
import io.fairslice.middleware.spi.RequestListener;
import io.fairslice.middleware.weaving.WeavingMetrics;
import io.fairslice.middleware.weaving.WeavingScope;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.CodeSource;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.management.JMException;

/**
 * The middleware in a web application: wires configuration, classifier, scheduler, metrics, listeners and JMX
 * together, and per request does classify, admit (the request's first yield point), serve, complete. It decides
 * nothing itself. Registered by {@link FairsliceInitializer} or declared in web.xml (then with
 * {@code <async-supported>true</async-supported>} and the REQUEST and ASYNC dispatchers).
 */
public final class FairsliceFilter implements Filter {

    /** The request attribute that carries the request's ticket across async dispatches. */
    public static final String TICKET_ATTRIBUTE = FairsliceFilter.class.getName() + ".ticket";
    /**
     * The servlet context attribute the filter takes its Micrometer registry from, if set before it starts (an
     * embedded server's, Spring Boot's, the Tomcat bundle's); otherwise Micrometer's global registry (with a
     * warning when it holds something else, {@link #warnForeignRegistry}).
     */
    public static final String METER_REGISTRY_ATTRIBUTE = "io.fairslice.meterRegistry";
    /** The request attribute holding an async request's {@link Completion}. */
    private static final String COMPLETION_ATTRIBUTE = FairsliceFilter.class.getName() + ".completion";

    private static final Logger LOG = Loggers.of(FairsliceFilter.class);

    private Scheduler scheduler;
    private CollectorPauses collector;
    private RequestClassifier classifier;
    private FairsliceMetrics metrics;
    private WeavingMetrics weavingMetrics;
    private GuardedListeners listeners;
    private FairsliceControl control;
    /** The name claimed from {@link ApplicationNames} (null until claimed, or when disabled). */
    private String application;
    /** Whether a request without async support reached the filter and was said (once). */
    private final AtomicBoolean saidNoAsync = new AtomicBoolean();
    /** Whether a FORWARD of a request the filter never admitted came and was said (once). */
    private final AtomicBoolean saidUnadmittedForward = new AtomicBoolean();
    /** Whether an ASYNC dispatch of a request the filter never admitted came committed and was said (once). */
    private final AtomicBoolean saidCommittedAsync = new AtomicBoolean();

    @Override
    public void init(FilterConfig filterConfig) throws ServletException {
        ServletContext context = filterConfig.getServletContext();
        String path = ApplicationNames.ofContextPath(context.getContextPath());
        FairsliceConfig config;
        List<RequestListener> found;
        ConfigSources.Merged merged = null;
        try {
            found = GuardedListeners.discover(context.getClassLoader());
            Map<String, String> params = new LinkedHashMap<>();
            for (String n : Collections.list(filterConfig.getInitParameterNames())) {
                params.put(n, filterConfig.getInitParameter(n));
            }
            merged = ConfigSources.merge(context::getInitParameter, Collections.list(context.getInitParameterNames()),
                    params, context::getResourceAsStream, context.getClassLoader(), System.getProperties());
            config = FairsliceConfig.parse(merged.keys(), GuardedListeners.declaredSettings(found));
        } catch (IllegalArgumentException e) {
            String origin = null;
            if (e instanceof FairsliceConfigException c) {
                // a refusal of the file, read before anything is merged, says itself where the file was named
                origin = merged != null ? merged.originOf(c.key()) : c.origin();
            }
            throw notStarted(path, e.getMessage() + (origin == null ? "" : " (set " + origin + ")"), e);
        }
        if (!config.enabled()) {
            String origin = merged.originOf(ConfigKeys.ENABLED);
            LOG.info(() -> ApplicationNames.logPrefix(path) + "disabled (enabled=false"
                    + (origin == null ? "" : ", set " + origin) + "); requests pass through");
            return;
        }
        Object attribute = context.getAttribute(METER_REGISTRY_ATTRIBUTE);
        MeterRegistry registry = attribute instanceof MeterRegistry r ? r : Metrics.globalRegistry;
        // woven yield points: a misspelt weaving scope fails startup; an empty one is logged and shows as a gauge at 0
        WeavingScope weaving = WeavingScope.inspect(context.getClassLoader());
        try {
            weaving.requireValid();
        } catch (IllegalStateException e) {
            throw notStarted(path, e.getMessage(), e);
        }
        // the application tag of every meter and the JMX control's name: in a standalone Tomcat all selected
        // applications share one registry, so two running ones must not share a name (ApplicationNames)
        String host = hostOf(context);
        String application = ApplicationNames.claim(path, host, this,
                name -> !registry.find(MeterNames.REQUESTS_INFLIGHT).tag(MeterNames.TAG_APPLICATION, name).meters()
                        .isEmpty() || FairsliceControl.isRegistered(name));
        this.application = application;
        if (!application.equals(path)) {
            LOG.warning(() -> ApplicationNames.logPrefix(path) + "another running application (on another host, or a"
                    + " parallel deployment) has this name already; this one's meters and JMX control are named "
                    + application);
        }
        // every line from here names the application as its meters and the started line do: /shop#2 beside /shop
        String prefix = ApplicationNames.logPrefix(application);
        warnForeignRegistry(attribute, application);
        LOG.log(weaving.worthAWarning() ? Level.WARNING : Level.INFO, () -> prefix + weaving.summary());
        warnRules(config.rules(), path, application);
        warnContextPathRoutes(config, path, application);
        warnAdaptiveIntoDefault(config, application);
        String copy = secondCopy(context.getClassLoader());
        if (copy != null) {
            LOG.warning(() -> prefix + copy);
        }
        // here, as every deployment starts the filter (the bundle's initializer, the jar's in WEB-INF/lib, web.xml)
        String unread = BootPropertyFiles.unreadWarning(context.getClassLoader(), context::getResourcePaths,
                context::getResourceAsStream);
        if (unread != null) {
            LOG.warning(() -> prefix + unread);
        }
        String read = merged.file();
        for (String over : merged.passedOver()) { // one file only: the application's own settings would be lost unsaid
            LOG.warning(() -> prefix + over + " is not read: fairslice reads one configuration file, and " + read
                    + " comes first; move its settings there or into context parameters (docs/configuration.md)");
        }
        for (String typo : merged.misspelt()) { // not refused: other libraries' names are in these sources too
            LOG.warning(() -> prefix + typo + " is not read: only names that start with " + ConfigKeys.PREFIX
                    + " are (a misspelt prefix?); docs/configuration.md");
        }
        try {
            start(config, found, merged, context.getClassLoader(), registry, path, application);
        } catch (Throwable e) {
            // Tomcat calls no destroy() on a filter whose init failed: what started (the collectors' listener, the
            // scheduler, meters, the JMX control) and the name would stay, and a redeployment would be named path#2
            try {
                destroy();
            } catch (RuntimeException | Error stopping) {
                e.addSuppressed(stopping);
            }
            throw e;
        }
        String sources = merged.sources();
        LOG.info(() -> ApplicationNames.logPrefix(application) + "started (settings: " + sources + "), " + config);
    }

    /** The rest of {@link #init} once the application's name is claimed: every part that {@link #destroy} stops. */
    private void start(FairsliceConfig config, List<RequestListener> found, ConfigSources.Merged merged,
            ClassLoader loader, MeterRegistry registry, String path, String application) throws ServletException {
        Clock clock = Clock.system();
        scheduler = new Scheduler(config, clock, application);
        collector = CollectorPauses.watch(scheduler::collectorPaused);
        if (config.shareChargeGc() && !collector.watching()) {
            LOG.warning(() -> ApplicationNames.logPrefix(application) + "this JVM's collectors report no pauses; "
                    + "share.charge-gc charges nothing");
        }
        classifier = new RequestClassifier(config, clock::threadCpuNanos, application);
        try {
            weavingMetrics = new WeavingMetrics(application, loader);
            weavingMetrics.bindTo(registry);
            metrics = new FairsliceMetrics(registry, application, scheduler, classifier,
                    () -> scheduler.config().policy());
        } catch (RuntimeException e) {
            // a registry may refuse a meter (a strict one: Prometheus's, with a meter of that name but other tag keys)
            throw notStarted(path, "its meters could not be registered in " + registry.getClass().getSimpleName()
                    + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")", e);
        }
        try {
            listeners = GuardedListeners.start(found, config, registry, application);
        } catch (IllegalArgumentException e) {
            throw notStarted(path, e.getMessage() + listenerSettingOrigin(config, merged, e.getMessage()), e);
        } catch (RuntimeException e) { // GuardedListeners.start stopped what it started
            throw notStarted(path, "its request listeners' meters could not be registered in "
                    + registry.getClass().getSimpleName() + " (" + e.getClass().getSimpleName() + ": "
                    + e.getMessage() + ")", e);
        }
        scheduler.onTaskCpu((task, cpu) -> { // Fairslice.task: its CPU in its request's page meters, under its class
            // a new page's route is a candidate (page "other") until its first served request ends, which a task can
            // end before: its CPU then waits to be counted with the request's (finish)
            Ticket ticket = task.ofRequest();
            if (ticket.meterKey() instanceof Route route && (route.inTable() || !ticket.holdTaskCpu(cpu))
                    && ticket.meterKey() instanceof Route ended) {
                metrics.taskCpu(ended, task.classIndex(), cpu);
            }
        });
        if (listeners.size() > 0) {
            scheduler.onMove(listeners::move); // a request or task moved: its thread serves another class
            scheduler.onTaskThread(listeners::taskEnter, listeners::taskExit); // an executor's thread runs a task
        }
        if (config.jmx()) {
            // a change through JMX is said the same warnings as startup, for what it changed
            control = new FairsliceControl(scheduler, classifier, application,
                    (before, next) -> warnChange(before, next, path, application));
            try {
                control.register();
            } catch (JMException e) {
                LOG.log(Level.WARNING, ApplicationNames.logPrefix(application) + "JMX control not registered", e);
                control = null;
            }
        }
    }

    /**
     * Warns when the servlet context attribute {@link #METER_REGISTRY_ATTRIBUTE} holds something other than a
     * MeterRegistry of the Micrometer this filter sees (null: none set, the usual case): the filter then reports into
     * Micrometer's global registry. In a standalone Tomcat the bundle's Micrometer is relocated (docs/tomcat.md), so
     * an application's own registry is of another copy, and its meters would be missing from where it looks unsaid.
     */
    static void warnForeignRegistry(Object attribute, String application) {
        if (attribute == null || attribute instanceof MeterRegistry) {
            return;
        }
        String kind = otherMicrometer(attribute.getClass()) ? "a MeterRegistry of another copy of Micrometer"
                : "no MeterRegistry";
        LOG.warning(() -> ApplicationNames.logPrefix(application) + "the servlet context attribute "
                + METER_REGISTRY_ATTRIBUTE + " holds " + withLoader(attribute.getClass()) + ", " + kind
                + " (fairslice's is " + withLoader(MeterRegistry.class) + "), so it is ignored: fairslice's meters go"
                + " to Micrometer's global registry instead (docs/tomcat.md)");
    }

    /** Whether {@code type} or a superclass is a MeterRegistry of a Micrometer other than this filter's. */
    private static boolean otherMicrometer(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getSimpleName().equals(MeterRegistry.class.getSimpleName()) && c != MeterRegistry.class) {
                return true;
            }
        }
        return false;
    }

    /** A class's name and its class loader's, the one that tells two copies of a class apart. */
    private static String withLoader(Class<?> type) {
        ClassLoader loader = type.getClassLoader();
        String by = loader == null ? "the JVM's bootstrap class loader" : loader.getName() == null
                ? loader.getClass().getName() : loader.getClass().getName() + " '" + loader.getName() + "'";
        return type.getName() + " (loaded by " + by + ")";
    }

    /**
     * Says so when the application's class loader has a copy of the middleware of its own (a WAR that packs
     * fairslice-middleware or fairslice-spring-boot in WEB-INF/lib, deployed to a Tomcat with the installer's bundle):
     * its {@code Fairslice} calls and the yield points woven into it reach that copy, which knows no request, so they
     * do nothing; null when the application sees this filter's own classes.
     */
    static String secondCopy(ClassLoader application) {
        Class<?> seen;
        try {
            seen = Class.forName(Fairslice.class.getName(), false, application);
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            return null; // it does not call fairslice, so no call of its goes astray
        }
        if (seen == Fairslice.class) {
            return null;
        }
        CodeSource source = seen.getProtectionDomain().getCodeSource();
        return "the application has a copy of fairslice of its own (" + (source == null ? "its class loader's"
                : source.getLocation()) + "), so its Fairslice calls and woven yield points reach"
                + " that copy, not this filter, and do nothing; mark fairslice-middleware (and fairslice-spring-boot)"
                + " provided in the application's build";
    }

    /**
     * Warns of rules that match no request their author meant. A path glob that starts with the application's own
     * context path: rules see the path inside the application ({@code /export/**} of {@code /shop/export/1}), so
     * {@code path=/shop/export/**} matches only {@code /shop/shop/export/...}, which is seldom what was meant. Method
     * names that no HTTP registry knows ({@link Rule#unknownMethods}): most likely typos. Not errors, as such paths
     * and methods can exist. The lines name {@code application}.
     */
    static void warnRules(List<Rule> rules, String contextPath, String application) {
        for (Rule rule : rules) {
            String glob = rule.pathGlob();
            String inside = contextPath.equals("/") ? null : insideContextPath(glob, contextPath);
            if (inside != null) {
                LOG.warning(() -> ApplicationNames.logPrefix(application) + rule + ": path=" + glob + " starts with"
                        + " this application's context path " + contextPath + ", but rules match the path inside the"
                        + " application, so it matches " + contextPath + glob + " only; did you mean path=" + inside
                        + "?");
            }
            SortedSet<String> unknown = rule.unknownMethods();
            if (!unknown.isEmpty()) {
                LOG.warning(() -> ApplicationNames.logPrefix(application) + rule + ": method "
                        + String.join(", ", unknown)
                        + (unknown.size() == 1 ? " is" : " are") + " no HTTP method this filter knows, so the rule"
                        + " matches no request of " + (unknown.size() == 1 ? "it" : "them") + " unless the"
                        + " application serves such a method; a typo of GET, POST, PUT, DELETE or PATCH?");
            }
        }
    }

    /**
     * Warns of a {@code route.<n>} glob that starts with the application's context path, as {@link #warnRules}:
     * {@code route.1=/shop/products/*} names no page, and each product becomes a route of its own, filling
     * {@code routes.max}. The lines name {@code application}.
     */
    static void warnContextPathRoutes(FairsliceConfig config, String contextPath, String application) {
        if (contextPath.equals("/")) {
            return;
        }
        for (RoutePattern route : config.routePatterns()) {
            String glob = route.glob();
            String inside = insideContextPath(glob, contextPath);
            if (inside != null) {
                LOG.warning(() -> ApplicationNames.logPrefix(application) + route + " starts with this application's"
                        + " context path " + contextPath + ", but routes match the path inside the application, so"
                        + " it matches " + contextPath + glob + " only; did you mean route." + route.order() + "="
                        + inside + "?");
            }
        }
    }

    /**
     * The startup warnings (above) for what a change through JMX brought: its new or rewritten rules, and an adaptive
     * class that became the default class. Routes cannot change at runtime. The lines name the application as the
     * JMX control's do (its context path, unless another running application had that name).
     */
    static void warnChange(FairsliceConfig before, FairsliceConfig next, String contextPath, String application) {
        Set<String> kept = new HashSet<>();
        for (Rule rule : before.rules()) {
            kept.add(rule.toString());
        }
        warnRules(next.rules().stream().filter(r -> !kept.contains(r.toString())).toList(), contextPath,
                application);
        if (!adaptiveIntoDefault(before)) {
            warnAdaptiveIntoDefault(next, application);
        }
    }

    /** The glob without the context path it starts with ({@code /} for the context path alone), else null. */
    private static String insideContextPath(String glob, String contextPath) {
        if (glob == null || !(glob.equals(contextPath) || glob.startsWith(contextPath + "/"))) {
            return null;
        }
        return glob.length() == contextPath.length() ? "/" : glob.substring(contextPath.length());
    }

    /**
     * Warns when the adaptive mode would move expensive pages into the class every other page is in already
     * ({@code classes=interactive,batch} with {@code default-class=batch}): it measures them and moves none. Not an
     * error: a single class is that way by default, and the adaptive mode still feeds the page meters. The line names
     * {@code application}.
     */
    static void warnAdaptiveIntoDefault(FairsliceConfig config, String application) {
        if (adaptiveIntoDefault(config)) {
            String name = config.classes().get(config.defaultClass()).name();
            LOG.warning(() -> ApplicationNames.logPrefix(application) + "adaptive.class and default-class are both '"
                    + name + "', so the adaptive mode moves no page: set adaptive.class to the class expensive pages"
                    + " go to, or adaptive=false");
        }
    }

    private static boolean adaptiveIntoDefault(FairsliceConfig config) {
        return config.adaptive() && config.classes().size() > 1 && config.adaptiveClass() == config.defaultClass();
    }

    /** The context's host ("Catalina/localhost": localhost), or "" where the container does not say. */
    private static String hostOf(ServletContext context) {
        String virtualServer;
        try {
            virtualServer = context.getVirtualServerName();
        } catch (UnsupportedOperationException e) {
            return "";
        }
        return virtualServer == null ? "" : virtualServer.substring(virtualServer.lastIndexOf('/') + 1);
    }

    /**
     * Where the listener setting that a listener's start refused was set, as " (set in ...)" for its message, which
     * names the setting (the {@link RequestListener#start} contract): the longest listener key the message names.
     */
    private static String listenerSettingOrigin(FairsliceConfig config, ConfigSources.Merged merged, String message) {
        String named = GuardedListeners.settingNamedIn(config, message);
        String origin = named == null ? null : merged.originOf(named);
        return origin == null ? "" : " (set " + origin + ")";
    }

    /**
     * The failure that stops the application's startup, logged first under fairslice's own logger: Tomcat puts a
     * filter's failure in the host's log (localhost.*.log) and says only "One or more Filters failed to start" in
     * catalina.out, where an operator looks first.
     */
    private static ServletException notStarted(String path, String message, Exception cause) {
        LOG.severe(() -> ApplicationNames.logPrefix(path) + "not started, so the application does not start: "
                + message);
        return new ServletException(message, cause);
    }

    /**
     * A filter declared in web.xml without {@code <async-supported>true</async-supported>} turns async off for the
     * rest of its chain: every servlet behind it that starts an async request (a Spring MVC {@code Callable}, a
     * {@code DeferredResult}, server-sent events) fails. Tomcat says that only as such a request fails.
     */
    private void sayNoAsync() {
        LOG.warning(() -> ApplicationNames.logPrefix(application) + "a request reached the fairslice filter without"
                + " async support: its web.xml declaration, or a filter before it, lacks <async-supported>true"
                + "</async-supported>, so a servlet that starts an async request fails (IllegalStateException);"
                + " declare it with that and the REQUEST and ASYNC dispatchers (docs/configuration.md)");
    }

    /**
     * Said once per {@code said}: a dispatch ({@code which}: "a FORWARD", "an ASYNC") of a request this filter never
     * admitted runs unscheduled and uncounted, {@code why}. A forward is expected for a login page or a denied page;
     * where a filter mapped before fairslice forwards every request (URL rewriting), nothing is scheduled or counted,
     * and this line is the only sign. An ASYNC dispatch whose response is committed cannot be answered 503.
     */
    private void sayUnadmitted(AtomicBoolean said, String which, HttpServletRequest request, String why) {
        if (said.get() || !said.compareAndSet(false, true)) {
            return;
        }
        // the client's path where a rewriting filter forwards it: a decoded %0A would start a forged log line
        String to = RouteTable.printable(request.getServletPath()
                + (request.getPathInfo() == null ? "" : request.getPathInfo()));
        LOG.info(() -> ApplicationNames.logPrefix(application) + which + " dispatch (to " + to + ") of a request"
                + " fairslice did not admit " + why + " (docs/configuration.md)");
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (scheduler == null || !(req instanceof HttpServletRequest request)
                || !(res instanceof HttpServletResponse response)) {
            chain.doFilter(req, res);
            return;
        }
        Object existing = request.getAttribute(TICKET_ATTRIBUTE);
        if (existing instanceof Ticket ticket) {
            if (request.getDispatcherType() == DispatcherType.ASYNC && ticket.scheduler() == scheduler
                    && !(request.getAttribute(COMPLETION_ATTRIBUTE) instanceof Completion c && c.done)) {
                serve(ticket, request, response, chain, null, null);
            } else {
                chain.doFilter(req, res); // forward/include/error inside a request already admitted
            }
            return;
        }
        DispatcherType type = request.getDispatcherType();
        if (type == DispatcherType.ERROR || type == DispatcherType.INCLUDE || type == DispatcherType.FORWARD) {
            // the ticket is set as the request is admitted and stays until the container recycles the request: this
            // filter never admitted it. Something before it answered it (an authenticator's 401, a filter's sendError
            // or forward to its login or denied page), its REQUEST dispatch is outside the filter's mapping, or its
            // admission failed (counted already). Admitted here, an error page, a fragment or a page the application
            // chose to answer with would count as a request of its own, and could be queued or replaced by a 503
            if (type == DispatcherType.FORWARD) {
                sayUnadmitted(saidUnadmittedForward, "a FORWARD", request, "runs unscheduled and uncounted (said once):"
                        + " a login or denied page is expected; if a filter mapped before fairslice forwards requests"
                        + " (URL rewriting), map fairslice before it");
            }
            chain.doFilter(req, res);
            return;
        }
        if (type == DispatcherType.ASYNC && response.isCommitted()) {
            // the page that started the async cycle, outside the filter's mapping, has sent part of its answer: a 503
            // would no longer reach the client (its text would end the page, under the status sent), yet count as a
            // rejection. It goes on as it began, unscheduled
            sayUnadmitted(saidCommittedAsync, "an ASYNC", request, "came with its response committed, where a 503"
                    + " cannot be sent: it runs unscheduled and uncounted (said once); map fairslice over the page that"
                    + " starts the async cycle to schedule such requests");
            chain.doFilter(req, res);
            return;
        }
        if (!saidNoAsync.get() && !request.isAsyncSupported() && saidNoAsync.compareAndSet(false, true)) {
            sayNoAsync();
        }
        FairsliceConfig config = scheduler.config();
        long now = System.nanoTime();
        classifier.check(config, now); // new routes' running requests, at most every 10 ms
        String path = path(request);
        Route route = classifier.route(path, now);
        String method = request.getMethod();
        boolean teaches = RequestClassifier.teaches(method);
        // read before the class: a decision on the route after this reaches the request through its watch
        boolean learning = teaches && config.adaptive() && !route.decided();
        int ruled = classifier.ruleClass(config, path, method, request::getHeaders, request::getQueryString);
        int cls = ruled >= 0 ? ruled : classifier.routeClass(config, route);
        // a request that teaches the route nothing is measured on its own, not as the route's sample
        int cpuWeight = teaches ? route.cpuSample(now, config.cpuSampleInterval().toNanos()) : 1;
        Ticket ticket = scheduler.newTicket(cls, cpuWeight);
        scheduler.beginDispatch(ticket);
        // while its route learns: watched from here to its end, and moved to the class the route's first decision
        // gives, unless a rule gave it its class
        RequestClassifier.Watch watch = !learning ? null : classifier.watch(config, route, cls,
                ticket.dispatchStartCpuNanos(), now, ruled >= 0 ? null : c -> scheduler.reclassify(ticket, c));
        int admission;
        try {
            admission = scheduler.admit(ticket);
        } catch (RuntimeException | Error e) {
            failedWaiting(e, ticket, route, method, watch);
            throw e;
        }
        if (admission != Scheduler.ADMITTED) {
            classifier.unwatch(watch);
            scheduler.endDispatch(ticket);
            if (teaches) {
                route.cpuSampleRejected(cpuWeight, now, config.cpuSampleInterval().toNanos());
            }
            // an interrupt that cancelled the wait, or came as the wait ended otherwise (a timeout, the application
            // stopping): left set, it makes the container's NIO write of the 503 fail, and the client sees a
            // dropped connection instead of an answer
            Thread.interrupted();
            reject(ticket, classifier.end(route, method, HttpServletResponse.SC_SERVICE_UNAVAILABLE),
                    admission == Scheduler.REJECTED_STOPPED, response);
            return;
        }
        request.setAttribute(TICKET_ATTRIBUTE, ticket);
        ticket.meterKey(route); // the page meters its tasks' CPU goes to (Fairslice.task)
        if (watch != null) {
            ticket.onDeclared(() -> classifier.unwatch(watch)); // Fairslice.classify: no longer its route's to move
        }
        try {
            scheduler.moveIfDue(ticket); // its route decided while it was being admitted: may wait in its new class
        } catch (RuntimeException | Error e) {
            failedWaiting(e, ticket, route, method, watch);
            throw e;
        }
        serve(ticket, request, response, chain, route, watch);
    }

    /**
     * The JVM failed in a wait before the request's dispatch (an {@code Error} out of a park: a StackOverflowError,
     * an OutOfMemoryError): the request fails, completed and counted (500), its permit given back; the caller throws
     * {@code e} on.
     */
    private void failedWaiting(Throwable e, Ticket ticket, Route route, String method, RequestClassifier.Watch watch) {
        try {
            classifier.unwatch(watch);
            scheduler.endDispatch(ticket);
            finish(ticket, route, method, HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
        } catch (RuntimeException | Error again) {
            e.addSuppressed(again);
        }
    }

    /**
     * One dispatch of an admitted request; {@code route} is null on async re-dispatches, {@code watch} null unless
     * its route learns. A request served in this one dispatch counts by its response's status, 500 if the dispatch
     * threw; but an {@link IOException} after the response was committed is the client gone mid-answer (a download
     * cut, a browser closed: Tomcat's ClientAbortException) and counts by the status it was sent, as in an async
     * cycle ({@link Completion#onError}) and in Tomcat's access log: the page was served until the client left.
     */
    private void serve(Ticket ticket, HttpServletRequest request, HttpServletResponse response, FilterChain chain,
                       Route route, RequestClassifier.Watch watch) throws IOException, ServletException {
        if (route == null) {
            scheduler.beginDispatch(ticket);
        }
        YieldGate.enter(ticket);
        boolean failed = true;
        boolean clientGone = false;
        try {
            listeners.enter(ticket.className());
            chain.doFilter(request, response);
            failed = false;
        } catch (IOException e) {
            // after the commit: the client gone mid-answer (Tomcat's ClientAbortException), as the async rule has it
            clientGone = response.isCommitted();
            throw e;
        } finally {
            boolean async = false;
            try {
                async = request.isAsyncStarted();
                if (async) {
                    // its thread no longer serves it, but it follows its route's class to its end (its tasks start in
                    // the class it has then)
                    classifier.detach(watch);
                } else {
                    classifier.unwatch(watch);
                }
                listeners.exit(ticket.className()); // its class now: it may have moved (Scheduler.onMove)
            } finally { // even when the JVM fails in a listener: the request's permit and slot, and its count
                YieldGate.exit();
                scheduler.endDispatch(ticket);
                if (async) {
                    scheduler.detach(ticket); // no thread runs it while it waits: its run slot goes to others
                }
                if (route != null) {
                    if (async) {
                        Completion completion = new Completion(ticket, route, request.getMethod(), watch);
                        if (failed) {
                            completion.failedDispatchStatus = clientGone ? response.getStatus() : 500;
                        }
                        request.setAttribute(COMPLETION_ATTRIBUTE, completion);
                        request.getAsyncContext().addListener(completion);
                    } else {
                        finish(ticket, route, request.getMethod(),
                                failed && !clientGone ? 500 : response.getStatus());
                    }
                } else if (async && failed && request.getAttribute(COMPLETION_ATTRIBUTE) instanceof Completion c) {
                    c.failedDispatchStatus = clientGone ? response.getStatus() : 500;
                }
            }
        }
    }

    /**
     * Completes the request; its CPU time, where measured (a sample), teaches the classifier and feeds the meters of
     * its route as it ended (a new page's route joins the table as its first served request ends).
     */
    private void finish(Ticket ticket, Route route, String method, int status) {
        long cpu = ticket.cpuNanos();
        scheduler.complete(ticket);
        FairsliceConfig config = scheduler.config();
        // a failure's cost with its tasks' CPU, of those that have ended: a new page whose task did the work and then
        // failed joins the table as one that fails after its own work does
        long now = System.nanoTime(); // the request's end: its route's last use and its latency
        Route ended = classifier.end(config, route, method, status, cpu < 0 ? cpu : cpu + ticket.taskCpuNanos(),
                now);
        if (cpu >= 0 && RequestClassifier.teaches(method) && !ticket.declared()) {
            // with its tasks' CPU (Fairslice.task): once those still running have ended, since a task's last line
            // is often the one that completes the request (complete(), or the future a request thread joins); and
            // neither a cheap failure (a 404 of a report that does not exist) nor an OPTIONS teaches what the page
            // costs, a failure judged with its tasks' CPU (a page that fails after its task's work does teach)
            ticket.whenTasksEnd(() -> {
                long withTasks = cpu + ticket.taskCpuNanos();
                if (RequestClassifier.teaches(config, method, status, withTasks)) {
                    classifier.learn(config, ended, withTasks);
                }
            });
        }
        ticket.meterKey(ended); // where the CPU of its tasks that end from now on goes
        long tasksCpu = ticket.meteredWithTaskCpu(); // of those that ended before, while its page was not known
        metrics.request(ended, ticket.classIndex(), FairsliceMetrics.outcomeOf(status), now - ticket.startNanos(),
                (cpu < 0 ? 0 : cpu * ticket.cpuWeight()) + tasksCpu);
    }

    /** Answers 503; {@code route} is the one the request ended on ({@link RequestClassifier#end}). */
    private void reject(Ticket ticket, Route route, boolean stopped, HttpServletResponse response)
            throws IOException {
        long retryAfter = scheduler.retryAfterSeconds(ticket.classIndex());
        metrics.retryAfter(ticket.classIndex(), retryAfter);
        metrics.request(route, ticket.classIndex(), MeterNames.OUTCOMES.indexOf(MeterNames.OUTCOME_REJECTED),
                System.nanoTime() - ticket.startNanos(), 0);
        response.setHeader("Retry-After", Long.toString(retryAfter));
        response.setContentType("text/plain;charset=UTF-8");
        response.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
        response.getWriter().write(stopped
                ? "503 stopped: the application has stopped, this request was not admitted; retry after "
                        + retryAfter + " s\n"
                : "503 overloaded: requests of class '" + ticket.className() + "' are not being admitted now; retry"
                        + " after " + retryAfter + " s\n");
    }

    private static String path(HttpServletRequest request) {
        String servletPath = request.getServletPath();
        String info = request.getPathInfo();
        String p = info == null ? servletPath : servletPath + info;
        return p == null || p.isEmpty() ? "/" : p;
    }

    /**
     * Completes the request when its async cycle ends; keeps the permit until then. Its outcome is the response's
     * status as it completes, as for a request served in one dispatch, not whether a timeout or an error happened on
     * the way: a long poll whose own listener answers its timeout 200 ("no news") was served, and where no listener
     * completes a timed-out or failed cycle the container sets 500 before it completes it (Tomcat's
     * AsyncContextImpl.setErrorState).
     */
    private final class Completion implements AsyncListener {
        private final Ticket ticket;
        private final Route route;
        private final String method;
        /** Its route's watch while the route learns (null: none), ended as the request finishes. */
        private final RequestClassifier.Watch watch;
        /** A dispatch of this async cycle failed after the response was committed: its status cannot say so. */
        private boolean failedCommitted;
        /**
         * Set when a dispatch that started this async cycle threw before the cycle was answered (0: none did), to the
         * status the request counts by: 500, or the status it was sent when the dispatch failed as the client left
         * after the commit (its write threw Tomcat's ClientAbortException), since the page was served until the client
         * left. Tomcat (11.0.25) then calls onError, twice, and never onComplete (after a client gone it does: after
         * the onError of a first dispatch, before it on a later one), so the request is finished at its first onError
         * unless onComplete came first.
         */
        volatile int failedDispatchStatus;
        /** Finished: once, at onComplete or at the onError of a failed dispatch; later dispatches pass through. */
        volatile boolean done;

        Completion(Ticket ticket, Route route, String method, RequestClassifier.Watch watch) {
            this.ticket = ticket;
            this.route = route;
            this.method = method;
            this.watch = watch;
        }

        private void end(int status) {
            classifier.unwatch(watch);
            finish(ticket, route, method, status);
        }

        @Override
        public void onComplete(AsyncEvent event) {
            if (done) {
                return;
            }
            done = true;
            int status = failedCommitted ? 500 : event.getSuppliedResponse() instanceof HttpServletResponse r
                    ? r.getStatus() : 200;
            end(status);
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            // nothing: a listener answers it with a status of its own, or the container sets 500 (a response committed
            // before, an event stream that the timeout ends, keeps the status it was sent)
        }

        /**
         * An application's exception in an async dispatch after the response was committed counts as a server error,
         * as a request served in one dispatch that throws does: the client got a cut answer under a status that said
         * success (Tomcat's error report valve marks such a response 500, where the host has one). Before the commit
         * the status decides: the container sets 500 unless a listener answers with a status of its own. An
         * {@link IOException} (or no cause) is the client gone, from an event stream or a long poll: it counts by the
         * status it was sent, typically 200, since the page was served until the client left; Tomcat too keeps the
         * status for an IOException.
         */
        @Override
        public void onError(AsyncEvent event) {
            Throwable t = event.getThrowable();
            if (t != null && !(t instanceof IOException) && event.getSuppliedResponse() != null
                    && event.getSuppliedResponse().isCommitted()) {
                failedCommitted = true;
            }
            if (failedDispatchStatus != 0 && !done) {
                done = true;
                end(failedDispatchStatus);
            }
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            failedCommitted = false; // the application took the request up again: the new cycle's end decides
            failedDispatchStatus = 0;
            event.getAsyncContext().addListener(this); // a new async cycle drops listeners: stay registered
        }
    }

    /** The scheduler of this filter (null when disabled); for tests and embedding servers. */
    public Scheduler scheduler() {
        return scheduler;
    }

    /** The classifier of this filter (null when disabled); for tests and embedding servers. */
    public RequestClassifier classifier() {
        return classifier;
    }

    @Override
    public void destroy() {
        try {
            stop();
        } finally {
            // last: an instance of the same path starting meanwhile claims the name once this one's meters are gone;
            // released first, the new one registered meters of the same ids, got this one's back from the registry,
            // and this one's close then removed them (its weaving gauge, its probe's meters)
            if (application != null) {
                ApplicationNames.release(application, this);
            }
        }
    }

    private void stop() {
        if (control != null) {
            control.close();
        }
        if (collector != null) {
            collector.close();
        }
        if (scheduler != null) {
            int refused = scheduler.close();
            if (refused > 0) { // the rejections meter goes with the application's meters, next
                LOG.warning(() -> ApplicationNames.logPrefix(application) + "stopped with " + refused + " request(s)"
                        + " waiting for admission; each is answered 503 with Retry-After");
            }
        }
        if (metrics != null) {
            metrics.close();
        }
        if (weavingMetrics != null) {
            weavingMetrics.close();
        }
        if (listeners != null) {
            listeners.close();
        }
    }
}
