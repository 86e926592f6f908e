#!/usr/bin/env bash
# Runs the JMH benchmarks with the GC profiler and saves the output, with the machine's facts, under
# docs/benchmarks/. Bounded: one fork, 3 x 1 s warm-up and 5 x 1 s measurement per benchmark (about 2 minutes in
# all). Extra arguments go to JMH (e.g. a benchmark name regex, or -f 3 for a longer run); each of -f, -wi, -w, -i
# and -r given there replaces its default.
#   middleware/benchmarks/run.sh [JMH options]
# The output is saved only when JMH exits 0 and every benchmark ran (a bad name or option, a failed benchmark: nothing
# saved); -h, -l, -lp, -lprof and -lrf only print. It rebuilds target/benchmarks.jar when a source or pom.xml it is
# built from is newer, and takes the shared build lock when /tmp/fairslice-build.lock exists (parallel work on one
# machine; FAIRSLICE_BUILD_LOCK names another file, empty for none). It writes JMH's output itself: -o is refused.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
JAR="$ROOT/middleware/benchmarks/target/benchmarks.jar"
LOCK_FILE="${FAIRSLICE_BUILD_LOCK-/tmp/fairslice-build.lock}"
LOCK=()
if [[ -n "$LOCK_FILE" && -e "$LOCK_FILE" ]]; then LOCK=(flock "$LOCK_FILE"); fi

BUILT_FROM=("$ROOT/pom.xml" "$ROOT/middleware/pom.xml" "$ROOT/middleware/core/pom.xml" "$ROOT/middleware/core/src"
  "$ROOT/middleware/benchmarks/pom.xml" "$ROOT/middleware/benchmarks/src")
if [[ ! -f "$JAR" ]] || [[ -n "$(find "${BUILT_FROM[@]}" -newer "$JAR" -type f -print -quit)" ]]; then
  (cd "$ROOT" && ${LOCK[@]+"${LOCK[@]}"} ./mvnw -B -q -DskipTests package -pl middleware/benchmarks -am)
fi

# JMH refuses an option given twice: a default goes in only where the caller did not give that option (-f 3, -f3 or
# -f=3; -w is not -wi nor -wbs)
defaults=()
for option in "f 1" "wi 3" "w 1s" "i 5" "r 1s"; do
  name="${option% *}"
  given=false
  for arg in "$@"; do
    if [[ "$arg" =~ ^-$name($|=|[0-9]) ]]; then given=true; fi
  done
  $given || defaults+=("-$name" "${option#* }")
done

# help and the lists run no benchmark: nothing to save
for arg in "$@"; do
  case "$arg" in
    -h | -l | -lp | -lprof | -lrf) exec "$JAVA" -jar "$JAR" "$@" ;;
  esac
done
# with -o JMH writes its results to that file and nothing to the output this script saves and checks
for arg in "$@"; do
  if [[ "$arg" =~ ^-o($|=|[^a-z]) ]]; then
    echo "run.sh: -o is not taken: run.sh saves JMH's output under docs/benchmarks/ itself" >&2
    exit 2
  fi
done

out="$ROOT/docs/benchmarks/jmh-$(date -u +%Y%m%dT%H%M%SZ)-jdk$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}').txt"
tmp="$(mktemp "${TMPDIR:-/tmp}/fairslice-jmh.XXXXXX")"
keep=false
trap '$keep || rm -f "$tmp"' EXIT
{
  echo "# fairslice JMH run"
  echo "date (UTC):  $(date -u '+%Y-%m-%d %H:%M:%S')"
  echo "command:     middleware/benchmarks/run.sh $*"
  echo "commit:      $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "${FAIRSLICE_COMMIT:-unknown}")"
  echo "jdk:         $("$JAVA" -version 2>&1 | head -2 | tr '\n' ' ')"
  echo "cpu:         $(nproc) x $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
  echo "kernel:      $(uname -sr)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (a shared machine: compare rows of one run, not runs)"
  echo
} > "$tmp"
status=0
${LOCK[@]+"${LOCK[@]}"} "$JAVA" -jar "$JAR" ${defaults[@]+"${defaults[@]}"} -prof gc "$@" 2>&1 | tee -a "$tmp" || status=$?
if (( status != 0 )); then
  echo "run.sh: JMH exited with status $status: nothing saved" >&2
  exit "$status"
fi
if ! grep -q '^# Run complete' "$tmp"; then
  echo "run.sh: JMH ran no benchmark: nothing saved" >&2
  exit 1
fi
if grep -q '<failure>' "$tmp"; then
  keep=true
  echo "run.sh: a benchmark failed (<failure> above): not saved under docs/benchmarks/, output kept in $tmp" >&2
  exit 1
fi
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)" >> "$tmp"
mkdir -p "$(dirname "$out")"
# written, not moved: with the umask's permissions, not mktemp's 600; set -C: never over another run's file
if ! (set -C; cat "$tmp" > "$out"); then
  keep=true
  echo "run.sh: could not write $out: output kept in $tmp" >&2
  exit 1
fi
echo "saved: $out" >&2
