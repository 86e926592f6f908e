#!/bin/bash
cd /tmp/hmw
/tmp/hm/scrape.sh /tmp/hm/scrape-def.txt & s=$!
./fairslice study --config /tmp/hm/def.properties --out /tmp/hm/def > /tmp/hm/def.log 2>&1
kill $s
/tmp/hm/scrape.sh /tmp/hm/scrape-rr.txt & s=$!
./fairslice study --config /tmp/hm/rr2mb.properties --out /tmp/hm/rr > /tmp/hm/rr.log 2>&1
kill $s
echo done $(date -u +%T) >> /tmp/hm/done
