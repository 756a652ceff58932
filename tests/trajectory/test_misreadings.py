"""Misreadings of real logs (issue 15, "Logs read right"), each pinned by the counts a reader of the raw
log gives. Each test names the misreading it stops."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bouts.errors import TrajectoryError
from bouts.judges.trajectory._common import failed, passed
from bouts.judging import read_trajectory
from bouts.trajectory import classify_command, command_events, load_trajectory, parse_trajectory
from bouts.trajectory._base import ToolResult


def _events(command: str, output: str, code: int | None):
    return command_events(0.0, command, ToolResult(output=output, exit_code=code), 1)


def test_a_heredoc_write_then_a_failing_script_is_a_write_and_a_failed_run_not_a_rejected_write():
    cmd = "cat > /testbed/repro.py <<'EOF'\nimport x\nEOF\npython /testbed/repro.py"
    write, run = _events(cmd, "Traceback (most recent call last):\nImportError", 1)
    assert (write.kind, write.path, write.ok) == ("write", "/testbed/repro.py", None)
    assert (run.kind, run.ok) == ("run", False)


def test_the_failure_belongs_to_the_last_segment_when_it_is_a_file_action():
    events = _events("python setup.py build; cat missing.txt", "cat: missing.txt: No such file", 1)
    assert [(e.kind, e.ok) for e in events] == [("run", None), ("read", False)]


def test_grep_exit_1_is_no_match_not_a_failed_search():
    (search,) = _events("grep -rn 'def foo' src/", "", 1)
    assert (search.kind, search.ok) == ("search", True)
    (search,) = _events("cd /repo && rg foo", "", 1)
    assert search.ok is True


def test_grep_exit_2_is_an_error():
    (search,) = _events("grep -rn foo nowhere/", "grep: nowhere/: No such file or directory", 2)
    assert search.ok is False


def test_a_pipe_into_grep_that_finds_nothing_fails_nothing():
    run, search = _events("python x.py | grep foo", "", 1)
    assert (run.ok, search.ok) == (None, True)
    assert not failed(run)


def test_pytest_piped_into_head_that_could_not_start_is_a_failed_command_not_a_red_test_run():
    # The hand-check of 30 real SWE-bench logs (benchmarks/data/trajectory_handcheck.md): a runner that
    # never started (no pytest, command not found, django's ImproperlyConfigured) ran no test; read as
    # a red run of 0 passed and 0 failed it was a failure of the code that a green run "resolved".
    (run,) = _events("cd /testbed && python -m pytest tests/ -q 2>&1 | head -20", "python: No module named pytest\n", 0)
    assert run.tests is None and run.ok is False
    assert failed(run) and not passed(run)
    settings = (
        "Traceback (most recent call last):\n  ...\ndjango.core.exceptions.ImproperlyConfigured: "
        "The SECRET_KEY setting must not be empty.\n"
    )
    (django,) = _events("python -m django test auth_tests --settings=x", settings, 1)
    assert django.tests is None and django.ok is False
    (red,) = _events("python -m pytest -q", "F.\n1 failed, 1 passed in 0.1s\n", 1)  # a real red run stays one
    assert red.tests is not None and (red.tests.passed, red.tests.failed) == (1, 1)


def test_a_runner_that_cannot_start_fails_whatever_the_exit_code():
    (run,) = _events("npx jest", "sh: 1: jest: not found", None)
    assert run.ok is False


def test_a_piped_test_run_is_judged_by_its_summary_not_by_the_pipe_status():
    (run,) = _events("pytest -q | tail -3", "1 failed, 3 passed in 0.2s", 0)
    assert run.ok is False and failed(run)
    (run,) = _events("pytest -q | tail -3", "4 passed in 0.2s", 0)
    assert run.ok is True and passed(run)
    crash = "Traceback (most recent call last):\n  ImproperlyConfigured"
    (run,) = _events("python -m django test x 2>&1 | tail", crash, 0)
    assert run.ok is False


def _claude(*records: dict) -> str:
    base = {"sessionId": "s", "parentUuid": None, "timestamp": "2025-10-01T00:00:00Z", "version": "2.0.26"}
    return "\n".join(json.dumps({**base, **r}) for r in records)


def _assistant(message_id: str, out: int, block: dict) -> dict:
    usage = {"input_tokens": 10, "cache_read_input_tokens": 100, "output_tokens": out}
    return {"type": "assistant", "message": {"id": message_id, "usage": usage, "content": [block]}}


def test_claude_code_2x_streamed_usage_counts_the_final_output_per_message_id_once():
    # 2.x writes a message's lines as it streams (output_tokens 1, then 1, then the final 412), and
    # another message's line may come between them: neither the first nor the sum is the count.
    text = _claude(
        _assistant("msg_A", 1, {"type": "text", "text": "Let me look."}),
        _assistant("msg_A", 1, {"type": "tool_use", "id": "tu1", "name": "Read", "input": {"file_path": "a.py"}}),
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "x"}]}},
        _assistant("msg_B", 7, {"type": "text", "text": "(sub-agent)"}),
        _assistant("msg_A", 412, {"type": "text", "text": "Done."}),
    )
    trajectory = parse_trajectory(text)
    assert trajectory.harness == "claude-code"
    assert trajectory.tokens == (110 + 110, 412 + 7)


def test_claude_code_keeps_the_largest_usage_of_contiguous_lines():
    text = _claude(
        _assistant("msg_A", 3, {"type": "text", "text": "a"}),
        _assistant("msg_A", 263, {"type": "text", "text": "b"}),
    )
    assert parse_trajectory(text).tokens == (110, 263)


def test_a_jsonl_log_cut_in_its_last_line_keeps_every_line_before_it_and_says_where(tmp_path):
    whole = _claude(
        {"type": "user", "message": {"content": "fix the bug"}},
        _assistant("msg_A", 5, {"type": "tool_use", "id": "tu1", "name": "Read", "input": {"file_path": "a.py"}}),
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "x"}]}},
        _assistant("msg_B", 9, {"type": "text", "text": "Now I edit a.py and run the tests."}),
    )
    cut = whole[: len(whole) - 40]  # the harness was killed while writing line 4
    for trajectory in (parse_trajectory(cut), load_trajectory(_write(tmp_path, cut))):
        assert trajectory.truncated_line == 4
        assert [e.kind for e in trajectory.events] == ["message", "read", "usage"]
    assert parse_trajectory(whole).truncated_line is None


def test_a_broken_line_followed_by_others_is_corruption_not_a_cut():
    lines = _claude({"type": "user", "message": {"content": "a"}}, {"type": "user", "message": {"content": "b"}})
    first, second = lines.split("\n")
    with pytest.raises(TrajectoryError, match="line 2"):
        parse_trajectory("\n".join([first, second[:20], second]))


def test_a_truncated_trajectory_is_flagged_on_the_scorecard(tmp_path):
    cut = _claude({"type": "user", "message": {"content": "a"}}, {"type": "user", "message": {"content": "b"}})[:-10]
    trajectory, flag = read_trajectory(_write(tmp_path, cut))
    assert trajectory is not None and trajectory.truncated_line == 2
    assert flag is not None and flag.code == "trajectory_truncated" and "last line (2)" in flag.message


def _write(tmp_path, text: str):
    path = tmp_path / "trajectory.jsonl"
    path.write_text(text)
    return path


AIDER = Path(__file__).parent / "fixtures" / "aider_creations.md"
"""Hand-made in the shape aider 0.86 writes (copied from public chat histories: "> F" then "> Create new
file? (Y)es/(N)o [Yes]: y" for the whole format, an empty SEARCH block for the diff format), plus the
older "Create new file? y", a `/test` run whose output aider quotes and an answer on a line of its own."""


def test_aider_file_creations_are_writes_not_edits_of_unread_files():
    events = parse_trajectory(AIDER.read_text()).events
    changes = [(e.source_line, e.kind, e.path) for e in events if e.kind in {"edit", "write"}]
    assert changes == [
        (22, "write", "lru_cache.py"),  # whole format: "> lru_cache.py / > Create new file? … y / > Applied"
        (36, "edit", "lru_cache.py"),  # the lint fix rewrites the file it made
        (42, "write", "tests/test_lru.py"),  # empty SEARCH block + "Create new file? y"
        (51, "edit", "lru_cache.py"),  # empty SEARCH on a file it already has: an append
    ]


def test_aider_usage_follows_the_reply_it_paid_for_in_log_order():
    events = parse_trajectory(AIDER.read_text()).events
    lines = [e.source_line or 0 for e in events]
    assert lines == sorted(lines)
    assert [(e.tokens_in, e.tokens_out) for e in events if e.kind == "usage"] == [(811, 377), (2100, 382), (1200, 50)]


def test_aider_an_answer_typed_at_a_prompt_is_the_users():
    events = parse_trajectory(AIDER.read_text()).events
    (answer,) = [e for e in events if e.kind == "message" and e.text == "n"]
    assert answer.role == "user"
    assert all(e.role == "user" for e in events if e.kind == "message" and e.source_line in {9, 38, 67})


def test_aider_test_runs_have_an_outcome_read_from_their_summary():
    runs = [e for e in parse_trajectory(AIDER.read_text()).events if e.kind == "run"]
    assert [(r.tests.passed, r.tests.failed, r.ok) for r in runs if r.tests] == [(1, 1, False), (2, 0, True)]


GEMINI = Path(__file__).parent / "fixtures" / "gemini_session.json"
"""Hand-made in the shape gemini-cli's ChatRecordingService writes (ConversationRecord: sessionId,
projectHash, startTime, lastUpdated, messages with toolCalls and tokens; the shell tool's output ends
with "Exit Code: N"); the .jsonl twin is the later append-only layout (header, "$set", re-appended
messages)."""


@pytest.mark.parametrize("name", ["gemini_session.json", "gemini_session.jsonl"])
def test_a_gemini_cli_session_is_the_eighth_harness_not_a_broken_claude_code_log(name):
    trajectory = parse_trajectory((GEMINI.parent / name).read_text(), source=name)
    assert trajectory.harness == "gemini-cli"
    actions = [(e.kind, e.path or e.query, e.ok) for e in trajectory.events if e.kind not in {"message", "usage"}]
    assert actions == [
        ("read", "/w/calc.py", True),
        ("search", "subtract", True),
        ("edit", "/w/calc.py", True),
        ("run", None, False),
        ("write", "/w/helpers.py", True),
        ("run", None, True),
    ]
    runs = [e for e in trajectory.events if e.kind == "run"]
    assert [(r.exit_code, r.tests.passed, r.tests.failed) for r in runs if r.tests] == [(1, 1, 1), (0, 2, 0)]
    # tokens_in = input (cached is part of it) + tool; tokens_out = output + thoughts, per message
    assert trajectory.tokens == (5200 + 5600 + 6100 + 6300, 200 + 60 + 100 + 20)


def test_an_unknown_json_document_is_refused_naming_the_harnesses_tried():
    with pytest.raises(TrajectoryError) as caught:
        parse_trajectory('{\n  "sessionId": "x",\n  "type": "user",\n  "events": []\n}\n', source="t.json")
    message = str(caught.value)
    assert "not a trajectory log of any known harness" in message
    assert "gemini-cli" in message and "claude-code" in message


def test_mini_swe_agent_heredoc_write_and_failing_script_in_one_call_is_no_rejected_write():
    # The shape of mini-swe-agent 2.x (as in the django-11099 sample): an assistant turn with
    # extra.actions, the tool message with extra.returncode / raw_output.
    command = "cat > /testbed/repro.py <<'EOF'\nfrom django.conf import settings\nEOF\npython /testbed/repro.py"
    doc = {
        "info": {"mini_version": "2.2.7"},
        "trajectory_format": "mini-swe-agent-1.1",
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {
                "role": "assistant",
                "content": "Reproduce first.",
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}],
                "extra": {"actions": [{"command": command, "tool_call_id": "c1"}]},
            },
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": "<returncode>1</returncode>\n<output>\nImproperlyConfigured\n</output>",
                "extra": {"returncode": 1, "raw_output": "Traceback (most recent call last):\nImproperlyConfigured\n"},
            },
        ],
    }
    events = parse_trajectory(json.dumps(doc)).events
    assert [(e.kind, e.path, e.ok) for e in events if e.kind != "message"] == [
        ("write", "/testbed/repro.py", None),
        ("run", None, False),
    ]


def test_show_says_where_a_cut_log_ends(tmp_path):
    from typer.testing import CliRunner

    from bouts.cli.main import app

    cut = _claude({"type": "user", "message": {"content": "a"}}, {"type": "user", "message": {"content": "b"}})[:-10]
    result = CliRunner().invoke(app, ["trajectory", "show", str(_write(tmp_path, cut))])
    assert result.exit_code == 0
    assert "log cut in its last line (2)" in result.output


SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trajectories"


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared real logs are not here")
def test_aider_a_notes_raw_continuation_line_is_aiders_not_the_models():
    # aider 0.5x wraps "> Tokens: 3.7k sent, 89 received." onto a raw "Cost: $0.01 message, …  " line:
    # it is aider's note, not part of the model's reply (and names no file for a later "Add files? y").
    log = SHARED / "aider" / "aider__chat-history__2024-08-21_11-16-05.md"
    events = load_trajectory(log).events
    assert not any("Cost: $" in (e.text or "") for e in events if e.kind == "message")
    assert [(e.kind, e.path) for e in events if e.kind in {"read", "edit"}] == [
        ("read", "tests/basic/test_editblock.py"),
        ("edit", "tests/basic/test_editblock.py"),
    ]


def test_a_jsonl_of_another_tool_with_session_ids_is_not_taken_for_claude_code():
    text = '{"sessionId": "s", "type": "user", "text": "hi"}\n{"sessionId": "s", "type": "assistant", "text": "yo"}\n'
    with pytest.raises(TrajectoryError, match="not a trajectory log of any known harness"):
        parse_trajectory(text)


def _jsonl_samples() -> list[Path]:
    """Every real JSONL log: the shared samples and the fixtures of other harness versions."""
    shared = sorted(SHARED.glob("*/*.jsonl")) if SHARED.is_dir() else []
    return shared + sorted((SHARED / "real-versions").glob("*/*.jsonl"))


@pytest.mark.parametrize("path", _jsonl_samples(), ids=lambda p: p.name[:40])
def test_every_real_jsonl_log_cut_in_its_last_line_keeps_the_lines_before_it(path, tmp_path):
    text = path.read_text().rstrip("\n")
    last = text.count("\n") + 1
    cut = _write(tmp_path, text[: text.rindex("\n") + 1 + 20])  # 20 characters into the last line
    whole, kept = load_trajectory(path), load_trajectory(cut)
    assert kept.truncated_line == last and whole.truncated_line is None
    assert kept.harness == whole.harness
    before_last = [e for e in whole.events if (e.source_line or 0) < last and e.kind not in {"usage"}]
    assert len([e for e in kept.events if e.kind != "usage"]) >= len(before_last) > 0


def test_gemini_cli_jsonl_a_message_repushed_as_its_tool_call_runs_counts_once_in_its_last_state():
    header = {"sessionId": "s", "projectHash": "h", "startTime": "2026-01-01T10:00:00Z", "kind": "main"}
    user = {"id": "u1", "timestamp": "2026-01-01T10:00:00Z", "type": "user", "content": [{"text": "list it"}]}
    tokens = {"input": 400, "output": 21, "cached": 120, "thoughts": 9, "tool": 0, "total": 430}
    g1 = {"id": "g1", "timestamp": "2026-01-01T10:00:01Z", "type": "gemini", "content": "", "tokens": tokens}
    call = {"id": "c1", "name": "run_shell_command", "args": {"command": "make build"}, "status": "executing"}
    done = {**call, "status": "success", "result": [{"functionResponse": {"response": {"output": "README.md\n"}}}]}
    later = {"id": "g2", "timestamp": "2026-01-01T10:00:03Z", "type": "gemini", "content": "Done."}
    records = [header, user, g1, {**g1, "toolCalls": [call]}, {"$set": {"lastUpdated": "x"}}, later]
    records.append({**g1, "toolCalls": [done]})  # a late re-push, after another message
    trajectory = parse_trajectory("\n".join(json.dumps(r) for r in records))
    assert trajectory.harness == "gemini-cli"
    assert [(e.kind, e.ok, e.source_line) for e in trajectory.events] == [
        ("message", None, 2),
        ("run", True, 3),
        ("usage", None, 3),
        ("message", None, 6),
    ]
    assert trajectory.tokens == (400, 30)


AIDER_01X = Path(__file__).parent / "fixtures" / "aider_0.1x_edit_blocks.md"
"""Hand-made in the shape aider 0.1x wrote (seen in public histories without a licence): the file named
inside the fence, ``<<<<<<< HEAD`` … ``>>>>>>> updated`` blocks, "Allow creation of new file F? n"
answered on the question's line, then "Skipping edits to F"."""


