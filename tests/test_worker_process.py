"""Properties of the worker process that the sandbox's guarantees rest on."""

import subprocess
import sys

PROBE = """
import os, sys
import codefrontier.judge.worker
print(len(os.listdir('/proc/self/task')), 'random' in sys.modules, 'pyarrow' in sys.modules)
"""


def test_worker_imports_start_no_threads_and_no_random():
    # unshare(CLONE_NEWUSER) and fork need a single-threaded process; random must be
    # imported by the zygote only, with its at-fork reseeding disabled (see _preload).
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["1", "False", "False"]
