"""Real logs of other harness versions (../shared/data/trajectories/real-versions; provenance, licences
and checksums in REAL_VERSIONS.md beside this file), each pinned by the counts a reader of the raw log
gives, and the issue-15 misreadings checked on them (a cut last line: test_misreadings.py runs over
these JSONL logs too).

How each pin was established (by reading the raw file with a separate script or by eye, never by
copying the converter's output):
- aider 0.86.2 (one session): every "> F" line followed by "Add file to the chat? … [Yes]: a|y" (12;
  CLAUDE.md answered n is not read), the three "Create new file? … y" + "Applied edit to F" (whole edit
  format: writes, one of them a file name with spaces), Σ "> Tokens:" sent / received.
- Gemini CLI: every toolCalls[] entry by name (read_file → read, replace → edit, write_file → write,
  list_directory/search_file_content → search, write_todos/delegate_to_agent → nothing); tokens = Σ
  over gemini messages of input + tool / output + thoughts (their `total` checks it).
- Claude Code 2.0.64 / 2.1.4: tool_use blocks by name with their tool_result (2.1.4's one Write was
  refused by the user: is_error); tokens = per message.id the largest input + cache_creation +
  cache_read and output_tokens, summed.
- OpenHands: actions with their observations (a str_replace_editor view of /workspace lists the
  directory: a search); tokens = usage of each distinct model_response.id.
- Inspect AI 0.3.43: the one `model` event of the `generate` solver step (usage 53 in / 46 out); the
  second `model` event sits in the `model_graded_fact` scorer step (the grader's call, not the agent's).
- OpenHands V1: ActionEvents by action kind, read in the event files with jq-like one-liners (the
  folder: one TerminalAction `pwd > tool_output.txt`, a write, and a FinishAction; the stream: two
  TerminalActions, one refused with is_error, one exit 1); tokens = Σ base_state token_usages (3778 +
  3869 + 3936 / 36 + 32 + 26) for the folder, the last `stats` totals (107458 / 1347, condenser 0) for
  the stream.
- SWE-agent: each step's action (history messages with message_type "action" for the chat-only
  demonstration); the cursors replay's first edit is refused by the linter.
- mini-swe-agent 2.3.0: the 64 assistant commands classified by hand (12 reads: cat/sed -n, one
  sed -i, 17 grep/find searches, 36 other commands, the final echo submits); tokens = Σ
  extra.response.usage.
- Codex CLI 0.125.0: the 43 `exec_command` calls by their `cmd` (19 files read by sed -n/cat/nl, 20
  rg/find searches counted per pipeline segment as the classifier does, 11 runs: git status/diff ×5,
  strings ×2, npm test ×3, npm run build), 3 `apply_patch` custom tool calls (Update File, each
  "Success"), `write_stdin` polls are no actions; exit codes from each command's
  `exec_command_end` (39 × 0, rg 2, rg 1 ×2, npm test 1); test counts from the vitest summaries
  ("1 failed | 15 skipped", "1 passed | 15 skipped", "16 passed"); tokens = the last
  total_token_usage (6055836 / 9118).
- mini-swe-agent 1.15.0 (gemini-3-pro, text actions): each reply's one ```bash block, read with
  mini-swe-agent's own rule (exactly one per reply; replies with 2–3 were refused, nothing ran) and the
  next message's <returncode>; django-10097: 22 commands (reads nl|sed -n / sed -n ×4, sed -i ×4 and two
  heredoc writes, ls|grep, grep ×3 and ls searches, python3 ×5 runs incl. runtests.py "Ran 365 tests … OK",
  one rm), matplotlib-13989: 30 (nl file|sed -n|grep reads ×5, heredoc writes ×3, sed -i and >> edits,
  rm of three files, pytest ×4: timed out (no counts), 20 failed/27 passed, 1 failed, 1 passed); tokens = Σ
  extra.response.usage.
- Codex Desktop 0.128.0-alpha.1: the 35 `exec_command` calls (29 sed -n/cat reads and `wc -l` of a
  file, a read of it (issue 38: a pipe filter with a file operand reads it), rg ×4 and `rg --files | rg`
  searches, ps ×2 runs); the three `js` browser calls are no file actions; the
  file has no token_count records.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from bouts.trajectory import load_trajectory, parse_trajectory, summarize

# Logs brought from public repositories live beside the shared samples, never in this repository (fetched
# data files are kept only under the steering repo's shared/). A checkout whose shared/ lacks them skips
# this module; the hand-made twins in test_misreadings.py test the same shapes everywhere.
REAL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trajectories" / "real-versions"
MANIFEST = Path(__file__).with_name("REAL_VERSIONS.md")

pytestmark = pytest.mark.skipif(
    not REAL.is_dir(),
    reason=f"{REAL} is not in this shared/ (the logs and their sources are listed in {MANIFEST.name})",
)

# path: (harness, reads, edits+writes, rejected, searches, runs, test runs, tokens in, tokens out)
PINNED: dict[str, tuple[str, int, int, int, int, int, list[tuple[int, int]], int, int]] = {
    "aider/mozgoslav__aider-0.86.2__2026-04-22_23-13-03.md": ("aider", 12, 3, 0, 0, 0, [], 57800, 13997),
    "gemini-cli/codemie-code__session-2025-12-01T21-45-5b959dae.json": ("gemini-cli", 7, 2, 0, 1, 0, [], 101630, 4227),
    "gemini-cli/codemie-code__session-2026-01-16T11-01-file-ops-37b7abef.json": (
        "gemini-cli",
        6,
        3,
        0,
        1,
        0,
        [],
        87418,
        4355,
    ),
    "claude-code/codemie-code__4c2ddfdc.claude-code-2.0.64.jsonl": ("claude-code", 1, 4, 0, 0, 0, [], 251832, 806),
    "claude-code/codemie-code__session-9eda1058.claude-code-2.1.4.jsonl": (
        "claude-code",
        0,
        1,
        1,
        0,
        0,
        [],
        170226,
        4509,
    ),
    "openhands/openhands__tests_runtime_trajs__wrong_initial_state.json": ("openhands", 0, 1, 0, 2, 0, [], 14828, 358),
    "openhands/openhands__tests_runtime_trajs__basic_gui_mode.json": ("openhands", 0, 2, 0, 0, 2, [], 17297, 2024),
    "inspect-ai/inspect_ai__tests_list_logs__2024-11-05_input-task.json": ("inspect-ai", 0, 0, 0, 0, 0, [], 53, 46),
    "openhands/software-agent-sdk__pr1916__cd945624.v1-conversation": ("openhands", 0, 1, 0, 0, 0, [], 11583, 94),
    "openhands/software-agent-sdk__goal-fixture-events.v1.jsonl": ("openhands", 0, 0, 0, 0, 2, [], 107458, 1347),
    "swe-agent/swe-agent__replay_marshmallow-1867__cursors_window100.traj": ("swe-agent", 2, 4, 1, 2, 2, [], 0, 0),
    "swe-agent/swe-agent__function_calling_simple.history-only.traj": ("swe-agent", 1, 1, 0, 1, 1, [], 0, 0),
    "codex-cli/codemie-code__rollout-2026-05-11T11-26-55-019e1625.codex-0.125.0.jsonl": (
        "codex-cli",
        19,
        3,
        0,
        20,
        11,
        [(0, 1), (1, 0), (16, 0)],
        6055836,
        9118,
    ),
    "codex-cli/codemie-code__rollout-2026-05-11T13-28-45-019e1695.codex-desktop-0.128.0-alpha.1.jsonl": (
        "codex-cli",
        30,
        0,
        0,
        6,
        2,
        [],
        0,
        0,
    ),
    "mini-swe-agent/gruckion-mini-swe-agent__django__django-10097.mini-1.15.0.gemini-3-pro.traj.json": (
        "mini-swe-agent",
        4,
        6,
        0,
        6,
        5,
        [(365, 0)],
        201441,
        7816,
    ),
    "mini-swe-agent/gruckion-mini-swe-agent__matplotlib__matplotlib-13989.mini-1.15.0.gemini-3-pro.traj.json": (
        "mini-swe-agent",
        5,
        5,
        0,
        9,
        11,
        [(27, 20), (0, 1), (1, 0)],
        367391,
        5493,
    ),
    "mini-swe-agent/mini-swe-agent__astropy__astropy-12907.deepseek.traj.json": (
        # the second change: `git diff … > patch.txt` writes patch.txt (a program's output printed into a file)
        "mini-swe-agent",
        12,
        2,
        0,
        17,
        36,
        [],
        1111619,
        17133,
    ),
}


def test_every_real_fixture_is_pinned_and_matches_the_checksum_in_the_manifest() -> None:
    # a pinned folder (an OpenHands V1 conversation: one event per file) is checked file by file
    folders = {name for name in PINNED if (REAL / name).is_dir()}
    files = {p.relative_to(REAL).as_posix() for p in REAL.rglob("*") if p.is_file()} - {"SOURCES.md"}
    assert {f for f in files if not any(f.startswith(d + "/") for d in folders)} == set(PINNED) - folders
    sources = MANIFEST.read_text()
    for name in files:
        digest = hashlib.sha256((REAL / name).read_bytes()).hexdigest()
        assert re.search(rf"^{digest}  {re.escape(name)}$", sources, re.M), name
    for folder in folders:
        assert any(f.startswith(folder + "/") for f in files), folder


@pytest.mark.parametrize("name", sorted(PINNED))
def test_real_log_converts_with_the_counts_a_reader_gives(name: str) -> None:
    harness, reads, edits, rejected, searches, runs, tests, tokens_in, tokens_out = PINNED[name]
    summary = summarize(load_trajectory(REAL / name))
    assert summary.harness == harness
    assert (summary.reads, summary.edits, summary.failed_edits) == (reads, edits, rejected)
    assert (summary.by_kind["search"], summary.by_kind["run"]) == (searches, runs)
    assert [(r.passed, r.failed) for r in summary.test_runs] == tests
    assert (summary.tokens_in, summary.tokens_out) == (tokens_in, tokens_out)


def _events(name: str):
    return load_trajectory(REAL / name).events


def test_aider_086_per_file_questions_answered_inline_read_only_the_files_said_yes_to():
    events = _events("aider/mozgoslav__aider-0.86.2__2026-04-22_23-13-03.md")
    reads = [e.path for e in events if e.kind == "read"]
    assert "CLAUDE.md" not in reads  # "[Yes]: n"
    assert reads[-1] == "backend/src/Mozgoslav.Api/appsettings.json"  # "[Yes]: y" right after the n
    assert not any("Add file to the chat" in (p or "") for p in reads)
    # whole edit format: three created files (one named with spaces), no edits of unread files
    writes = [(e.kind, e.path, e.ok) for e in events if e.kind in {"edit", "write"}]
    assert writes == [
        ("write", "Topology", True),
        ("write", "-> Swift binary отправляет CGEvent/AX в ОС", True),
        ("write", "./analyzer-report-dictation-hotkey.md", True),
    ]
    lines = [e.source_line or 0 for e in events]
    assert lines == sorted(lines)  # usage stays after the reply it paid for


def test_openhands_a_directory_view_is_a_search_and_a_still_running_server_is_no_failure():
    events = _events("openhands/openhands__tests_runtime_trajs__wrong_initial_state.json")
    assert [e.query for e in events if e.kind == "search"] == ["/workspace", "/workspace"]
    assert not any(e.kind == "read" for e in events)
    events = _events("openhands/openhands__tests_runtime_trajs__basic_gui_mode.json")
    server = [e for e in events if e.kind == "run" and "http.server" in (e.command or "")]
    assert [(e.exit_code, e.ok) for e in server] == [(None, None)]  # exit_code -1: no exit status


def test_swe_agent_chat_only_traj_is_read_from_its_history():
    events = _events("swe-agent/swe-agent__function_calling_simple.history-only.traj")
    assert [e.kind for e in events if e.kind != "message"] == ["search", "read", "edit", "run", "submit"]


def test_gemini_cli_sessions_are_not_taken_for_claude_code():
    for name in PINNED:
        if name.startswith("gemini-cli/"):
            assert parse_trajectory((REAL / name).read_bytes(), source=name).harness == "gemini-cli"


def test_claude_code_2x_output_tokens_are_the_final_per_message_not_the_streamed_partials():
    events = _events("claude-code/codemie-code__4c2ddfdc.claude-code-2.0.64.jsonl")
    usage = [e for e in events if e.kind == "usage"]
    assert len(usage) == 7  # 10 assistant lines, 7 distinct message ids
    assert sum(e.tokens_out or 0 for e in usage) == 806


def test_openhands_v1_folder_and_stream_read_by_kind():
    folder = load_trajectory(REAL / "openhands/software-agent-sdk__pr1916__cd945624.v1-conversation")
    assert [(e.kind, e.path) for e in folder.events if e.kind not in {"message", "usage"}] == [
        ("write", "tool_output.txt"),  # `pwd > tool_output.txt`
        ("submit", None),
    ]
    assert [(e.tokens_in, e.tokens_out) for e in folder.events if e.kind == "usage"] == [
        (3778, 36),
        (3869, 32),
        (3936, 26),
    ]
    stream = _events("openhands/software-agent-sdk__goal-fixture-events.v1.jsonl")
    # the refused multi-line script (is_error, exit_code null / -1) fails; the result on line 7 has no action here
    assert [(e.source_line, e.exit_code, e.ok) for e in stream if e.kind == "run"] == [(4, None, False), (9, 1, False)]


def test_inspect_043_scorer_calls_are_not_the_agents_and_attachments_are_resolved():
    events = _events("inspect-ai/inspect_ai__tests_list_logs__2024-11-05_input-task.json")
    (message,) = [e for e in events if e.kind == "message"]
    assert message.text is not None and message.text.startswith("Yo, in February, St. Paul")  # was attachment://…
    assert [(e.tokens_in, e.tokens_out) for e in events if e.kind == "usage"] == [(53, 46)]  # not the grader's 221/143


def test_codex_0125_unified_exec_commands_get_the_status_their_session_ends_with():
    """Most commands of this rollout say "Process running with session ID N" in their first output; the
    status comes in a later write_stdin poll and in exec_command_end. Read by hand from those records."""
    events = _events("codex-cli/codemie-code__rollout-2026-05-11T11-26-55-019e1625.codex-0.125.0.jsonl")
    commands = [e for e in events if e.kind in {"read", "search", "run"}]
    statuses = {(e.source_line, e.exit_code) for e in events if e.kind == "run"}
    assert (263, 1) in statuses and (296, 0) in statuses  # npm test failing, then passing
    assert all(e.exit_code is not None for e in events if e.kind == "run")  # every one of them ended
    failed = [(e.source_line, e.kind) for e in commands if e.ok is False]
    assert failed == [(131, "search"), (263, "run")]  # rg on two missing paths (exit 2); the failing test run
    assert len({e.source_line for e in commands}) == 43  # one line per exec_command; no write_stdin poll counted
    assert [(e.kind, e.path) for e in events if e.kind == "edit"] == [
        ("edit", "src/agents/plugins/__tests__/codemie-code-reasoning.test.ts"),
        ("edit", "src/agents/plugins/codemie-code.plugin.ts"),
        ("edit", "src/agents/plugins/opencode/opencode.plugin.ts"),
    ]


def test_codex_desktop_0128_inline_exit_codes_and_no_token_records():
    events = _events("codex-cli/codemie-code__rollout-2026-05-11T13-28-45-019e1695.codex-desktop-0.128.0-alpha.1.jsonl")
    # `ps -ef | rg …` refused by the sandbox ("operation not permitted: ps", exit 1), then rerun escalated
    assert [(e.source_line, e.exit_code) for e in events if e.kind == "run" and "ps -ef" in (e.command or "")] == [
        (46, 1),
        (49, 0),
    ]
    assert not any(e.kind == "usage" for e in events)


def test_mini_swe_agent_115_quoted_code_is_no_command_and_refused_replies_ran_nothing():
    django = _events("mini-swe-agent/gruckion-mini-swe-agent__django__django-10097.mini-1.15.0.gemini-3-pro.traj.json")
    acted = sorted({e.source_line for e in django if e.kind not in {"message", "usage"}})
    assert len(acted) == 22 and not {19, 27, 29, 35} & set(acted)  # the four "EXACTLY ONE action" refusals
    assert [(e.kind, e.path) for e in django if e.source_line == 9 and e.kind != "message"][0] == (
        "write",
        "reproduce_issue.py",
    )  # a ```python quote comes first in that reply
    matplotlib = _events(
        "mini-swe-agent/gruckion-mini-swe-agent__matplotlib__matplotlib-13989.mini-1.15.0.gemini-3-pro.traj.json"
    )
    assert [e.source_line for e in matplotlib if e.kind == "submit"] == [61]  # after a ```python quote
    timed_out = [e for e in matplotlib if e.kind == "run" and e.source_line == 39]
    # "timed out and has been killed": a failed run with no exit status (issue 38, item 7)
    assert [(e.exit_code, e.ok) for e in timed_out] == [(None, False)]
