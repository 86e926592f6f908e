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

    /** Set once the server runs: from then on a reset is the JVM's exit, deferred to {@link #resetAfterStop}. */
    private static volatile boolean serverRunning;

    @Override
    public void reset() {
        if (!serverRunning) {
            super.reset();
        }
    }

    /** The server has started: the JVM's exit will stop it, and logging must last until it has. */
    static void serverRunning() {
        serverRunning = true;
    }

    /** The server's shutdown hook has stopped it: the JDK's deferred reset now. */
    static void resetAfterStop() {
        serverRunning = false;
        LogManager manager = LogManager.getLogManager();
        if (manager instanceof ServerLogManager) {
            manager.reset();
        }
    }
}
