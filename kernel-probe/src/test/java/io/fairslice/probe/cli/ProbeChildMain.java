package io.fairslice.probe.cli;

import io.fairslice.probe.linux.BusyBurstyMain;
import java.util.concurrent.CountDownLatch;

/**
 * The JVM {@link ProbeTopTest} inspects: a thread named {@code probe-busy} that never blocks and one named
 * {@code probe-sleepy} that sleeps 5 ms at a time. Prints {@code ready}, then lives until stdin closes (the test
 * ends it) or 120 s pass.
 */
public final class ProbeChildMain {

    public static void main(String[] args) throws Exception {
        // ready once both threads run: a JVM thread gets its name in the OS only as it starts running
        CountDownLatch running = new CountDownLatch(2);
        Thread busy = new Thread(() -> {
            running.countDown();
            while (true) {
                BusyBurstyMain.spin(10_000_000L);
            }
        }, "probe-busy");
        Thread sleepy = new Thread(() -> {
            running.countDown();
            while (true) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "probe-sleepy");
        busy.setDaemon(true);
        sleepy.setDaemon(true);
        busy.start();
        sleepy.start();
        running.await();
        System.out.println("ready");
        System.out.flush();
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() < deadline && System.in.read() >= 0) {
            // wait for the parent to close stdin
        }
        System.exit(0);
    }
}
