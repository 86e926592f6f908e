#!/usr/bin/env bash
# Runs the JMH benchmarks with the GC profiler and saves the output, with the machine's facts, under
# docs/benchmarks/. Bounded: one fork, 3 x 1 s warm-up and 5 x 1 s measurement per benchmark (about 2 minutes in
# all). Extra arguments go to JMH (e.g. a benchmark name regex, or -f 3 for a longer run); each of -f, -wi, -w, -i
# and -r given there replaces its default.
#   middleware/benchmarks/run.sh [JMH options]
# It takes the shared build lock when /tmp/fairslice-build.lock exists (parallel work on one machine).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
JAR="$ROOT/middleware/benchmarks/target/benchmarks.jar"
LOCK=()
[[ -e /tmp/fairslice-build.lock ]] && LOCK=(flock /tmp/fairslice-build.lock)

if [[ ! -f "$JAR" ]] || [[ -n "$(find "$ROOT/middleware/core/src" "$ROOT/middleware/benchmarks/src" -newer "$JAR" -type f -print -quit)" ]]; then
  (cd "$ROOT" && "${LOCK[@]}" ./mvnw -B -q -DskipTests package -pl middleware/benchmarks -am)
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

out="$ROOT/docs/benchmarks/jmh-$(date -u +%Y%m%dT%H%MZ)-jdk$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}').txt"
mkdir -p "$(dirname "$out")"
{
  echo "# fairslice JMH run"
  echo "date (UTC):  $(date -u '+%Y-%m-%d %H:%M')"
  echo "command:     middleware/benchmarks/run.sh $*"
  echo "commit:      $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "${FAIRSLICE_COMMIT:-unknown}")"
  echo "jdk:         $("$JAVA" -version 2>&1 | head -2 | tr '\n' ' ')"
  echo "cpu:         $(nproc) x $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
  echo "kernel:      $(uname -sr)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (a shared machine: compare rows of one run, not runs)"
  echo
} > "$out"
"${LOCK[@]}" "$JAVA" -jar "$JAR" "${defaults[@]}" -prof gc "$@" 2>&1 | tee -a "$out"
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"
echo "saved: $out" >&2
