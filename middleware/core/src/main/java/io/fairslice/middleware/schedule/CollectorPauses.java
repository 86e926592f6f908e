package io.fairslice.middleware.schedule;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Reports the JVM collector's stop-the-world pauses as they end, from the platform collectors' notifications, so that
 * the share scheduler can charge them to the classes that allocated ({@link Scheduler#collectorPaused}). Concurrent
 * phases (ZGC's and Shenandoah's cycles, which run beside the application rather than stopping it) are not pauses
 * and are not reported. Durations come in the notifications' whole milliseconds: a pause under 1 ms is charged
 * nothing. One per web application: close it when
 * the application stops, since the platform beans would otherwise keep the listener, and with it the application's
 * class loader.
 */
public final class CollectorPauses implements AutoCloseable {

    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener;

    private CollectorPauses(LongConsumer pauseNanos) {
        this.listener = (notification, handback) -> {
            try {
                long nanos = pauseNanos(notification);
                if (nanos >= 0) {
                    pauseNanos.accept(nanos);
                }
            } catch (RuntimeException e) {
                // never into the JVM's notification thread; a lost pause only leaves it uncharged
            }
        };
    }

    /** Starts reporting pauses to {@code pauseNanos} (ns each); {@link #watching()} says whether any collector can. */
    public static CollectorPauses watch(LongConsumer pauseNanos) {
        CollectorPauses pauses = new CollectorPauses(pauseNanos);
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(pauses.listener, null, null);
                pauses.emitters.add(emitter);
            }
        }
        return pauses;
    }

    /** Whether some collector reports its pauses (false: nothing will be charged). */
    public boolean watching() {
        return !emitters.isEmpty();
    }

    /** A pause's length in ns, or -1 when the notification is not a collection or reports a concurrent phase. */
    static long pauseNanos(Notification notification) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())
                || !(notification.getUserData() instanceof CompositeData data)) {
            return -1;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(data);
        if (concurrent(info.getGcName(), info.getGcCause())) {
            return -1;
        }
        return Math.max(0, info.getGcInfo().getDuration()) * 1_000_000L;
    }

    /**
     * Whether a collector's notification reports a concurrent phase, not a pause: ZGC's and Shenandoah's cycle beans
     * ({@code ... Cycles}; their pauses come from the {@code ... Pauses} beans). G1's remark and cleanup pauses are
     * pauses: from JDK 20 the {@code G1 Concurrent GC} bean reports them ("end of concurrent GC pause", cause
     * {@code No GC}, 0-27 ms each on Temurin 25 here); JDK 17 does not report them at all.
     */
    static boolean concurrent(String collector, String cause) {
        return collector.endsWith(" Cycles");
    }

    @Override
    public void close() {
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (ListenerNotFoundException e) {
                // removed already
            }
        }
        emitters.clear();
    }
}
