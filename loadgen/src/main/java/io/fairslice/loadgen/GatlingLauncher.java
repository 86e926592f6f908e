package io.fairslice.loadgen;

import java.io.PrintStream;
import java.util.function.IntSupplier;

/**
 * Runs one simulation with Gatling's own command line ({@code --simulation}, {@code --results-folder},
 * {@code --no-reports}, {@code --run-description}) and exits with its status. Gatling leaves a non-daemon thread
 * behind, so without the explicit exit the JVM would never end; the study harness starts this class in a JVM of
 * its own for every measured point.
 */
public final class GatlingLauncher {

    private GatlingLauncher() {
    }

    public static void main(String[] args) {
        int status = run(() -> io.gatling.app.Gatling$.MODULE$.fromArgs(args), System.err);
        System.out.flush();
        System.exit(status);
    }

    /**
     * Gatling's exit status, or 1 when it threw. Everything is caught: Gatling (Scala) rethrows checked exceptions
     * undeclared, such as the InvocationTargetException of a simulation whose constructor refused its parameters;
     * and nothing is rethrown, since an exception leaving {@code main} would skip the exit and leave the JVM running
     * on Gatling's non-daemon thread.
     */
    static int run(IntSupplier gatling, PrintStream err) {
        try {
            return gatling.getAsInt();
        } catch (Throwable e) {
            err.println("fairslice loadgen: Gatling failed: " + e);
            e.printStackTrace(err);
            return 1;
        }
    }
}
