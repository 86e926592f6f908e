package io.fairslice.loadgen;

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
        int status;
        try {
            status = io.gatling.app.Gatling$.MODULE$.fromArgs(args);
        } catch (RuntimeException | Error e) {
            System.err.println("fairslice loadgen: Gatling failed: " + e);
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }
}
