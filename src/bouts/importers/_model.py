"""What an importer produces: one challenge directory as data, and the error a bad record raises."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from bouts.errors import InputError
from bouts.importers._layout import Layout


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
    layout: Layout | None = None
    """What ``files`` was built from (the built-in importers set it), so tests can be dropped."""

    @classmethod
    def build(cls, layout: Layout, *, line: int) -> ImportedChallenge:
        return cls(
            id=layout.id, files=layout.files(), line=line, visible_tests=len(layout.visible),
            hidden_tests=len(layout.hidden), layout=layout,
        )  # fmt: skip

    def without(self, dropped: Collection[tuple[str, str]]) -> ImportedChallenge:
        """This challenge less the tests named ``(suite, "test_<name>")`` in ``dropped``."""
        if self.layout is None:
            raise ValueError(f"{self.id}: built without a layout; its tests cannot be dropped")
        return ImportedChallenge.build(self.layout.without(dropped), line=self.line)
