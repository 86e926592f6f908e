# A busy loop that records every stop longer than 2 ms over 4 s: (seconds since start, stop in ms).
# Run as a realtime thread on the server's core:  chrt -r 1 taskset -c 1 python3 spin.py
import time
t0 = time.monotonic(); last = t0; gaps = []
while True:
    t = time.monotonic()
    if t - last > 0.002:
        gaps.append((round(t - t0, 3), round((t - last) * 1000, 1)))
    last = t
    if t - t0 > 4:
        break
print(len(gaps), gaps[:12])
