# An ordinary (SCHED_OTHER) busy loop that counts its iterations for argv[1] seconds:
#   taskset -c 1 python3 count.py 4
import sys, time
t0 = time.monotonic(); n = 0
while time.monotonic() - t0 < float(sys.argv[1]):
    n += 1
print("cfs loops", n)
