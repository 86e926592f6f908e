package io.fairslice.probe.internal;

import io.fairslice.probe.KernelProbe;
import io.fairslice.probe.SystemStats;
import io.fairslice.probe.ThreadActuator;
import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.ThreadStats;

/** The probe of last resort: every read returns false, no actuator. Requests run as if no probe were there. */
public final class NoOpKernelProbe implements KernelProbe {

    private final String reason;

    public NoOpKernelProbe(String reason) {
        this.reason = reason;
    }

    /** Why the real probe is not running. */
    public String reason() {
        return reason;
    }

    @Override
    public String platform() {
        return "none";
    }

    @Override
    public boolean isOperational() {
        return false;
    }

    @Override
    public long currentThreadId() {
        return -1;
    }

    @Override
    public ThreadHandle openThread(long tid) {
        return null;
    }

    @Override
    public ThreadHandle openCurrentThread() {
        return null;
    }

    @Override
    public boolean readCurrentThread(ThreadHandle handle, ThreadStats into) {
        return false;
    }

    @Override
    public boolean readSystem(SystemStats into) {
        return false;
    }

    @Override
    public ThreadActuator actuator() {
        return ThreadActuator.NONE;
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "NoOpKernelProbe{" + reason + '}';
    }
}
