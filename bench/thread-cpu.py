#!/usr/bin/env python3
"""CPU time, and time spent waiting for a core, that a running JVM's threads take while a command runs (Linux /proc).

    python3 bench/thread-cpu.py $(pgrep -f 'Tally up') wrk -t2 -c1000 -d15s -s bench/wrk-votes.lua http://127.0.0.1:8080

Prints the command's output, then the process's CPU time and its largest thread groups (thread names
without their trailing numbers: tally-http = the HTTP door, data-plane-kafka = the broker, VM Thread = the
serial collector, C2 CompilerThread = the JIT), each with the time its threads were runnable but waited for a
core (the scheduler's run-queue delay). Divide by the requests wrk reports for the cost of one.

    python3 bench/thread-cpu.py --timeline FILE PID

Samples the same groups every 100 ms until the process ends, one line per interval into FILE: seconds since the
process started (within a fraction of a second of the JVM's uptime, the clock of `./tally bench --latency-log` and
of `-Xlog:gc*:file=…:uptime`), then `group=cpu/wait`, both in ms of that interval (1,000 ms a second = one core
busy; wait = runnable, not running). For laying a stall beside what each thread group was doing in it, and for
seeing whether a thread that fell behind was starved of a core or waiting on something else.

Both read /proc/<pid>/task/<tid>/schedstat: time on a core and time waiting on a run queue, in nanoseconds.
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


def snapshot(pid, names):
    """Per thread: (group, ns on a core, ns waiting for one); names caches each thread's group."""
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            if tid not in names:
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    names[tid] = re.sub(r"[-0-9]+$", "", f.read().strip())
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                on_cpu, waited = f.read().split()[:2]
        except OSError:
            continue  # the thread ended
        threads[tid] = (names[tid], int(on_cpu), int(waited))
    return threads


def by_group(before, after):
    """[ns on a core, ns waiting for one] per thread group between two snapshots."""
    groups = collections.defaultdict(lambda: [0, 0])
    for tid, (group, on_cpu, waited) in after.items():
        _, on_cpu_before, waited_before = before.get(tid, (group, 0, 0))
        groups[group][0] += on_cpu - on_cpu_before
        groups[group][1] += waited - waited_before
    return groups


def process_start(pid):
    """When the process started, in seconds since boot (the clock of /proc/uptime)."""
    return int(stat_fields(f"/proc/{pid}/stat")[19]) / os.sysconf("SC_CLK_TCK")


def since_boot():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


def timeline(out, pid):
    start, names = process_start(pid), {}
    before = snapshot(pid, names)
    with open(out, "w") as f:
        while os.path.exists(f"/proc/{pid}"):
            time.sleep(0.1)
            try:
                after = snapshot(pid, names)
            except OSError:
                break  # the process ended
            groups = by_group(before, after)
            before = after
            f.write(f"{since_boot() - start:.1f} " + " ".join(
                f"{g}={on_cpu // 1_000_000}/{waited // 1_000_000}"
                for g, (on_cpu, waited) in sorted(groups.items()) if on_cpu or waited) + "\n")
            f.flush()


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--timeline":
        timeline(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    pid, command, names = sys.argv[1], sys.argv[2:], {}
    before = snapshot(pid, names)
    print(subprocess.run(command, capture_output=True, text=True).stdout)
    groups = by_group(before, snapshot(pid, names))
    print(f"process CPU {sum(g[0] for g in groups.values()) / 1e9:.2f} s (threads that ended during the command not included)")
    print("  on a core   waited for one")
    for name, (on_cpu, waited) in sorted(groups.items(), key=lambda g: -g[1][0])[:12]:
        print(f"{on_cpu / 1e9:8.2f} s  {waited / 1e9:8.2f} s  {name}")


if __name__ == "__main__":
    main()
