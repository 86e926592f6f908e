package io.fairslice.probe.linux;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Finds the {@code cpu.stat} with CFS bandwidth counters of this process's cgroup: cgroup v2 ({@code nr_periods},
 * {@code throttled_usec}) when the cpu controller is enabled there, else v1's cpu controller ({@code throttled_time}
 * in ns). Looked up once; containers often mount their own cgroup as the root, so the mount root is the fallback.
 */
final class CgroupCpuStat {

    final String path;
    final boolean v2;

    private CgroupCpuStat(String path, boolean v2) {
        this.path = path;
        this.v2 = v2;
    }

    static CgroupCpuStat locate(Path procRoot) {
        try {
            List<String> cgroups = Files.readAllLines(procRoot.resolve("self/cgroup"));
            List<String> mounts = Files.readAllLines(procRoot.resolve("self/mountinfo"));
            String v2Path = null;
            String v1Path = null;
            for (String line : cgroups) {
                String[] parts = line.split(":", 3);
                if (parts.length < 3) {
                    continue;
                }
                if (parts[0].equals("0") && parts[1].isEmpty()) {
                    v2Path = parts[2];
                } else if (List.of(parts[1].split(",")).contains("cpu")) {
                    v1Path = parts[2];
                }
            }
            for (String m : mounts) {
                // mountinfo: id parent major:minor root mountpoint options - fstype source superoptions
                String[] f = m.split(" ");
                int dash = List.of(f).indexOf("-");
                if (dash < 0 || dash + 3 >= f.length) {
                    continue;
                }
                String fstype = f[dash + 1];
                String mountPoint = f[4];
                if (fstype.equals("cgroup2") && v2Path != null) {
                    CgroupCpuStat found = pick(mountPoint, v2Path, true);
                    if (found != null) {
                        return found;
                    }
                } else if (fstype.equals("cgroup") && v1Path != null
                        && List.of(f[dash + 3].split(",")).contains("cpu")) {
                    CgroupCpuStat found = pick(mountPoint, v1Path, false);
                    if (found != null) {
                        return found;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return null;
    }

    private static CgroupCpuStat pick(String mountPoint, String cgroupPath, boolean v2) {
        for (Path candidate : List.of(Path.of(mountPoint, cgroupPath, "cpu.stat"), Path.of(mountPoint, "cpu.stat"))) {
            try {
                if (Files.isReadable(candidate) && Files.readString(candidate).contains("nr_periods")) {
                    return new CgroupCpuStat(candidate.toString(), v2);
                }
            } catch (IOException | RuntimeException e) {
                // try the next candidate
            }
        }
        return null;
    }
}
