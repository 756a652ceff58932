"""Builders for the evaluation and cache tests: a tiny challenge and its submissions."""

from __future__ import annotations

from pathlib import Path

CHALLENGE_TOML = """
id = "tiny-calc"
title = "Tiny calculator"
profile = "engine"
[limits]
test_timeout_s = 5
suite_timeout_s = 60
memory_mb = 256
max_processes = 16
[adversarial]
generate = false
"""

GOOD = "def add(a, b):\n    return a + b\n"
BAD = "def add(a, b):\n    return a - b\n"
HIDDEN = "from calc import add\n\ndef test_swapped():\n    assert add(3, 2) == 5\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def write_challenge(root: Path) -> Path:
    return write(
        root,
        {
            "challenge.toml": CHALLENGE_TOML,
            "starter/calc.py": "def add(a, b):\n    raise NotImplementedError\n",
            "reference/calc.py": GOOD,
            "tests/visible/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
            "tests/hidden/test_calc_hidden.py": HIDDEN,
        },
    )


def submission(root: Path, code: str, *, agent: str = "agent-x", iteration: int = 1) -> Path:
    toml = f'agent = "{agent}"\nchallenge = "tiny-calc"\niteration = {iteration}\n'
    return write(root, {"submission.toml": toml, "code/calc.py": code})
