"""The docker backend. Its end-to-end tests skip unless a Docker engine answers (none runs here
by default; see docs/sandbox.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bouts.errors import SandboxError
from bouts.models.challenge import Limits
from bouts.models.results import Outcome
from bouts.runner import run_suites
from bouts.sandbox import Mount, get_sandbox
from bouts.sandbox._docker import DockerSandbox, _engine_answers


def _docker_or_skip() -> DockerSandbox:
    docker = shutil.which("docker")
    if docker is None or not _engine_answers(docker):
        pytest.skip("no Docker engine answers")
    return DockerSandbox()


def test_an_unavailable_engine_is_a_sandbox_error_not_an_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bouts.sandbox._docker._engine_answers", lambda docker: False)
    with pytest.raises(SandboxError, match="Docker engine"):
        get_sandbox("docker")


def test_the_container_has_no_network_no_privileges_and_relayed_fds() -> None:
    box = object.__new__(DockerSandbox)
    box._docker, box._image, box._tmp_mb = "docker", "img", 256
    argv = box.build_argv(["python", "x"], container="c", workspace=Path("/w"), fifo_dir=Path("/f"), fds=[5, 9],
                          env={"A": "1"}, limits=Limits(), mounts=[Mount(Path("/lib"), "/bouts/lib")])  # fmt: skip
    joined = " ".join(argv)
    for flag in ("--network none", "--read-only", "--cap-drop ALL", "no-new-privileges", "--pids-limit 64"):
        assert flag in joined
    assert "/lib:/bouts/lib:ro" in argv and "exec 5>/bouts/fds/5 9>/bouts/fds/9;" in argv[-4]


@pytest.mark.sandbox
def test_an_honest_suite_runs_in_docker(make_challenge) -> None:  # noqa: ANN001
    box = _docker_or_skip()
    challenge, code = make_challenge(
        {"visible": {"test_v.py": "from calc import add\ndef test_a(): assert add(1, 2) == 3\n"}},
        {"calc.py": "def add(a, b):\n    return a + b\n"},
    )
    report = run_suites(challenge, code, sandbox=box)
    assert [(r.outcome, report.sandbox) for r in report.results] == [(Outcome.PASSED, "docker")]
