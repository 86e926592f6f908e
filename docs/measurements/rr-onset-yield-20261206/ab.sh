#!/bin/bash
# alternate the yield build and HEAD, share@rr-100ms at 10 MB, two fresh servers a run
cfg=/work/main/docs/measurements/rr-heavy-onset-20261206/config.properties
for run in y1 head2 y2 head3 y3; do
  case $run in y*) dir=/tmp/y;; head*) dir=/tmp/h;; esac
  sed -i "s#^out=.*#out=/tmp/onset/scrape-$run.txt#" /tmp/onset/scrape2.sh
  /tmp/onset/scrape2.sh /tmp/onset/scrape-$run.txt & sp=$!
  (cd $dir && ./fairslice study --config $cfg --out /tmp/onset/$run > /tmp/onset/$run.log 2>&1)
  kill $sp
  echo "$run done $(date -u +%T) rr=$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" >> /tmp/onset/ab.log
done
