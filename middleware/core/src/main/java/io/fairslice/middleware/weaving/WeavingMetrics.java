package io.fairslice.middleware.weaving;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Publishes how many classes hold woven yield points: a gauge that stays at zero while the application serves
 * requests says the weaving scope matched nothing (or the agent is missing).
 */
public final class WeavingMetrics implements MeterBinder {

    /**
     * Gauge: woven classes initialised so far in class loaders that still exist ({@link WovenClasses#count()}), over
     * every web application that shares the middleware's class loader. After an undeploy the old application's
     * classes leave the count when its class loader is collected; if they are still counted after a full garbage
     * collection, the old class loader leaked. Prometheus: {@code fairslice_weaving_classes}.
     */
    public static final String WOVEN_CLASSES = "fairslice.weaving.classes";

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder(WOVEN_CLASSES, WovenClasses::count)
                .description("Classes with woven yield points, initialised so far in class loaders not yet"
                        + " collected (every web application sharing the middleware's class loader)")
                .register(registry);
    }
}
