#!/usr/bin/env bash
# What an overload looks like on the dashboard, as text: for each policy, starts `./fairslice serve --prometheus`,
# drives a closed-loop light + heavy load on loopback, and prints every panel's values (npm run snapshot) at the end.
# Outputs go to dashboards/snapshots/ (committed, not git-ignored): overload-<policy>.txt, replaced only when its
# snapshot was taken whole, and the server's log as it runs, overload-<policy>.server.log. Takes about 80 s per
# policy; run it alone on the machine (a load test: other work there changes what it shows).
# Usage: dashboards/scripts/overload-snapshot.sh [LIGHT HEAVY SECONDS [POLICY...]]
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
LIGHT="${1:-30}" HEAVY="${2:-10}" SECONDS_="${3:-45}"
shift $(( $# < 3 ? $# : 3 ))
POLICIES=("$@")
[[ ${#POLICIES[@]} -gt 0 ]] || POLICIES=(observe share)
OUT="$ROOT/dashboards/snapshots"
mkdir -p "$OUT"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
(cd "$ROOT/dashboards" && npm run -s build)

SERVER_PID="" LOAD_PID=""
# The launcher runs in a process group of its own (setsid; a background job of a script is no group leader, so
# setsid does not fork and the group's id is SERVER_PID): stopping the group stops whatever it runs at that moment,
# its build, the server JVM or Prometheus, and the launcher's own trap removes Prometheus's storage. Signalled only
# the server JVM, a launcher still building or starting Prometheus went on, and the script waited for it forever.
stop_policy() {
  if [[ -n "$LOAD_PID" ]]; then
    kill -TERM "$LOAD_PID" 2>/dev/null || true
    wait "$LOAD_PID" 2>/dev/null || true
    LOAD_PID=""
  fi
  if [[ -n "$SERVER_PID" ]]; then
    kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
  fi
}
# At exit only: a second Ctrl-C must not cut the stop short. Ignored between two policies, INT and TERM stayed
# ignored for the next one, and so for its launcher and JVMs (an ignored signal stays ignored across exec): the
# second policy's server never stopped, and the script waited for it forever.
cleanup() {
  trap '' INT TERM
  stop_policy
  rm -f "$OUT"/overload-*.txt.tmp "$OUT"/overload-*.load.txt
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

for policy in "${POLICIES[@]}"; do
  port="$(free_port)" prom="$(free_port)"
  out="$OUT/overload-$policy.txt"
  log="$OUT/overload-$policy.server.log"
  FAIRSLICE_PROMETHEUS_LISTEN="127.0.0.1:$prom" \
    setsid "$ROOT/fairslice" serve --port "$port" --policy "$policy" --prometheus > "$log" 2>&1 &
  SERVER_PID=$!
  ready=false
  for _ in $(seq 1 300); do
    if curl -sf "http://127.0.0.1:$port/metrics" > /dev/null 2>&1; then
      ready=true
      break
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 1
  done
  if [[ "$ready" != true ]]; then
    echo "overload-snapshot: ./fairslice serve --policy $policy did not answer /metrics (see $log)" >&2
    exit 1
  fi
  {
    echo "# dashboards/scripts/overload-snapshot.sh $LIGHT $HEAVY $SECONDS_ $policy   ($(date -u +%FT%TZ), $(nproc) CPUs)"
    echo "# server: ./fairslice serve --policy $policy (2 MB document, weaving on); load: $LIGHT clients on /light," \
      "$HEAVY on /heavy, closed loop, ${SECONDS_} s, after a 15 s warm-up at the same load"
    "$JAVA" "$HERE/ClosedLoop.java" "http://127.0.0.1:$port" 15 "/light=$LIGHT" "/heavy=$HEAVY" > /dev/null
    # the snapshot is taken 5 s before the load ends, so gauges (in flight, shares) show the overload itself
    "$JAVA" "$HERE/ClosedLoop.java" "http://127.0.0.1:$port" "$SECONDS_" "/light=$LIGHT" "/heavy=$HEAVY" \
      > "$OUT/overload-$policy.load.txt" &
    LOAD_PID=$!
    sleep $(( SECONDS_ - 5 ))
    snapshot="$(cd "$ROOT/dashboards" \
      && node build/generator/snapshot.js --prometheus "http://127.0.0.1:$prom" --rate-interval 30s)"
    wait "$LOAD_PID"
    LOAD_PID=""
    echo "# responses during the measured ${SECONDS_} s:"
    cat "$OUT/overload-$policy.load.txt"
    echo
    echo "$snapshot"
  } > "$out.tmp"
  mv "$out.tmp" "$out"
  rm -f "$OUT/overload-$policy.load.txt"
  stop_policy
  echo "wrote $out" >&2
done
