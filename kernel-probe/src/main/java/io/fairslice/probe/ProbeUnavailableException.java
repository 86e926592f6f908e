package io.fairslice.probe;

/** A platform probe's self-check failed; the message says which check and what was found. */
public final class ProbeUnavailableException extends Exception {

    public ProbeUnavailableException(String message) {
        super(message);
    }
}
