"""Misreadings measured on 500 real mini-swe-agent runs on SWE-bench Verified (issue 38), each fixed as a
class and pinned by hand-made twins: the same command and output in the log shape of every harness the
class can occur in (any harness whose agent acts through a shell)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from bouts.judges.trajectory._common import failed, is_test_run, on_reverted_code, on_task_path
from bouts.judges.trajectory.process import redundant_reads
from bouts.models.trajectory import Event, TestCounts
from bouts.trajectory import parse_test_counts, parse_trajectory


def mini(command: str, output: str, code: int) -> str:
    """mini-swe-agent 1.15 (text actions, the observation a user message, per-call `created` times)."""

    def reply(text: str, created: int) -> dict:
        return {"role": "assistant", "content": text, "extra": {"response": {"created": created, "usage": {}}}}

    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "<pr_description>fix it</pr_description>"},
        reply(f"THOUGHT: go.\n\n```bash\n{command}\n```", 1_763_511_546),
        {"role": "user", "content": f"<returncode>{code}</returncode>\n<output>\n{output}</output>"},
        reply("THOUGHT: done.\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```", 1_763_511_590),
    ]
    return json.dumps(
        {"info": {"mini_version": "1.15.0"}, "messages": messages, "trajectory_format": "mini-swe-agent-1"}
    )


def claude(command: str, output: str, code: int) -> str:
    base = {"sessionId": "s", "parentUuid": None, "version": "2.0.26"}
    use = {"type": "tool_use", "id": "tu1", "name": "Bash", "input": {"command": command}}
    result = {"type": "tool_result", "tool_use_id": "tu1", "content": output, "is_error": code != 0}
    lines = [
        {**base, "timestamp": "2025-10-01T00:00:00Z", "type": "assistant",
         "message": {"id": "m1", "usage": {"input_tokens": 1, "output_tokens": 1}, "content": [use]}},
        {**base, "timestamp": "2025-10-01T00:00:09Z", "type": "user", "message": {"content": [result]}},
    ]  # fmt: skip
    return "\n".join(json.dumps(x) for x in lines)


def codex(command: str, output: str, code: int) -> str:
    meta = {"type": "session_meta", "payload": {"id": "s", "cli_version": "0.104.0", "originator": "codex_cli_rs"}}
    call = {
        "type": "function_call",
        "name": "shell_command",
        "call_id": "a",
        "arguments": json.dumps({"command": command}),
    }
    out = {"type": "function_call_output", "call_id": "a",
           "output": f"Exit code: {code}\nWall time: 0.1 seconds\nOutput:\n{output}"}  # fmt: skip
    lines = [meta] + [
        {"timestamp": f"2026-02-23T11:40:{i:02d}.000Z", "type": "response_item", "payload": p}
        for i, p in enumerate((call, out))
    ]
    return "\n".join(json.dumps(line) for line in lines)


def openhands(command: str, output: str, code: int) -> str:
    meta = {"function_name": "tool", "tool_call_id": "c1", "model_response": {"id": "r1", "usage": {}}}
    events = [
        {"source": "agent", "action": "run", "args": {"command": command}, "tool_call_metadata": meta},
        {"source": "agent", "observation": "run", "cause": 0, "content": output,
         "extras": {"command": command, "exit_code": code}},
    ]  # fmt: skip
    return json.dumps([{"id": i, "timestamp": f"2025-01-27T23:16:{i:02d}.000000", **e} for i, e in enumerate(events)])


SHELL_HARNESSES: dict[str, Callable[[str, str, int], str]] = {
    "mini-swe-agent": mini, "claude-code": claude, "codex-cli": codex, "openhands": openhands,
}  # fmt: skip


def actions(harness: str, command: str, output: str = "", code: int = 0):
    trajectory = parse_trajectory(SHELL_HARNESSES[harness](command, output, code))
    return [e for e in trajectory.events if e.kind in ("read", "edit", "write", "delete", "search", "run")]


HARNESSES = pytest.mark.parametrize("harness", sorted(SHELL_HARNESSES))


@HARNESSES
def test_1_a_script_the_agent_wrote_names_the_files_it_opens_for_writing(harness):
    fix = "cat > /testbed/fix.py <<'EOF'\np = '/testbed/src/mod.py'\ns = open(p).read()\n" \
          "with open(p, 'w') as f:\n    f.write(s.replace('a', 'b'))\nEOF\npython /testbed/fix.py"  # fmt: skip
    found = [(e.kind, e.path) for e in actions(harness, fix)]
    assert found == [("write", "/testbed/fix.py"), ("run", None), ("edit", "/testbed/src/mod.py")]
    inline = "python - <<'EOF'\nfrom pathlib import Path\nPath('src/a.py').write_text('x = 1\\n')\nEOF"
    assert [(e.kind, e.path) for e in actions(harness, inline)] == [("run", None), ("edit", "src/a.py")]
    perl = "perl -pi -e 's/old/new/' src/a.py src/b.py"
    assert [(e.kind, e.path) for e in actions(harness, perl)] == [
        ("run", None),
        ("edit", "src/a.py"),
        ("edit", "src/b.py"),
    ]
    unresolved = "python -c \"import sys; open(sys.argv[1], 'w').write('')\" src/c.py"
    assert [(e.kind, e.path) for e in actions(harness, unresolved)] == [("run", None), ("edit", None)]


def test_1_a_script_written_by_one_command_and_run_by_a_later_one_names_its_writes():
    script = "cat > fix.py <<'EOF'\nwith open('src/mod.py', 'w') as f:\n    f.write('x = 2\\n')\nEOF"
    call = lambda i, cmd: {"type": "function_call", "name": "shell_command", "call_id": i,  # noqa: E731
                           "arguments": json.dumps({"command": cmd})}  # fmt: skip
    out = lambda i: {"type": "function_call_output", "call_id": i, "output": "Exit code: 0\nOutput:\n"}  # noqa: E731
    meta = {"type": "session_meta", "payload": {"id": "s", "cli_version": "0.104.0", "originator": "codex_cli_rs"}}
    payloads = [
        call("a", script),
        out("a"),
        call("b", "python fix.py"),
        out("b"),
        call("c", "cat src/mod.py"),
        out("c"),
    ]
    text = "\n".join(json.dumps(x) for x in [meta] + [{"type": "response_item", "payload": p} for p in payloads])
    events = [(e.kind, e.path) for e in parse_trajectory(text).events if e.kind not in ("message", "usage")]
    assert events == [("write", "fix.py"), ("run", None), ("edit", "src/mod.py"), ("read", "src/mod.py")]


@HARNESSES
@pytest.mark.parametrize("command", ["bin/test sympy/core/tests/test_basic.py", "python tests/runtests.py queries",
                                     "./test", "tox -e py311", "nox -s tests", "make test", "npm test",
                                     "go test ./...", "cargo test"])  # fmt: skip
def test_2_repository_test_runners_are_test_runs_and_a_test_script_failing_is_a_failure(harness, command):
    (run,) = actions(harness, command, "FAILED", 1)
    assert is_test_run(run) and failed(run)
    assert run.tests is None  # no summary to count: the counts are unknown, not "0 passed, 0 failed"


@HARNESSES
def test_3_rm_of_several_operands_fails_only_the_one_its_error_names(harness):
    found = actions(harness, "rm a.py b.py c.py", "rm: cannot remove 'b.py': No such file or directory\n", 1)
    assert [(e.path, e.ok) for e in found] == [("a.py", None), ("b.py", False), ("c.py", None)]


@HARNESSES
def test_4_a_command_bash_refused_ran_nothing_and_names_no_file(harness):
    out = "bash: -c: line 1: syntax error near unexpected token `)'\n"
    found = actions(harness, "python fix.py) && sed -i 's/x/y/' src/b.py", out, 2)
    assert [(e.kind, e.path) for e in found] == [("run", None)]
    assert not on_task_path(found[0])


def test_5_xpassed_is_a_pass_and_expected_failures_do_not_overwrite_failures():
    assert parse_test_counts("==== 3 passed, 2 xpassed, 1 xfailed in 0.12s ====") is not None
    counts = parse_test_counts("==== 3 passed, 2 xpassed, 1 xfailed in 0.12s ====")
    assert (counts.passed, counts.failed) == (6, 0)
    counts = parse_test_counts("Ran 20 tests in 0.3s\n\nFAILED (failures=7, expected failures=2)\n")
    assert (counts.passed, counts.failed) == (13, 7)
    counts = parse_test_counts("Ran 20 tests in 0.3s\n\nOK (skipped=1, expected failures=2)\n")
    assert (counts.passed, counts.failed) == (19, 0)


@HARNESSES
@pytest.mark.parametrize("command", ['python -c "import h5py"', "which tox", "pip show numpy", "python --version"])
def test_6_a_probe_is_an_answer_not_a_failure_of_the_work(harness, command):
    (run,) = actions(harness, command, "ModuleNotFoundError: No module named 'h5py'", 1)
    assert not on_task_path(run) and run.tests is None


@HARNESSES
def test_7_comment_lines_and_pipe_filters_are_no_runs(harness):
    assert [e.kind for e in actions(harness, "# look around\nls -la && find . -name '*.py' | sort")] == [
        "search", "search"]  # fmt: skip


def test_7_mini_swe_agent_timeouts_fail_and_its_per_call_times_are_read():
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "<pr_description>fix it</pr_description>"},
        {"role": "assistant", "content": "THOUGHT: run.\n\n```bash\npytest tests/test_axes.py\n```",
         "extra": {"response": {"created": 1_763_511_546}}},
        {"role": "user", "content": "The last command <command>pytest tests/test_axes.py</command> timed out and "
                                    "has been killed.\nThe output of the command was:\n<output>\n</output>"},
        {"role": "assistant", "content": "THOUGHT: smaller.\n\n```bash\nls\n```",
         "extra": {"response": {"created": 1_763_511_846}}},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\na.py\n</output>"},
    ]  # fmt: skip
    doc = {"info": {"mini_version": "1.15.0"}, "messages": messages, "trajectory_format": "mini-swe-agent-1"}
    run, search = [e for e in parse_trajectory(json.dumps(doc)).events if e.kind in ("run", "search")]
    assert run.ok is False and failed(run)
    assert (run.t, search.t) == (0.0, 300.0)


# The second hand check of 30 corpus logs (benchmarks/data/trajectory_handcheck.md, 2026-12-07 late):
# each class it found, twinned in every shell harness.

SYMPY_RED = (
    "sympy/core/tests/test_expr.py[94] ....EE..ff..                              [FAIL]\n\n"
    "= tests finished: 90 passed, 2 expected to fail, 2 exceptions, in 4.17 seconds =\nDO *NOT* COMMIT!\n"
)


@HARNESSES
def test_8_sympys_own_runner_summary_gives_the_counts(harness):
    (red,) = actions(harness, "bin/test sympy/core/tests/test_expr.py", SYMPY_RED, 1)
    assert (red.tests.passed, red.tests.failed) == (92, 2) and failed(red)
    green = "================== tests finished: 16 passed, in 0.04 seconds ==================\n"
    (run,) = actions(harness, "bin/test sympy/core/tests/test_basic.py", green, 0)
    assert (run.tests.passed, run.tests.failed) == (16, 0) and not failed(run)
    # a log's `| tail` that cut the line's leading "=" still reads
    cut = " tests finished: 47 passed, 4 failed, 1 skipped, in 11.37 seconds =======\n"
    assert (parse_test_counts(cut).passed, parse_test_counts(cut).failed) == (47, 4)


@HARNESSES
def test_8_a_runner_that_found_no_file_ran_no_tests_even_with_a_warnings_summary(harness):
    out = (
        "ERROR: file or directory not found: tests/test_domain_python.py\n\n"
        "collected 0 items\n\n=== warnings summary ===\n...\n============ 7 warnings in 0.00s ============\n"
    )
    (run,) = actions(harness, "pytest tests/test_domain_python.py", out, 4)
    assert run.tests is None and failed(run)


@HARNESSES
def test_8_a_runner_crash_whose_traceback_header_a_tail_cut_off_ran_no_tests(harness):
    out = (
        '  File "/opt/conda/lib/python3.11/site-packages/_pytest/config/__init__.py", line 1814, in _getini_toml\n'
        "    raise TypeError(\nTypeError: /testbed/pyproject.toml: config option 'testpaths' expects a list\n"
    )
    (run,) = actions(harness, "python -m pytest pvlib/tests/test_iam.py -x 2>&1 | tail -50", out, 0)
    assert run.tests is None and failed(run)


@HARNESSES
def test_8_a_script_of_the_agents_that_ran_unittest_is_a_test_run(harness):
    out = "test_ascii (__main__.T) ... ok\n\n" + "-" * 70 + "\nRan 1 test in 0.003s\n\nFAILED (errors=1)\n"
    (run,) = actions(harness, "python run_simple_test.py", out, 1)
    assert (run.tests.passed, run.tests.failed) == (0, 1) and is_test_run(run)
    (plain,) = actions(harness, "python reproduce.py", "Ran the reproduction: OK\n", 0)
    assert plain.tests is None and not is_test_run(plain)  # no runner summary: a plain script


@HARNESSES
def test_8_a_patch_applied_from_a_file_edits_the_files_patch_names(harness):
    out = "patching file src/marshmallow/schema.py\npatching file tests/test_schema.py\n"
    found = actions(harness, "cd /testbed && patch -p1 < fix_issue.patch", out, 0)
    assert [(e.kind, e.path) for e in found] == [
        ("edit", "src/marshmallow/schema.py"),
        ("edit", "tests/test_schema.py"),
    ]
    quiet = actions(harness, "git apply fix.patch", "", 0)
    assert [(e.kind, e.path) for e in quiet] == [("edit", None)]  # silent: an edit of files it does not name


def _run(command: str, code: int = 0, tests: tuple[int, int] | None = None) -> Event:
    counts = TestCounts(passed=tests[0], failed=tests[1]) if tests else None
    return Event(t=0, kind="run", command=command, exit_code=code, ok=code == 0, tests=counts)


@pytest.mark.parametrize(
    "revert", ["git checkout sympy/core/numbers.py", "cd /testbed && git checkout src/a.py", "git checkout .",
               "git stash", "git stash -u", "git checkout -- src/a.py"])  # fmt: skip
def test_9_a_version_control_revert_without_dashes_is_a_revert(revert):
    events = [Event(t=0, kind="edit", path="src/a.py", ok=True), _run(revert), _run("pytest tests", 1, (3, 1))]
    assert on_reverted_code(events, 2)  # the test failing on the reverted code is investigation


@pytest.mark.parametrize("command", ["git checkout main", "git checkout -b fix", "git stash list", "git stash pop"])
def test_9_a_branch_switch_or_a_stash_listing_is_no_revert(command):
    events = [Event(t=0, kind="edit", path="src/a.py", ok=True), _run(command), _run("pytest tests", 1, (3, 1))]
    assert not on_reverted_code(events, 2)


def test_9_a_baseline_run_in_the_same_command_as_the_stash_is_on_reverted_code():
    events = [Event(t=0, kind="edit", path="src/a.py", ok=True), _run("git stash && bin/test src/t.py", 1, (90, 2))]
    assert on_reverted_code(events, 1)
    back = [*events, _run("git stash pop"), _run("bin/test src/t.py", 1, (90, 2))]
    assert not on_reverted_code(back, 3)  # after `stash pop` the fix is back: a failure of the work again
    same = [Event(t=0, kind="edit", path="src/a.py", ok=True), _run("git stash && pytest t.py; git stash pop", 1)]
    assert on_reverted_code(same, 1)  # the tests ran between the stash and its pop
    popped = [Event(t=0, kind="edit", path="src/a.py", ok=True), _run("git stash; git stash pop && pytest t.py", 1)]
    assert not on_reverted_code(popped, 1)


def test_9_a_re_read_after_git_checkout_is_not_redundant():
    read = Event(t=0, kind="read", path="sympy/core/numbers.py", output=None, ok=True)
    events = [read, _run("git checkout sympy/core/numbers.py"), read]
    assert redundant_reads(events) == []
    assert redundant_reads([read, _run("ls"), read]) == [2]


@HARNESSES
@pytest.mark.parametrize(
    "run", ["bash insert_fix.sh", "chmod +x insert_fix.sh && ./insert_fix.sh", "sh ./insert_fix.sh"]
)
def test_8_a_shell_script_the_agent_wrote_names_the_files_its_commands_change(harness, run):
    body = "#!/bin/bash\nsed -i '158i x = 1' pvlib/iam.py\n"
    script = f"# a script to insert the fix\ncat > insert_fix.sh << 'EOF'\n{body}EOF\n"
    found = [(e.kind, e.path) for e in actions(harness, script + run)]
    assert found == [("write", "insert_fix.sh"), ("run", None), ("edit", "pvlib/iam.py")]


def test_8_a_shell_script_written_by_one_command_and_run_by_a_later_one_names_its_changes():
    payloads = []
    for i, cmd in enumerate(["cat > fix.sh <<'EOF'\nsed -i 's/a/b/' src/mod.py\nrm -f src/old.py\nEOF", "bash fix.sh"]):
        payloads += [
            {
                "type": "function_call",
                "name": "shell_command",
                "call_id": str(i),
                "arguments": json.dumps({"command": cmd}),
            },
            {"type": "function_call_output", "call_id": str(i), "output": "Exit code: 0\nOutput:\n"},
        ]
    meta = {"type": "session_meta", "payload": {"id": "s", "cli_version": "0.104.0", "originator": "codex_cli_rs"}}
    text = "\n".join(json.dumps(x) for x in [meta] + [{"type": "response_item", "payload": p} for p in payloads])
    events = [(e.kind, e.path) for e in parse_trajectory(text).events if e.kind not in ("message", "usage")]
    assert events == [("write", "fix.sh"), ("run", None), ("edit", "src/mod.py"), ("edit", "src/old.py")]


@HARNESSES
@pytest.mark.parametrize(
    "command", ["pip install pytest -q", "python -m pip install tox", "npm i -D jest", "uv pip install nox"]
)
def test_8_installing_a_test_runner_is_no_test_run(harness, command):
    out = "ERROR: HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out.\n"
    (run,) = actions(harness, "cd /testbed && " + command, out, 2)
    assert not is_test_run(run) and failed(run)  # a failed install, not a failing test run to recover from
    (both,) = actions(harness, f"{command} && pytest tests", "==== 3 passed in 0.1s ====\n", 0)
    assert is_test_run(both)


@HARNESSES
def test_8_what_a_program_prints_into_a_file_writes_that_file(harness):
    tmp = "sympy/core/basic.py.tmp"
    command = f"python3 update_ne.py < sympy/core/basic.py > {tmp} && mv {tmp} sympy/core/basic.py"
    found = [(e.kind, e.path) for e in actions(harness, command)]
    assert found == [
        ("run", None),
        ("write", "sympy/core/basic.py.tmp"),
        ("delete", "sympy/core/basic.py.tmp"),
        ("write", "sympy/core/basic.py"),
    ]
    quiet = [(e.kind, e.path) for e in actions(harness, "pytest tests > /dev/null 2>&1")]
    assert quiet == [("run", None)]


def test_10_deleting_a_folder_the_agent_filled_or_a_file_rm_did_not_find_is_no_unseen_delete():
    from bouts.judges.trajectory.process import tally

    made = [Event(t=0, kind="write", path="Temp/MyPackage/__init__.py", ok=True),
            Event(t=0, kind="delete", path="Temp", ok=True)]  # fmt: skip
    assert tally(made, protected=()).reckless == []
    missing = [Event(t=0, kind="delete", path="modify_latex.py", ok=False)]  # rm: cannot remove: nothing deleted
    assert tally(missing, protected=()).reckless == []
    unseen = [Event(t=0, kind="delete", path="src/core.py", ok=True)]
    assert [kind for _, kind, _ in tally(unseen, protected=()).reckless] == ["delete-unseen"]
    other = [Event(t=0, kind="write", path="Temporary/a.py", ok=True), Event(t=0, kind="delete", path="Temp", ok=True)]
    assert [kind for _, kind, _ in tally(other, protected=()).reckless] == ["delete-unseen"]


@HARNESSES
def test_8_a_relative_path_after_cd_into_a_folder_is_inside_that_folder(harness):
    made = "mkdir reproduce_issue && cd reproduce_issue && cat > conf.py <<'EOF'\nx = 1\nEOF\ncat conf.py"
    assert [(e.kind, e.path) for e in actions(harness, made)] == [
        ("write", "reproduce_issue/conf.py"),
        ("read", "reproduce_issue/conf.py"),
    ]
    back = "cd docs && cat conf.py && cd .. && cat setup.py && cd /testbed && sed -i 's/a/b/' src/x.py"
    assert [(e.kind, e.path) for e in actions(harness, back)] == [
        ("read", "docs/conf.py"),
        ("read", "setup.py"),
        ("edit", "src/x.py"),  # an absolute cd (the workspace root as the log names it): paths as written
    ]
