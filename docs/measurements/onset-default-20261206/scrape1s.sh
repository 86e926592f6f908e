#!/bin/bash
# every second: light and heavy request CPU (sum over pages) and the server's process CPU ticks
out=$1; pid=$2
while kill -0 $pid 2>/dev/null; do
  m=$(curl -s -m 1 http://127.0.0.1:8080/metrics) || { sleep 1; continue; }
  l=$(echo "$m" | awk '/^fairslice_requests_cpu_seconds_total\{.*class="light"/ {s+=$NF} END {print s+0}')
  h=$(echo "$m" | awk '/^fairslice_requests_cpu_seconds_total\{.*class="heavy"/ {s+=$NF} END {print s+0}')
  p=$(awk '{print $14+$15}' /proc/$pid/stat)
  echo "$(date +%s.%N) $l $h $p" >> $out
  sleep 1
done
