"""Reading scorecards for ``bouts stats`` and the review queue: ``bouts score --json`` output, one
per ``.json`` file, or many per ``.jsonl`` file (one per line). Parsing is pure (text in)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from bouts.errors import InputError
from bouts.models.scorecard import Scorecard


def parse_scorecards(text: str, *, source: str) -> list[Scorecard]:
    """Scorecards from one file's text: a JSON object, or JSON lines. Raises ``InputError``."""
    stripped = text.strip()
    if not stripped:
        return []
    if stripped.startswith("{"):
        try:
            return [_one(json.loads(stripped), source)]
        except json.JSONDecodeError:
            pass  # not a single object: JSON lines
    cards: list[Scorecard] = []
    for no, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                cards.append(_one(json.loads(line), f"{source}:{no}"))
            except json.JSONDecodeError as e:
                raise InputError(f"line {no}: not JSON: {e.msg}", file=source) from e
    return cards


def _one(data: object, source: str) -> Scorecard:
    try:
        return Scorecard.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        raise InputError(f"not a scorecard: {first['msg']}", file=source,
                         field=".".join(str(p) for p in first["loc"]) or None) from e


def read_scorecards(path: Path, *, challenge: str | None = None) -> list[Scorecard]:
    """Every scorecard in a file or under a directory (``*.json``, ``*.jsonl``), optionally only
    those of one challenge id."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in {".json", ".jsonl"} and p.is_file())
    elif path.is_file():
        files = [path]
    else:
        raise InputError("no such file or directory", file=str(path))
    cards = [c for f in files for c in parse_scorecards(f.read_text(encoding="utf-8"), source=str(f))]
    return [c for c in cards if challenge is None or c.challenge == challenge]
