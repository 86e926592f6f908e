package io.fairslice.weavingtest.probe;

import java.util.concurrent.atomic.AtomicLong;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Before;

/**
 * Test instrument: counts how often fairslice's woven advice calls {@code Fairslice.yieldPoint()}. It advises the
 * call inside the advice itself, so the count is exactly "yield points reached", without touching the middleware.
 */
@Aspect
public class YieldPointCounter {

    private static final AtomicLong CALLS = new AtomicLong();

    @Before("call(static void io.fairslice.middleware.Fairslice.yieldPoint())"
            + " && within(io.fairslice.middleware.weaving.*)")
    public void counted() {
        CALLS.incrementAndGet();
    }

    public static long count() {
        return CALLS.get();
    }
}
