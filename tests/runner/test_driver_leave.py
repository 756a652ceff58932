"""``procs.leave``: how the supervisor and a worker end once their work is done: output flushed,
then gone without the interpreter's finalization (nothing it would do is read by anyone)."""

from __future__ import annotations

import subprocess
import sys

from bouts.runner._run import DRIVER_LIB

SCRIPT = """
import atexit, sys
sys.path.insert(0, {lib!r})
from _bouts_driver.procs import leave
atexit.register(lambda: print("finalized"))
sys.stdout.write("said before leaving")  # no newline: still in the buffer
sys.stderr.write("and on stderr")
leave(3)
print("after leaving")
"""


def test_leaving_flushes_what_was_said_exits_with_the_code_and_skips_finalization() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(lib=str(DRIVER_LIB))], capture_output=True, timeout=60, check=False
    )
    assert done.returncode == 3
    assert done.stdout == b"said before leaving"  # flushed; no atexit handler ran, nothing after
    assert done.stderr == b"and on stderr"
