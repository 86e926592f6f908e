package io.fairslice.probe.internal;

import java.util.concurrent.atomic.LongAdder;

/** Cumulative scheduler counters of one request class, added to by every worker thread without contention. */
public final class ClassTotals {

    public final LongAdder runNanos = new LongAdder();
    public final LongAdder waitNanos = new LongAdder();
    public final LongAdder dispatches = new LongAdder();
    public final LongAdder voluntary = new LongAdder();
    public final LongAdder involuntary = new LongAdder();
}
