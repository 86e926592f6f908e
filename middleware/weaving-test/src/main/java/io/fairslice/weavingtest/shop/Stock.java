package io.fairslice.weavingtest.shop;

import java.util.function.BooleanSupplier;

/**
 * Shared state behind locks, as applications keep it: a synchronized method, code it calls, a class initialiser, a
 * synchronized method that throws. Each reports what {@link Probe} says at that point (the test passes whether the
 * yield point knows it is inside a lock).
 */
public final class Stock {

    public static final boolean IN_INITIALISER;

    static {
        IN_INITIALISER = Probe.supplier.getAsBoolean();
    }

    /** Set by the test before {@link Stock} initialises (setting a field of Stock itself would initialise it). */
    public static final class Probe {
        public static BooleanSupplier supplier = () -> false;

        private Probe() {
        }
    }

    private int units;

    public synchronized boolean reserve() {
        units++;
        return count();
    }

    private boolean count() {
        return Probe.supplier.getAsBoolean();
    }

    public synchronized void fail() {
        throw new IllegalStateException("out of stock");
    }

    public boolean unlocked() {
        return Probe.supplier.getAsBoolean();
    }
}
