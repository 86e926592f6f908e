package io.fairslice.tomcat.install;

/** The installer cannot go on: the message says what is wrong and, where it can, what to do. Nothing is half-done. */
public final class InstallException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final boolean usage;

    public InstallException(String message) {
        this(message, false);
    }

    public InstallException(String message, Throwable cause) {
        super(message, cause);
        this.usage = false;
    }

    private InstallException(String message, boolean usage) {
        super(message);
        this.usage = usage;
    }

    /**
     * A command line of the wrong form (an unknown option, an option without its value, one given twice, options that
     * exclude each other): the usage follows it, as it does for the other commands' (serve, study, probe).
     */
    static InstallException ofUsage(String message) {
        return new InstallException(message, true);
    }

    /** Whether the usage text goes with the message: not after a bad value, where it buried the line naming it. */
    public boolean showsUsage() {
        return usage;
    }
}
