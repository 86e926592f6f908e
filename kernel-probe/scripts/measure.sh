#!/usr/bin/env bash
# Measures the kernel probe on this machine and writes docs/measurements/kernel-probe.txt:
#   1. its cost (ProbeCostMain: CPU time per read, per sampler pass, per enter/exit pair), 200 idle tracked threads;
#   2. the busy/bursty experiment (BusyBurstyMain) pinned to CPU 1 under the default scheduler;
#   3. the same under SCHED_RR with the 100 ms quantum (root only; sched_rr_timeslice_ms is restored to 100).
# On the shared build machine run it under the build lock:  flock /tmp/fairslice-build.lock kernel-probe/scripts/measure.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
OUT="$ROOT/docs/measurements/kernel-probe.txt"
RR=/proc/sys/kernel/sched_rr_timeslice_ms
restore_rr() { [[ -w "$RR" ]] && echo 100 > "$RR" || true; }
trap restore_rr EXIT

./mvnw -B -q -DskipTests test-compile package -pl kernel-probe >&2
CP="kernel-probe/target/classes:kernel-probe/target/test-classes:kernel-probe/target/lib/*"
RUN=("$JAVA" --enable-native-access=ALL-UNNAMED -cp "$CP")

mkdir -p "$(dirname "$OUT")"
{
  echo "# kernel probe measurements ($(date -u +%Y-%m-%dT%H:%MZ), $(uname -sr), $(nproc) CPUs, $("$JAVA" -version 2>&1 | head -1))"
  echo "# produced by: flock /tmp/fairslice-build.lock kernel-probe/scripts/measure.sh"
  echo "# shared machine: other work may run at the same time; CPU time (not wall time) is measured where it matters"
  echo
  echo "## 1. cost: ${RUN[*]} io.fairslice.probe.ProbeCostMain 200 50"
  "${RUN[@]}" io.fairslice.probe.ProbeCostMain 200 50
  echo
  echo "## 2. busy/bursty, default scheduler: taskset -c 1 java ... io.fairslice.probe.linux.BusyBurstyMain 3000"
  echo "#    2 busy threads (never block) and 2 bursty threads (1 ms work, 4 ms sleep) share CPU 1; figures per group"
  taskset -c 1 "${RUN[@]}" io.fairslice.probe.linux.BusyBurstyMain 3000
  echo
  if chrt -r 1 true 2>/dev/null && [[ -w "$RR" ]]; then
    echo 100 > "$RR"
    echo "## 3. busy/bursty, SCHED_RR quantum 100 ms: chrt -r 1 taskset -c 1 java ... BusyBurstyMain 3000"
    chrt -r 1 taskset -c 1 "${RUN[@]}" io.fairslice.probe.linux.BusyBurstyMain 3000
    echo "## sched_rr_timeslice_ms after the run (restored): $(restore_rr; cat "$RR" 2>/dev/null || echo '?')"
  else
    echo "## 3. skipped: SCHED_RR not permitted here (needs root)"
  fi
} > "$OUT"
echo "wrote $OUT" >&2
