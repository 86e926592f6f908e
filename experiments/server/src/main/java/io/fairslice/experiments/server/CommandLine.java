package io.fairslice.experiments.server;

import java.util.function.Function;

/**
 * The checks the benchmark commands ({@link QuickCompare}, {@link OverheadCompare}) share for their options'
 * values, and how they refuse a command line: each refusal names the option and what it got, in one line. The study
 * server's {@code --policy} ({@link ServerOptions}) is checked by {@link #policyName} too.
 */
final class CommandLine {

    private CommandLine() {
    }

    /**
     * {@code args} read by {@code parse}; a refusal is said in one line, {@code command: what is wrong}, with the
     * usage, and the JVM exits with status 2.
     */
    static <T> T parseOrExit(String command, String usage, Function<String[], T> parse,
                             String[] args) {
        try {
            return parse.apply(args);
        } catch (IllegalArgumentException e) {
            System.err.println(command + ": " + e.getMessage());
            System.err.println(usage);
            System.exit(2);
            throw e; // not reached
        }
    }

    /** The value after {@code option}, at {@code args[i]}. */
    static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    /** {@code value} as one of the study server's policies ({@code ./fairslice serve --policy}). */
    static String policyName(String option, String value) {
        if (!ServerOptions.POLICIES.contains(value)) {
            throw new IllegalArgumentException(option + " must be one of " + ServerOptions.POLICIES + ", got '" + value
                    + "'");
        }
        return value;
    }

    /** {@code value} as a whole number in {@code min..max}. */
    static long number(String option, String value, long min, long max) {
        long n = Numbers.whole(option, value);
        if (n < min || n > max) {
            throw new IllegalArgumentException(option + " must be " + (max == Long.MAX_VALUE ? "at least " + min
                    : min + ".." + max) + ", got " + n);
        }
        return n;
    }
}
