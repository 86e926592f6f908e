package io.fairslice.experiments.server;

import io.fairslice.experiments.app.StudySettings;
import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.FairsliceConfigException;
import io.fairslice.middleware.config.ConfigKeys;
import io.fairslice.middleware.config.ConfigSources;
import io.fairslice.middleware.internal.GuardedListeners;
import io.fairslice.middleware.spi.RequestListener;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command-line options of {@code ./fairslice serve}.
 *
 * @param port        listening port (0 picks a free one)
 * @param address     listening address, as an IP address (a host name given is resolved here, once, so that Tomcat
 *                    binds and the loopback check reads the same address); loopback by default, as /metrics is not
 *                    for public connectors
 * @param maxThreads  Tomcat worker threads; keep it above the client population
 * @param appSettings study application settings ({@code study.*}), passed as context parameters
 * @param policy      the middleware's policy, or {@code none} to run without the middleware at all
 * @param fairslice   further middleware configuration keys (without the {@code fairslice.} prefix)
 * @param virtualThreads every request on a virtual thread of its own (the connector's {@code useVirtualThreads}; Java
 *                    21+), instead of the pool of {@code maxThreads} platform threads
 * @param help        {@code --help} was given
 */
public record ServerOptions(int port, String address, int maxThreads, Map<String, String> appSettings,
                            String policy, Map<String, String> fairslice, boolean virtualThreads, boolean help) {

    public static final int DEFAULT_PORT = 8080;
    public static final int DEFAULT_MAX_THREADS = 200;
    /** No middleware at all: the baseline of every comparison. */
    public static final String POLICY_NONE = "none";
    public static final String DEFAULT_POLICY = "share";
    /**
     * The study server's JVM options in every measurement (the harness's default, QuickCompare, OverheadCompare, the
     * overload test): Serial GC with a young generation large enough for /heavy's garbage (shared/GUIDE.md section 2),
     * and the heap touched at start. Without AlwaysPreTouch the kernel zeroes each page of the 3 GB young generation
     * the first time the heap reaches it, which took 15 % of the server's CPU at 30 light + 40 heavy clients under
     * share 25-35 s after start (perf: clear_page_erms): a start-up cost a long-running server does not have, and one
     * that fell on the configurations that allocate slowly (heavy pages held back) for longest.
     */
    public static final List<String> JVM_OPTIONS = List.of("-XX:+UseSerialGC", "-Xms4g", "-Xmx4g",
            "-Xmn3g", "-XX:+AlwaysPreTouch");
    static final List<String> POLICIES = List.of(POLICY_NONE, "observe", "sleep", "share");

    public static final String USAGE = """
            usage: ./fairslice serve [options]
              --port N            port to listen on (default 8080; 0 picks a free port)
              --address A         address to listen on (default 127.0.0.1)
              --max-threads N     Tomcat worker threads (default 200)
              --virtual-threads   serve every request on a virtual thread of its own instead (Java 21+)
              --document-size S   size of /heavy's XML document, e.g. 2MB or 10MB (default 2MB)
              --policy P          fairslice policy: none (no middleware), observe, sleep, share (default share)
              --fairslice K=V     any middleware configuration key (docs/configuration.md), repeatable,
                                  e.g. --fairslice class.heavy.share=10 --fairslice 'rule.1=heavy path=/heavy'
              --help              this text
            """;

    public ServerOptions {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--port must be 0..65535, got " + port);
        }
        address = resolve(address);
        if (maxThreads < 1 || maxThreads > 10_000) {
            throw new IllegalArgumentException("--max-threads must be 1..10000, got " + maxThreads);
        }
        appSettings = Map.copyOf(appSettings);
        CommandLine.policyName("--policy", policy);
        fairslice = Map.copyOf(fairslice);
        if (POLICY_NONE.equals(policy) && !fairslice.isEmpty()) {
            throw new UsageException("--fairslice needs a policy other than none, got " + fairslice.keySet());
        }
        if (virtualThreads && Runtime.version().feature() < 21) {
            throw new IllegalArgumentException("--virtual-threads needs Java 21 or later; this JVM is Java "
                    + Runtime.version().feature() + " (set JAVA_HOME to a newer JDK)");
        }
        if (fairslice.containsKey("policy")) { // both would set the context parameter fairslice.policy
            throw new IllegalArgumentException("--fairslice policy=" + fairslice.get("policy") + ": set the policy with"
                    + " --policy " + fairslice.get("policy"));
        }
    }

    /**
     * A host name or an IP address as an IP address. A name that does not resolve is refused here: given to Tomcat,
     * its connector ignored it and listened on every interface.
     */
    private static String resolve(String address) {
        if (address == null || address.isBlank()) {
            throw new IllegalArgumentException("--address must be a host name or an IP address, got '" + address
                    + "'");
        }
        try {
            return InetAddress.getByName(address.trim()).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--address '" + address + "' does not resolve to an IP address (a"
                    + " misspelt host name?)", e);
        }
    }

    /** Whether the server listens on loopback only. */
    public boolean loopback() {
        try {
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException("an IP address that does not parse: " + address, e); // resolved above
        }
    }

    /** Whether the middleware runs at all. */
    public boolean middleware() {
        return !POLICY_NONE.equals(policy);
    }

    public static ServerOptions defaults() {
        return new ServerOptions(DEFAULT_PORT, "127.0.0.1", DEFAULT_MAX_THREADS, Map.of(), DEFAULT_POLICY, Map.of(),
                false, false);
    }

    /** These options with another policy and middleware keys (tests and the harness compare policies). */
    public ServerOptions withPolicy(String newPolicy, Map<String, String> keys) {
        return new ServerOptions(port, address, maxThreads, appSettings, newPolicy, keys, virtualThreads, help);
    }

    public static ServerOptions parse(String... args) {
        int port = DEFAULT_PORT;
        String address = "127.0.0.1";
        int maxThreads = DEFAULT_MAX_THREADS;
        Map<String, String> app = new LinkedHashMap<>();
        boolean help = false;
        String policy = DEFAULT_POLICY;
        Map<String, String> fairslice = new LinkedHashMap<>();
        boolean virtualThreads = false;
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--port" -> port = Numbers.wholeInt(arg, once(given, arg, value(args, ++i, arg)));
                case "--address" -> address = once(given, arg, value(args, ++i, arg));
                case "--max-threads" -> maxThreads = Numbers.wholeInt(arg, once(given, arg, value(args, ++i, arg)));
                case "--document-size" -> {
                    String size = once(given, arg, value(args, ++i, arg));
                    // the application's own rule, here: it checks as it starts, where a bad size only said that the
                    // web application failed to start
                    StudySettings.checkDocumentSize(arg, size);
                    app.put("study.heavy.bytes", size);
                }
                case "--policy" -> policy = once(given, arg, value(args, ++i, arg));
                case "--fairslice" -> {
                    String kv = value(args, ++i, arg);
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--fairslice needs key=value, got '" + kv + "'");
                    }
                    String key = kv.substring(0, eq).trim();
                    key = key.startsWith("fairslice.") ? key.substring(10) : key;
                    String before = fairslice.put(key, kv.substring(eq + 1));
                    if (before != null) { // not the last one silently
                        throw new UsageException("--fairslice " + key + " given twice, '" + before
                                + "' and '" + kv.substring(eq + 1) + "'");
                    }
                }
                case "--virtual-threads" -> virtualThreads = true;
                case "--help", "-h" -> help = true;
                default -> throw new UsageException("unknown option '" + arg + "'");
            }
        }
        ServerOptions options = new ServerOptions(port, address, maxThreads, app, policy, fairslice, virtualThreads,
                help);
        if (options.middleware() && !help) {
            checkMiddlewareSettings(options.policy(), options.fairslice());
        }
        return options;
    }

    /**
     * A command line of the wrong form (an unknown option, an option without its value, options that exclude each
     * other): answered with the usage text. Every other refusal is a value's, said in the one line that names it.
     */
    static final class UsageException extends IllegalArgumentException {

        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** A middleware setting that breaks the middleware's rules: a value's error, said without the usage text. */
    static final class MiddlewareSettingException extends IllegalArgumentException {

        private static final long serialVersionUID = 1L;

        MiddlewareSettingException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Checks the middleware's settings as its filter will as Tomcat starts (FairsliceFilter.init), by the middleware's
     * own parser and its request listeners' rules: the policy and the --fairslice keys as the context parameters they
     * become, over a fairslice.properties on the class path and under -Dfairslice.* system properties
     * (FAIRSLICE_JAVA_OPTS). A bad key or value stopped the start with Tomcat's stack trace, then "the study web
     * application failed to start".
     *
     * @throws MiddlewareSettingException naming the key, the rule, the value and where it was set
     */
    static void checkMiddlewareSettings(String policy, Map<String, String> fairslice) {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put(ConfigKeys.PREFIX + ConfigKeys.POLICY, policy);
        fairslice.forEach((key, value) -> parameters.put(ConfigKeys.PREFIX + key, value));
        ClassLoader loader = ServerOptions.class.getClassLoader();
        ConfigSources.Merged merged = null;
        FairsliceConfig config = null;
        try {
            List<RequestListener> listeners = GuardedListeners.discover(loader);
            merged = ConfigSources.merge(parameters::get, parameters.keySet(), Map.of(), name -> null, loader,
                    System.getProperties());
            config = FairsliceConfig.parse(merged.keys(), GuardedListeners.declaredSettings(listeners));
            GuardedListeners.check(listeners, config);
        } catch (IllegalArgumentException e) {
            String key = e instanceof FairsliceConfigException c ? c.key()
                    : config == null ? null : GuardedListeners.settingNamedIn(config, e.getMessage());
            String origin = key == null || merged == null ? null : merged.originOf(key);
            if (origin != null && origin.equals("by context parameter " + ConfigKeys.PREFIX + key)) {
                origin = key.equals(ConfigKeys.POLICY) ? "by --policy" : "by --fairslice " + key;
            }
            throw new MiddlewareSettingException(e.getMessage() + (origin == null ? "" : " (set " + origin + ")"), e);
        }
    }

    /**
     * {@code value}, the first of {@code option}'s: a second one is refused, as a --fairslice key given twice is. The
     * last one was taken without a word: {@code --port 8080 ... --port 9090} (a script's default, then the
     * operator's) listened on 9090.
     */
    private static String once(Map<String, String> given, String option, String value) {
        String before = given.putIfAbsent(option, value);
        if (before != null) {
            throw new UsageException(option + " given twice, '" + before + "' and '" + value + "'");
        }
        return value;
    }

    /**
     * The value after {@code option}; missing, another option in its place, or empty or blank (an unset shell variable:
     * {@code --port "$PORT"}) is a command line of the wrong form, worded as the launcher words it.
     */
    private static String value(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new UsageException(option + " needs a value");
        }
        if (args[i].isBlank()) {
            throw new UsageException(option + " needs a value, got '" + args[i] + "'");
        }
        return args[i];
    }
}
