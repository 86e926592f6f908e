package io.fairslice.middleware;

import io.fairslice.middleware.spi.ListenerContext;
import io.fairslice.middleware.spi.RequestListener;
import java.util.Set;

/**
 * A request listener standing in for a failing kernel probe: found with ServiceLoader in every filter test, harmless
 * unless a test configures one of its classes. Class {@code exitboom}: throws when the thread leaves the request;
 * class {@code nativeboom}: throws the {@link UnsatisfiedLinkError} a missing native library gives, on entry;
 * class {@code vmboom}: throws a {@link StackOverflowError} on entry.
 * Setting {@code fail-start}: {@code true} fails its start, {@code setting} rejects the setting.
 */
public final class FaultyListener implements RequestListener {

    @Override
    public String name() {
        return "faulty";
    }

    @Override
    public Set<String> settingNames() {
        return Set.of("fail-start");
    }

    @Override
    public boolean start(ListenerContext context) {
        if ("true".equals(context.settings().get("fail-start"))) {
            throw new IllegalStateException("faulty listener: native probe could not attach");
        }
        if ("setting".equals(context.settings().get("fail-start"))) {
            throw new IllegalArgumentException("faulty.fail-start: a bad setting, got 'setting'");
        }
        return true;
    }

    @Override
    public void enter(String requestClass) {
        if ("nativeboom".equals(requestClass)) {
            throw new UnsatisfiedLinkError("faulty listener: no libfake.so");
        }
        if ("vmboom".equals(requestClass)) {
            throw new StackOverflowError("faulty listener: a stack overflow");
        }
    }

    @Override
    public void exit(String requestClass) {
        if ("exitboom".equals(requestClass)) {
            throw new IllegalStateException("faulty listener: exit " + requestClass);
        }
    }
}
