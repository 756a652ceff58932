"""Attack: a submission reads the hidden test file and raises and warns with its content, and quotes
the reference in a visible test's failure, to read them back from its scorecard; and prints a
clear-screen sequence into the operator's terminal. Through the real bubblewrap sandbox: the
scorecard carries no 16-character run of the hidden file or the reference that the agent did not
already have, and the text output shows the escape sequence instead of obeying it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bouts.cli.main import app
from bouts.models.results import TestResult
from bouts.pipeline import score
from bouts.runner._scrub import normalise

pytestmark = pytest.mark.sandbox

CHALLENGE_TOML = """
id = "leaky-calc"
title = "Leaky calculator"
profile = "engine"
[limits]
test_timeout_s = 5
suite_timeout_s = 60
memory_mb = 512
max_processes = 16
[adversarial]
generate = false
"""
VISIBLE = """from calc import add, sub


def test_add():
    total = add(2, 3)
    assert total == 5


def test_sub():
    difference = sub(5, 3)
    assert difference == 2
"""
HIDDEN = """from calc import add, sub

QUOKKA_LEDGER = {"zanzibar-quokka": 7781, "marmalade-heron": 9902}


def test_a():
    assert add(1234, 4321) == 5555, "hidden oracle: the quokka ledger carries"


def test_b():
    assert sub(QUOKKA_LEDGER["marmalade-heron"], QUOKKA_LEDGER["zanzibar-quokka"]) == 2121
"""
REFERENCE = '''"""Carries are resolved by the lantern algorithm of Quentin Blake."""


def add(a, b):
    return a + b


def sub(a, b):
    return a - b
'''
STARTER = "def add(a, b):\n    return 0\n\n\ndef sub(a, b):\n    return 0\n"
QUOTE = "Carries are resolved by the lantern algorithm of Quentin Blake"
ATTACK = f'''import glob
import warnings


def _hidden():
    text = ""
    for path in sorted(glob.glob("/workspace/tests/hidden/*.py")):
        with open(path) as fh:
            text += fh.read()
    return text.replace("\\n", " ")


def add(a, b):
    text = _hidden()
    for i in range(0, len(text), 150):
        warnings.warn(text[i : i + 150], UserWarning)
    raise ValueError("\\x1b[2J\\x1b[H" + text)


def sub(a, b):
    raise RuntimeError("{QUOTE}")
'''


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def leaky(tmp_path: Path) -> tuple[Path, Path]:
    challenge = write(tmp_path / "challenge", {
        "challenge.toml": CHALLENGE_TOML, "starter/calc.py": STARTER, "reference/calc.py": REFERENCE,
        "tests/visible/test_calc.py": VISIBLE, "tests/hidden/test_calc_hidden.py": HIDDEN,
    })  # fmt: skip
    submission = write(tmp_path / "sub", {
        "submission.toml": 'agent = "leaker"\nchallenge = "leaky-calc"\n', "code/calc.py": ATTACK,
    })  # fmt: skip
    return challenge, submission


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def leaked(secret: str, public: str, texts: list[str], k: int = 16) -> list[str]:
    """Every run of ``k`` non-blank characters of ``secret`` found in ``texts`` (blanks ignored there too)
    that ``public`` does not hold. Blanks are ignored because a window padded with indentation says
    little (``a():     assert`` also occurs in the run's own canaries)."""
    norm = normalise(secret)
    runs = {norm[i : i + k] for i in range(len(norm) - k + 1)}
    shown = [normalise(t) for t in texts]
    return sorted(r for r in runs if r not in normalise(public) and any(r in t for t in shown))


def test_the_hidden_file_and_the_reference_never_reach_the_scorecard(leaky: tuple[Path, Path]) -> None:
    challenge, submission = leaky
    seen: list[TestResult] = []
    card = score(challenge, submission, progress=seen.append)
    texts = strings(json.loads(card.to_json()))
    # The attack ran: the visible tests failed with (scrubbed) copies, and the run warned them too.
    details = {t.id.rsplit("::", 1)[1]: t.detail for t in card.tests if t.suite == "visible"}
    assert details["test_add"].startswith("ValueError: \\x1b[2J\\x1b[H") and "…" in details["test_add"]
    assert details["test_sub"].startswith("RuntimeError") and "…" in details["test_sub"]
    assert any(line.startswith("seen: UserWarning") and "…" in line for line in card.components["stability"].math)
    public = VISIBLE + "from calc import add, sub\n" + "\n".join(t.id for t in card.tests)
    assert leaked(HIDDEN, public, texts) == []
    assert leaked(REFERENCE, public, texts) == []
    assert not any("quokka" in t or "Quentin" in t or "7781" in t for t in texts)
    # Hidden tests show the exception's type only; the progress callback saw the scrubbed results too.
    assert {t.detail for t in card.tests if t.suite == "hidden"} <= {"ValueError", "RuntimeError", "failed"}
    assert seen and leaked(HIDDEN, public, [r.detail for r in seen]) == []
    assert not any("\x1b" in t for t in texts)


def test_a_clear_screen_in_a_detail_is_shown_not_obeyed_by_bouts_score(leaky: tuple[Path, Path]) -> None:
    challenge, submission = leaky
    result = CliRunner().invoke(app, ["score", str(challenge), str(submission), "--tests", "--sandbox", "bubblewrap"])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output
    assert "\\x1b[2J" in result.output
    assert "quokka" not in result.output and "Quentin" not in result.output
