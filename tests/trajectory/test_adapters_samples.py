"""Every real sample log in ../shared/data/trajectories loads, with counts pinned by hand.

How each pin was verified (by reading the file itself, not the adapter's output):
- SWE-agent: printed every trajectory step's action/observation; one event per step (find_file →
  search, open → read, edit/insert → edit, create → write, rm → delete, python → run), tokens from
  info.model_stats.tokens_sent/received. marshmallow: its first `edit` is rejected by the linter
  ("introduced new syntax error") → 1 rejected edit; it is a replay so its stats are 0.
- mini-swe-agent: listed every assistant command; tokens = Σ extra.response.usage.prompt_tokens /
  completion_tokens over the 42 calls (483208 / 7397); v0 has no usage.
- Claude Code: counted tool_use blocks per name and de-duplicated usage by message.id with a separate
  script (input = input + cache_creation + cache_read tokens, output = max per message).
- Codex: counted `shell` function calls (34 / 81; compound commands give several events); tokens
  = the LAST token_count.total_token_usage (the deltas must sum to it). exec: turn.completed usage.
- OpenHands: 1 str_replace_editor create; usage of the 2 distinct model responses (3486+4646 /
  1135+177).
- Aider: grep for `<<<<<<< SEARCH` at line start, `> Added … to the chat`, `/run`, `/test`,
  `Run shell command? y` and `> Tokens:` lines (08-06: Σ sent = 110478). SOURCES.md says the 08-21
  session has "9 edit blocks, 1 applied": 8 of those 9 SEARCH markers are inside quoted pytest output
  (a test about edit blocks), so it has ONE real edit block, applied.
- Inspect: model events' usage (browser: 15235 / 281 = header model_usage); the dedup log's model
  is scripted and reports no usage.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.errors import TrajectoryError
from bouts.trajectory import load_trajectory, summarize

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trajectories"

# path: (harness, reads, edits+writes, rejected edits, test runs [(passed, failed)], tokens in, tokens out)
PINNED: dict[str, tuple[str, int, int, int, list[tuple[int, int]], int, int]] = {
    "swe-agent/swe-agent__test-repo-i1.gpt4.traj": ("swe-agent", 1, 1, 0, [], 52861, 326),
    "swe-agent/6e44b9__sweagenttestrepo-1c2844.gpt4.traj": ("swe-agent", 1, 1, 0, [], 7141, 243),
    "swe-agent/marshmallow-code__marshmallow-1867.function_calling_replace.traj": ("swe-agent", 1, 4, 1, [], 0, 0),
    "mini-swe-agent/django__django-11099.deepseek-chat.traj.json": (
        # three test commands, none reached a test: `python -m pytest` (no pytest installed, exit 1) and
        # twice `python -m django test` (ImproperlyConfigured; the second exits 0 through `| tail`):
        # failed commands, no test run; then the agent's own `python run_existing_tests.py`, which ran
        # unittest ("Ran 2 tests … OK"): a test run of 2 passed (issue 38: a script that calls a runner);
        # `git diff … > patch.txt` writes patch.txt (a program's output printed into a file)
        "mini-swe-agent",
        5,
        9,
        0,
        [(2, 0)],
        483208,
        7397,
    ),
    "mini-swe-agent/github_issue.v0-format.traj.json": ("mini-swe-agent", 3, 2, 0, [], 0, 0),
    "claude-code/claude-reliability__coverage-test-fix.transcript.jsonl": (
        "claude-code",
        3,
        3,
        0,
        [(2, 0)],
        294215,
        158,
    ),
    "claude-code/claude-reliability__hello-world-script.transcript.jsonl": ("claude-code", 0, 1, 0, [], 74578, 29),
    "claude-code/claude-reliability__python-to-rust-port.transcript.jsonl": (
        "claude-code",
        3,
        8,
        0,
        [(34, 0), (29, 0), (29, 0), (29, 0)],
        1137066,
        563,
    ),
    "claude-code/claude-reliability__stop-hook-reflection-first-stop.transcript.jsonl": (
        "claude-code",
        1,
        1,
        0,
        [],
        113818,
        55,
    ),
    "claude-code/agentcmd__full-session-two.jsonl": ("claude-code", 3, 2, 0, [], 371011, 107),
    "claude-code/claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl": (
        "claude-code",
        3,
        2,
        1,
        [],
        372135,
        3629,
    ),
    "codex-cli/agentcmd__exec-json__stream-output-4.jsonl": ("codex-cli", 1, 0, 0, [], 6087, 204),
    "codex-cli/agentcmd__exec-json__stream-output-5.jsonl": ("codex-cli", 0, 0, 0, [], 6086, 223),
    "codex-cli/agentcmd__rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl": (
        "codex-cli",
        58,
        0,
        0,
        [],
        3165637,
        12340,
    ),
    "codex-cli/agentcmd__rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl": (
        "codex-cli",
        26,
        0,
        0,
        [],
        536834,
        6654,
    ),
    "openhands/openhands__tests_runtime_trajs__basic.json": ("openhands", 0, 1, 0, [], 8132, 1312),
    "openhands/openhands__tests_runtime_trajs__basic_interactions.json": ("openhands", 0, 0, 0, [], 2473, 10),
    "aider/aider__chat-history__2024-08-06_08-47-10.md": ("aider", 6, 12, 0, [(6, 1), (6, 1)], 110478, 4432),
    "aider/aider__chat-history__2024-08-14_09-50-32.md": ("aider", 3, 10, 0, [(0, 1), (0, 1), (0, 1)], 83945, 4747),
    "aider/aider__chat-history__2024-08-21_11-16-05.md": (
        # two `/run pytest` (1 failed, 17 passed) and the suggested `pytest` accepted with no output logged
        # (a test command whose counts the log does not give: none, not "0 passed, 0 failed")
        "aider",
        1,
        1,
        0,
        [(17, 1), (17, 1)],
        13100,
        436,
    ),
    "inspect-ai/inspect_ai__tests_analysis__2025-05-12T20-27-36-04-00_browser.json": (
        "inspect-ai",
        0,
        0,
        0,
        [],
        15235,
        281,
    ),
    "inspect-ai/inspect_ai__tests_log__log_formats.eval": ("inspect-ai", 0, 0, 0, [], 66, 2),
    "inspect-ai/inspect_ai__tests_log__log_message_deduplication.eval": ("inspect-ai", 0, 0, 0, [], 0, 0),
}

NOT_TRAJECTORIES = {
    "SOURCES.md",
    "claude-code/claude-reliability__coverage-test-fix.story.md",
    "claude-code/claude-reliability__hello-world-script.story.md",
    "claude-code/claude-reliability__python-to-rust-port.story.md",
    "claude-code/claude-reliability__stop-hook-reflection-first-stop.story.md",
    "mini-swe-agent/django__django-11099.swebench-report.json",
}
"""Companions of the logs (task prose, SWE-bench ground truth, the provenance table): refused."""


def test_samples_folder_resolves_and_every_file_is_covered() -> None:
    assert SAMPLES.is_dir(), SAMPLES
    present = {p.relative_to(SAMPLES).as_posix() for p in SAMPLES.rglob("*") if p.is_file()}
    # real-versions/ holds the other harness versions, covered file by file in test_real_fixtures.py
    assert {p for p in present if not p.startswith("real-versions/")} == set(PINNED) | NOT_TRAJECTORIES


@pytest.mark.parametrize("name", sorted(PINNED))
def test_sample_loads_with_pinned_counts(name: str) -> None:
    harness, reads, edits, rejected, runs, tokens_in, tokens_out = PINNED[name]
    summary = summarize(load_trajectory(SAMPLES / name))
    assert summary.harness == harness
    assert (summary.reads, summary.edits, summary.failed_edits) == (reads, edits, rejected)
    assert [(r.passed, r.failed) for r in summary.test_runs] == runs
    assert (summary.tokens_in, summary.tokens_out) == (tokens_in, tokens_out)


@pytest.mark.parametrize("name", sorted(NOT_TRAJECTORIES))
def test_companion_files_are_refused_naming_line_one(name: str) -> None:
    with pytest.raises(TrajectoryError, match="line 1: not a trajectory log"):
        load_trajectory(SAMPLES / name)


def test_claude_code_usage_is_counted_once_per_message() -> None:
    """The same usage repeats on every content-block line of a message: 14 messages, 21 lines."""
    trajectory = load_trajectory(SAMPLES / "claude-code/claude-reliability__coverage-test-fix.transcript.jsonl")
    assert sum(1 for e in trajectory.events if e.kind == "usage") == 14


def test_codex_running_totals_become_deltas() -> None:
    trajectory = load_trajectory(
        SAMPLES / "codex-cli/agentcmd__rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl"
    )
    usage = [e for e in trajectory.events if e.kind == "usage"]
    assert len(usage) == 35 and usage[0].tokens_in == 2899  # first total = first delta
    assert trajectory.tokens == (536834, 6654)  # Σ deltas = final total, not Σ totals


def test_swe_agent_rejected_edit_is_marked() -> None:
    trajectory = load_trajectory(SAMPLES / "swe-agent/marshmallow-code__marshmallow-1867.function_calling_replace.traj")
    edits = [(e.path, e.ok) for e in trajectory.events if e.kind == "edit"]
    assert edits[1:] == [("/testbed/src/marshmallow/fields.py", False), ("/testbed/src/marshmallow/fields.py", True)]
