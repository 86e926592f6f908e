#!/usr/bin/env bash
# What an overload looks like on the dashboard, as text: for each policy, starts `./fairslice serve --prometheus`,
# drives a closed-loop light + heavy load on loopback, and prints every panel's values (npm run snapshot) at the end.
# Outputs go to dashboards/snapshots/overload-<policy>.txt (results/ is git-ignored). Takes about 80 s per policy; run it alone (it takes the
# build lock, as load tests must). Usage: dashboards/scripts/overload-snapshot.sh [LIGHT HEAVY SECONDS [POLICY...]]
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

SERVER_PID=""
cleanup() {
  if [[ -n "$SERVER_PID" ]]; then
    # stop the server JVM (a child of the launcher, by id); the launcher's EXIT trap then stops its Prometheus
    local child
    for child in $(pgrep -P "$SERVER_PID" || true); do
      [[ "$(ps -o comm= -p "$child" 2>/dev/null)" == java ]] && kill -TERM "$child" 2>/dev/null || true
    done
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
  fi
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

for policy in "${POLICIES[@]}"; do
  port="$(free_port)" prom="$(free_port)"
  out="$OUT/overload-$policy.txt"
  FAIRSLICE_PROMETHEUS_LISTEN="127.0.0.1:$prom" \
    "$ROOT/fairslice" serve --port "$port" --policy "$policy" --prometheus > "$OUT/overload-$policy.server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:$port/metrics" > /dev/null 2>&1 && break
    sleep 1
  done
  {
    echo "# dashboards/scripts/overload-snapshot.sh $LIGHT $HEAVY $SECONDS_ $policy   ($(date -u +%FT%TZ), $(nproc) CPUs)"
    echo "# server: ./fairslice serve --policy $policy (2 MB document, weaving on); load: $LIGHT clients on /light," \
      "$HEAVY on /heavy, closed loop, ${SECONDS_} s, after a 15 s warm-up at the same load"
    "$JAVA" "$HERE/ClosedLoop.java" "http://127.0.0.1:$port" 15 "/light=$LIGHT" "/heavy=$HEAVY" > /dev/null
    # the snapshot is taken 5 s before the load ends, so gauges (in flight, shares) show the overload itself
    "$JAVA" "$HERE/ClosedLoop.java" "http://127.0.0.1:$port" "$SECONDS_" "/light=$LIGHT" "/heavy=$HEAVY" \
      > "$OUT/overload-$policy.load.txt" &
    load=$!
    sleep $(( SECONDS_ - 5 ))
    snapshot="$(cd "$ROOT/dashboards" \
      && node build/generator/snapshot.js --prometheus "http://127.0.0.1:$prom" --rate-interval 30s)"
    wait "$load"
    echo "# responses during the measured ${SECONDS_} s:"
    cat "$OUT/overload-$policy.load.txt"
    echo
    echo "$snapshot"
  } > "$out"
  rm -f "$OUT/overload-$policy.load.txt"
  cleanup
  echo "wrote $out" >&2
done
