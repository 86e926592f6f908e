package io.fairslice.middleware.weaving;

import io.fairslice.middleware.metrics.MeterNames;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Publishes how many classes an application runs with woven yield points: a gauge that stays at zero while the
 * application serves requests says the weaving scope matched nothing (or the agent is missing). One per web
 * application, tagged with its {@link MeterNames#TAG_APPLICATION}; {@link #close} removes it.
 */
public final class WeavingMetrics implements MeterBinder, AutoCloseable {

    /** The gauge's name: {@link MeterNames#WOVEN_CLASSES}. */
    public static final String WOVEN_CLASSES = MeterNames.WOVEN_CLASSES;

    private final String application;
    private final ClassLoader loader;
    private MeterRegistry registry;
    private Gauge gauge;

    /**
     * @param application the {@link MeterNames#TAG_APPLICATION} value (the context path, {@code /} for the root)
     * @param loader      the application's class loader; held weakly by the gauge, so that a gauge left behind
     *                    does not keep an undeployed application's classes
     */
    public WeavingMetrics(String application, ClassLoader loader) {
        this.application = application;
        this.loader = loader;
    }

    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        this.registry = registry;
        this.gauge = Gauge.builder(WOVEN_CLASSES, loader, WovenClasses::countVisibleTo)
                .tag(MeterNames.TAG_APPLICATION, application)
                .description("Classes with woven yield points that the application runs, initialised so far")
                .register(registry);
    }

    /** Removes the gauge (web application stopped). */
    @Override
    public synchronized void close() {
        if (gauge != null) {
            registry.remove(gauge);
            gauge = null;
        }
    }
}
