"""Misreadings measured on 500 real mini-swe-agent runs on SWE-bench Verified (issue 38), each fixed as a
class and pinned by hand-made twins: the same command and output in the log shape of every harness the
class can occur in (any harness whose agent acts through a shell)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from bouts.judges.trajectory._common import failed, on_task_path
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
    assert run.tests is not None and failed(run)


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
