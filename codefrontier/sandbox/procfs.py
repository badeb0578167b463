"""Process trees and CPU time from /proc, shared by the judge's workers and the
agentic terminal. Every reader tolerates a process that ends while it is read: a
vanished process has no children and is skipped."""

from __future__ import annotations

import contextlib
import os

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """The direct children of every thread of the process."""
    found = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(child) for child in f.read().split()]
    return found


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, parents before their children."""
    found, stack = [], [pid]
    while stack:
        below = children(stack.pop())
        found += below
        stack += below
    return found


def command_line(pid: int) -> list[str]:
    """The process's argv (empty for a process that ended, or a kernel thread)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return []


def cpu_s(pid: int, reaped: bool = False) -> float | None:
    """CPU seconds (user + system, every thread) of the process, and with `reaped` those
    of the children it has waited for; None when /proc/PID/stat cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()  # the name may hold spaces
        return sum(int(f) for f in fields[11:15 if reaped else 13]) / CLOCK_TICKS
    except (OSError, IndexError, ValueError):
        return None


def run_queue_waits_s(pid: int) -> dict[int, float]:
    """Seconds each thread of the process and of its descendants has waited on a run
    queue, ready to run with no core free (/proc/PID/task/TID/schedstat's second field),
    by thread id."""
    waits = {}
    for process in [pid, *descendants(pid)]:
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{process}/task"):
                with contextlib.suppress(OSError, IndexError, ValueError), \
                        open(f"/proc/{process}/task/{task}/schedstat") as handle:
                    waits[int(task)] = int(handle.read().split()[1]) / 1e9
    return waits


def tree_cpu_s(pid: int) -> float:
    """CPU seconds of the process, its descendants and the children they reaped."""
    return sum(cpu_s(p, reaped=True) or 0.0 for p in [pid, *descendants(pid)])