def test_aider_01x_edit_blocks_are_edits_of_the_file_named_in_the_fence_and_a_declined_creation_is_refused():
    events = parse_trajectory(AIDER_01X.read_text()).events
    changes = [(e.kind, e.path, e.ok) for e in events if e.kind in {"edit", "write"}]
    assert changes == [("edit", "Test1\\Junk.java", True), ("write", "Test1\\TextAdventure.java", False)]


def _codex(*payloads: dict) -> str:
    meta = {"type": "session_meta", "payload": {"id": "s", "cli_version": "0.104.0", "originator": "codex_cli_rs"}}
    lines = [meta] + [
        {"timestamp": f"2026-02-23T11:40:{i:02d}.000Z", "type": "response_item", "payload": p}
        for i, p in enumerate(payloads)
    ]
    return "\n".join(json.dumps(line) for line in lines)


def test_codex_05x_shell_command_and_unified_exec_calls_are_read_not_skipped():
    text = _codex(
        {
            "type": "function_call",
            "name": "shell_command",
            "call_id": "a",
            "arguments": json.dumps({"command": "sed -n '1,80p' src/app.py"}),
        },
        {
            "type": "function_call_output",
            "call_id": "a",
            "output": "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nimport os\n",
        },
        {
            "type": "function_call",
            "name": "exec_command",
            "call_id": "b",
            "arguments": json.dumps({"cmd": "pytest -q", "yield_time_ms": 1000}),
        },
        {
            "type": "function_call_output",
            "call_id": "b",
            "output": "Chunk ID: 1f\nWall time: 2.1 seconds\nProcess exited with code 1\nOriginal token count: 9\n"
            "Output:\n1 failed, 4 passed in 0.3s\n",
        },
        {
            "type": "function_call",
            "name": "exec_command",
            "call_id": "c",
            "arguments": json.dumps({"cmd": "npm run dev"}),
        },
        {
            "type": "function_call_output",
            "call_id": "c",
            "output": "Chunk ID: 2a\nWall time: 10.0 seconds\nProcess running with session ID 7\nOutput:\nready\n",
        },
    )
    events = parse_trajectory(text).events
    assert [(e.kind, e.path) for e in events if e.kind == "read"] == [("read", "src/app.py")]
    runs = [(e.command, e.exit_code, e.ok, e.tests.failed if e.tests else None) for e in events if e.kind == "run"]
    assert runs == [("pytest -q", 1, False, 1), ("npm run dev", None, None, None)]


