#!/usr/bin/env bash
# Overhead of woven yield points in the study server (the real middleware, JDK 17).
# Server pinned to CPU 1, clients to CPU 0. For each mode: /light alone (2 clients), /heavy alone (2 clients),
# then mixed: 4 light + 4 heavy clients at once (classes compete: the share scheduler arms the yield gate).
set -u
B=/tmp/a2build/experiments/server/target
CP="$B/fairslice-study-server-0.1.0-SNAPSHOT.jar:$B/lib/*"
WARM=${WARM:-6}; MEASURE=${MEASURE:-10}
for spec in ${MODES:-"none:off" "share:off" "share:on" "share:calls"}; do
  policy=${spec%%:*}; weaving=${spec##*:}
  opts=()
  if [[ $weaving != off ]]; then
    case $weaving in calls) f=/tmp/a2/ovh/scope-calls.xml ;; on) f=/tmp/a2/ovh/scope-exec.xml ;; *) f=/tmp/a2/ovh/scope-$weaving.xml ;; esac
    opts=(-javaagent:$B/agent/aspectjweaver.jar "-Dorg.aspectj.weaver.loadtime.configuration=META-INF/aop.xml;file:$f")
  fi
  PORT=$((20000 + RANDOM % 20000))
  taskset -c 1 java -XX:+UseSerialGC -Xms2g -Xmx2g -Xmn1500m "${opts[@]}" -cp "$CP" io.fairslice.experiments.server.StudyServer --port $PORT --policy $policy --fairslice 'rule.1=heavy path=/heavy' > /tmp/a2/load/server-$policy-$weaving.log 2>&1 &
  SP=$!
  for i in $(seq 1 60); do curl -s -o /dev/null http://127.0.0.1:$PORT/light && break; sleep 0.5; done
  for page in light heavy; do
    echo -n "policy=$policy weaving=$weaving alone "
    taskset -c 0 java -cp /tmp/a2/load Load http://127.0.0.1:$PORT/$page 2 $WARM $MEASURE
  done
  taskset -c 0 java -cp /tmp/a2/load Load http://127.0.0.1:$PORT/heavy 4 $WARM $MEASURE > /tmp/a2/load/mixed-heavy.txt &
  HP=$!
  echo -n "policy=$policy weaving=$weaving mixed(4L+4H) "
  taskset -c 0 java -cp /tmp/a2/load Load http://127.0.0.1:$PORT/light 4 $WARM $MEASURE
  wait $HP
  echo -n "policy=$policy weaving=$weaving mixed(4L+4H) "; cat /tmp/a2/load/mixed-heavy.txt
  kill $SP; wait $SP 2>/dev/null
done
