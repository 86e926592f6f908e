#!/usr/bin/env bash
# Soak benchmark: the study server under an open-model overload for a long time, sampling what must stay flat
# (heap, old generation, live data after GC, threads, resident memory, metric series, route table) into a CSV, and
# a start-vs-end summary. A benchmark, not a test: nothing here passes or fails; read the summary
# (docs/reliability.md says what to look for).
#
#   experiments/soak.sh                      # 30 minutes, sample every 10 s, output under results/soak-<time>/
#   experiments/soak.sh --minutes 2 --sample 5 --out docs/measurements/soak-trial
#
# Options: --minutes M (30; at most a year), --sample S seconds (10), --out DIR, --policy P (share), --light R,
# --heavy R, --scan R (requests/s of /light, /heavy and never-repeating scanner URLs: 300, 60, 20), --heap-gb N (1;
# at most 3/4 of the machine's memory), --pin (server on CPU 1, load on CPU 0 with taskset). Extra server options
# after --: passed to ./fairslice serve.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pin=false
server_extra=()
# An option's value, refused when missing (or another option in its place), empty or given twice, as the launcher
# refuses them: bash stopped at "$2: unbound variable", `--out ""` wrote to the default folder, `--out --pin` made a
# folder named --pin, and the later of two values was taken without a word
declare -A given=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes|--sample|--out|--policy|--light|--heavy|--scan|--heap-gb)
      [[ $# -ge 2 && "$2" != --* ]] || { echo "soak: $1 needs a value (see --help)" >&2; exit 2; }
      [[ -n "${2//[[:space:]]/}" ]] || { echo "soak: $1 needs a value, got '$2'" >&2; exit 2; }
      [[ -z "${given[$1]+set}" ]] || { echo "soak: $1 given twice, '${given[$1]}' and '$2'" >&2; exit 2; }
      given[$1]="$2"; shift 2 ;;
    --pin) pin=true; shift ;;
    --) shift; server_extra=("$@"); break ;;
    -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "soak: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
minutes="${given[--minutes]-30}" sample="${given[--sample]-10}" out="${given[--out]-}"
policy="${given[--policy]-share}" light="${given[--light]-300}" heavy="${given[--heavy]-60}"
scan="${given[--scan]-20}" heap_gb="${given[--heap-gb]-1}"
# --heap-gb is read in base 10 and bounded by three quarters of this machine's memory, before anything starts: bash
# read 010 as octal 8 in -Xmn's arithmetic (beside -Xms010g, 10 GB), stopped at 08 with its own error, and wrapped a
# huge number around; the server touches its whole heap at start (serve's -XX:+AlwaysPreTouch), and beside it the load's
# JVM and the OS need room: a heap the machine cannot hold swaps or gets the server killed, and the soak measures
# nothing (a container's memory limit is not read: getconf gives the host's)
pages="$(getconf _PHYS_PAGES 2>/dev/null)" && page_size="$(getconf PAGESIZE 2>/dev/null)" \
  && [[ "$pages" =~ ^[0-9]+$ && "$page_size" =~ ^[0-9]+$ ]] \
  || { echo "soak: cannot tell this machine's memory (getconf _PHYS_PAGES, PAGESIZE), which bounds --heap-gb" >&2
       exit 2; }