def _codex_records(*records: tuple[str, dict]) -> str:
    meta = {"type": "session_meta", "payload": {"id": "s", "cli_version": "0.125.0", "originator": "codex-tui"}}
    lines = [meta] + [
        {"timestamp": f"2026-05-11T08:30:{i:02d}.000Z", "type": kind, "payload": p}
        for i, (kind, p) in enumerate(records)
    ]
    return "\n".join(json.dumps(line) for line in lines)


def _exec(call: str, cmd: str) -> tuple[str, dict]:
    args = json.dumps({"cmd": cmd, "workdir": "/w/shop", "yield_time_ms": 1000, "max_output_tokens": 12000})
    return "response_item", {"type": "function_call", "name": "exec_command", "call_id": call, "arguments": args}


def _poll(call: str, session: int, chars: str = "") -> tuple[str, dict]:
    args = json.dumps({"session_id": session, "chars": chars, "yield_time_ms": 1000})
    return "response_item", {"type": "function_call", "name": "write_stdin", "call_id": call, "arguments": args}


def _out(call: str, text: str) -> tuple[str, dict]:
    return "response_item", {"type": "function_call_output", "call_id": call, "output": text}


def _running(session: int, output: str = "") -> str:
    return f"Chunk ID: 0a\nWall time: 1.0 seconds\nProcess running with session ID {session}\nOutput:\n{output}"


