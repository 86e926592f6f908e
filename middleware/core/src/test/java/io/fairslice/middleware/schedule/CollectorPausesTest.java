package io.fairslice.middleware.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CollectorPausesTest {

    @Test
    void shouldReportThisJvmsCollectorPausesUntilClosed() throws InterruptedException {
        LinkedBlockingQueue<Long> pauses = new LinkedBlockingQueue<>();
        CollectorPauses watch = CollectorPauses.watch(pauses::add);
        try {
            assertThat(watch.watching()).isTrue();
            System.gc();
            assertThat(pauses.poll(10, TimeUnit.SECONDS)).as("a pause reported after System.gc()").isNotNull()
                    .isNotNegative();
            Thread.sleep(500); // the collection's other notifications, if any
        } finally {
            watch.close();
        }
        pauses.clear();
        System.gc();
        assertThat(pauses.poll(1, TimeUnit.SECONDS)).as("nothing reported once closed").isNull();
    }

    @Test
    void shouldTellConcurrentPhasesFromPauses() {
        assertThat(CollectorPauses.concurrent("ZGC Cycles", "Allocation Rate")).isTrue();
        assertThat(CollectorPauses.concurrent("ZGC Major Cycles", "Allocation Rate")).isTrue();
        assertThat(CollectorPauses.concurrent("Shenandoah Cycles", "Allocation Failure")).isTrue();
        assertThat(CollectorPauses.concurrent("ZGC Pauses", "Allocation Rate")).isFalse();
        assertThat(CollectorPauses.concurrent("Copy", "Allocation Failure")).isFalse();
        assertThat(CollectorPauses.concurrent("G1 Young Generation", "G1 Evacuation Pause")).isFalse();
        // JDK 20+: G1's remark and cleanup pauses, as the JVM names them (a concurrent cycle's stops, not its work)
        assertThat(CollectorPauses.concurrent("G1 Concurrent GC", "No GC")).isFalse();
    }
}
