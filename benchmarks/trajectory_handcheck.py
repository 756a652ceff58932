"""Issue 38 item 4: a seeded sample of the corpus laid out for reading by hand, each agent action of the
log beside the events the adapter made of it.

    .venv/bin/python benchmarks/trajectory_handcheck.py [--corpus /work/corpus] [--out /work/corpus/handcheck]

Picks 30 runs of ``benchmarks/data/trajectory_corpus.jsonl`` (``random.Random(38)``), and writes one
text file a run: per step, the command the agent sent (mini-swe-agent: the ```bash block of an
assistant message, or its tool call), the head of what came back (return code and output), then the
canonical events the adapter produced from that record (kind, path, command, exit code, test counts).
What a reader found is recorded in ``benchmarks/data/trajectory_handcheck.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

from bouts.trajectory import load_trajectory

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "data" / "trajectory_corpus.jsonl"
SAMPLE = 30
SEED = 38
BASH = re.compile(r"```bash\s*\n(.*?)```", re.S)


def sample(rows: list[dict[str, object]], n: int = SAMPLE, seed: int = SEED) -> list[dict[str, object]]:
    return random.Random(seed).sample(rows, n)


def _commands(message: dict[str, object]) -> list[str]:
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        out = []
        for c in calls:
            try:
                out.append(json.loads(c["function"]["arguments"]).get("command", ""))
            except (KeyError, TypeError, json.JSONDecodeError):
                out.append(f"<unreadable tool call {c!r:.80}>")
        return out
    return BASH.findall(str(message.get("content") or ""))


def lay_out(path: Path) -> str:
    raw = json.loads(path.read_text(encoding="utf-8"))
    messages = raw["messages"] if isinstance(raw, dict) else raw
    events = load_trajectory(path).events
    by_line: dict[int | None, list[int]] = {}
    for i, e in enumerate(events):
        by_line.setdefault(e.source_line, []).append(i)
    lines = [f"# {path.name}: {len(messages)} messages, {len(events)} events"]
    for no, m in enumerate(messages, 1):
        role = m.get("role")
        if role == "assistant":
            for cmd in _commands(m):
                lines.append(f"\n[{no}] $ {cmd.strip()[:1500]}")
        elif role in ("user", "tool") and no > 2:
            lines.append(f"[{no}] <- {str(m.get('content'))[:600]!r}")
        for i in by_line.get(no, []):
            e = events[i]
            tests = f" tests={e.tests.passed}p/{e.tests.failed}f" if e.tests else ""
            what = e.path or e.query or ((e.command or "").splitlines() or [""])[0][:120] or (e.text or "")[:80]
            lines.append(f"    ev{i} {e.kind} {what!r} exit={e.exit_code} ok={e.ok}{tests}")
    unplaced = [i for i, e in enumerate(events) if e.source_line is None or e.source_line > len(messages)]
    if unplaced:
        lines.append(f"\nevents with no record: {unplaced}")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    ap.add_argument("--out", type=Path, default=Path("/work/corpus/handcheck"))
    args = ap.parse_args()
    rows = [json.loads(x) for x in MANIFEST.read_text(encoding="utf-8").splitlines() if x.strip()]
    args.out.mkdir(parents=True, exist_ok=True)
    for n, row in enumerate(sample(rows), 1):
        text = lay_out(args.corpus / str(row["file"]))
        name = f"{n:02d}-{str(row['run_id']).replace('/', '__')}.txt"
        (args.out / name).write_text(f"run {row['run_id']} resolved={row['resolved']} model={row['model']}\n" + text)
        print(name)


if __name__ == "__main__":
    main()
