"""Recovery judge: failures met and the share a later action resolved; failures left at the end weigh double."""

from __future__ import annotations

import pytest

from bouts.scoring.explain import NotScored

R = "trajectory-recovery"


def _run(cmd, code, passed=None, failed=None):
    fields = {"command": cmd, "exit_code": code}
    if passed is not None:
        fields["tests"] = {"passed": passed, "failed": failed}
    return ("run", fields)


def _resolved(v):
    return {f.event: f.rule.rsplit(".", 1)[1] for f in v.findings}


def test_no_trajectory_is_not_scored(judge):
    assert isinstance(judge(R, None).score, NotScored)


def test_nothing_failed_is_100(judge, events):
    v = judge(R, events(_run("pytest", 0, 3, 0)))
    assert v.score.value == 100 and "nothing to recover" in v.score.math[0]


def test_same_test_command_later_passing_resolves(judge, events):
    v = judge(
        R, events(_run("pytest tests", 1, 1, 2), ("edit", {"path": "a.py"}), _run("python -m pytest -q tests", 0, 3, 0))
    )
    assert _resolved(v) == {0: "resolved"} and v.score.value == 100


def test_fewer_failures_later_resolves_and_the_last_failure_counts_double(judge, events):
    evs = events(
        _run("pytest", 1, 0, 6),
        ("edit", {"path": "a.py"}),
        _run("pytest", 1, 4, 2),
        ("edit", {"path": "a.py"}),
        _run("pytest", 1, 5, 1),
    )
    v = judge(R, evs)
    assert _resolved(v) == {0: "resolved", 2: "resolved", 4: "unresolved"}
    assert v.score.value == 50  # 2 / (3 + 1)


def test_no_progress_is_unresolved(judge, events):
    v = judge(R, events(_run("pytest", 1, 7, 5), _run("pytest", 1, 7, 5)))
    assert v.score.value == 0 and "weight 3" in v.score.math[0]


def test_a_later_unfiltered_green_run_resolves_a_focused_failure_but_not_the_reverse(judge, events):
    v = judge(
        R, events(_run("pytest tests/a.py::test_x", 1, 0, 1), ("edit", {"path": "a.py"}), _run("pytest", 0, 9, 0))
    )
    assert _resolved(v) == {0: "resolved"}
    v = judge(R, events(_run("pytest", 1, 8, 1), ("edit", {"path": "a.py"}), _run("pytest -k report", 0, 2, 0)))
    assert _resolved(v) == {0: "unresolved"}


def test_failed_command_resolved_by_the_same_command_succeeding(judge, events):
    v = judge(
        R,
        events(
            _run("python check.py  # edge cases", 1),
            ("edit", {"path": "a.py"}),
            _run("python check.py", 0),
            _run("make build", 2),
        ),
    )
    assert _resolved(v) == {0: "resolved", 3: "unresolved"}
    assert v.score.value == pytest.approx(100 / 3, abs=1e-5)  # 1 / (2 + 1)


def test_grep_finding_nothing_is_not_a_failure(judge, events):
    assert judge(R, events(_run("grep -rn foo src", 1))).score.value == 100


def test_a_rejected_edit_and_its_retry_is_no_failure_met(judge, events):
    """Issue 37: a rejected edit changed nothing, and its retry resolved nothing of the work; counted as
    a failure met and resolved, each pair lifted recovery (0 → 80 with twelve pairs)."""
    evs = events(
        ("edit", {"path": "a.py", "ok": False}),
        ("edit", {"path": "a.py", "ok": True}),
        ("edit", {"path": "b.py", "ok": False}),
    )
    v = judge(R, evs)
    assert _resolved(v) == {} and v.score.value == 100


def test_a_failure_and_its_identical_passing_rerun_resolve_nothing(judge, events):
    """Issue 37: `cat X` (exit 1) then `cat X` (exit 0), nothing changed: a read is off the task's path; a
    test run that passes unchanged says its failure was not the code's, and nothing later resolves it."""
    cats = [_run(f"cat notes{k}.txt", code) for k in range(12) for code in (1, 0)]
    v = judge(R, events(*cats, _run("pytest", 1, 7, 5), ("edit", {"path": "a.py"}), _run("pytest", 1, 7, 5)))
    assert v.score.value == 0 and len(_resolved(v)) == 2
    v = judge(
        R,
        events(_run("pytest", 1, 7, 5), _run("pytest", 0, 12, 0), ("edit", {"path": "a.py"}), _run("pytest", 0, 12, 0)),
    )
    assert _resolved(v) == {0: "unresolved"} and v.score.value == 0


def test_a_probe_or_a_run_on_reverted_code_is_no_failure_of_the_work(judge, events):
    """Issue 38 (6, 9): `python -c "import h5py"` exiting 1 answers a question; a test run after `git stash`
    checks that the test fails without the fix."""
    v = judge(R, events(_run('python -c "import h5py"', 1), _run("which tox", 1), _run("pip show numpy", 1)))
    assert _resolved(v) == {} and v.score.value == 100
    evs = events(
        ("edit", {"path": "a.py"}),
        _run("git stash", 0),
        _run("pytest tests/test_a.py", 1, 0, 1),
        _run("git stash pop", 0),
        _run("pytest tests/test_a.py", 0, 1, 0),
    )
    assert _resolved(judge(R, evs)) == {}


def test_a_pass_of_a_narrower_other_file_resolves_nothing_and_an_equivalent_command_does(judge, events):
    """Issue 38 (9): a failure of tests/test_a.py is not resolved by tests/test_b.py passing; `cd /testbed &&
    python3 -m pytest tests/test_a.py` is the same run as `pytest tests/test_a.py`."""
    v = judge(
        R,
        events(
            _run("pytest tests/test_a.py", 1, 3, 1), ("edit", {"path": "a.py"}), _run("pytest tests/test_b.py", 0, 4, 0)
        ),
    )
    assert _resolved(v)[0] == "unresolved"
    v = judge(
        R, events(_run("pytest tests/test_a.py", 1, 3, 1), ("edit", {"path": "a.py"}), _run("pytest tests/", 0, 9, 0))
    )
    assert _resolved(v) == {0: "resolved"}
    v = judge(
        R,
        events(
            _run("pytest tests/test_a.py", 1, 3, 1),
            ("edit", {"path": "a.py"}),
            _run("cd /testbed && python3 -m pytest tests/test_a.py", 0, 4, 0),
        ),
    )
    assert _resolved(v) == {0: "resolved"}
