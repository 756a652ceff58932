"""The driver session's shared parts: where the in-sandbox driver lives and is mounted, its environment
and the command that starts its supervisor. Used by the per-run sessions (``_run``) and the batch
sessions (``_batch``) alike."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path

from bouts.models.challenge import Limits, Suite
from bouts.sandbox import user_env

DRIVER_LIB = Path(__file__).with_name("sandboxed")
"""Holds the ``_bouts_driver`` package; mounted read-only, never inside the workspace."""
LIB_TARGET = "/bouts/lib"
"""Where the sandbox sees :data:`DRIVER_LIB`."""


def compile_driver() -> None:
    """Byte-compile the driver beside its sources, where they are stale or missing (the host's own
    trusted files; the sandbox mounts them read-only, so its interpreter only reads them). Without it
    every session compiles the driver again: 24 ms of a session's CPU, 9.5 with the compiled files
    (docs/benchmarks.md). A read-only install, or any failure, only costs that time."""
    import compileall

    with contextlib.suppress(OSError, ValueError):
        compileall.compile_dir(DRIVER_LIB / "_bouts_driver", quiet=2, legacy=False, workers=1)


def session_config(file_suite: Mapping[str, Suite], seed: int, limits: Limits, workers: int) -> dict[str, object]:
    """What every supervisor's config holds (Python's ``_bouts_driver``, JavaScript's
    ``_bouts_jsdriver``): the run's test files and their suites, the hidden ones (their failures
    say less), the seed, the per-test and per-suite limits and the worker count. Each runner adds
    its own keys (where the workspace and libraries are, ...)."""
    return {
        "files": sorted(file_suite),
        "suite_of": dict(file_suite),
        "hidden_files": [f for f, s in file_suite.items() if s == "hidden"],
        "seed": seed,
        "test_timeout_s": limits.test_timeout_s,
        "suite_timeout_s": limits.suite_timeout_s,
        "max_output_kb": limits.max_output_kb,
        "memory_mb": limits.memory_mb,
        "workers": max(1, workers),
    }


def driver_env(seed: int, isolated: bool = True) -> dict[str, str]:
    # An empty environment plus an allow-list: nothing from the host (tokens, proxies) leaks in.
    # The user part is an ordinary one (uid 1000's HOME, USER...): nothing says "grader".
    return {
        "PATH": "/usr/bin:/bin",
        **user_env(isolated),
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "BOUTS_SEED": str(seed),
    }


def supervisor_argv(lib: str, config: Mapping[str, object], plain: bool = True) -> list[str]:
    """The command that starts the driver's supervisor from ``lib`` (as the sandbox sees it) with ``config``.

    ``plain``: without ``-I -B``, so that ``sys.flags`` and ``sys.dont_write_bytecode`` are those of a
    plain ``python -m pytest`` run (docs/sandbox.md, "Grader context"). What ``-I`` kept out stays
    out: the environment is the host's allow-list (no ``PYTHON*`` variable), the boot drops the
    working directory from the front of ``sys.path`` (the supervisor appends the workspace: it never
    shadows the standard library or pytest), and ``HOME`` is a fresh tmpfs (no user site). Only the
    ``none`` backend, which runs on the host's own ``HOME``, keeps them.
    """
    boot = f"import sys; sys.path[:] = [{lib!r}, *(p for p in sys.path if p)]; from _bouts_driver.procs import leave; "
    boot += "from _bouts_driver.supervisor import main; leave(main())"
    return [sys.executable, *(() if plain else ("-I", "-B")), "-c", boot, json.dumps(config)]