def _exited(code: int, output: str) -> str:
    head = f"Chunk ID: 0b\nWall time: 0.0 seconds\nProcess exited with code {code}\nOriginal token count: 9\n"
    return f"{head}Output:\n{output}"


def _exec_end(call: str, code: int, output: str) -> tuple[str, dict]:
    return "event_msg", {"type": "exec_command_end", "call_id": call, "exit_code": code, "aggregated_output": output}


def test_codex_unified_exec_a_command_still_running_gets_the_status_its_session_ends_with():
    """Codex 0.12x (real: codemie-code's 0.125.0 rollout, REAL_VERSIONS.md): most `exec_command` outputs say
    "Process running with session ID N"; the exit code and the rest of the output come in the output of a
    later `write_stdin` poll of session N, and in an `exec_command_end` event that may come before or after
    it. Reading only the first output left every such command with no status and no test counts."""
    text = _codex_records(
        _exec("t1", "npx vitest --run tests/cart.test.ts"),  # ends through polls only (no event)
        _out("t1", _running(41, "RUN v4\n")),
        _poll("p1", 41),
        _out("p1", _running(41, " ❯ tests/cart.test.ts (6 tests | 1 failed)\n")),
        _poll("p2", 41, "\u0003"),  # keys sent to a closed stdin: refused, no status
        _out("p2", "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true"),
        _poll("p3", 41),
        _out("p3", _exited(1, "      Tests  1 failed | 5 passed (6)\n")),
        _exec("t2", "sed -n '1,40p' src/cart.ts"),  # exec_command_end comes between the output and the poll
        _out("t2", _running(42)),
        _exec_end("t2", 0, "export class Cart {}\n"),
        _poll("p4", 42),
        _out("p4", _exited(0, "export class Cart {}\n")),
        _exec("t3", "rg -n Cart src missing_dir"),  # exec_command_end before the first output
        _exec_end("t3", 2, "rg: missing_dir: No such file or directory (os error 2)\n"),
        _out("t3", _running(43)),
        _exec("t4", "npx vite dev"),  # never ends within the log
        _out("t4", _running(44, "ready in 300 ms\n")),
    )
    events = [e for e in parse_trajectory(text).events if e.kind != "message"]
    assert [(e.source_line, e.kind, e.exit_code, e.ok) for e in events] == [
        (2, "run", 1, False),
        (10, "read", None, True),
        (15, "search", None, False),
        (18, "run", None, None),
    ]
    tests, dev = events[0], events[3]
    assert tests.tests is not None and (tests.tests.passed, tests.tests.failed) == (5, 1)  # from the joined chunks
    assert tests.output is not None and "1 failed" in tests.output and "RUN v4" in tests.output
    assert dev.output is not None and "ready in 300 ms" in dev.output  # its output so far, no status


# Hand-made twins of the real logs of other harness versions (tests/trajectory/REAL_VERSIONS.md): the
# same record shapes with content of our own, so that every quirk those logs showed is tested on every
# checkout, whether or not the real files are in ../shared/data.

