import io.fairslice.experiments.app.Light2Servlet;
import io.fairslice.experiments.app.LightServlet;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The two light pages' own work, side by side in one JVM: fib(25) (/light) and the primes below 20000 (/light2), the
 * study's defaults. Thread CPU time per call after a warm-up, in alternating rounds. Run from the checkout after a
 * build, pinned to one core (output.txt beside this file: 2026-12-05 09:33 UTC, AMD EPYC host, JDK 17):
 * taskset -c 1 java -cp experiments/study-app/target/classes:$HOME/.m2/repository/jakarta/servlet/\
 * jakarta.servlet-api/6.0.0/jakarta.servlet-api-6.0.0.jar docs/measurements/light-pages-20261205/LightCost.java
 */
public class LightCost {
    static volatile long sink;

    public static void main(String[] args) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 3_000; i++) { // warm-up: both compiled
            sink += LightServlet.fibonacci(25) + Light2Servlet.countPrimesBelow(20_000);
        }
        int calls = 1_000;
        for (int round = 1; round <= 5; round++) {
            long t0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < calls; i++) {
                sink += LightServlet.fibonacci(25);
            }
            long t1 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < calls; i++) {
                sink += Light2Servlet.countPrimesBelow(20_000);
            }
            long t2 = mx.getCurrentThreadCpuTime();
            double fib = (t1 - t0) / 1e6 / calls;
            double primes = (t2 - t1) / 1e6 / calls;
            System.out.printf("round %d: /light %.3f ms, /light2 %.3f ms, ratio %.2f%n", round, fib, primes,
                    primes / fib);
        }
    }
}
