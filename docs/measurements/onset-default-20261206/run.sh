#!/bin/bash
# load onset under the default scheduler: a warmed share server, light alone, then 40 heavy clients join (twice)
cd /work/main
G="./mvnw -B -o -q -pl loadgen gatling:test -Dgatling.simulationClass=io.fairslice.loadgen.OverloadStudy -DbaseUrl=http://127.0.0.1:8080 -DlightPaths=/light,/light2 -DheavyPath=/heavy -DwarmUp=0s"
taskset -c 1 ./fairslice serve --port 8080 > /tmp/ons/serve.log 2>&1 &
for i in $(seq 60); do curl -s -m1 -o /dev/null http://127.0.0.1:8080/light && break; sleep 1; done
spid=$(pgrep -f 'io.fairslice.experiments.server' | head -1)
echo "server pid $spid" >> /tmp/ons/log
taskset -c 0 $G -DlightUsers=30 -DheavyUsers=40 -Dduration=90s > /tmp/ons/warm.log 2>&1   # JIT warm
/tmp/ons/scrape1s.sh /tmp/ons/s.txt $spid &
for round in 1 2 3; do
  echo "round $round light starts $(date +%s.%N)" >> /tmp/ons/log
  taskset -c 0 $G -DlightUsers=30 -DheavyUsers=0 -Dduration=75s > /tmp/ons/light$round.log 2>&1 &
  lp=$!
  sleep 25
  echo "round $round heavy starts $(date +%s.%N)" >> /tmp/ons/log
  taskset -c 0 $G -DlightUsers=0 -DheavyUsers=40 -Dduration=30s > /tmp/ons/heavy$round.log 2>&1
  echo "round $round heavy ends $(date +%s.%N)" >> /tmp/ons/log
  wait $lp
done
pkill -f 'io.fairslice.experiments.server'; sleep 3
echo done $(date -u +%T) >> /tmp/ons/log