AIDER_086 = Path(__file__).parent / "fixtures" / "aider_0.86_per_file_questions.md"
"""aider 0.86's per-file questions ("> F" then "Add file to the chat? … [Yes]: a|y|n" on one line), the
"#### … [Yes]: all" line aider echoes as input when the answer was "all", and whole-format creations
confirmed one file at a time (one of them a file name with a space)."""


def test_aider_086_per_file_questions_answered_inline_read_only_the_files_said_yes_to():
    events = parse_trajectory(AIDER_086.read_text()).events
    reads = [e.path for e in events if e.kind == "read"]
    assert reads == [
        "app/settings/loader.py",  # "[Yes]: a"
        "app/settings/env_reader.py",  # named after the answer, then confirmed by the echoed "all"
        "app/settings/file_reader.py",
        "app/settings/defaults.toml",  # "[Yes]: y" right after an "n"
    ]  # AGENTS.md was answered n
    users = [e.text for e in events if e.kind == "message" and e.role == "user"]
    assert users == ["look at the settings loader and the two readers it uses", "write the notes down"]
    writes = [(e.kind, e.path, e.ok) for e in events if e.kind in {"edit", "write"}]
    assert writes == [("write", "notes/settings order.md", True), ("write", "docs/loader.md", True)]
    assert [(e.tokens_in, e.tokens_out) for e in events if e.kind == "usage"] == [(1100, 210), (3400, 512), (4000, 300)]
    lines = [e.source_line or 0 for e in events]
    assert lines == sorted(lines)


def _openhands(*events: dict) -> str:
    return json.dumps([{"id": i, "timestamp": f"2025-01-27T23:16:{i:02d}.000000", **e} for i, e in enumerate(events)])


def _oh_call(action: str, call: str, args: dict, response: str) -> dict:
    usage = {"prompt_tokens": 1000, "completion_tokens": 40}
    meta = {"function_name": "tool", "tool_call_id": call, "model_response": {"id": response, "usage": usage}}
    return {"source": "agent", "action": action, "args": args, "tool_call_metadata": meta}


def test_openhands_a_directory_view_is_a_search_and_a_still_running_server_is_no_failure():
    """OpenHands' editor `view` of a directory is recorded as a read action; its observation lists the
    tree. A command with exit code -1 ("no new output after 30 seconds": still running) has no status."""
    listing = "Here's the files and directories up to 2 levels deep in /workspace, excluding hidden items:\n"
    text = _openhands(
        {"source": "user", "action": "message", "args": {"content": "serve the folder"}},
        _oh_call("read", "c1", {"path": "/workspace", "command": "view"}, "r1"),
        {"source": "agent", "observation": "read", "cause": 1, "content": listing, "extras": {"path": "/workspace"}},
        _oh_call("read", "c2", {"path": "/workspace/app.py", "command": "view"}, "r2"),
        {"source": "agent", "observation": "read", "cause": 3, "content": "1\timport http\n", "extras": {}},
        _oh_call("run", "c3", {"command": "python3 -m http.server 8000"}, "r3"),
        {
            "source": "agent",
            "observation": "run",
            "cause": 5,
            "content": "Serving HTTP on 0.0.0.0 port 8000 ...\n[The command has no new output after 30 seconds.]",
            "extras": {"command": "python3 -m http.server 8000", "exit_code": -1},
        },
        _oh_call("run", "c4", {"command": "make build"}, "r4"),
        {"source": "agent", "observation": "run", "cause": 7, "content": "No such file", "extras": {"exit_code": 2}},
        {"source": "agent", "action": "finish", "args": {"final_thought": "Serving."}},
    )
    trajectory = parse_trajectory(text)
    assert trajectory.harness == "openhands"
    events = trajectory.events
    assert [e.query for e in events if e.kind == "search"] == ["/workspace"]
    assert [e.path for e in events if e.kind == "read"] == ["/workspace/app.py"]
    runs = [(e.command, e.exit_code, e.ok) for e in events if e.kind == "run"]
    assert runs == [("python3 -m http.server 8000", None, None), ("make build", 2, False)]
    assert sum(e.tokens_in or 0 for e in events if e.kind == "usage") == 4000


def test_swe_agent_chat_only_traj_is_read_from_its_history():
    """A SWE-agent 1.x demonstration may keep only `history` (no `trajectory` list): the assistant
    messages with message_type "action" carry the commands, the tool messages their output."""

    def act(action: str) -> list[dict]:
        return [
            {"role": "assistant", "content": "next", "thought": "next", "action": action, "message_type": "action"},
            {"role": "tool", "content": "(Open file: n/a)\nbash-$", "message_type": "observation"},
        ]

    history = [
        {"role": "system", "content": "SETTING: a command line", "message_type": "system_prompt"},
        {"role": "user", "content": "fix the parser", "message_type": "user"},
        *act('find_file "parser.py"'),
        *act("open src/parser.py"),
        *act("edit 'return x' 'return x + 1'"),
        *act("python -m pytest tests/test_parser.py"),
        *act("submit"),
    ]
    trajectory = parse_trajectory(json.dumps({"history": history}))
    assert trajectory.harness == "swe-agent"
    kinds = [(e.kind, e.path) for e in trajectory.events if e.kind in {"read", "edit"}]
    assert kinds == [("read", "src/parser.py"), ("edit", "src/parser.py")]
    assert [e.kind for e in trajectory.events if e.kind != "message"] == ["search", "read", "edit", "run", "submit"]


# OpenHands V1 (software-agent-sdk): hand-made twins of the real V1 logs in REAL_VERSIONS.md (a persisted
# conversation folder and a JSONL event stream), same record shapes, content of our own.


def _v1(i: int, kind: str, **fields) -> dict:
    return {"id": f"e{i}", "timestamp": f"2026-03-01T10:00:{i:02d}.000000", "kind": kind, **fields}


def _v1_action(i: int, call: str, action: dict, response: str, thought: str = "") -> dict:
    thoughts = [{"type": "text", "text": thought}] if thought else []
    tool = {"TerminalAction": "terminal", "FinishAction": "finish", "GrepAction": "grep"}.get(
        action["kind"], "file_editor"
    )
    return _v1(
        i,
        "ActionEvent",
        source="agent",
        thought=thoughts,
        action=action,
        tool_name=tool,
        tool_call_id=call,
        llm_response_id=response,
    )


