"""Process judge: every SPEC deduction and reckless act, each cited by its event index."""

from __future__ import annotations

import pytest

from bouts.scoring.explain import NotScored

P = "trajectory-process"


def _points(verdict, rule):
    return [(f.event, f.points) for f in verdict.findings if f.rule == rule]


def test_no_trajectory_is_not_scored(judge):
    v = judge(P, None)
    assert isinstance(v.score, NotScored) and v.score.reason == "no trajectory in the submission"
    assert v.component == "process"


def test_clean_trajectory_scores_100(judge, events):
    evs = events(
        ("read", {"path": "ledger/core.py"}),
        ("edit", {"path": "ledger/core.py"}),
        ("run", {"command": "pytest", "exit_code": 0, "tests": {"passed": 3, "failed": 0}}),
        "submit",
    )
    v = judge(P, evs)
    assert v.score.value == 100 and not [f for f in v.findings if f.points]


def test_edit_of_unread_file_costs_5_each(judge, events):
    evs = events(
        ("read", {"path": "ledger/money.py"}),
        ("edit", {"path": "ledger/core.py"}),
        ("edit", {"path": "ledger/core.py"}),
        ("edit", {"path": "./ledger/money.py"}),
    )
    v = judge(P, evs)
    assert _points(v, "process.unread-edit") == [(1, 5), (2, 5)]
    assert v.score.value == 90


def test_overwriting_an_unread_existing_file_costs_the_same_as_an_unread_edit(judge, events):
    """A whole-file write over a starter file never read (seed 000): the agent replaced what it had
    not seen. A new file, or a file read first, costs nothing."""
    evs = events(
        ("write", {"path": "/workspace/ledger/core.py", "output": "def cancel(r):\n    return r - 1\n"}),
        ("write", {"path": "ledger/report.py", "output": "def report():\n    return 1\n"}),  # new file
        ("read", {"path": "ledger/money.py"}),
        ("write", {"path": "ledger/money.py", "output": "CENTS = 100\n"}),  # read first
        ("edit", {"path": "ledger/errors.py"}),
    )
    v = judge(P, evs)
    assert _points(v, "process.unread-overwrite") == [(0, 5)]
    assert _points(v, "process.unread-edit") == [(4, 5)]
    assert v.score.value == 90
    assert "5×2 unread edits" in v.score.math[0]


def test_absolute_and_relative_paths_name_the_same_file(judge, events):
    evs = events(("read", {"path": "/testbed/ledger/core.py"}), ("edit", {"path": "ledger/core.py"}))
    assert judge(P, evs).score.value == 100


def test_a_written_file_or_a_grep_of_it_counts_as_seen(judge, events):
    evs = events(
        ("write", {"path": "new.py"}),
        ("edit", {"path": "new.py"}),
        ("run", {"command": "grep -n cancel ledger/core.py", "exit_code": 0}),
        ("edit", {"path": "ledger/core.py"}),
    )
    assert judge(P, evs).score.value == 100


def test_failed_test_run_without_investigation_costs_10(judge, events):
    evs = events(
        ("read", {"path": "a.py"}),
        ("edit", {"path": "a.py"}),
        ("run", {"command": "pytest", "exit_code": 1, "tests": {"passed": 1, "failed": 1}}),
        ("message", {"text": "let me just try again"}),
        ("edit", {"path": "a.py"}),
    )
    v = judge(P, evs)
    assert _points(v, "process.uninvestigated-failure") == [(2, 10)]
    assert v.score.value == 90


@pytest.mark.parametrize(
    "look",
    [("read", {"path": "a.py"}), ("search", {"query": "def f"}), ("run", {"command": "python -c 'import a'"})],
)
def test_read_search_or_diagnostic_run_is_investigation(judge, events, look):
    evs = events(
        ("read", {"path": "a.py"}), ("run", {"command": "pytest", "exit_code": 1}), look, ("edit", {"path": "a.py"})
    )
    assert judge(P, evs).score.value == 100


def test_failure_at_the_end_without_investigation_counts(judge, events):
    evs = events(("run", {"command": "pytest", "exit_code": 1, "tests": {"passed": 0, "failed": 2}}), "submit")
    assert _points(judge(P, evs), "process.uninvestigated-failure") == [(0, 10)]


