"""The language seam (issue 14 item 2): one registry entry per language, judges ask it, and no judge
carries a ``language ==`` branch."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bouts.errors import InputError
from bouts.languages import LANGUAGES, PARTS, LanguageSupport, language

JUDGES_SRC = Path(__file__).resolve().parents[1] / "src" / "bouts" / "judges"


def test_every_registered_part_resolves() -> None:
    for name in LANGUAGES.names():
        support = language(name)
        assert support.name == name and support.suffixes and support.frameworks
        for role in support.parts:
            assert role in PARTS
            assert callable(support.part(role)) or support.part(role) is not None


def test_a_missing_role_or_language_is_a_clear_error() -> None:
    assert not language("javascript").has("architecture")
    with pytest.raises(InputError, match="javascript: no architecture for this language yet"):
        language("javascript").part("architecture")
    with pytest.raises(InputError, match="unknown language 'cobol'"):
        language("cobol")


def test_a_language_is_one_registration(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin language that fills the quality roles is judged by the quality judges without any
    change to them (here, Python's parts under another name)."""
    python = language("python")
    monkeypatch.setitem(LANGUAGES._factories, "python2", lambda: LanguageSupport(
        name="python2", suffixes=(".py",), frameworks=("pytest",), assertions="golden", parts=python.parts))
    assert language("python2").part("quality.metrics") is python.part("quality.metrics")


def test_no_judge_branches_on_the_language_name() -> None:
    offenders = []
    for path in sorted(JUDGES_SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(
                isinstance(side, ast.Attribute) and side.attr == "language"
                for side in (node.left, *node.comparators)
            ):
                offenders.append(f"{path.relative_to(JUDGES_SRC)}:{node.lineno}")
    assert offenders == []