def _v1_obs(i: int, call: str, action_id: str | None, observation: dict) -> dict:
    fields = {"source": "environment", "tool_call_id": call, "observation": observation}
    if action_id is not None:
        fields["action_id"] = action_id
    return _v1(i, "ObservationEvent", **fields)


def _v1_text(text: str) -> list[dict]:
    return [{"cache_prompt": False, "type": "text", "text": text}]


def _v1_conversation() -> list[dict]:
    listing = "Here's the files and directories up to 2 levels deep in /work/calc, excluding hidden items:\n"
    return [
        _v1(0, "SystemPromptEvent", source="agent", system_prompt={"type": "text", "text": "You are an agent."}),
        _v1(1, "MessageEvent", source="user", llm_message={"role": "user", "content": _v1_text("fix subtract")}),
        _v1_action(2, "c1", {"kind": "FileEditorAction", "command": "view", "path": "/work/calc"}, "r1", "Look first."),
        _v1_obs(3, "c1", "e2", {"kind": "FileEditorObservation", "content": _v1_text(listing), "is_error": False}),
        _v1_action(4, "c2", {"kind": "FileEditorAction", "command": "str_replace", "path": "/work/calc/ops.py"}, "r2"),
        _v1_obs(
            5,
            "c2",
            "e4",
            {"kind": "FileEditorObservation", "content": _v1_text("No replacement was performed."), "is_error": True},
        ),
        _v1_action(6, "c3", {"kind": "GrepAction", "pattern": "def subtract", "path": "/work/calc"}, "r3"),
        _v1_obs(7, "c3", "e6", {"kind": "GrepObservation", "content": _v1_text("ops.py:3"), "is_error": False}),
        _v1_action(
            8, "c4", {"kind": "TerminalAction", "command": "cd /work/calc && pytest -q", "is_input": False}, "r4"
        ),
        _v1_obs(
            9,
            "c4",
            "e8",
            {
                "kind": "TerminalObservation",
                "content": _v1_text("1 failed, 3 passed in 0.1s"),
                "is_error": False,
                "exit_code": 1,
                "metadata": {"exit_code": 1},
            },
        ),
        _v1_action(10, "c5", {"kind": "TerminalAction", "command": "ls /work/calc > files.txt"}, "r5"),
        _v1_obs(11, "c5", "e10", {"kind": "TerminalObservation", "content": _v1_text(""), "exit_code": 0}),
        _v1_action(12, "c6", {"kind": "FinishAction", "message": "Left one failing test."}, "r6"),
        _v1_obs(13, "c6", "e12", {"kind": "FinishObservation", "content": _v1_text("Left one failing test.")}),
    ]


_V1_STATE = {
    "id": "c0",
    "stats": {
        "usage_to_metrics": {
            "agent": {
                "token_usages": [
                    {"prompt_tokens": 1000 + 100 * n, "completion_tokens": 10 + n, "response_id": f"r{n}"}
                    for n in range(1, 7)
                ]
                + [{"prompt_tokens": 500, "completion_tokens": 5, "response_id": "r-condense"}]
            }
        }
    },
}


def _v1_checks(trajectory) -> None:
    assert trajectory.harness == "openhands"
    actions = [(e.kind, e.path or e.query, e.ok) for e in trajectory.events if e.kind not in {"message", "usage"}]
    assert actions == [
        ("search", "/work/calc", None),  # the editor's view of a directory lists it
        ("edit", "/work/calc/ops.py", False),  # refused: is_error
        ("search", "def subtract", None),
        ("run", None, False),
        ("search", "/work/calc", True),  # ls … > files.txt (exit 0) lists, and writes what it printed
        ("write", "files.txt", True),
        ("submit", None, None),
    ]
    (run,) = [e for e in trajectory.events if e.kind == "run"]
    assert (run.exit_code, run.tests.passed, run.tests.failed) == (1, 3, 1)
    texts = [(e.role, e.text) for e in trajectory.events if e.kind == "message"]
    assert texts == [("user", "fix subtract"), ("assistant", "Look first."), ("assistant", "Left one failing test.")]


def test_openhands_v1_conversation_folder_is_read_by_kind_with_its_per_response_tokens(tmp_path):
    folder = tmp_path / "c0"
    (folder / "events").mkdir(parents=True)
    for n, event in enumerate(_v1_conversation()):
        (folder / "events" / f"event-{n:05d}-{event['id']}.json").write_text(json.dumps(event))
    (folder / "events" / ".eventlog.lock").write_text("")
    (folder / "base_state.json").write_text(json.dumps(_V1_STATE))
    trajectory = load_trajectory(folder)
    _v1_checks(trajectory)
    # one usage per response, after its first event; the condenser's call (no event names it) at the end
    usage = [(e.source_line, e.tokens_in, e.tokens_out) for e in trajectory.events if e.kind == "usage"]
    assert usage[0] == (3, 1100, 11) and usage[-1] == (14, 500, 5)
    assert trajectory.tokens == (sum(1000 + 100 * n for n in range(1, 7)) + 500, sum(10 + n for n in range(1, 7)) + 5)


def test_openhands_v1_event_list_is_not_taken_for_a_v0_trajectory():
    # V1 actions also carry "source" and "action": the V0 list reader would find no action in them
    for text in (json.dumps(_v1_conversation()), json.dumps({"items": _v1_conversation(), "next_page_id": None})):
        _v1_checks(parse_trajectory(text))


def test_openhands_v1_a_folder_with_a_broken_event_file_names_that_file(tmp_path):
    (tmp_path / "events").mkdir()
    (tmp_path / "events" / "event-00000-a.json").write_text(json.dumps(_v1_conversation()[1]))
    (tmp_path / "events" / "event-00001-b.json").write_text('{"id": "b", "kind": "ActionEv')
    with pytest.raises(TrajectoryError, match="event-00001-b.json"):
        load_trajectory(tmp_path)
    with pytest.raises(TrajectoryError, match="event-"):
        load_trajectory(tmp_path / "events" / "..")  # same folder, reached another way
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(TrajectoryError, match="event-"):
        load_trajectory(empty)


