package io.fairslice.probe.windows;

/**
 * The quantum a background thread gets on Windows, from {@code HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl
 * \Win32PrioritySeparation} and the clock tick. Bits 4-5 choose short (2 ticks) or long (12 ticks) quanta (0 or 3:
 * the edition's default, short on client editions, long on servers); bits 2-3 choose variable or fixed quanta and
 * bits 0-1 the foreground boost, which lengthens only the foreground window's threads and is not modelled here.
 */
public final class WindowsQuantum {

    public static final int SHORT_TICKS = 2;
    public static final int LONG_TICKS = 12;

    private WindowsQuantum() {
    }

    /** Whether quanta are long, given the registry value and whether this is a server edition. */
    public static boolean longQuanta(int prioritySeparation, boolean server) {
        int length = (prioritySeparation >> 4) & 0x3;
        return length == 1 || ((length == 0 || length == 3) && server);
    }

    /** The background quantum in nanoseconds for a clock tick of {@code clockTickNanos}. */
    public static long backgroundQuantumNanos(int prioritySeparation, long clockTickNanos, boolean server) {
        return (longQuanta(prioritySeparation, server) ? LONG_TICKS : SHORT_TICKS) * clockTickNanos;
    }
}
