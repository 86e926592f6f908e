package io.fairslice.probe.windows;

/**
 * The quantum a background thread gets on Windows, from {@code HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl
 * \Win32PrioritySeparation} and the clock tick. Bits 4-5 choose short or long quanta and bits 2-3 variable or fixed
 * ones (for both, 0 or 3: the edition's default, short variable on client editions, long fixed on servers); bits 0-1
 * the foreground boost, which lengthens only the foreground window's threads and is not modelled here. The kernel
 * (PsChangeQuantumTable) takes the background quantum from the first entry of its tables, in thirds of a clock
 * tick: variable 6 (short) or 12 (long), fixed 18 (short) or 36 (long), so 2, 4, 6 or 12 ticks.
 */
public final class WindowsQuantum {

    /** Quantum units per clock tick. */
    public static final int UNITS_PER_TICK = 3;
    public static final int SHORT_VARIABLE_UNITS = 6;
    public static final int LONG_VARIABLE_UNITS = 12;
    public static final int SHORT_FIXED_UNITS = 18;
    public static final int LONG_FIXED_UNITS = 36;

    /** RTL_OSVERSIONINFOEXW.wProductType of a client edition; domain controllers (2) and servers (3) are not. */
    public static final int VER_NT_WORKSTATION = 1;

    private WindowsQuantum() {
    }

    /**
     * Whether the product type names a server edition, whose defaults are long fixed quanta: the kernel decides by the
     * same product type (read from the registry at boot); {@code os.name}, read before, holds only a marketing name.
     */
    public static boolean serverEdition(int productType) {
        return productType != VER_NT_WORKSTATION;
    }

    /** Whether quanta are long, given the registry value and whether this is a server edition. */
    public static boolean longQuanta(int prioritySeparation, boolean server) {
        int length = (prioritySeparation >> 4) & 0x3;
        return length == 1 || ((length == 0 || length == 3) && server);
    }

    /** Whether quanta are fixed, given the registry value and whether this is a server edition. */
    public static boolean fixedQuanta(int prioritySeparation, boolean server) {
        int kind = (prioritySeparation >> 2) & 0x3;
        return kind == 2 || ((kind == 0 || kind == 3) && server);
    }

    /** The background quantum in quantum units (thirds of a clock tick). */
    public static int backgroundQuantumUnits(int prioritySeparation, boolean server) {
        boolean longQuanta = longQuanta(prioritySeparation, server);
        if (fixedQuanta(prioritySeparation, server)) {
            return longQuanta ? LONG_FIXED_UNITS : SHORT_FIXED_UNITS;
        }
        return longQuanta ? LONG_VARIABLE_UNITS : SHORT_VARIABLE_UNITS;
    }

    /** The background quantum in nanoseconds for a clock tick of {@code clockTickNanos}. */
    public static long backgroundQuantumNanos(int prioritySeparation, long clockTickNanos, boolean server) {
        return backgroundQuantumUnits(prioritySeparation, server) * clockTickNanos / UNITS_PER_TICK;
    }
}