def _v1_stats(i: int, agent: tuple[int, int], condenser: tuple[int, int]) -> dict:
    def metrics(p: int, c: int) -> dict:
        return {"accumulated_token_usage": {"prompt_tokens": p, "completion_tokens": c, "cache_read_tokens": p // 2}}

    value = {"usage_to_metrics": {"default": metrics(*agent), "condenser": metrics(*condenser)}}
    return _v1(i, "ConversationStateUpdateEvent", source="environment", key="stats", value=value)


def test_openhands_v1_stream_running_totals_refused_commands_and_orphan_results(tmp_path):
    """The JSONL stream keeps running token totals per LLM (agent, condenser) in state updates; the
    terminal refuses a multi-command script with is_error, exit_code null and metadata.exit_code -1;
    the start of a stream may hold a result whose action it does not have."""
    refused = {
        "kind": "TerminalObservation",
        "content": _v1_text("Cannot execute multiple commands at once."),
        "is_error": True,
        "exit_code": None,
        "metadata": {"exit_code": -1},
    }
    events = [
        _v1(0, "ConversationStateUpdateEvent", source="environment", key="execution_status", value="running"),
        _v1_stats(1, (400, 30), (0, 0)),
        _v1_obs(2, "gone", "e-before", refused),  # its action is not in this stream
        _v1_action(3, "c1", {"kind": "TerminalAction", "command": "X=1\necho $X"}, "r1"),
        _v1_obs(4, "c1", None, refused),  # matched by tool_call_id
        _v1_stats(5, (900, 50), (200, 20)),
        _v1_action(6, "c2", {"kind": "TerminalAction", "command": "make build"}, "r2"),
        _v1_obs(7, "c2", "e6", {"kind": "TerminalObservation", "content": _v1_text("Error 2"), "exit_code": 2}),
        _v1_stats(8, (1500, 80), (200, 20)),
    ]
    text = "\n".join(json.dumps(e) for e in events)
    trajectory = parse_trajectory(text)
    assert trajectory.harness == "openhands"
    runs = [(e.command, e.exit_code, e.ok) for e in trajectory.events if e.kind == "run"]
    assert runs == [("X=1\necho $X", None, False), ("make build", 2, False)]
    assert [(e.tokens_in, e.tokens_out) for e in trajectory.events if e.kind == "usage"] == [
        (400, 30),
        (700, 40),
        (600, 30),
    ]
    assert trajectory.tokens == (1700, 100)  # the last totals, agent + condenser
    cut = load_trajectory(_write(tmp_path, text[:-15]))  # killed while writing the last state update
    assert cut.truncated_line == len(events) and cut.tokens == (1100, 70)


def test_a_reader_or_searcher_whose_output_is_redirected_into_a_file_writes_that_file():
    # seen in the real V1 conversation: `pwd > tool_output.txt` was a bare run, and `head a > b` read '>'
    assert [(a.kind, a.path or a.query) for a in classify_command("pwd > out.txt")] == [("write", "out.txt")]
    assert [(a.kind, a.path) for a in classify_command("head -5 a.py > b.txt")] == [
        ("read", "a.py"),
        ("write", "b.txt"),
    ]
    assert [(a.kind, a.query) for a in classify_command("ls src 2>/dev/null")] == [("search", "src")]
    assert [(a.kind, a.path or a.query) for a in classify_command("grep -rn foo src >> hits.txt 2>&1")] == [
        ("search", "foo"),
        ("edit", "hits.txt"),
    ]
    # a program's output printed into a file writes it too (issue 38: `python gen.py > tests/expected.txt` changes
    # a test file); a `>` inside quotes is text (`python -c "print('a > b')"`)
    found = [(a.kind, a.path) for a in classify_command("python x.py > log.txt")]
    assert found == [("run", None), ("write", "log.txt")]
    assert [a.kind for a in classify_command("python -c \"print('a > _coord_matrix(x, y)')\"")] == ["run"]
    assert [(a.kind, a.path) for a in classify_command('echo x > "my file.txt"')] == [("write", "my file.txt")]


def _inspect_log(events: list[dict], attachments: dict[str, str]) -> str:
    header = {"version": 2, "status": "success", "eval": {"task": "fix", "model": "m"}}
    sample = {"id": 1, "epoch": 1, "messages": [], "events": events, "attachments": attachments}
    return json.dumps({**header, "samples": [sample]})


def _inspect_model(text: str, tokens: tuple[int, int]) -> dict:
    usage = {"input_tokens": tokens[0], "output_tokens": tokens[1], "total_tokens": sum(tokens)}
    message = {"role": "assistant", "content": text, "source": "generate"}
    return {
        "event": "model",
        "timestamp": "2024-11-05T13:32:17-05:00",
        "output": {"choices": [{"message": message}], "usage": usage},
    }


def test_inspect_scorer_model_calls_are_not_the_agents_and_attachment_texts_are_resolved():
    """As in the real inspect_ai 0.3.43 log: a model-graded scorer's call sits in a `step` of type scorer
    (later versions: a `span_begin`/`span_end` of type scorer), and long texts are attachment:// stand-ins."""
    events = [
        {"event": "step", "action": "begin", "type": "solver", "name": "generate"},
        _inspect_model("attachment://aaa", (100, 20)),
        {"event": "tool", "function": "bash", "arguments": {"cmd": "attachment://bbb"}, "result": "2 passed in 0.1s"},
        {"event": "step", "action": "end", "type": "solver", "name": "generate"},
        {"event": "step", "action": "begin", "type": "scorer", "name": "model_graded_fact"},
        _inspect_model("GRADE: C", (300, 60)),
        {"event": "step", "action": "end", "type": "scorer", "name": "model_graded_fact"},
        {"event": "span_begin", "id": "s9", "type": "scorer", "name": "model_graded_qa"},
        _inspect_model("GRADE: I", (400, 70)),
        {"event": "span_end", "id": "s9"},
        _inspect_model("Done.", (150, 5)),
    ]
    trajectory = parse_trajectory(_inspect_log(events, {"aaa": "I will run the tests.", "bbb": "pytest -q"}))
    assert [e.text for e in trajectory.events if e.kind == "message"] == ["I will run the tests.", "Done."]
    (run,) = [e for e in trajectory.events if e.kind == "run"]
    assert (run.command, run.tests.passed) == ("pytest -q", 2)
    assert trajectory.tokens == (250, 25)


def test_mini_swe_agent_1x_text_actions_and_user_role_observations_are_read():
    """mini-swe-agent 1.x (real: 1.15.0, REAL_VERSIONS.md): the command is the ```bash block of the assistant's
    text, the observation a *user* message `<returncode>N</returncode><output>…`, usage in
    extra.response.usage; a format-error reply from the harness is no observation."""

    def reply(text: str, tokens: tuple[int, int]) -> dict:
        usage = {"prompt_tokens": tokens[0], "completion_tokens": tokens[1], "total_tokens": sum(tokens)}
        return {"role": "assistant", "content": text, "extra": {"response": {"id": "r", "usage": usage}}}

    def observation(code: int, output: str) -> dict:
        return {"role": "user", "content": f"<returncode>{code}</returncode>\n<output>\n{output}</output>"}

    doc = {
        "info": {
            "exit_status": "Submitted",
            "model_stats": {"instance_cost": 0.1, "api_calls": 3},
            "mini_version": "1.15.0",
        },
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "<pr_description>fix subtract</pr_description>"},
            reply("THOUGHT: look.\n\n```bash\nsed -n '1,40p' calc/ops.py\n```", (1000, 50)),
            observation(0, "def sub(a, b):\n    return a + b\n"),
            reply(
                "THOUGHT: fix.\n\n```bash\nsed -i 's/a + b/a - b/' calc/ops.py && python -m pytest -q tests\n```",
                (1200, 60),
            ),
            observation(1, "1 failed, 5 passed in 0.2s\n"),
            {
                "role": "user",
                "content": "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
            },
            reply("THOUGHT: done.\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\n```", (1300, 20)),
        ],
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": "calc-1",
    }
    trajectory = parse_trajectory(json.dumps(doc))
    assert trajectory.harness == "mini-swe-agent"
    actions = [(e.kind, e.path, e.ok) for e in trajectory.events if e.kind not in {"message", "usage"}]
    assert actions == [
        ("read", "calc/ops.py", True),
        ("edit", "calc/ops.py", None),
        ("run", None, False),
        ("submit", None, None),
    ]
    (run,) = [e for e in trajectory.events if e.kind == "run"]
    assert (run.exit_code, run.tests.passed, run.tests.failed) == (1, 5, 1)
    assert trajectory.tokens == (3500, 130)


