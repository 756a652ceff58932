"""quality-lint: ruff families map to dimensions; the submission cannot steer ruff."""

from __future__ import annotations

import pytest
from quality_helpers import Run

from bouts.judges.quality.lint import IGNORE, SELECT, LintJudge, classify, ruff_command
from bouts.scoring.explain import Explained

STARTER = {"pkg/__init__.py": "", "pkg/core.py": '"""Core."""\n'}


def judge(run_judge: Run, source: str, extra: dict[str, str] | None = None) -> object:
    return run_judge(LintJudge(), STARTER, {**STARTER, "pkg/new.py": source, **(extra or {})})


@pytest.mark.parametrize(
    ("code", "dimension"),
    [("E501", "readability"), ("D103", "readability"), ("PLR2004", "readability"), ("N802", "readability"),
     ("C901", "architecture"), ("F401", "architecture"), ("PLR0913", "architecture"), ("ARG001", "architecture"),
     ("E722", "robustness"), ("BLE001", "robustness"), ("S110", "robustness"), ("B006", "robustness"),
     ("F821", "robustness"), ("UP006", "idiomaticity"), ("SIM102", "idiomaticity"), ("E711", "idiomaticity"),
     ("C401", "idiomaticity"), ("XYZ999", "idiomaticity")],
)
def test_rule_families_map_to_dimensions(code: str, dimension: str) -> None:
    assert classify(code)[0] == dimension


@pytest.mark.parametrize(
    ("source", "rule", "dimension"),
    [
        ('"""M."""\n\n\ndef f() -> int:\n    """F."""\n    try:\n        return 1\n    except:\n        return 2\n',
         "ruff:E722", "robustness"),
        ('"""M."""\nimport os\n', "ruff:F401", "architecture"),
        ('"""M."""\n\n\ndef f(x: int) -> bool:\n    """F."""\n    return x == 1999\n', "ruff:PLR2004", "readability"),
        ('"""M."""\n\n\ndef f(x: int) -> bool:\n    return x > 0\n', "ruff:D103", "readability"),
        ('"""M."""\n\n\ndef f(x: int) -> bool:\n    """F."""\n    if x:\n        if x > 0:\n            return True\n'
         '    return False\n', "ruff:SIM102", "idiomaticity"),
    ],
)
def test_each_family_fires_with_evidence(run_judge: Run, source: str, rule: str, dimension: str) -> None:
    verdict = judge(run_judge, source)
    hits = [f for f in verdict.findings if f.rule == rule]
    assert hits and hits[0].dimension == dimension and hits[0].file == "pkg/new.py" and hits[0].line
    assert hits[0].points > 0
    assert verdict.dimensions[dimension] < 100


def test_symbolic_tags_are_not_magic_but_data_strings_are(run_judge: Run) -> None:
    tag = '"""M."""\n\n\ndef f(s: str) -> bool:\n    """F."""\n    return s == "open"\n'
    data = tag.replace('"open"', '"19.99"')
    assert not [f for f in judge(run_judge, tag).findings if f.rule == "ruff:PLR2004"]
    assert [f for f in judge(run_judge, data).findings if f.rule == "ruff:PLR2004"]


def test_noqa_cannot_hide_a_finding(run_judge: Run) -> None:
    source = '"""M."""\nimport os  # noqa\n# ruff: noqa\n'
    assert [f for f in judge(run_judge, source).findings if f.rule == "ruff:F401"]


BAD = '"""M."""\nimport os\n\n\ndef f(x, y=[]):\n    try:\n        return x == 1999\n    except:\n        pass\n'


@pytest.mark.parametrize(
    "config",
    [
        {"ruff.toml": 'lint.select = []\nlint.ignore = ["ALL"]\nexclude = ["pkg"]\n'},
        {".ruff.toml": 'line-length = 10\n[lint]\nselect = ["E501"]\n'},
        {"pyproject.toml": '[tool.ruff]\nexclude = ["*"]\n[tool.ruff.lint]\nignore = ["ALL"]\n'},
        {"pkg/ruff.toml": 'lint.ignore = ["F401", "E722", "B006"]\n'},
    ],
    ids=["ruff.toml", ".ruff.toml", "pyproject", "nested-ruff.toml"],
)
def test_submission_ruff_config_does_not_change_the_result(run_judge: Run, config: dict[str, str]) -> None:
    plain = judge(run_judge, BAD)
    steered = judge(run_judge, BAD, config)
    assert isinstance(plain.score, Explained) and plain.score.value < 100
    assert steered.score == plain.score
    assert [(f.rule, f.line) for f in steered.findings] == [(f.rule, f.line) for f in plain.findings]


def test_invocation_is_pinned_and_isolated() -> None:
    cmd = ruff_command(".")
    assert "--isolated" in cmd and "--ignore-noqa" in cmd
    assert cmd[cmd.index("--select") + 1] == ",".join(SELECT)
    assert cmd[cmd.index("--ignore") + 1] == ",".join(IGNORE)
    assert cmd[cmd.index("--output-format") + 1] == "json"


def test_density_scales_with_changed_lines(run_judge: Run) -> None:
    """The same single finding costs less in a larger change."""
    small = '"""M."""\nimport os\n'
    large = small + "".join(f'\n\ndef f{i}(a: int) -> int:\n    """F."""\n    return a + {i}\n' for i in range(40))
    assert judge(run_judge, small).score.value < judge(run_judge, large).score.value


def test_versions_name_ruff(run_judge: Run) -> None:
    assert judge(run_judge, '"""M."""\n').versions["ruff"] == "0.17.6"
