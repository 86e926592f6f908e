package io.fairslice.probe;

/** A native scheduling call failed: names the call, the OS error code and the OS message. */
public final class ActuatorException extends Exception {

    private final String call;
    private final int errorCode;

    public ActuatorException(String call, int errorCode, String message) {
        super(call + " failed (error " + errorCode + "): " + message);
        this.call = call;
        this.errorCode = errorCode;
    }

    /** The native call, with its arguments. */
    public String call() {
        return call;
    }

    /** The OS error code (errno on POSIX), 0 if none. */
    public int errorCode() {
        return errorCode;
    }
}