memory_gb=$(( pages * page_size / 4 * 3 / 1024 ** 3 ))
heap_digits="${heap_gb#"${heap_gb%%[!0]*}"}" # without leading zeros; compared by length first, so nothing wraps
if ! [[ "$heap_gb" =~ ^[0-9]+$ ]] \
  || (( ${#heap_digits} > ${#memory_gb} || 10#${heap_digits:-0} < 1 || 10#${heap_digits:-0} > memory_gb )); then
  echo "soak: --heap-gb must be a whole number of GB from 1 to $memory_gb (three quarters of this machine's memory)," \
    "got '$heap_gb'" >&2
  exit 2
fi
heap_gb=$(( 10#$heap_digits ))
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
# The load's options are checked by the load's own rules before anything starts or is written: a bad rate was refused
# only once the server ran (and bash read --minutes 010 as 8 minutes, and a huge one wrapped around). The load exits 2
# for a refused option, which it names; any other failure is the check's own JVM's (no java, a compile error).
soak_load=("$java" -Xmx512m "$root/experiments/soak/SoakLoad.java")
load_args=(--minutes "$minutes" --sample "$sample" --light "$light" --heavy "$heavy" --scan "$scan")
check=0
"${soak_load[@]}" --check "${load_args[@]}" || check=$?
if (( check == 2 )); then
  exit 2
elif (( check != 0 )); then
  echo "soak: could not check the load's options: $java -Xmx512m experiments/soak/SoakLoad.java exited with $check" >&2
  exit 1
fi

server_pin=() load_pin=()
if [[ "$pin" == true ]]; then
  command -v taskset >/dev/null || { echo "soak: --pin needs taskset (util-linux)" >&2; exit 2; }
  server_pin=(taskset -c 1) load_pin=(taskset -c 0)
fi
out="${out:-$root/results/soak-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p -- "$out"

# Small class caps and queues so that the overload ends in 503s rather than ever-growing queues: the soak is about
# what the middleware keeps (memory, threads, series) while it sheds. The `ops` class for /metrics dates from when the
# study server's /metrics passed through the filter (shed with the light pages: a 2-minute trial got no metrics from
# 19 of 24 scrapes); the server now serves /metrics outside the application, so the class sees no request. It stays
# so that the committed runs (docs/measurements/soak-*) are what this script runs.
server_args=(--port 0 --policy "$policy")
if [[ "$policy" != none ]]; then
  server_args+=(--fairslice classes=light,heavy,ops --fairslice 'rule.1=heavy path=/heavy'
    --fairslice 'rule.2=ops path=/metrics' --fairslice adaptive=false --fairslice sleep.classes=heavy
    --fairslice class.heavy.max-concurrency=4 --fairslice class.heavy.queue-size=20
    --fairslice class.heavy.queue-timeout=1s --fairslice class.light.queue-size=200
    --fairslice class.light.queue-timeout=2s --fairslice class.ops.share=5)
fi
server_args+=(${server_extra[@]+"${server_extra[@]}"})

echo "soak: ${minutes} min, sample every ${sample} s, policy ${policy}, light ${light}/s heavy ${heavy}/s" \
  "scan ${scan}/s, heap ${heap_gb} GB; output ${out}"
# Serial GC (the launcher's) with a young generation of two thirds of the heap, as the study sizes it
# The GC log's path is relative, the server started in $out: FAIRSLICE_JAVA_OPTS is split on blanks, so an
# absolute path with one (a checkout in "my projects") broke the JVM's command line. exec keeps $! the server's pid.
heap_opts="-Xms${heap_gb}g -Xmx${heap_gb}g -Xmn$(( heap_gb * 1024 * 2 / 3 ))m"
(cd "$out" && FAIRSLICE_JAVA_OPTS="$heap_opts -Xlog:gc:file=gc.log" \
  exec ${server_pin[@]+"${server_pin[@]}"} "$root/fairslice" serve "${server_args[@]}") > "$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT

port=""
for _ in $(seq 1 600); do
  port="$(grep -o 'listening on http://[^:]*:[0-9]*' "$out/server.log" 2>/dev/null | grep -o '[0-9]*$' || true)"
  [[ -n "$port" ]] && break
  kill -0 "$server" 2>/dev/null || { echo "soak: the server exited; see $out/server.log" >&2; exit 1; }
  sleep 0.5
done
[[ -n "$port" ]] || { echo "soak: the server did not start within 5 minutes; see $out/server.log" >&2; exit 1; }
echo "soak: server pid $server on port $port"

${load_pin[@]+"${load_pin[@]}"} "${soak_load[@]}" --url "http://127.0.0.1:$port" --pid "$server" \
  --csv "$out/soak.csv" "${load_args[@]}" | tee "$out/summary.txt"
