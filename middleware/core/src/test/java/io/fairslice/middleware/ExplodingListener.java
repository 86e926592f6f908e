package io.fairslice.middleware;

import io.fairslice.middleware.spi.RequestListener;

/**
 * A request listener that throws whenever a thread enters a request of class {@code boom}: found with ServiceLoader
 * in every filter test, harmless unless a test configures that class.
 */
public final class ExplodingListener implements RequestListener {

    @Override
    public String name() {
        return "exploding";
    }

    @Override
    public void enter(String requestClass) {
        if ("boom".equals(requestClass)) {
            throw new IllegalStateException("exploding listener: " + requestClass);
        }
    }

    @Override
    public void exit(String requestClass) {
    }
}
