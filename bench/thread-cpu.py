#!/usr/bin/env python3
"""CPU seconds a running JVM spends per thread group while a command runs (Linux /proc).

    python3 bench/thread-cpu.py $(pgrep -f 'Tally up') wrk -t2 -c1000 -d15s -s bench/wrk-votes.lua http://127.0.0.1:8080

Prints the command's output, then the process's CPU time and its largest thread groups (thread names
without their trailing numbers: tally-http = the HTTP door, data-plane-kafka = the broker, VM Thread = the
serial collector, C2 CompilerThread = the JIT). Divide by the requests wrk reports for the cost of one.

    python3 bench/thread-cpu.py --timeline FILE PID

Samples the same groups every 100 ms until the process ends, one line per interval into FILE: seconds since the
process started (within a fraction of a second of the JVM's uptime, the clock of `./tally bench --latency-log` and
of `-Xlog:gc*:file=…:uptime`), then `group=ticks` (100 ticks a second = one core). For laying a stall beside
what each thread group was doing in it.
"""
import collections
import os
import re
import subprocess
import sys
import time


def stat_fields(path):
    """The fields of a /proc stat file after the command name (which may hold spaces and parentheses)."""
    with open(path) as f:
        stat = f.read()
    return stat[stat.rindex(")") + 2:].split()


def snapshot(pid):
    ticks = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            fields = stat_fields(f"/proc/{pid}/task/{tid}/stat")
        except OSError:
            continue  # the thread ended
        ticks[tid] = (name, int(fields[11]) + int(fields[12]))  # utime + stime
    return ticks


def by_group(before, after):
    """CPU ticks per thread group (the name without its trailing numbers) between two snapshots."""
    groups = collections.Counter()
    for tid, (name, t) in after.items():
        groups[re.sub(r"[-0-9]+$", "", name)] += t - before.get(tid, (name, 0))[1]
    return groups


def process_start(pid, hz):
    """When the process started, in seconds since boot (the clock of /proc/uptime)."""
    return int(stat_fields(f"/proc/{pid}/stat")[19]) / hz


def since_boot():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


def timeline(out, pid, hz):
    start = process_start(pid, hz)
    before = snapshot(pid)
    with open(out, "w") as f:
        while os.path.exists(f"/proc/{pid}"):
            time.sleep(0.1)
            try:
                after = snapshot(pid)
            except OSError:
                break  # the process ended
            groups = by_group(before, after)
            before = after
            f.write(f"{since_boot() - start:.1f} " + " ".join(f"{g}={t}" for g, t in sorted(groups.items()) if t) + "\n")
            f.flush()


def main():
    hz = os.sysconf("SC_CLK_TCK")
    if len(sys.argv) == 4 and sys.argv[1] == "--timeline":
        timeline(sys.argv[2], sys.argv[3], hz)
        return
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    pid, command = sys.argv[1], sys.argv[2:]
    before = snapshot(pid)
    print(subprocess.run(command, capture_output=True, text=True).stdout)
    groups = by_group(before, snapshot(pid))
    print(f"process CPU {sum(groups.values()) / hz:.2f} s (threads that ended during the command not included)")
    for name, t in groups.most_common(12):
        print(f"{t / hz:8.2f} s  {name}")


if __name__ == "__main__":
    main()
