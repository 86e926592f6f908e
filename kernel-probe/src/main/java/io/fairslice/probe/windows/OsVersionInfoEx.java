package io.fairslice.probe.windows;

import com.sun.jna.Structure;

/**
 * {@code RTL_OSVERSIONINFOEXW} from the Windows SDK ({@code wdm.h}), filled by {@code RtlGetVersion}: 284 bytes. The
 * service-pack text is {@code WCHAR[128]}, written as shorts here because JNA maps a Java {@code char} to the
 * platform's {@code wchar_t} (4 bytes off Windows), which would move the later fields in the layout tests.
 */
@Structure.FieldOrder({"dwOSVersionInfoSize", "dwMajorVersion", "dwMinorVersion", "dwBuildNumber", "dwPlatformId",
        "szCSDVersion", "wServicePackMajor", "wServicePackMinor", "wSuiteMask", "wProductType", "wReserved"})
public class OsVersionInfoEx extends Structure {
    /** Its documented size: RtlGetVersion fills the EX fields only when told this one. */
    static final int SIZE = 284;

    public int dwOSVersionInfoSize = SIZE;
    public int dwMajorVersion;
    public int dwMinorVersion;
    public int dwBuildNumber;
    public int dwPlatformId;
    public short[] szCSDVersion = new short[128];
    public short wServicePackMajor;
    public short wServicePackMinor;
    public short wSuiteMask;
    /** VER_NT_WORKSTATION (1), VER_NT_DOMAIN_CONTROLLER (2) or VER_NT_SERVER (3). */
    public byte wProductType;
    public byte wReserved;

    public int offsetOf(String field) {
        return fieldOffset(field);
    }
}
