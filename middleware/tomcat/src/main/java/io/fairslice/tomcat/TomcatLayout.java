package io.fairslice.tomcat;

/**
 * Where fairslice's files live in a Tomcat instance ({@code CATALINA_BASE}), shared by the installer that writes
 * them and the code in {@code lib/} that reads them. Paths are relative to {@code CATALINA_BASE}, {@code /}-separated.
 */
public final class TomcatLayout {

    private TomcatLayout() {
    }

    /** fairslice's own folder: the weaver agent, the metrics web application, the install record. */
    public static final String HOME = "fairslice";

    /** The middleware's configuration (keys: docs/configuration.md), named by {@code -Dfairslice.config}. */
    public static final String CONFIG = "conf/fairslice.properties";

    /** The weaving scope, merged by the weaver with the aspect's own aop.xml. */
    public static final String AOP_XML = "conf/fairslice-aop.xml";

    /** Settings of the Tomcat glue ({@link TomcatSettings}): which web applications get fairslice. */
    public static final String TOMCAT_SETTINGS = "conf/fairslice-tomcat.properties";

    /** The metrics web application's document base. */
    public static final String METRICS_WEBAPP = HOME + "/metrics-webapp";

    /**
     * The metrics web application's context path. Its servlet is mapped to {@code /metrics} inside it rather than to
     * the context root, which Tomcat 10.1 answers with a redirect to add a trailing slash.
     */
    public static final String METRICS_CONTEXT = "/fairslice";

    /** Where the metrics are served. */
    public static final String METRICS_PATH = METRICS_CONTEXT + "/metrics";

    /** The metrics application's context descriptor, in {@code conf/<engine>/<host>/}. */
    public static final String METRICS_DESCRIPTOR = "fairslice.xml";

    /** The suffix of the copies taken before fairslice first changes a file it does not own. */
    public static final String BACKUP_SUFFIX = ".before-fairslice";
}
