package io.fairslice.probe.windows;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;

/**
 * {@code SYSTEM_THREAD_INFORMATION} from the Windows SDK ({@code winternl.h}) and the NT headers: 80 bytes on x64.
 * Times are in 100 ns units. JNA's layout is the reference for {@link NtLayout}'s offsets (a test checks them).
 */
@Structure.FieldOrder({"KernelTime", "UserTime", "CreateTime", "WaitTime", "StartAddress", "UniqueProcess",
        "UniqueThread", "Priority", "BasePriority", "ContextSwitches", "ThreadState", "WaitReason"})
public class SystemThreadInformation extends Structure {
    public long KernelTime;
    public long UserTime;
    public long CreateTime;
    public int WaitTime;
    public Pointer StartAddress;
    /** CLIENT_ID.UniqueProcess. */
    public Pointer UniqueProcess;
    /** CLIENT_ID.UniqueThread: the thread id. */
    public Pointer UniqueThread;
    public int Priority;
    public int BasePriority;
    public int ContextSwitches;
    public int ThreadState;
    public int WaitReason;

    public int offsetOf(String field) {
        return fieldOffset(field);
    }
}
