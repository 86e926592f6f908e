#!/bin/bash
# alternate the change (ad7124f, at 99c0e14) and a4d787a: share under rr-100ms and rr-8ms with the study's 2 MB page
for run in ry1 rhead1 ry2 rhead2; do
  case $run in ry*) dir=/tmp/y;; rhead*) dir=/tmp/h;; esac
  (cd $dir && ./fairslice study --config /tmp/onset/rr2mb.properties --out /tmp/onset/$run > /tmp/onset/$run.log 2>&1)
  echo "$run done $(date -u +%T) rr=$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" >> /tmp/onset/ab.log
done
