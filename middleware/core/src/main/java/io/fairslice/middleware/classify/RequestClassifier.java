package io.fairslice.middleware.classify;

import io.fairslice.middleware.FairsliceConfig;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;

/**
 * Decides a request's class: the first matching rule wins; otherwise, in adaptive mode, a route whose measured CPU
 * per request made it heavy goes to the adaptive class; otherwise the default class. It only decides: the scheduler
 * acts on the decision.
 */
public final class RequestClassifier {

    private final RouteTable routes;
    private final LongAdder[] reclassified;

    public RequestClassifier(FairsliceConfig config) {
        this.routes = new RouteTable(config.routesMax(), config.routesMaxPages());
        this.reclassified = new LongAdder[config.classes().size()];
        for (int i = 0; i < reclassified.length; i++) {
            reclassified[i] = new LongAdder();
        }
    }

    /** The route of a request path (inside the web application). */
    public Route route(String path) {
        return routes.route(path);
    }

    /** The class index of a request; {@code header} looks up request headers by name. */
    public int classify(FairsliceConfig config, Route route, String path, String method,
                        UnaryOperator<String> header) {
        List<Rule> rules = config.rules();
        for (int i = 0; i < rules.size(); i++) {
            Rule rule = rules.get(i);
            if (rule.matches(path, method, header)) {
                return rule.classIndex();
            }
        }
        if (config.adaptive() && route.heavy()) {
            return config.adaptiveClass();
        }
        return config.defaultClass();
    }

    /** Feeds one finished request's CPU time to the adaptive classifier. */
    public void learn(FairsliceConfig config, Route route, long cpuNanos) {
        int change = route.record(cpuNanos, config.adaptiveAlpha(), config.adaptiveMinSamples(),
                config.adaptiveHeavyAbove().toNanos(), config.adaptiveLightBelow().toNanos());
        if (change != 0 && config.adaptive()) {
            reclassified[change > 0 ? config.adaptiveClass() : config.defaultClass()].increment();
        }
    }

    public RouteTable routes() {
        return routes;
    }

    /** Routes the adaptive classifier moved into class {@code index}. */
    public long reclassifiedInto(int index) {
        return reclassified[index].sum();
    }
}
