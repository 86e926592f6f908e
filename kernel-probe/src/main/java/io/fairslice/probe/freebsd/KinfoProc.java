package io.fairslice.probe.freebsd;

import com.sun.jna.Structure;
import java.util.List;

/**
 * {@code struct kinfo_proc} from FreeBSD's {@code sys/user.h} (FreeBSD 12 to 14, amd64 and arm64: LP64), 1088 bytes
 * ({@code KINFO_PROC_SIZE}). The JNA layout is the source of truth for {@link KinfoProcLayout}'s offsets, which the
 * parser uses on the raw sysctl buffer; a layout test checks the two agree and match the documented size. Field
 * names keep the C names; pointer fields are kernel addresses and are declared as {@code long}.
 */
@Structure.FieldOrder({"ki_structsize", "ki_layout", "ki_args", "ki_paddr", "ki_addr", "ki_tracep", "ki_textvp",
        "ki_fd", "ki_vmspace", "ki_wchan", "ki_pid", "ki_ppid", "ki_pgid", "ki_tpgid", "ki_sid", "ki_tsid", "ki_jobc",
        "ki_spare_short1", "ki_tdev_freebsd11", "ki_siglist", "ki_sigmask", "ki_sigignore", "ki_sigcatch", "ki_uid",
        "ki_ruid", "ki_svuid", "ki_rgid", "ki_svgid", "ki_ngroups", "ki_spare_short2", "ki_groups", "ki_size",
        "ki_rssize", "ki_swrss", "ki_tsize", "ki_dsize", "ki_ssize", "ki_xstat", "ki_acflag", "ki_pctcpu",
        "ki_estcpu", "ki_slptime", "ki_swtime", "ki_cow", "ki_runtime", "ki_start", "ki_childtime", "ki_flag",
        "ki_kiflag", "ki_traceflag", "ki_stat", "ki_nice", "ki_lock", "ki_rqindex", "ki_oncpu_old",
        "ki_lastcpu_old", "ki_tdname", "ki_wmesg", "ki_login", "ki_lockname", "ki_comm", "ki_emul", "ki_loginclass",
        "ki_moretdname", "ki_sparestrings", "ki_spareints", "ki_tdev", "ki_oncpu", "ki_lastcpu", "ki_tracer",
        "ki_flag2", "ki_fibnum", "ki_cr_flags", "ki_jid", "ki_numthreads", "ki_tid", "ki_pri", "ki_rusage",
        "ki_rusage_ch", "ki_pcb", "ki_kstack", "ki_udata", "ki_tdaddr", "ki_pd", "ki_spareptrs", "ki_sparelongs",
        "ki_sflag", "ki_tdflags"})
public class KinfoProc extends Structure {

    /** {@code struct timeval} on LP64. */
    @Structure.FieldOrder({"tv_sec", "tv_usec"})
    public static class Timeval extends Structure {
        public long tv_sec;
        public long tv_usec;
    }

    /** {@code struct rusage} on LP64: two timevals and fourteen longs, 144 bytes. */
    @Structure.FieldOrder({"ru_utime", "ru_stime", "ru_maxrss", "ru_ixrss", "ru_idrss", "ru_isrss", "ru_minflt",
            "ru_majflt", "ru_nswap", "ru_inblock", "ru_oublock", "ru_msgsnd", "ru_msgrcv", "ru_nsignals", "ru_nvcsw",
            "ru_nivcsw"})
    public static class Rusage extends Structure {
        public Timeval ru_utime;
        public Timeval ru_stime;
        public long ru_maxrss;
        public long ru_ixrss;
        public long ru_idrss;
        public long ru_isrss;
        public long ru_minflt;
        public long ru_majflt;
        public long ru_nswap;
        public long ru_inblock;
        public long ru_oublock;
        public long ru_msgsnd;
        public long ru_msgrcv;
        public long ru_nsignals;
        public long ru_nvcsw;
        public long ru_nivcsw;
    }

    /** {@code struct priority}: class, level, native and user priority, one byte each. */
    @Structure.FieldOrder({"pri_class", "pri_level", "pri_native", "pri_user"})
    public static class Priority extends Structure {
        public byte pri_class;
        public byte pri_level;
        public byte pri_native;
        public byte pri_user;
    }

    public int ki_structsize;
    public int ki_layout;
    public long ki_args;
    public long ki_paddr;
    public long ki_addr;
    public long ki_tracep;
    public long ki_textvp;
    public long ki_fd;
    public long ki_vmspace;
    public long ki_wchan;
    public int ki_pid;
    public int ki_ppid;
    public int ki_pgid;
    public int ki_tpgid;
    public int ki_sid;
    public int ki_tsid;
    public short ki_jobc;
    public short ki_spare_short1;
    public int ki_tdev_freebsd11;
    public byte[] ki_siglist = new byte[16];
    public byte[] ki_sigmask = new byte[16];
    public byte[] ki_sigignore = new byte[16];
    public byte[] ki_sigcatch = new byte[16];
    public int ki_uid;
    public int ki_ruid;
    public int ki_svuid;
    public int ki_rgid;
    public int ki_svgid;
    public short ki_ngroups;
    public short ki_spare_short2;
    public int[] ki_groups = new int[16];
    public long ki_size;
    public long ki_rssize;
    public long ki_swrss;
    public long ki_tsize;
    public long ki_dsize;
    public long ki_ssize;
    public short ki_xstat;
    public short ki_acflag;
    public int ki_pctcpu;
    public int ki_estcpu;
    public int ki_slptime;
    public int ki_swtime;
    public int ki_cow;
    /** Thread run time, microseconds. */
    public long ki_runtime;
    public Timeval ki_start;
    public Timeval ki_childtime;
    public long ki_flag;
    public long ki_kiflag;
    public int ki_traceflag;
    public byte ki_stat;
    public byte ki_nice;
    public byte ki_lock;
    public byte ki_rqindex;
    public byte ki_oncpu_old;
    public byte ki_lastcpu_old;
    /** TDNAMLEN + 1. */
    public byte[] ki_tdname = new byte[17];
    public byte[] ki_wmesg = new byte[9];
    public byte[] ki_login = new byte[18];
    public byte[] ki_lockname = new byte[9];
    public byte[] ki_comm = new byte[20];
    public byte[] ki_emul = new byte[17];
    public byte[] ki_loginclass = new byte[18];
    /** MAXCOMLEN - TDNAMLEN + 1: the rest of a long thread name. */
    public byte[] ki_moretdname = new byte[4];
    public byte[] ki_sparestrings = new byte[46];
    public int[] ki_spareints = new int[2];
    public long ki_tdev;
    public int ki_oncpu;
    public int ki_lastcpu;
    public int ki_tracer;
    public int ki_flag2;
    public int ki_fibnum;
    public int ki_cr_flags;
    public int ki_jid;
    public int ki_numthreads;
    public int ki_tid;
    public Priority ki_pri;
    public Rusage ki_rusage;
    public Rusage ki_rusage_ch;
    public long ki_pcb;
    public long ki_kstack;
    public long ki_udata;
    public long ki_tdaddr;
    public long ki_pd;
    public long[] ki_spareptrs = new long[5];
    public long[] ki_sparelongs = new long[12];
    public long ki_sflag;
    public long ki_tdflags;

    public KinfoProc() {
        super(ALIGN_GNUC);
    }

    /** The offset of a field, as JNA lays it out (public for the layout test). */
    public int offsetOf(String field) {
        return fieldOffset(field);
    }
}
