"""The language seam (issue 14 item 2): one registry entry per language, judges ask it, and no judge
carries a ``language ==`` branch."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from bouts.adversarial import GeneratedSuite, run_generated
from bouts.adversarial._examples import Call
from bouts.adversarial._model import Analysis
from bouts.adversarial.analysers import Generation
from bouts.calibration.check import CheckConfig, check_challenge
from bouts.calibration.report import LintReport, Problem
from bouts.errors import InputError
from bouts.languages import LANGUAGES, PARTS, LanguageSupport, framework_of, language, language_of
from bouts.loading import load_challenge
from bouts.loading.view import read_view
from bouts.scoring.explain import NotScored

JUDGES_SRC = Path(__file__).resolve().parents[1] / "src" / "bouts" / "judges"


def test_every_registered_part_resolves() -> None:
    for name in LANGUAGES.names():
        support = language(name)
        assert support.name == name and support.suffixes and support.frameworks
        for role in support.parts:
            assert role in PARTS
            assert callable(support.part(role)) or support.part(role) is not None


def test_typescript_is_javascript_with_its_own_sources() -> None:
    js, ts = language("javascript"), language("typescript")
    assert (ts.sources, ts.importable) == ((".ts", ".mts", ".cts", ".tsx"), (".ts", ".mts", ".cts"))
    assert (js.sources, js.importable) == ((".js", ".mjs", ".cjs", ".jsx"), (".js", ".mjs", ".cjs"))
    assert replace(ts, name="javascript", sources=js.sources, importable=js.importable) == js
    assert language("python").sources == language("python").importable == (".py",)  # defaults: the suffixes


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
    monkeypatch.setitem(
        LANGUAGES._factories,
        "python2",
        lambda: LanguageSupport(
            name="python2", suffixes=(".py",), frameworks=("pytest",), assertions="golden", parts=python.parts
        ),
    )
    assert language("python2").part("quality.metrics") is python.part("quality.metrics")


def _is_language(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "language") or (
        isinstance(node, ast.Name) and node.id in ("language", "lang"))  # fmt: skip


def test_no_judge_branches_on_the_language_name() -> None:
    offenders = []
    for path in sorted(JUDGES_SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(
                isinstance(side, ast.Attribute) and side.attr == "language" for side in (node.left, *node.comparators)
            ):
                offenders.append(f"{path.relative_to(JUDGES_SRC)}:{node.lineno}")
    assert offenders == []


def _name_branches(source: str) -> list[ast.Compare]:
    """Comparisons of a language (``x.language``, ``language``, ``lang``) with a string literal."""
    return [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Compare)
            and any(_is_language(side) for side in (node.left, *node.comparators))
            and any(isinstance(c, ast.Constant) and isinstance(c.value, str)
                    for side in (node.left, *node.comparators) for c in ast.walk(side))]  # fmt: skip


@pytest.mark.parametrize("package", ["adversarial", "calibration", "loading", "models", "pipeline.py"])
def test_nothing_outside_the_languages_compares_a_language_with_a_name(package: str) -> None:
    """The generated tests, ``bouts check``, the loaders and the models ask the registry too (the JavaScript
    family's own runner, ``runner/js``, may tell its two members apart)."""
    root = JUDGES_SRC.parent / package
    offenders = [f"{path.relative_to(root.parent)}:{node.lineno}: {ast.unparse(node)}"
                 for path in (sorted(root.rglob("*.py")) if root.is_dir() else [root])
                 for node in _name_branches(path.read_text(encoding="utf-8"))]  # fmt: skip
    assert offenders == []


def test_the_name_check_sees_a_branch() -> None:
    assert len(_name_branches('python = challenge.spec.language == "python"\nif lang != "js": pass')) == 2
    assert _name_branches("ok = spec.language in LANGUAGES.names() and language == other") == []


# A toy third language, registered once in the test and nowhere else: every part of the pipeline the
# language seam reaches (loading, the submission view, `bouts check`'s lint, the generated tests) asks
# its entry and needs no edit. Its parts live in this module (named as "module:attribute").
CALLS: dict[str, object] = {}


def toy_analyser(name: str) -> object:
    class ToyAnalyser:
        language, version = name, "toy/1"

        def analyse(self, sources: Mapping[str, str]) -> Analysis:
            CALLS["analysed"] = dict(sources)
            return Analysis(name, "toy/1", (), (), (), ("nothing to probe in a toy",))

    return ToyAnalyser()


def toy_examples(sources: Mapping[str, str]) -> dict[str, list[Call]]:
    CALLS["examples"] = dict(sources)
    return {}


def toy_generate(analysis: Analysis, seed: int, examples: Mapping[str, Sequence[Call]]) -> GeneratedSuite:
    CALLS["generated"] = (analysis.analyser, seed)
    return GeneratedSuite(seed, {}, ())


def toy_lint(
    files: Mapping[str, tuple[str, str]], *, target: Mapping[str, float] | None = None
) -> tuple[LintReport, list[Problem]]:
    CALLS["linted"] = dict(files)
    return LintReport(hidden_total=len([f for f in files.values() if f[0] == "hidden"])), []


def toy_severities(source: bytes, rel: str, *, shown: str) -> dict[str, str]:
    return {rel: "high"} if source.startswith(b"!high") else {}


TOY_GENERATION = Generation(toy_analyser, toy_examples, toy_generate)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The toy language registered (one registration) and a challenge written in it."""
    CALLS.clear()
    monkeypatch.setitem(LANGUAGES._factories, "toylang", lambda: LanguageSupport(
        name="toylang", suffixes=(".toy", ".toyi"), sources=(".toy",), importable=(".toy",),
        frameworks=("toytest",), assertions="inline", test_extensions=("toy",),
        parts={"adversarial": f"{__name__}:TOY_GENERATION", "check.lint": f"{__name__}:toy_lint",
               "severities": f"{__name__}:toy_severities"}))  # fmt: skip
    root = tmp_path / "toy"
    for rel, text in {
        "challenge.toml": 'id = "toy"\ntitle = "T"\nlanguage = "toylang"\n[adversarial]\ninvalid_input = "rejected"\n',
        "starter/main.toy": "", "reference/main.toy": "solve",
        "tests/visible/test_main.toy": "check solve", "tests/visible/notes.txt": "not a test",
        "tests/hidden/test_more.toy": "check solve twice", "tests/adversarial/test_attack.toy": "!high attack",
    }.items():  # fmt: skip
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_toy_language_is_loaded_with_its_own_test_files_and_default_framework(toy: Path) -> None:
    challenge = load_challenge(toy)
    assert challenge.spec.language == "toylang" and framework_of(challenge.spec) == "toytest"
    assert challenge.test_files["visible"] == ["tests/visible/test_main.toy"]
    assert challenge.severities == {"tests/adversarial/test_attack.toy": "high"}
    assert language_of(challenge).part("adversarial") is TOY_GENERATION


def test_the_view_names_a_toy_language_from_its_own_sources(toy: Path, tmp_path: Path) -> None:
    code = tmp_path / "code"
    code.mkdir()
    (code / "main.toy").write_text("solve")
    assert read_view(code, toy / "starter", language="toylang").languages == {"toylang"}
    (code / "main.toy").rename(code / "main.toyi")  # judged as toy code, but not its own source suffix
    assert read_view(code, toy / "starter", language="toylang").languages == frozenset()


def test_bouts_check_lints_a_toy_challenge_with_its_linter(toy: Path) -> None:
    report = check_challenge(toy, CheckConfig(runs=0, anchors=False))
    assert CALLS["linted"] == {"tests/visible/test_main.toy": ("visible", "check solve"),
                               "tests/hidden/test_more.toy": ("hidden", "check solve twice"),
                               "tests/adversarial/test_attack.toy": ("adversarial", "!high attack")}  # fmt: skip
    assert report.lint is not None and report.lint.hidden_total == 1 and report.lint.assertions == []


def test_generated_tests_for_a_toy_language_use_its_analyser_examples_and_generator(toy: Path, tmp_path: Path) -> None:
    challenge = load_challenge(toy)
    code = tmp_path / "code"
    (code / "lib").mkdir(parents=True)
    (code / "lib" / "main.toy").write_text("solve")
    (code / "lib" / "main.py").write_text("x = 1")  # another language's file: not analysed
    run = run_generated(challenge, code, sandbox=None, seed=7)  # type: ignore[arg-type]  # nothing to run
    assert CALLS["analysed"] == {"lib/main.toy": "solve"}
    assert CALLS["examples"] == {"tests/visible/test_main.toy": "check solve"}
    assert CALLS["generated"] == ("toy/1", 7)
    assert isinstance(run.verdict.score, NotScored)
    assert run.verdict.score.reason == "the analysis found nothing the generator could probe"
    assert run.verdict.versions == {"adversarial-analyser": "toy/1"}


def test_a_toy_language_without_the_reference_oracle_or_a_generator_is_not_scored(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    challenge = load_challenge(toy)
    lenient = challenge.model_copy(update={"spec": challenge.spec.model_copy(update={
        "adversarial": challenge.spec.adversarial.model_copy(update={"invalid_input": "out-of-scope"})})})  # fmt: skip
    run = run_generated(lenient, tmp_path, sandbox=None, seed=7)  # type: ignore[arg-type]
    assert isinstance(run.verdict.score, NotScored)
    assert run.verdict.score.reason.startswith("no reference oracle for toylang yet")
    assert "analysed" not in CALLS
    bare = language("toylang")
    monkeypatch.setitem(LANGUAGES._factories, "toylang", lambda: replace(bare, parts={}))
    run = run_generated(challenge, tmp_path, sandbox=None, seed=7)  # type: ignore[arg-type]
    assert run.analyser is None and run.verdict.score == NotScored("no adversarial test generator for toylang yet")