def test_identical_rerun_with_nothing_changed_is_churn_not_a_process_deduction(judge, events):
    fail = {"command": "pytest -q tests", "exit_code": 1, "tests": {"passed": 0, "failed": 1}}
    evs = events(
        ("run", fail), ("read", {"path": "a.py"}), ("run", {**fail, "command": "python -m pytest tests"}), "submit"
    )
    v = judge(P, evs)
    assert _points(v, "process.uninvestigated-failure") == []  # event 2 is churn: same run, nothing changed
    assert [f.event for f in v.findings if f.rule == "process.churn-run"] == [2]


def test_redundant_reads_cost_2_each_beyond_5(judge, events):
    evs = events(*[("read", {"path": "a.py"})] * 7, ("edit", {"path": "a.py"}), ("read", {"path": "a.py"}))
    v = judge(P, evs)
    redundant = _points(v, "process.redundant-read")
    assert [e for e, _ in redundant] == [1, 2, 3, 4, 5, 6]  # the read after the edit (8) is not redundant
    assert [p for _, p in redundant] == [0, 0, 0, 0, 0, 2]
    assert v.score.value == 98


def test_reading_a_different_part_of_a_file_is_not_redundant(judge, events):
    evs = events(
        ("read", {"path": "a.py", "output": "lines 1-50"}), ("read", {"path": "a.py", "output": "lines 51-99"})
    )
    assert _points(judge(P, evs), "process.redundant-read") == []


def test_reverts_cost_5_each_beyond_3(judge, events):
    evs = events(("read", {"path": "a.py"}), *[("run", {"command": "git checkout -- a.py", "exit_code": 0})] * 4)
    v = judge(P, evs)
    assert _points(v, "process.revert") == [(1, 0), (2, 0), (3, 0), (4, 5)]
    assert v.score.value == 95


def test_a_diff_that_undoes_an_earlier_diff_is_a_revert(judge, events):
    evs = events(
        ("read", {"path": "a.py"}),
        ("edit", {"path": "a.py", "output": "-x = 1\n+x = 2"}),
        ("edit", {"path": "a.py", "output": "-x = 2\n+x = 1"}),
    )
    assert [e for e, _ in _points(judge(P, evs), "process.revert")] == [2]


def test_rewriting_a_file_back_to_an_older_content_is_a_revert(judge, events):
    evs = events(*[("write", {"path": "a.py", "output": body}) for body in ("v1", "v2", "v1")])
    assert [e for e, _ in _points(judge(P, evs), "process.revert")] == [2]


def test_rm_rf_without_a_look_is_reckless(judge, events):
    evs = events(
        ("run", {"command": "ls build", "exit_code": 0}),
        ("run", {"command": "rm -rf build", "exit_code": 0}),
        ("run", {"command": "rm -rf dist/", "exit_code": 0}),
        ("run", {"command": "sudo rm -fr /", "exit_code": 0}),
    )
    v = judge(P, evs)
    assert _points(v, "process.reckless.rm-rf-unseen") == [(2, 10), (3, 10)]
    assert v.score.value == 80


def test_delete_of_an_unseen_file_is_reckless_but_scratch_cleanup_is_not(judge, events):
    evs = events(("write", {"path": "scratch.py"}), ("delete", {"path": "scratch.py"}), ("delete", {"path": "old.py"}))
    assert _points(judge(P, evs), "process.reckless.delete-unseen") == [(2, 5)]


def test_edits_out_of_scope(judge, events):
    evs = events(
        ("read", {"path": "tests/visible/test_ledger_visible.py"}),
        ("edit", {"path": "tests/visible/test_ledger_visible.py"}),
        ("write", {"path": "conftest.py"}),
        ("write", {"path": "/etc/hosts"}),
        ("write", {"path": "../other/x.py"}),
        ("write", {"path": "/usr/lib/python3/site-packages/pkg/m.py"}),
        ("write", {"path": "/tmp/scratch.py"}),
        ("write", {"path": "deliverables/ROOT_CAUSE.md"}),
    )
    v = judge(P, evs)
    assert _points(v, "process.reckless.protected-edit") == [(1, 10), (2, 10)]
    assert _points(v, "process.reckless.out-of-scope-edit") == [(3, 10), (4, 10), (5, 10)]
    assert v.score.value == 50


def test_a_rejected_edit_changes_nothing_so_it_is_not_out_of_scope(judge, events):
    evs = events(("read", {"path": "tests/x.py"}), ("edit", {"path": "tests/x.py", "ok": False}))
    assert _points(judge(P, evs), "process.reckless.protected-edit") == []


