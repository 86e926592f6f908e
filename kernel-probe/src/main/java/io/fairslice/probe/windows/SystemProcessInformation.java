package io.fairslice.probe.windows;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;

/**
 * {@code SYSTEM_PROCESS_INFORMATION} (the full NT layout, as documented for
 * {@code NtQuerySystemInformation(SystemProcessInformation)}): 256 bytes on x64, followed in the buffer by
 * {@code NumberOfThreads} {@link SystemThreadInformation} records. Pointer-sized fields are {@link Pointer}s, SIZE_T
 * fields too (same size on x64).
 */
@Structure.FieldOrder({"NextEntryOffset", "NumberOfThreads", "WorkingSetPrivateSize", "HardFaultCount",
        "NumberOfThreadsHighWatermark", "CycleTime", "CreateTime", "UserTime", "KernelTime", "ImageNameLength",
        "ImageNameMaximumLength", "ImageNameBuffer", "BasePriority", "UniqueProcessId",
        "InheritedFromUniqueProcessId", "HandleCount", "SessionId", "UniqueProcessKey", "PeakVirtualSize",
        "VirtualSize", "PageFaultCount", "PeakWorkingSetSize", "WorkingSetSize", "QuotaPeakPagedPoolUsage",
        "QuotaPagedPoolUsage", "QuotaPeakNonPagedPoolUsage", "QuotaNonPagedPoolUsage", "PagefileUsage",
        "PeakPagefileUsage", "PrivatePageCount", "ReadOperationCount", "WriteOperationCount", "OtherOperationCount",
        "ReadTransferCount", "WriteTransferCount", "OtherTransferCount"})
public class SystemProcessInformation extends Structure {
    public int NextEntryOffset;
    public int NumberOfThreads;
    public long WorkingSetPrivateSize;
    public int HardFaultCount;
    public int NumberOfThreadsHighWatermark;
    public long CycleTime;
    public long CreateTime;
    public long UserTime;
    public long KernelTime;
    /** UNICODE_STRING ImageName: Length, MaximumLength (bytes), Buffer. */
    public short ImageNameLength;
    public short ImageNameMaximumLength;
    public Pointer ImageNameBuffer;
    public int BasePriority;
    public Pointer UniqueProcessId;
    public Pointer InheritedFromUniqueProcessId;
    public int HandleCount;
    public int SessionId;
    public Pointer UniqueProcessKey;
    public Pointer PeakVirtualSize;
    public Pointer VirtualSize;
    public int PageFaultCount;
    public Pointer PeakWorkingSetSize;
    public Pointer WorkingSetSize;
    public Pointer QuotaPeakPagedPoolUsage;
    public Pointer QuotaPagedPoolUsage;
    public Pointer QuotaPeakNonPagedPoolUsage;
    public Pointer QuotaNonPagedPoolUsage;
    public Pointer PagefileUsage;
    public Pointer PeakPagefileUsage;
    public Pointer PrivatePageCount;
    public long ReadOperationCount;
    public long WriteOperationCount;
    public long OtherOperationCount;
    public long ReadTransferCount;
    public long WriteTransferCount;
    public long OtherTransferCount;

    public int offsetOf(String field) {
        return fieldOffset(field);
    }
}
