#!/bin/bash
for i in 1 2 3; do
  for v in old new; do
    (cd /tmp/$v && ./fairslice study --config "$OLDPWD/ab.properties" --out /tmp/ab-$v-$i > /tmp/ab-$v-$i.log 2>&1)
    echo "$v $i: $(tail -1 /tmp/ab-$v-$i.log)"
  done
done
