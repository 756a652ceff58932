"""Fixtures for runner tests: tiny challenges built by hand in tmp_path."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from bouts.models.challenge import Challenge, ChallengeSpec, Limits, Suite
from bouts.sandbox import Sandbox, get_sandbox

FAST = Limits(
    test_timeout_s=2,
    suite_timeout_s=30,
    memory_mb=512,
    max_processes=32,
    max_file_mb=8,
    max_output_kb=16,
)
"""Small limits so the hostile tests stay fast."""

MakeChallenge = Callable[..., tuple[Challenge, Path]]


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def make_challenge(tmp_path: Path) -> MakeChallenge:
    """Build ``(challenge, code_dir)``.

    ``tests`` maps suite → {file name: source}; ``code`` maps path → source of the submission.
    """

    def make(
        tests: dict[Suite, dict[str, str]],
        code: dict[str, str] | None = None,
        *,
        limits: Limits = FAST,
        seed: int = 1234,
        severities: dict[str, str] | None = None,
    ) -> tuple[Challenge, Path]:
        root = tmp_path / "challenge"
        test_files: dict[Suite, list[str]] = {}
        for suite, files in tests.items():
            _write(root / "tests" / suite, files)
            test_files[suite] = [f"tests/{suite}/{name}" for name in files]
        code_dir = tmp_path / "submission" / "code"
        code_dir.mkdir(parents=True, exist_ok=True)
        _write(code_dir, code or {})
        spec = ChallengeSpec(id="tiny", title="Tiny", limits=limits, tests={"seed": seed})
        challenge = Challenge(
            root=root,
            spec=spec,
            content_hash="dummy",
            suite_hashes={s: "dummy" for s in tests},
            test_files=test_files,
            severities=severities or {},
        )
        return challenge, code_dir

    return make


def _bwrap_works() -> bool:
    return shutil.which("bwrap") is not None


@pytest.fixture(scope="session")
def bwrap() -> Sandbox:
    if not _bwrap_works():
        pytest.skip("bubblewrap is not installed")
    return get_sandbox("bubblewrap")


@pytest.fixture(scope="session")
def docker_box() -> Sandbox:
    """The docker backend with the image `bouts sandbox image` built (``BOUTS_DOCKER_SANDBOX`` may name
    other options, e.g. ``docker:image=x,runtime=runsc``). Where no engine answers the test skips,
    unless ``BOUTS_REQUIRE_DOCKER=1`` (scripts/test sets it once it started an engine and built the
    image): then a missing engine fails the run instead of skipping it silently."""
    import os

    from bouts.errors import SandboxError

    spec = os.environ.get("BOUTS_DOCKER_SANDBOX", "docker")
    try:
        return get_sandbox(spec)
    except SandboxError as exc:
        if os.environ.get("BOUTS_REQUIRE_DOCKER") == "1":
            pytest.fail(f"BOUTS_REQUIRE_DOCKER=1 but {spec}: {exc.describe()}")
        pytest.skip(f"{spec}: {exc.describe()}")
