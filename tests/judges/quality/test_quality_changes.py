"""Only what the submission changed is judged; hostile trees never crash a judge."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from quality_helpers import Run, write_tree

from bouts.judges.quality import LintJudge, MetricsJudge, StructureJudge
from bouts.judges.quality._changes import collect as collect_view
from bouts.loading.view import read_view
from bouts.models.view import MAX_FILE_BYTES
from bouts.scoring.explain import Explained, NotScored


def collect(code: Path, starter: Path, protected: tuple[str, ...] = (), language: str = "python"):  # noqa: ANN201
    return collect_view(read_view(code, starter, protected=protected, language=language), language)


STARTER = {
    "app/core.py": '''
        def total(values: list[int]) -> int:
            """Sum of values."""
            return sum(values)


        def bad(l, x=[]):
            try:
                return l[0]
            except:
                pass
        ''',
}
JUDGES = [LintJudge(), MetricsJudge(), StructureJudge()]


@pytest.mark.parametrize("judge", JUDGES, ids=lambda j: j.name)
def test_unchanged_code_is_not_scored(run_judge: Run, judge: object) -> None:
    verdict = run_judge(judge, STARTER, STARTER)
    assert isinstance(verdict.score, NotScored)
    assert verdict.score.reason == "the submission changed no code"


@pytest.mark.parametrize("judge", JUDGES, ids=lambda j: j.name)
def test_comment_only_edit_changes_no_code(run_judge: Run, judge: object) -> None:
    code = {"app/core.py": STARTER["app/core.py"].replace("return sum(values)", "return sum(values)  # fast")}
    assert isinstance(run_judge(judge, STARTER, code).score, NotScored)


@pytest.mark.parametrize("judge", JUDGES, ids=lambda j: j.name)
def test_bad_unchanged_function_is_not_judged(run_judge: Run, judge: object) -> None:
    """Editing total() must not make the starter's bad() count against the submission."""
    code = {"app/core.py": STARTER["app/core.py"].replace("return sum(values)", "return int(sum(values))")}
    verdict = run_judge(judge, STARTER, code)
    assert isinstance(verdict.score, Explained)
    assert verdict.score.value == 100
    assert "1 file(s), 1 function(s)" in verdict.score.math[0]
    assert "unchanged functions not judged" in verdict.score.math[0]


def test_changed_function_is_judged_whole_inherited_lines_weigh_half(tmp_path: Path) -> None:
    code = dict(STARTER)
    code["app/core.py"] = STARTER["app/core.py"].replace("return l[0]", "return l[-1]")
    starter = write_tree(tmp_path / "starter", STARTER)
    changes = collect(write_tree(tmp_path / "code", code), starter)
    (unit,) = list(changes.changed_units())
    assert unit.qualname == "bad"
    changed_line = next(n for n in unit_lines(unit) if "l[-1]" in changes.files[0].lines[n - 1])
    assert changes.share("app/core.py", changed_line) == 1.0
    assert changes.share("app/core.py", unit.start) == 0.5


def unit_lines(unit: object) -> range:
    return range(unit.start, unit.end + 1)  # type: ignore[attr-defined]


def test_new_file_is_judged_and_protected_paths_are_not(tmp_path: Path) -> None:
    code = {**STARTER, "app/extra.py": "X = 1\n", "tests/test_x.py": "def test_x():\n    assert True\n"}
    changes = collect(write_tree(tmp_path / "code", code), write_tree(tmp_path / "starter", STARTER), ("tests/**",))
    assert [f.rel for f in changes.changed] == ["app/extra.py"]


def test_syntax_error_is_a_finding_not_a_crash(run_judge: Run) -> None:
    code = {**STARTER, "app/broken.py": "def broken(:\n    return 1\n"}
    for judge in JUDGES:
        verdict = run_judge(judge, STARTER, code)
        assert isinstance(verdict.score, Explained)
        assert any(f.rule == "file.syntax-error" and f.dimension == "robustness" for f in verdict.findings)


def test_non_utf8_bytes_are_decoded_and_reported(run_judge: Run) -> None:
    code = {**STARTER, "app/latin.py": b'NAME = "caf\xe9"\n\n\ndef f(a: int) -> int:\n    return a\n'}
    verdict = run_judge(StructureJudge(), STARTER, code)
    assert any(f.rule == "file.not-utf8" for f in verdict.findings)


def test_symlinks_are_skipped_never_followed(tmp_path: Path, run_judge: Run) -> None:
    secret = tmp_path / "outside.py"
    secret.write_text("def leaked(a, b, c, d, e, f, g, h):\n    pass\n")
    code_dir = write_tree(tmp_path / "code", STARTER)
    os.symlink(secret, code_dir / "app" / "link.py")
    os.symlink(tmp_path, code_dir / "app" / "linkdir")
    changes = collect(code_dir, write_tree(tmp_path / "starter", STARTER))
    assert not changes.changed
    assert {n.kind for n in changes.notes} == {"skipped"}
    assert all("symlink" in n.message for n in changes.notes)


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    code_dir = write_tree(tmp_path / "code", STARTER)
    os.mkfifo(code_dir / "app" / "pipe.py")
    changes = collect(code_dir, write_tree(tmp_path / "starter", STARTER))
    assert [(n.file, n.message) for n in changes.notes] == [("app/pipe.py", "not a regular file")]


def test_oversized_file_is_capped_and_costs_points(run_judge: Run) -> None:
    huge = "X = 1\n" * (MAX_FILE_BYTES // 6 + 10)
    verdict = run_judge(MetricsJudge(), STARTER, {**STARTER, "app/huge.py": huge})
    assert isinstance(verdict.score, Explained)
    assert any(f.rule == "file.too-large" and f.points > 0 for f in verdict.findings)


def test_deeply_nested_source_does_not_crash(run_judge: Run) -> None:
    code = {**STARTER, "app/deep.py": "X = " + "(" * 5000 + "1" + ")" * 5000 + "\n"}
    for judge in JUDGES:
        assert run_judge(judge, STARTER, code).score is not None


def test_a_javascript_challenge_reads_only_its_javascript_files(run_judge: Run) -> None:
    verdict = run_judge(StructureJudge(), STARTER, {**STARTER, "a.py": "X = 1\n"}, language="javascript")
    assert isinstance(verdict.score, NotScored)
    assert verdict.score.reason == "the submission changed no code"  # a.py is not JavaScript
