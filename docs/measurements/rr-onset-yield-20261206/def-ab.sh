#!/bin/bash
# alternate the yield build and HEAD, share@default at 2 MB (the study's page), two fresh servers a run
for run in dy1 dhead1 dy2 dhead2; do
  case $run in dy*) dir=/tmp/y;; dhead*) dir=/tmp/h;; esac
  (cd $dir && ./fairslice study --config /tmp/onset/def.properties --out /tmp/onset/$run > /tmp/onset/$run.log 2>&1)
  echo "$run done $(date -u +%T)" >> /tmp/onset/ab.log
done
