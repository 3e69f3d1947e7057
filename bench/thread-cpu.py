#!/usr/bin/env python3
"""CPU seconds a running JVM spends per thread group while a command runs (Linux /proc).

    python3 bench/thread-cpu.py $(pgrep -f 'Tally up') wrk -t2 -c1000 -d15s -s bench/wrk-votes.lua http://127.0.0.1:8080

Prints the command's output, then the process's CPU time and its largest thread groups (thread names
without their trailing numbers: tally-http = the HTTP door, data-plane-kafka = the broker, VM Thread = the
serial collector, C2 CompilerThread = the JIT). Divide by the requests wrk reports for the cost of one.
"""
import collections
import os
import re
import subprocess
import sys


def snapshot(pid):
    ticks = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # the thread ended
        fields = stat[stat.rindex(")") + 2:].split()
        ticks[tid] = (name, int(fields[11]) + int(fields[12]))  # utime + stime
    return ticks


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    pid, command = sys.argv[1], sys.argv[2:]
    hz = os.sysconf("SC_CLK_TCK")
    before = snapshot(pid)
    print(subprocess.run(command, capture_output=True, text=True).stdout)
    after = snapshot(pid)
    groups = collections.Counter()
    for tid, (name, t) in after.items():
        groups[re.sub(r"[-0-9]+$", "", name)] += t - before.get(tid, (name, 0))[1]
    print(f"process CPU {sum(groups.values()) / hz:.2f} s (threads that ended during the command not included)")
    for name, t in groups.most_common(12):
        print(f"{t / hz:8.2f} s  {name}")


if __name__ == "__main__":
    main()
