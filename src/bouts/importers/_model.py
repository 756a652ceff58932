"""What an importer produces: one challenge directory as data, and the error a bad record raises."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bouts.errors import InputError


class DatasetError(InputError):
    """A dataset record is malformed; names the file, the line (1-based) and the field.

    Belongs under ``InputError`` in the tree of ``bouts.errors`` (an input the user can fix).
    """

    def __init__(
        self, message: str, *, file: str | None = None, line: int | None = None, field: str | None = None
    ) -> None:
        self.line = line
        super().__init__(message, file=file, field=field)

    def describe(self) -> str:
        where = [
            w
            for w in (
                self.file,
                f"line {self.line}" if self.line else None,
                f"field '{self.field}'" if self.field else None,
            )
            if w
        ]
        return f"{': '.join(where)}: {self.message}" if where else self.message


@dataclass(frozen=True)
class ImportedChallenge:
    """One challenge directory, as relative path → text, ready to be written (or inspected)."""

    id: str
    """The challenge id (``mbpp-11``, ``humaneval-0``); also the directory name."""
    files: Mapping[str, str]
    """Every file of the directory: ``challenge.toml``, ``starter/solution.py``, tests, reference."""
    line: int
    """Line of the dataset file the task came from (1-based), for error messages and reports."""
    visible_tests: int
    hidden_tests: int
