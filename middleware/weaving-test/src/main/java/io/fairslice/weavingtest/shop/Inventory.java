package io.fairslice.weavingtest.shop;

/** A shared count behind the class's monitor: heavy requests recount it for a while, light ones read it. */
public final class Inventory {

    private static long count;

    private Inventory() {
    }

    /** Works for {@code nanos} inside the monitor, through a woven method: a yield point every step. */
    public static synchronized long recount(long nanos) {
        long end = System.nanoTime() + nanos;
        long sum = 0;
        while (System.nanoTime() < end) {
            sum += step(sum);
        }
        count += sum;
        return sum;
    }

    static long step(long x) {
        return (x * 31 + 7) & 0xff;
    }

    public static synchronized long total() {
        return count;
    }
}
