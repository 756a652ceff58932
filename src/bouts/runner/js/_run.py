"""``run_js``: grade a submission's JavaScript against a challenge's ``node:test``, vitest or jest suites.

The same shape as the Python runner (``bouts.runner._run``): a fresh workspace with pristine
tests and randomly named canaries → the trusted supervisor (Python, ``sandboxed/_bouts_jsdriver``)
in the sandbox with the write end of a pipe and, on a second pipe, the run's nonce → one record
per line, each checked against the nonce → integrity and outcomes decided here, on the host, by
the same pure ``assemble``. What differs and why: docs/javascript.md.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bouts.errors import ChallengeError, SandboxError
from bouts.languages import framework_of
from bouts.loading import severity_for
from bouts.models.challenge import SUITES, Challenge, Suite
from bouts.models.results import Outcome, RunReport, TestResult
from bouts.prepare import PreparedEnv, prepare_dependencies
from bouts.runner._channel import Record, parse_record
from bouts.runner._exploits import observed
from bouts.runner._integrity import void
from bouts.runner._run import (
    DEFAULT_OPTIONS,
    DRIVER_LIB,
    DetailedRun,
    RunOptions,
    progress_adapter,
    without_canaries,
)
from bouts.runner._session import session_config
from bouts.runner._supervise import supervise
from bouts.runner._verdicts import RunEnd, assemble
from bouts.runner._workspace import seal_tests, write_generated
from bouts.runner.js._observed import assertion_counts, decide_js, externalise_files
from bouts.runner.js._workspace import assemble_js_workspace, plant_js_canaries
from bouts.sandbox import Mount, Sandbox, user_env

JS_LIB = Path(__file__).with_name("sandboxed")
"""Holds ``_bouts_jsdriver`` (the Python supervisor) and ``jslib`` (preload + reporter)."""
_LIB, _JSLIB = "/bouts/lib", "/bouts/jslib"
_STARTUP_GRACE_S = 30.0
NODE = "/usr/bin/node"


def run_js_detailed(challenge: Challenge, code_dir: Path, *, assertions: str = "inline",
                    golden_occurrences: Mapping[str, Sequence[object]] | None = None, fresh: object = None,
                    **rest: Any) -> Any:
    """JavaScript/TypeScript's runner (the language seam's ``runner``): :func:`run_js`. Its fresh-seed
    phase is a session of its own. ``assertions``: ``golden`` (the reference's run: each original
    assertion checked in the sandbox, the observations kept), ``external`` (decided on the host
    against ``golden_occurrences``), ``inline`` (no reference: checked in the sandbox)."""
    if fresh is not None:
        raise ValueError("the JavaScript runner runs a fresh seed in its own session")
    if assertions not in ("inline", "golden", "external"):
        raise ValueError(f"unknown assertions mode {assertions!r}")
    return run_js(challenge, code_dir, assertions=assertions, golden_occurrences=golden_occurrences, **rest)


def run_js(
    challenge: Challenge,
    code_dir: Path,
    *,
    sandbox: Sandbox,
    suites: Sequence[Suite] = SUITES,
    progress: Callable[[TestResult], None] | None = None,
    seed: int | None = None,
    expected_ids: Sequence[str] | None = None,
    golden: Mapping[str, Sequence[str]] | None = None,
    options: RunOptions = DEFAULT_OPTIONS,
    deps_cache: Path | None = None,
    generated: Mapping[str, str] | None = None,
    assertions: str = "inline",
    golden_occurrences: Mapping[str, Sequence[object]] | None = None,
) -> DetailedRun:
    """:func:`bouts.runner.run_detailed` for ``javascript``/``typescript`` challenges (same contract).

    The framework is ``bouts.languages.framework_of(challenge.spec)``. ``golden`` holds the reference's
    ``bouts_expect`` digests per test id, as for Python. Raises ``SandboxError`` when the sandbox
    or the supervisor could not start, ``InfrastructureError`` when the challenge's dependencies
    cannot be prepared, ``ChallengeError`` when vitest/jest is not among them. ``deps_cache``
    overrides ``options.deps_cache``.

    ``generated`` adds engine-written ``node:test`` files (path under ``tests/generated/`` → source,
    ``bouts.adversarial``), written before the tests are sealed; they form the ``generated`` suite
    and always run under node's own runner, so they are run alone (``suites=()``) when the
    challenge's framework is vitest or jest.
    """
    seed = challenge.spec.tests.seed if seed is None else seed
    file_suite: dict[str, Suite] = {f: suite for suite in suites for f in challenge.test_files.get(suite, [])}
    framework = framework_of(challenge.spec)
    if generated:
        if file_suite and framework != "node:test":
            raise ValueError(f"generated node:test files cannot run with the challenge's {framework} suites")
        framework = "node:test"
        file_suite.update({f: "generated" for f in checked_generated(generated)})
    if not file_suite:
        return DetailedRun(RunReport(results=[], sandbox=sandbox.name, seeds=[seed]))
    start = time.monotonic()
    deps = prepare_dependencies(challenge.root, "node", cache_root=deps_cache or options.deps_cache)
    if framework != "node:test" and (deps is None or not (deps.path / framework / "package.json").is_file()):
        raise ChallengeError(f"the tests use {framework}, which is not in the challenge's package.json dependencies",
                             file=str(challenge.root / "package.json"), field="devDependencies")  # fmt: skip
    isolated = sandbox.isolated
    workdir = challenge.spec.tests.workdir  # `[tests] workdir`: an ordinary project path, as for Python
    nonce = secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="bouts-jsrun-") as tmp:
        workspace = Path(tmp) / "workspace"
        removed = assemble_js_workspace(code_dir, challenge.root, workspace)
        write_generated(workspace, generated)  # after the pristine tests, before sealing
        rng = random.SystemRandom()
        observe = True  # node:test, vitest and jest alike: assertions become observations
        external = assertions == "external"
        # A verdict decided on the host from the submission's values cannot be forged in the
        # sandbox, so a canary there proves nothing: canaries guard only what is checked inside.
        plant = options.canaries and assertions == "inline"
        canaries = plant_js_canaries(workspace, file_suite, rng, framework) if plant else []
        plans = externalise_files(workspace, file_suite, checked=not external, seed=seed)
        mounts = [Mount(DRIVER_LIB, _LIB), Mount(JS_LIB, _JSLIB)] if isolated else []
        if isolated:
            # Read-only on top of the workspace copy: no test process can edit the tests or swap
            # the prepared node_modules for the ones after it (the supervisor's guard also watches).
            mounts += seal_tests(workspace, Path(tmp) / "tests", workdir)
        if deps is not None:
            if isolated:
                mounts.append(Mount(deps.path, f"{workdir}/node_modules"))
            else:
                os.symlink(deps.path, workspace / "node_modules")
        in_box = workdir if isolated else str(workspace)
        config = {
            **session_config(file_suite, seed, challenge.spec.limits, options.workers),
            "workspace": in_box,
            "jslib": f"{_JSLIB}/jslib" if isolated else str(JS_LIB / "jslib"),
            "node": NODE, "framework": framework,
            "deps": f"{in_box}/node_modules",
            "tsx": _tsx_loader(deps, in_box, framework, file_suite, challenge.spec.language),
            "observe": observe, "check": not external,
            # The seed is written into the tests' text; the variable only for a file that reads it otherwise.
            "seed_env": any(p.reads_seed_env for p in plans.values()) or set(plans) != set(file_suite),
        }  # fmt: skip
        libs = (f"{_LIB}", f"{_JSLIB}") if isolated else (str(DRIVER_LIB), str(JS_LIB))
        timeout = challenge.spec.limits.suite_timeout_s * len(set(file_suite.values())) + _STARTUP_GRACE_S
        records, end = _drive(sandbox, workspace, mounts, config, libs, nonce, challenge, timeout, seed,
                              workdir if isolated else None)  # fmt: skip
        on_result = progress_adapter(challenge, file_suite, set(canaries), progress)
        for rec in records:
            if rec.kind == "result":
                on_result(rec)
    if not any(r.kind == "hello" for r in records):
        raise SandboxError(f"the JavaScript test supervisor did not start in sandbox '{sandbox.name}' ({end})")
    forged: list[str] = []
    if observe:
        hidden = frozenset(f for f, suite in file_suite.items() if suite == "hidden")
        records = decide_js(records, plans, golden_occurrences if external else None, hidden,
                            forged if assertions != "golden" else None)  # the reference is trusted  # fmt: skip
    tampering = js_findings(records, canaries) + forged[:10]
    graded = without_canaries(records, set(canaries))
    results, stability = assemble(
        graded, file_suite=file_suite, expected_ids=expected_ids, end=end,
        severity_of=lambda node: severity_for(challenge, node), golden=golden,
    )  # fmt: skip
    if tampering:
        results = void(results, tampering)
    report = RunReport(
        results=results, stability=stability, sandbox=sandbox.name, removed=removed, seeds=[seed],
        duration_s=time.monotonic() - start, tampering=tampering, exploits=observed(graded, end),
    )  # fmt: skip
    report = report.model_copy(update={"assertions": assertion_counts(plans, file_suite)}) if external else report
    observations = {r.id: r.observations for r in graded if r.kind == "result" and r.outcome is Outcome.PASSED}
    occurrences: dict[str, tuple[object, ...]] = {}
    if assertions == "golden":
        occurrences = {r.id: r.occurrences if observe else r.observations for r in graded
                       if r.kind == "result" and r.outcome is Outcome.PASSED}  # fmt: skip
    return DetailedRun(report, observations, occurrences)


def _tsx_loader(deps: PreparedEnv | None, in_box: str, framework: str, files: Mapping[str, Suite],
                language: str = "javascript") -> str | None:
    """tsx's ESM loader (as seen in the sandbox) when node:test must run TypeScript, else None.

    Node 20 cannot strip types; tsx (a challenge dependency, checked when the challenge loads)
    compiles ``.ts`` test and source files on import.
    """
    typed = any(f.endswith((".ts", ".mts", ".cts")) for f in files)
    typed = typed or (language == "typescript" and "generated" in files.values())  # .mjs tests importing .ts
    if framework != "node:test" or deps is None or not typed:
        return None
    try:
        exports = json.loads((deps.path / "tsx" / "package.json").read_text()).get("exports", {})
    except (OSError, ValueError):
        return None
    entry = exports.get(".", exports) if isinstance(exports, dict) else exports
    while isinstance(entry, dict):
        entry = entry.get("import") or entry.get("default")
    return f"{in_box}/node_modules/tsx/{str(entry).removeprefix('./')}" if isinstance(entry, str) else None


def checked_generated(generated: Mapping[str, str]) -> list[str]:
    """Generated test paths, each a ``tests/generated/test_*`` JavaScript file (engine-written, but a
    path is still never allowed to climb out of the workspace)."""
    paths = sorted(generated)
    for rel in paths:
        parts = rel.split("/")
        if (parts[:2] != ["tests", "generated"] or len(parts) != 3 or not parts[-1].startswith("test_")
                or not parts[-1].endswith((".mjs", ".js", ".cjs"))):  # fmt: skip
            raise ValueError(f"generated test path must be tests/generated/test_*.mjs, got {rel!r}")
    return paths


def js_findings(records: Sequence[Record], canaries: Sequence[str]) -> list[str]:
    """Tampering evidence of a JS run (pure): a canary that passed, a pass from a process whose
    watched machinery changed, records forged on a result channel. Any finding voids the run."""
    found: list[str] = []
    for rec in records:
        text = ""
        if rec.kind == "result" and rec.outcome is Outcome.PASSED:
            if rec.id in canaries:
                text = f"a canary test that must fail passed (verdicts are being forged): {rec.id}"
            elif rec.changed:
                text = f"test machinery changed while running {rec.id}: {', '.join(rec.changed[:8])}"
        elif rec.kind == "violation" and rec.detail.startswith("forged"):
            text = f"result records forged by the code under test ({rec.detail})"
        elif rec.kind == "violation" and rec.detail.startswith("tampered"):
            text = f"the code under test changed the grader's files ({rec.detail})"
        elif rec.kind == "invalid" and rec.detail == "nonce":
            text = "a record without the run's nonce reached the host channel"
        if text and text not in found:
            found.append(text)
    return found[:20]


def _drive(sandbox: Sandbox, workspace: Path, mounts: list[Mount], config: dict[str, object],
           libs: tuple[str, str], nonce: str, challenge: Challenge, timeout_s: float, seed: int,
           workdir: str | None = None) -> tuple[list[Record], RunEnd]:  # fmt: skip
    """Run the supervisor in a thread while this thread reads (and nonce-checks) the result pipe."""
    read_fd, write_fd = os.pipe()
    nonce_r, nonce_w = os.pipe()
    os.write(nonce_w, nonce.encode())
    os.close(nonce_w)
    config = {**config, "result_fd": write_fd, "nonce_fd": nonce_r}
    boot = (f"import sys; sys.path[:0] = [{libs[0]!r}, {libs[1]!r}]; "
            "from _bouts_jsdriver.supervisor import main; sys.exit(main())")  # fmt: skip
    argv = [sys.executable, "-I", "-B", "-c", boot, json.dumps(config)]
    env = {"PATH": "/usr/bin:/bin", **user_env(sandbox.isolated), "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "BOUTS_SEED": str(seed)}  # fmt: skip

    def to_record(line: bytes) -> Record:
        return parse_record(line) if _stamped(line, nonce) else Record("invalid", detail="nonce")

    return supervise(
        sandbox, argv, workspace=workspace, env=env, limits=challenge.spec.limits, timeout_s=timeout_s,
        mounts=mounts, read_fd=read_fd, pass_fds=[write_fd, nonce_r], to_record=to_record, name="bouts-js-sandbox",
        workdir=workdir,
    )  # fmt: skip


def _stamped(line: bytes, nonce: str) -> bool:
    try:
        obj = json.loads(line.partition(b"\x1e")[0])  # the header: a result's observations follow it
    except ValueError:
        return False
    return isinstance(obj, dict) and obj.get("nonce") == nonce
