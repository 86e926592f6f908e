package io.fairslice.weavingtest.shop;

/** Naive recursion: {@code of(n)} runs {@code 2 * F(n + 1) - 1} method executions, a count the tests check. */
public final class Fibonacci {

    private Fibonacci() {
    }

    public static int of(int n) {
        return n < 2 ? n : of(n - 1) + of(n - 2);
    }

    /** How many executions of {@link #of} computing {@code of(n)} takes, computed without recursion. */
    public static long executions(int n) {
        long previous = 0;
        long current = 1;
        for (int i = 0; i < n; i++) {
            long next = previous + current;
            previous = current;
            current = next;
        }
        return 2 * current - 1;
    }
}
