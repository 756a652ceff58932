"""HumanEval (Chen et al. 2021, MIT) → challenges. Pure: the dataset's text in, challenges out.

Each task becomes: ``prompt`` + ``canonical_solution`` as ``reference/solution.py``; ``prompt`` with
a body that raises NotImplementedError as ``starter/solution.py``; the prompt's doctest examples
(``>>> f(x)`` followed by a value) as visible tests; ``check(candidate)`` of ``test`` as hidden
tests, one per assert when its body is asserts only, else one test that calls it whole.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from bouts.importers import _layout, _python
from bouts.importers._model import ImportedChallenge
from bouts.importers._records import Fields, iter_tasks

LICENSE = (
    "Imported from HumanEval (Chen et al., 2021, https://github.com/openai/human-eval), task {task}. "
    "Licensed MIT (© OpenAI); adapted into a bouts challenge."
)


def parse_humaneval(
    text: str, *, source: str, profile: str = "engine", limit: int | None = None
) -> list[ImportedChallenge]:
    """Every task of a HumanEval JSON-lines file as a challenge; ``DatasetError`` names the file,
    line and field of the first bad record (duplicate task ids included)."""
    return list(iter_humaneval(text, source=source, profile=profile, limit=limit))


def iter_humaneval(
    text: str, *, source: str, profile: str = "engine", limit: int | None = None
) -> Iterator[ImportedChallenge]:
    return iter_tasks(text, humaneval_task, source=source, profile=profile, limit=limit)


def humaneval_task(record: dict[str, Any], *, source: str, line: int, profile: str = "engine") -> ImportedChallenge:
    """One HumanEval record as a challenge."""
    f = Fields(record, source=source, line=line)
    task = f.ident("task_id")
    prompt = f.text("prompt").replace("\r\n", "\n")
    solution = f.text("canonical_solution").replace("\r\n", "\n")
    test = _python.normalise(f.text("test"))
    entry = f.text("entry_point").strip()
    if not entry.isidentifier():
        raise f.error(f"must be a Python identifier, got {entry!r}", "entry_point")

    reference = _python.normalise(prompt + solution)
    starter = _python.normalise(prompt.rstrip("\n") + "\n    raise NotImplementedError")
    names: list[str] = []
    for field, src in (("prompt", starter), ("canonical_solution", reference)):
        names = _python.defined_names(f.python(src, field))
        if entry not in names:
            raise f.error(f"defines no function '{entry}' (the entry_point)", field)
    try:
        split = _python.split_check(test)
    except _python.SourceError as e:
        raise f.error(str(e), "test") from None

    cid = _layout.challenge_id("humaneval", task)
    examples = _python.doctest_asserts(starter, entry)
    if examples:
        visible = [(f"example_{i}", a) for i, a in enumerate(examples, start=1)]
        visible_note = "the doctest examples of the prompt"
    else:  # no runnable example in the prompt: show the first check instead (docs/importers.md)
        first = split.asserts[0] if split.asserts else _python.first_standalone_assert(test)
        if first is not None:
            visible = [("example_1", f"candidate = {entry}\n{first}")]
            visible_note = "the first assert of check(candidate) (the prompt has no doctest example)"
        else:  # every assert reads check's own locals (a loop over random inputs): run check whole
            visible = [("example_1", f"check({entry})")]
            visible_note = "check(candidate) run whole (the prompt has no doctest example)"
    # A visible test is self-contained: it gets the imports and helpers of the test code it reads.
    helpers = _python.helpers_for(test, "\n".join(body for _, body in visible))

    def prompt_helpers(tests: Sequence[tuple[str, str]], code: str) -> str:
        """The prompt's helpers that ``tests`` and the test ``code`` beside them call."""
        return _python.prompt_helpers(starter, entry, "\n".join([code, *(body for _, body in tests)]))

    if split.asserts is None:
        hidden = [("check", f"check({entry})")]
    else:
        hidden = [(f"check_{i}", f"candidate = {entry}\n{a}") for i, a in enumerate(split.asserts, start=1)]
    description = (
        f"Complete the function `{entry}` in `{_layout.MODULE}.py` (its signature and docstring are "
        f"the task):\n\n{prompt.rstrip()}\n\nThe visible tests are {visible_note}; more tests are held back.\n\n"
        + LICENSE.format(task=task)
    )
    layout = _layout.Layout(
        id=cid,
        title=f"HumanEval {task}: complete {entry}()",
        description=description,
        profile=profile,
        starter=starter,
        reference=reference,
        visible=tuple(visible),
        hidden=tuple(hidden),
        docstrings=(
            f"HumanEval {task}: {visible_note}.",
            f"HumanEval {task}: check(candidate) from the task's test code.",
        ),
        preambles=(_blocks(helpers, prompt_helpers(visible, helpers)), _blocks(prompt_helpers(hidden, test), test)),
        task_names=tuple(names),
    )
    return ImportedChallenge.build(layout, line=line)


def _blocks(*blocks: str) -> tuple[str, ...]:
    """The preamble blocks that hold code."""
    return tuple(b for b in blocks if b.strip())
