package io.fairslice.experiments.server;

import java.util.logging.LogManager;

/**
 * java.util.logging's manager for the study server, whose reset at the JVM's exit waits for the server's own shutdown
 * hook. The JDK resets logging in a shutdown hook of its own, which runs beside the server's: it removed the console
 * handler while Tomcat stopped, and what the stop logged (Tomcat's "Stopping ProtocolHandler", fairslice's "stopped
 * with N request(s) waiting for admission; each is answered 503") was lost. Tomcat's own JULI manager defers its
 * reset in the same way. The launcher's {@code serve} names it on the command line, since the weaving agent starts
 * logging before any main; {@link StudyServer#main} installs it otherwise, unless logging has started (not by a method
 * of this class: calling one initialises LogManager, which reads which manager to make before it is set). A JVM that
 * keeps the JDK's manager logs its stop as before: partly, or not at all.
 */
public final class ServerLogManager extends LogManager {

    /**
     * Set as the server starts: from then on a reset is the JVM's exit, deferred to {@link #resetAfterStop} (nothing
     * else resets logging in this server; a runtime readConfiguration() would add its handlers to the ones kept).
     */
    private static volatile boolean held;

    @Override
    public void reset() {
        if (!held) {
            super.reset();
        }
    }

    /** The server starts: a stop from now on (the JVM's exit) logs until the server's hook has stopped it. */
    static void holdUntilStopped() {
        held = true;
    }

    /** The server's shutdown hook has stopped it: the JDK's deferred reset now. */
    static void resetAfterStop() {
        held = false;
        LogManager manager = LogManager.getLogManager();
        if (manager instanceof ServerLogManager) {
            manager.reset();
        }
    }
}
