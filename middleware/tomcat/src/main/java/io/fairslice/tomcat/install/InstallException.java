package io.fairslice.tomcat.install;

/** The installer cannot go on: the message says what is wrong and, where it can, what to do. Nothing is half-done. */
public final class InstallException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public InstallException(String message) {
        super(message);
    }

    public InstallException(String message, Throwable cause) {
        super(message, cause);
    }
}
