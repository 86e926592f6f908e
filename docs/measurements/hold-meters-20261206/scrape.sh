#!/bin/bash
# every 2 s: the study server's hold meters, request counts and parks
out=$1
while true; do
  for pid in $(pgrep -f 'io.fairslice.experiments' ); do
    for port in $(ss -ltnpH 2>/dev/null | grep "pid=$pid," | awk '{print $4}' | sed 's/.*://'); do
      m=$(curl -s -m 1 http://127.0.0.1:$port/metrics) || continue
      [ -z "$m" ] && continue
      echo "=== $(date +%s.%N) pid=$pid port=$port" >> $out
      echo "$m" | grep -E "^fairslice_(share_hold|yield_parks_total)" >> $out
    done
  done
  sleep 2
done
