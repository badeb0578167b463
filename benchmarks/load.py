"""Busy-looping processes that oversubscribe the machine, for the benchmarks that ask
whether a result depends on the load."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator


def burners_for(factor: int) -> int:
    """Busy processes that, beside one busy process per core, make `factor` per core."""
    return (factor - 1) * len(os.sched_getaffinity(0))


@contextlib.contextmanager
def busy_processes(count: int) -> Iterator[None]:
    """`count` busy-looping processes, each in a session of its own (with autogroup
    scheduling a session is one scheduling slot)."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                start_new_session=True) for _ in range(count)]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
