#!/bin/bash
# every 2 s: the study server's fairslice scheduler meters and JIT thread CPU
out=/tmp/jit/scrape.txt
while true; do
  for pid in $(pgrep -f 'io.fairslice.experiments' ); do
    for port in $(ss -ltnpH 2>/dev/null | grep "pid=$pid," | awk '{print $4}' | sed 's/.*://'); do
      m=$(curl -s -m 1 http://127.0.0.1:$port/metrics) || continue
      [ -z "$m" ] && continue
      echo "=== $(date +%s.%N) pid=$pid port=$port" >> $out
      echo "$m" | grep -E "^fairslice_(class_cpu_share|class_balance|class_gc_seconds_total|requests_cpu_seconds_total|yield_parks_total)" >> $out
      c2=0; for t in /proc/$pid/task/*; do n=$(cat $t/comm 2>/dev/null); case "$n" in C2*|C1*) s=$(awk '{print $14+$15}' $t/stat); c2=$((c2+s));; esac; done
      echo "jit_ticks $c2 proc_ticks $(awk '{print $14+$15}' /proc/$pid/stat)" >> $out
    done
  done
  sleep 2
done
