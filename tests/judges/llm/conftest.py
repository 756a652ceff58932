"""Fixtures of the LLM judge tests: a challenge with a starter, a submission, and a judge factory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from llm_fakes import FIXED, STARTER
from pydantic import SecretStr

from bouts.judges.base import JudgeInput
from bouts.judges.llm import LLMJudge, LLMJudgeConfig, LLMPanelConfig, build_llm_judges
from bouts.models.challenge import Challenge, ChallengeSpec, Deliverable
from bouts.models.results import Outcome, RunReport, TestResult


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def make_input(tmp_path: Path) -> Callable[..., JudgeInput]:
    """A JudgeInput over a real challenge directory (starter/) and a submission (code/, deliverables/)."""

    def make(code: dict[str, str] | None = None, docs: dict[str, str] | None = None,
             deliverables: tuple[Deliverable, ...] = (), seed: int = 1234) -> JudgeInput:
        root = tmp_path / "challenge"
        write(root / "starter", {"app.py": STARTER, "tests/test_app.py": "def test(): pass\n"})
        challenge = Challenge(
            root=root,
            spec=ChallengeSpec(id="demo", title="Demo", deliverables=list(deliverables)),
            content_hash="c" * 64,
            suite_hashes={"visible": "v", "hidden": "h", "adversarial": "a"},
            test_files={"visible": [], "hidden": [], "adversarial": []},
        )
        sub = tmp_path / "submission"
        code_dir = write(sub / "code", code if code is not None else {"app.py": FIXED})
        code_dir.mkdir(parents=True, exist_ok=True)
        docs_dir = write(sub / "deliverables", docs or {})
        docs_dir.mkdir(parents=True, exist_ok=True)
        run = RunReport(
            results=[
                TestResult(id="tests/visible/test_app.py::test_add", suite="visible", outcome=Outcome.PASSED),
                TestResult(id="tests/visible/test_app.py::test_neg", suite="visible", outcome=Outcome.FAILED,
                           detail="assert add(-1, 1) == 0"),
                TestResult(id="tests/hidden/test_h.py::test_secret_value_42", suite="hidden",
                           outcome=Outcome.FAILED, detail="expected 42"),
            ],
            sandbox="fake",
        )
        return JudgeInput.read(challenge, code_dir, deliverables_dir=docs_dir, run=run, seed=seed)

    return make


@pytest.fixture
def make_judges(tmp_path: Path) -> Callable[..., list[LLMJudge]]:
    """Judges pointed at a fake server, with fast backoff and a recorded (not real) sleep."""

    def make(url: str, *configs: dict, cache: bool = True, sleeps: list[float] | None = None,
             max_concurrency: int = 4, keys: dict[str, str] | None = None,
             budget_s: float | None = 600.0) -> list[LLMJudge]:
        defaults = {"provider": "openai", "model": "fake-model", "timeout_s": 30.0, "backoff_s": 0.01,
                    "max_total_s": 10.0}
        judges = []
        for cfg in configs or ({},):
            merged = defaults | cfg
            base = url if merged["provider"] == "anthropic" else url + "/v1"
            judges.append(LLMJudgeConfig(**(merged | {"base_url": base})))
        panel = LLMPanelConfig(judges=judges, cache_dir=tmp_path / "cache" if cache else None,
                               max_concurrency=max_concurrency, max_total_s=budget_s)
        record = sleeps if sleeps is not None else []
        secrets = {name: SecretStr(key) for name, key in (keys or {}).items()}
        return build_llm_judges(panel, secrets, sleep=record.append)

    return make