def test_mini_swe_agent_1x_runs_the_one_bash_block_not_quoted_code_and_nothing_when_a_reply_has_several():
    """mini-swe-agent 1.15 (real: gemini-3-pro runs, REAL_VERSIONS.md): replies quote code in ```python (or
    untagged) blocks before the ```bash action. Reading any fence as a command took the text between the
    quote's closing fence and the bash block's opening one for the command (the final submit was lost); a
    reply with two bash blocks is refused by the harness ("EXACTLY ONE action"), so nothing ran."""

    def reply(text: str) -> dict:
        usage = {"prompt_tokens": 100, "completion_tokens": 10}
        return {"role": "assistant", "content": text, "extra": {"response": {"usage": usage}}}

    def observation(code: int, output: str) -> dict:
        return {"role": "user", "content": f"<returncode>{code}</returncode>\n<output>\n{output}</output>"}

    quote = "THOUGHT: the fix is\n\n```python\n    total = sum(prices)\n```\n\nApplying it.\n\n"
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "<pr_description>fix the total</pr_description>"},
        reply(quote + "```bash\nsed -i 's/total = 0/total = sum(prices)/' shop/cart.py\n```"),
        observation(0, ""),
        reply("THOUGHT: the doc says\n\n```\n>>> total([1, 2])\n3\n```\n\n```bash\ncat docs/cart.rst\n```"),
        observation(0, "Cart\n====\n"),
        reply("THOUGHT: two at once.\n\n```bash\nrm shop/old.py\n```\n\n```bash\npytest -q\n```"),
        {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 2 actions."},
        reply(quote + "```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached\n```"),
        {"role": "user", "content": "diff --git a/shop/cart.py b/shop/cart.py\n"},
    ]
    doc = {"info": {"mini_version": "1.15.0", "exit_status": "Submitted"}, "messages": messages}
    trajectory = parse_trajectory(json.dumps({**doc, "trajectory_format": "mini-swe-agent-1"}))
    actions = [(e.kind, e.path) for e in trajectory.events if e.kind not in {"message", "usage"}]
    assert actions == [("edit", "shop/cart.py"), ("read", "docs/cart.rst"), ("submit", None)]
    texts = [e.text or "" for e in trajectory.events if e.kind == "message"]
    assert "total = sum(prices)" in texts[0] and "sed -i" not in texts[0]  # the quote is text, the action is not


def test_openhands_v1_evaluation_output_history_is_read_as_v1_events_with_its_token_usages():
    """An evaluation output.jsonl whose history holds V1 (kind-typed) events: the V0 reader would find no
    action in them; its metrics.token_usages count once, running totals in the history do not add."""
    history = [*_v1_conversation(), _v1_stats(20, (99999, 999), (0, 0))]
    usages = [{"prompt_tokens": 700, "completion_tokens": 7, "response_id": f"r{n}"} for n in range(1, 7)]
    record = {"instance_id": "calc-1", "history": history, "metrics": {"token_usages": usages}, "test_result": {}}
    trajectory = parse_trajectory(json.dumps(record) + "\n")
    _v1_checks(trajectory)
    assert trajectory.tokens == (4200, 42)
    assert {e.source_line for e in trajectory.events} == {1}
