package io.fairslice.benchmarks;

/** The baseline's callee: a static method that does nothing, like a yield point with nothing at all to check. */
public final class Blank {

    private Blank() {
    }

    public static void call() {
        // nothing: the JIT removes the call, which is the point of a baseline
    }
}
