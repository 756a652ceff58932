"""Importers: turn public coding-task datasets (HumanEval, MBPP) into bouts challenges.

The parsers are pure (``parse_mbpp(text, source=...)`` → :class:`ImportedChallenge` values);
:func:`write_challenges` is the only part that touches the disk; :func:`verify_challenges` runs each
reference against its own tests in the sandbox and says what to drop. Design notes: docs/importers.md.
"""

from bouts.importers._layout import LAYOUT_VERSION, challenge_id
from bouts.importers._layout import MODULE as SOLUTION_MODULE
from bouts.importers._model import DatasetError, ImportedChallenge
from bouts.importers._records import iter_records
from bouts.importers._verify import DroppedExample, ExcludedTask, ImportReport, Verdict, summarise, verify_challenges
from bouts.importers._write import write_challenges
from bouts.importers.humaneval import humaneval_task, iter_humaneval, parse_humaneval
from bouts.importers.mbpp import iter_mbpp, mbpp_task, parse_mbpp

__all__ = [
    "LAYOUT_VERSION",
    "SOLUTION_MODULE",
    "DatasetError",
    "DroppedExample",
    "ExcludedTask",
    "ImportReport",
    "ImportedChallenge",
    "Verdict",
    "challenge_id",
    "humaneval_task",
    "iter_humaneval",
    "iter_mbpp",
    "iter_records",
    "mbpp_task",
    "parse_humaneval",
    "parse_mbpp",
    "summarise",
    "verify_challenges",
    "write_challenges",
]
