"""MBPP (Austin et al. 2021, CC-BY-4.0) → challenges. Pure: the dataset's text in, challenges out.

Each task becomes: the reference ``code`` as ``reference/solution.py``; a stub of the function the
first test calls as ``starter/solution.py``; the first assert of ``test_list`` as the visible test;
the other asserts plus ``challenge_test_list`` as hidden tests; ``test_setup_code`` (or the
sanitized file's ``test_imports``) at the top of both test modules. Both the full ``mbpp.jsonl``
and the hand-checked ``sanitized-mbpp.json`` are read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bouts.importers import _layout, _python
from bouts.importers._model import ImportedChallenge
from bouts.importers._records import Fields, iter_tasks

LICENSE = (
    "Imported from MBPP (Mostly Basic Python Problems; Austin et al., 2021, "
    "https://github.com/google-research/google-research/tree/master/mbpp), task {task}. "
    "Licensed CC-BY-4.0 (https://creativecommons.org/licenses/by/4.0/); adapted into a bouts challenge."
)


def parse_mbpp(text: str, *, source: str, profile: str = "engine", limit: int | None = None) -> list[ImportedChallenge]:
    """Every task of an MBPP file (JSON lines, or the sanitized JSON array) as a challenge.

    Raises ``DatasetError`` naming ``source``, the line and the field of the first bad record; a
    duplicate task id is an error too. ``limit`` stops after that many tasks.
    """
    return list(iter_mbpp(text, source=source, profile=profile, limit=limit))


def iter_mbpp(
    text: str, *, source: str, profile: str = "engine", limit: int | None = None
) -> Iterator[ImportedChallenge]:
    return iter_tasks(text, mbpp_task, source=source, profile=profile, limit=limit)


def mbpp_task(record: dict[str, Any], *, source: str, line: int, profile: str = "engine") -> ImportedChallenge:
    """One MBPP record (full or sanitized format) as a challenge."""
    f = Fields(record, source=source, line=line)
    task = f.ident("task_id")
    sanitized = "text" not in record and "prompt" in record
    text = f.text("prompt" if sanitized else "text")
    code = _python.normalise(f.text("code"))
    tests = f.texts("test_list", min_items=1)
    extra = [] if sanitized else f.texts("challenge_test_list", required=False)
    setup = (
        "\n".join(f.texts("test_imports", required=False))
        if sanitized
        else f.text("test_setup_code", required=False, allow_empty=True)
    )
    setup = _python.normalise(setup) if setup.strip() else ""

    module = f.python(code, "code")
    for field, items in (("test_list", tests), ("challenge_test_list", extra)):
        for i, item in enumerate(items):
            f.python(item, f"{field}[{i}]")
    if setup:
        f.python(setup, "test_imports" if sanitized else "test_setup_code")
    entry = _python.called_name(tests[0], _python.defined_names(module))
    if entry is None:
        raise f.error("the first test calls no function that the code defines", "test_list[0]")
    names = _python.defined_names(module)
    keep = [n for n in names if setup and n in setup and n != entry]

    cid = _layout.challenge_id("mbpp", task)
    preamble = [setup] if setup else []
    visible = [(f"{entry}_1", tests[0])]
    hidden = [(f"{entry}_{i}", t) for i, t in enumerate(tests[1:], start=2)]
    hidden += [(f"{entry}_challenge_{i}", t) for i, t in enumerate(extra, start=1)]
    description = (
        f"{text.strip()}\n\nImplement `{entry}` in `{_layout.MODULE}.py`. Your code should pass this test:\n\n"
        f"    {tests[0].strip()}\n\nMore tests are held back.\n\n" + LICENSE.format(task=task)
    )
    try:
        starter = _python.stub(code, entry, text, keep=keep)
    except _python.SourceError as e:
        raise f.error(str(e), "code") from None
    layout = _layout.Layout(
        id=cid,
        title=f"MBPP {task}: {_layout.title_line(text)}",
        description=description,
        profile=profile,
        starter=starter,
        reference=code,
        visible=tuple(visible),
        hidden=tuple(hidden),
        docstrings=(
            f"MBPP task {task}: the first test of test_list (the one the prompt shows).",
            f"MBPP task {task}: the rest of test_list, then challenge_test_list.",
        ),
        preambles=(tuple(preamble), tuple(preamble)),
        task_names=tuple(names),
    )
    return ImportedChallenge.build(layout, line=line)