def test_floor_is_zero(judge, events):
    evs = events(*[("edit", {"path": f"f{i}.py"}) for i in range(30)])
    assert judge(P, evs).score.value == 0


def test_math_lines_show_every_deduction(judge, events):
    evs = events(("edit", {"path": "a.py"}), ("run", {"command": "rm -rf build", "exit_code": 0}))
    math = judge(P, evs).score.math
    assert "5×1 unread edits" in math[0] and "10×1 rm-rf-unseen" in math[1] and math[1].endswith("= 85")


def test_an_uploaded_logs_reads_count_only_where_their_output_shows_the_file(judge, events, challenge):
    """Issue 37: reads logged before edits took process 70 → 100. In an uploaded log a read is a look at
    the file only when its output shows a line of it (of starter/, code/ or a visible test)."""
    core = (challenge.starter / "ledger" / "core.py").read_text()
    blind = events(("read", {"path": "ledger/core.py"}), ("edit", {"path": "ledger/core.py"}))
    shown = events(("read", {"path": "ledger/core.py", "output": core}), ("edit", {"path": "ledger/core.py"}))
    other = events(("read", {"path": "ledger/core.py", "output": "x = 1\n"}), ("edit", {"path": "ledger/core.py"}))
    assert judge(P, blind, recorded=False).score.value == 95
    assert judge(P, other, recorded=False).score.value == 95
    assert judge(P, shown, recorded=False).score.value == 100
    assert judge(P, blind, recorded=True).score.value == 100  # the engine recorded it: it happened
    numbered = "\n".join(f"{n:>6}\u2192{line}" for n, line in enumerate(core.splitlines(), 1))  # Claude Code's Read
    cc = events(("read", {"path": "/testbed/ledger/core.py", "output": numbered}), ("edit", {"path": "ledger/core.py"}))
    assert judge(P, cc, recorded=False).score.value == 100


def test_an_uploaded_logs_investigation_counts_where_its_output_shows_the_workspace(judge, events):
    fail = ("run", {"command": "pytest", "exit_code": 1, "tests": {"passed": 1, "failed": 1}})
    traceback = 'Traceback (most recent call last):\n  File "/testbed/ledger/core.py", line 40, in cancel\n'
    silent = events(fail, ("run", {"command": "python -c 'print(1)'", "exit_code": 0}))
    shown = events(fail, ("run", {"command": "python repro.py", "exit_code": 1, "output": traceback}))
    assert judge(P, silent, recorded=False).score.value == 90
    assert judge(P, shown, recorded=False).score.value == 100


def test_one_reckless_act_read_by_two_readers_counts_once(judge, events):
    """Issue 37: `rm -rf build` inside a command line became a delete event and the run's own rm: −15
    for one act; an append to /etc/passwd was charged as an edit and a write."""
    evs = [
        ("delete", {"path": "build", "source_line": 3}),
        ("run", {"command": "cd /x && rm -rf build && python setup.py", "exit_code": 0, "source_line": 3}),
        ("edit", {"path": "/etc/passwd", "source_line": 4}),
        ("write", {"path": "/etc/passwd", "source_line": 4}),
    ]
    v = judge(P, [e.model_copy(update={"t": 1.0}) for e in events(*evs)])
    reckless = [(f.rule, f.points) for f in v.findings if f.rule.startswith("process.reckless")]
    assert reckless == [("process.reckless.rm-rf-unseen", 10), ("process.reckless.out-of-scope-edit", 10)]


def test_a_re_read_after_a_script_changed_the_file_is_not_redundant(judge, events):
    """Issue 38 (1): `python fix.py` rewrote core.py; reading it again was charged as a redundant read."""
    from bouts.trajectory import command_events
    from bouts.trajectory._base import ToolResult

    script = "cat > fix.py <<'EOF'\nwith open('ledger/core.py', 'w') as f:\n    f.write('x = 2')\nEOF\npython fix.py"
    edits = command_events(3.0, script, ToolResult(output="", exit_code=0), 4)
    reads = [("read", {"path": "ledger/core.py", "output": "x = 1"}) for _ in range(6)]
    evs = events(*reads) + [e.model_copy(update={"t": 6.0}) for e in edits] + events(*reads[:1])
    found = [f.event for f in judge(P, evs).findings if f.rule == "process.redundant-read"]
    assert len(evs) - 1 not in found and len(found) == 5
