"""The architecture half of strategy: heuristics over the submission's Python code against ``starter/``.

Seven heuristics, each counting only what the submission *introduced* (the starter's own debts are not
the agent's): complexity growth (radon cyclomatic complexity above 10 in a new or grown function),
coupling (new import edges beyond an allowance of 3), duplication (new repeated 4-statement blocks),
unused new abstractions (new functions/classes nothing refers to), hard-coded special cases
(``if x == <literal>: return <literal>``), copy-paste of the starter (a new function that is a starter
function with its names changed, instead of a call to it) and unidiomatic constructs (``== None``,
``type(x) == T``, ``for i in range(len(xs))`` indexing ``xs[i]``, a ``while i < len(xs)`` loop stepping
an index through ``xs[i]``, ``if c: return True else: return False``, a bare ``except:``, a mutable
default argument, ``isinstance(x, A) or isinstance(x, B)``; the same things in any style: none is a
choice between equally valid styles). An eighth, copies of known sources, runs when the challenge
declares sources whose reuse needs attribution (``[attribution]`` in challenge.toml): a new function
whose normalised tokens are ``threshold`` similar to a declared source's function, with nothing in its
file's comments or docstrings, nor in any deliverable, naming the source.
``analyse`` is pure (sources in); ``read_sources`` and ``read_known_sources`` read them.
docs/trajectory-judges.md#architecture gives the constants and their reasons.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import io
import keyword
import tokenize
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from radon.complexity import cc_visit_ast

from bouts._pyast import parse as parse_python
from bouts.models.challenge import Challenge
from bouts.models.view import FileTree
from bouts.scoring.trajectory_math import ArchitecturePenalty

CC_LIMIT, CC_POINTS, CC_CAP = 10, 3.0, 30.0
IMPORT_ALLOWANCE, IMPORT_POINTS, IMPORT_CAP = 3, 2.0, 20.0
DUP_WINDOW, DUP_MIN_NODES, DUP_POINTS, DUP_CAP = 4, 20, 4.0, 20.0
UNUSED_POINTS, UNUSED_CAP = 5.0, 20.0
SPECIAL_POINTS, SPECIAL_CAP = 10.0, 30.0
COPY_POINTS, COPY_CAP = 8.0, 24.0
IDIOM_POINTS, IDIOM_CAP = 2.0, 10.0
KNOWN_POINTS, KNOWN_CAP = 10.0, 30.0
KNOWN_MIN_TOKENS = 40
"""A function shorter than this (normalised tokens) is too generic to be a copy of anything."""
KNOWN_MAX_TOKENS = 4000
KNOWN_MAX_FUNCTIONS = 2000
"""Functions of the declared sources compared at most (a bound on the work, in file order)."""
KNOWN_SHINGLE, KNOWN_CANDIDATES = 5, 3
"""Candidates for the full comparison: the 3 source functions sharing the most 5-token runs."""
KNOWN_MAX_BYTES = 1 << 20
"""A declared source file over this is not read (the view's own cap for code)."""


@dataclass(frozen=True)
class Observation:
    """One thing a heuristic saw, for a finding."""

    heuristic: str
    file: str
    line: int
    message: str


def read_sources(tree: FileTree) -> dict[str, str]:
    """Python files of ``tree`` (a view's judged code or starter; not tests, none over the cap), by path."""
    return {f.rel: f.text for f in tree.with_suffix((".py",)) if f.text is not None and not _is_test(f.rel)}


def _is_test(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return rel.startswith(("tests/", "test/")) or "/tests/" in rel or name.startswith("test_") or name == "conftest.py"


@dataclass(frozen=True)
class KnownSource:
    """A source the challenge declares (``[attribution] sources``): its Python files and the words
    that attribute it (its path, its files' names, the names the challenge gives it)."""

    path: str
    files: Mapping[str, str]
    """Python files by path relative to the challenge root."""
    names: tuple[str, ...] = ()
    threshold: float = 0.85

    def terms(self) -> tuple[str, ...]:
        """What an attribution note may name, compared case-insensitively."""
        file_names = {rel.rsplit("/", 1)[-1] for rel in self.files}
        return tuple(sorted({self.path.rstrip("/"), *file_names, *self.names} - {""}))


@dataclass(frozen=True)
class Attribution:
    """Known sources, and the texts in which the submission may attribute them (its deliverables)."""

    sources: Sequence[KnownSource] = ()
    documents: Sequence[str] = field(default_factory=tuple)


def read_known_sources(challenge: Challenge) -> list[KnownSource]:
    """The ``[attribution] sources`` of ``challenge``, read from its directory (``.py`` files of a
    folder, recursively, in path order; symlinks and files over ``KNOWN_MAX_BYTES`` are left out)."""
    config = challenge.spec.attribution
    root = challenge.root.resolve()
    out = []
    for source in config.sources:
        base = challenge.root / source.path
        paths = [base] if base.is_file() else sorted(base.rglob("*.py")) if base.is_dir() else []
        files = {}
        for path in paths:
            if path.is_symlink() or not path.is_file() or path.stat().st_size > KNOWN_MAX_BYTES:
                continue
            if not path.resolve().is_relative_to(root):
                continue  # reached through a linked folder
            files[path.relative_to(challenge.root).as_posix()] = path.read_text(encoding="utf-8", errors="replace")
        out.append(KnownSource(source.path, files, tuple(source.names), config.threshold))
    return out


def read_documents(tree: FileTree | None) -> list[str]:
    """The texts of a submission's deliverables (where an attribution note may stand)."""
    return [f.text for f in tree or () if f.text is not None]


def _parse(src: str) -> ast.Module | None:
    try:
        return parse_python(src)
    except (SyntaxError, ValueError):
        return None


def _complexity(src: str) -> dict[str, tuple[int, int]]:
    """qualified name → (cyclomatic complexity, line) of every function and method."""
    try:
        blocks = cc_visit_ast(parse_python(src))
    except (SyntaxError, ValueError):
        return {}
    out: dict[str, tuple[int, int]] = {}
    for b in blocks:
        for inner in [b, *getattr(b, "methods", [])]:
            if not hasattr(inner, "methods"):  # functions and methods, not class aggregates
                key = f"{inner.classname}.{inner.name}" if getattr(inner, "classname", None) else inner.name
                out[key] = (inner.complexity, inner.lineno)
    return out


def _imports(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


def _windows(tree: ast.Module) -> Iterator[tuple[str, int]]:
    """Every run of DUP_WINDOW consecutive statements big enough to matter, as (shape, line)."""
    for node in ast.walk(tree):
        for attr in ("body", "orelse", "finalbody"):
            body = getattr(node, attr, None)
            if not isinstance(body, list) or len(body) < DUP_WINDOW or not isinstance(body[0], ast.stmt):
                continue
            for k in range(len(body) - DUP_WINDOW + 1):
                chunk = body[k : k + DUP_WINDOW]
                if sum(1 for s in chunk for _ in ast.walk(s)) >= DUP_MIN_NODES:
                    yield "\n".join(ast.dump(s) for s in chunk), chunk[0].lineno


def _definitions(tree: ast.Module) -> dict[str, tuple[int, bool]]:
    """name → (line, decorated) of every function, method and class."""
    defs: dict[str, tuple[int, bool]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defs[node.name] = (node.lineno, bool(node.decorator_list))
    return defs


def _references(trees: Mapping[str, ast.Module]) -> Counter[str]:
    refs: Counter[str] = Counter()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                refs[node.id] += 1
            elif isinstance(node, ast.Attribute):
                refs[node.attr] += 1
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                refs[node.value] += 1  # __all__ entries, getattr(obj, "name")
            elif isinstance(node, ast.alias):
                refs[node.name.rsplit(".", 1)[-1]] += 1
    return refs


def _special_cases(tree: ast.Module) -> Iterator[ast.If]:
    """``if <x> == <literal>: return <literal>`` (or ``in (<literals>)``): an output keyed to one input."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare) or len(node.body) != 1:
            continue
        cmp, ret = node.test, node.body[0]
        literal_side = isinstance(cmp.comparators[0], ast.Constant | ast.Tuple | ast.List | ast.Set)
        if (
            isinstance(cmp.ops[0], ast.Eq | ast.In)
            and literal_side
            and isinstance(ret, ast.Return)
            and isinstance(ret.value, ast.Constant)
            and ret.value.value is not None
        ):
            yield node


def _shape(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """A function's body with every name replaced by its order of first appearance: two functions
    with one shape are one function copied and renamed. None for bodies too small to matter."""
    if sum(1 for s in fn.body for _ in ast.walk(s)) < DUP_MIN_NODES:
        return None
    names: dict[str, str] = {}

    def alias(name: str) -> str:
        return names.setdefault(name, f"v{len(names)}")

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.copy_location(ast.Name(alias(node.id), ast.Load()), node)

        def visit_arg(self, node: ast.arg) -> ast.AST:
            return ast.copy_location(ast.arg(alias(node.arg)), node)

        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            self.generic_visit(node)
            return ast.copy_location(ast.Attribute(node.value, alias(node.attr), ast.Load()), node)

    try:  # a copy to rename; code nested past the parser's depth is left to the other heuristics
        renamed = Rename().visit(parse_python(ast.unparse(fn)).body[0])
        assert isinstance(renamed, ast.FunctionDef | ast.AsyncFunctionDef)
        return ast.dump(ast.Module(body=[*renamed.args.args, *renamed.body], type_ignores=[]))
    except (RecursionError, SyntaxError, ValueError, MemoryError):
        return None


def _functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    return (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))


def _unidiomatic(tree: ast.Module) -> Iterator[tuple[ast.AST, str]]:
    """Constructs with one well-known idiomatic form in Python (PEP 8, pylint's C0200/R1703)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, ast.Eq | ast.NotEq) and isinstance(right, ast.Constant) and right.value is None:
                    yield node, "comparison to None with ==/!= (use `is None`)"
            left = node.left
            if (
                isinstance(left, ast.Call)
                and isinstance(left.func, ast.Name)
                and left.func.id == "type"
                and any(isinstance(op, ast.Eq | ast.Is) for op in node.ops)
            ):
                yield node, "type(x) == T (use isinstance)"
        elif isinstance(node, ast.For) and _range_len_indexing(node):
            yield node, "for i in range(len(xs)) indexing xs[i] (iterate, or use enumerate)"
        elif isinstance(node, ast.While) and _manual_index_loop(node):
            yield node, "while i < len(xs) stepping i through xs[i] (iterate, or use enumerate)"
        elif isinstance(node, ast.If) and _returns_its_test(node):
            yield node, "if c: return True else: return False (return the condition)"
        elif isinstance(node, ast.ExceptHandler) and node.type is None:
            yield node, "bare except: (name the exceptions; it also catches KeyboardInterrupt)"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for default in _mutable_defaults(node):
                yield default, "mutable default argument (shared between calls; default to None)"
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and _isinstance_chain(node):
            yield node, "isinstance(x, A) or isinstance(x, B) (isinstance(x, (A, B)))"


def _mutable_defaults(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.expr]:
    for d in [*fn.args.defaults, *(d for d in fn.args.kw_defaults if d is not None)]:
        if isinstance(d, ast.List | ast.Dict | ast.Set) or (
            isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id in ("list", "dict", "set")
        ):
            yield d


def _isinstance_chain(node: ast.BoolOp) -> bool:
    """Two or more ``isinstance`` calls on the same object joined by ``or``."""
    subjects = Counter(
        ast.dump(v.args[0]) for v in node.values
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "isinstance" and len(v.args) == 2
    )  # fmt: skip
    return any(n >= 2 for n in subjects.values())


def _manual_index_loop(loop: ast.While) -> bool:
    """``while i < len(xs):`` whose body reads ``xs[i]`` and steps ``i += 1``."""
    test = loop.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Lt)
            and isinstance(test.left, ast.Name)):  # fmt: skip
        return False
    bound = test.comparators[0]
    if not (isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and bound.func.id == "len"
            and len(bound.args) == 1):  # fmt: skip
        return False
    index, seq = test.left.id, ast.dump(bound.args[0])
    nodes = [n for s in loop.body for n in ast.walk(s)]
    steps = any(isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name)
                and n.target.id == index and isinstance(n.value, ast.Constant) and n.value.value == 1
                for n in nodes)  # fmt: skip
    reads = any(isinstance(n, ast.Subscript) and ast.dump(n.value) == seq and isinstance(n.slice, ast.Name)
                and n.slice.id == index for n in nodes)  # fmt: skip
    return steps and reads


def _range_len_indexing(loop: ast.For) -> bool:
    it = loop.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 1):
        return False
    inner = it.args[0]
    if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "len"
            and len(inner.args) == 1 and isinstance(loop.target, ast.Name)):  # fmt: skip
        return False
    seq, index = ast.dump(inner.args[0]), loop.target.id
    return any(
        isinstance(n, ast.Subscript) and ast.dump(n.value) == seq
        and isinstance(n.slice, ast.Name) and n.slice.id == index
        for s in loop.body for n in ast.walk(s)
    )  # fmt: skip


def _returns_its_test(node: ast.If) -> bool:
    def constant_return(body: list[ast.stmt]) -> object:
        if len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Constant):
            return body[0].value.value
        return None

    return {constant_return(node.body), constant_return(node.orelse)} == {True, False}


def _normalised_tokens(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str] | None:
    """A function as ``ast.unparse`` writes it (layout and comments gone) in tokens, every identifier
    replaced by its order of first appearance and every string by ``S``: renaming, reformatting or
    recommenting a copy does not hide it. None when the function cannot be re-read."""
    try:
        text = ast.unparse(fn)
        names: dict[str, str] = {}
        out: list[str] = []
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NAME:
                word = tok.string
                out.append(word if keyword.iskeyword(word) else names.setdefault(word, f"v{len(names)}"))
            elif tok.type == tokenize.STRING:
                out.append("S")
            elif tok.type in (tokenize.NUMBER, tokenize.OP):
                out.append(tok.string)
            elif tok.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                out.append(tokenize.tok_name[tok.type])
            if len(out) >= KNOWN_MAX_TOKENS:
                break
        return out
    except (RecursionError, SyntaxError, ValueError, MemoryError, tokenize.TokenError):
        return None


def _notes(src: str, tree: ast.Module) -> str:
    """Comments and string constants (docstrings included) of a file, lower-cased: where an
    attribution note stands in code."""
    parts = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    with contextlib.suppress(tokenize.TokenError, SyntaxError):  # the comments before a tokenizer error count
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.COMMENT:
                parts.append(tok.string)
    return "\n".join(parts).lower()


def _shingles(tokens: Sequence[str]) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(tokens[k : k + KNOWN_SHINGLE]) for k in range(max(1, len(tokens) - KNOWN_SHINGLE + 1)))


def _known_copies(
    attribution: Attribution,
    changed: Sequence[str],
    trees: Mapping[str, ast.Module],
    submission: Mapping[str, str],
    inherited: set[str],
) -> Iterator[Observation]:
    """New functions that match a declared source's function with nothing attributing the source.

    The measure is difflib's ratio of the normalised token sequences. It is computed for the
    ``KNOWN_CANDIDATES`` source functions sharing the most ``KNOWN_SHINGLE``-token runs with the
    function (Jaccard), among those whose length allows the threshold at all: the work stays
    bounded when many functions look alike."""
    known: list[tuple[list[str], frozenset[tuple[str, ...]], KnownSource, str, str]] = []
    for source in attribution.sources:
        for rel, text in source.files.items():
            tree = _parse(text)
            for fn in _functions(tree) if tree is not None else ():
                tokens = _normalised_tokens(fn)
                if tokens is not None and len(tokens) >= KNOWN_MIN_TOKENS and len(known) < KNOWN_MAX_FUNCTIONS:
                    known.append((tokens, _shingles(tokens), source, rel, fn.name))
    if not known:
        return
    documents = "\n".join(attribution.documents).lower()
    for f in changed:
        notes: str | None = None
        for fn in _functions(trees[f]):
            if ast.dump(fn) in inherited:
                continue  # the starter's own function, unchanged
            if (tokens := _normalised_tokens(fn)) is None or len(tokens) < KNOWN_MIN_TOKENS:
                continue
            mine = _shingles(tokens)
            ranked: list[tuple[float, int]] = []
            for k, (other, theirs, source, _, _) in enumerate(known):
                if 2 * min(len(tokens), len(other)) / (len(tokens) + len(other)) < source.threshold:
                    continue  # the ratio cannot reach the threshold with these lengths
                shared = len(mine & theirs)
                ranked.append((shared / (len(mine) + len(theirs) - shared), k))
            ranked.sort(key=lambda item: (-item[0], item[1]))
            matcher = difflib.SequenceMatcher(None, autojunk=False)
            matcher.set_seq2(tokens)  # indexed once; each candidate is the cheap first sequence
            best: tuple[float, KnownSource, str, str] | None = None
            for _, k in ranked[:KNOWN_CANDIDATES]:
                other, _, source, rel, name = known[k]
                matcher.set_seq1(other)
                if matcher.quick_ratio() < source.threshold:
                    continue
                if (ratio := matcher.ratio()) >= source.threshold and (best is None or ratio > best[0]):
                    best = (ratio, source, rel, name)
            if best is None:
                continue
            ratio, source, rel, name = best
            if notes is None:
                notes = _notes(submission[f], trees[f])
            terms = source.terms()
            if any(term.lower() in notes or term.lower() in documents for term in terms):
                continue
            yield Observation("known", f, fn.lineno, f"{fn.name} matches {rel}:{name} ({ratio:.0%} of normalised "
                              f"tokens), a declared source that needs attribution, and neither a comment of {f} "
                              f"nor a deliverable names it (any of: {', '.join(terms)})")  # fmt: skip


def analyse(
    starter: Mapping[str, str], submission: Mapping[str, str], attribution: Attribution | None = None
) -> tuple[list[ArchitecturePenalty], list[Observation]]:
    """Compare the submission's Python sources with the starter's; penalties (capped) and evidence.
    ``attribution``: the challenge's declared sources and the submission's deliverables (the
    known-source heuristic runs only when sources are declared)."""
    old_trees = {k: t for k, v in starter.items() if (t := _parse(v)) is not None}
    new_trees = {k: t for k, v in submission.items() if (t := _parse(v)) is not None}
    changed = [k for k in new_trees if starter.get(k) != submission.get(k)]
    heuristics = ("complexity", "coupling", "duplication", "unused", "special", "copy", "idiom", "known")
    seen: dict[str, list[Observation]] = {h: [] for h in heuristics}
    starter_shapes = {shape: fn.name for t in old_trees.values() for fn in _functions(t) if (shape := _shape(fn))}
    old_idioms = Counter(ast.dump(n) for t in old_trees.values() for n, _ in _unidiomatic(t))
    new_shapes = Counter(shape for t in new_trees.values() for fn in _functions(t) if (shape := _shape(fn)))

    for f in changed:
        old_cc = _complexity(starter.get(f, ""))
        for fn, (cc, line) in _complexity(submission[f]).items():
            before = old_cc.get(fn, (0, 0))[0]
            if cc > CC_LIMIT and cc > before:
                seen["complexity"].append(Observation("complexity", f, line, f"{fn}: complexity {before} → {cc}"))
        old_imports = _imports(old_trees[f]) if f in old_trees else set()
        for name in sorted(_imports(new_trees[f]) - old_imports):
            seen["coupling"].append(Observation("coupling", f, 1, f"new import of {name}"))
        old_defs = _definitions(old_trees[f]) if f in old_trees else {}
        refs = _references(new_trees)
        for name, (line, decorated) in _definitions(new_trees[f]).items():
            if name in old_defs or decorated or name.startswith("__") or name.startswith("test"):
                continue
            if refs[name] == 0:
                seen["unused"].append(Observation("unused", f, line, f"new {name} is never used"))
        old_special = {ast.dump(n) for t in old_trees.values() for n in _special_cases(t)}
        for node in _special_cases(new_trees[f]):
            if ast.dump(node) not in old_special:
                seen["special"].append(
                    Observation(
                        "special",
                        f,
                        node.lineno,
                        "special case returns a literal for a literal input (hard-coded output)",
                    )
                )

        for fn in _functions(new_trees[f]):
            if fn.name in old_defs:
                continue
            if (shape := _shape(fn)) in starter_shapes and new_shapes[shape] >= 2:  # moved is not copied
                original = starter_shapes[shape]
                seen["copy"].append(Observation("copy", f, fn.lineno, f"new {fn.name} is a copy of the starter's "
                                                f"{original} with its names changed (call it instead)"))  # fmt: skip
        for node, what in _unidiomatic(new_trees[f]):
            key = ast.dump(node)
            if old_idioms[key] > 0:
                old_idioms[key] -= 1  # inherited from the starter, not introduced
                continue
            seen["idiom"].append(Observation("idiom", f, getattr(node, "lineno", 1), what))

    if attribution is not None and attribution.sources:
        inherited = {ast.dump(fn) for t in old_trees.values() for fn in _functions(t)}
        seen["known"] += _known_copies(attribution, changed, new_trees, submission, inherited)

    old_dups = Counter(shape for t in old_trees.values() for shape, _ in _windows(t))
    new_windows = [(shape, f, line) for f, t in new_trees.items() for shape, line in _windows(t)]
    new_dups = Counter(shape for shape, _, _ in new_windows)
    for shape, count in new_dups.items():
        if count >= 2 and count > old_dups.get(shape, 0):
            f, line = next((f, line) for s, f, line in new_windows if s == shape)
            seen["duplication"].append(Observation("duplication", f, line, f"block repeated {count}×"))

    penalties = [
        ArchitecturePenalty(
            "complexity growth",
            len(seen["complexity"]),
            min(CC_CAP, CC_POINTS * sum(int(o.message.rsplit("→ ", 1)[1]) - CC_LIMIT for o in seen["complexity"])),
        ),
        ArchitecturePenalty(
            "new imports",
            len(seen["coupling"]),
            min(IMPORT_CAP, IMPORT_POINTS * max(0, len(seen["coupling"]) - IMPORT_ALLOWANCE)),
        ),
        ArchitecturePenalty(
            "duplication", len(seen["duplication"]), min(DUP_CAP, DUP_POINTS * len(seen["duplication"]))
        ),
        ArchitecturePenalty(
            "unused abstractions", len(seen["unused"]), min(UNUSED_CAP, UNUSED_POINTS * len(seen["unused"]))
        ),
        ArchitecturePenalty(
            "hard-coded special cases", len(seen["special"]), min(SPECIAL_CAP, SPECIAL_POINTS * len(seen["special"]))
        ),
        ArchitecturePenalty(
            "copies of starter code", len(seen["copy"]), min(COPY_CAP, COPY_POINTS * len(seen["copy"]))
        ),
        ArchitecturePenalty(
            "unidiomatic constructs", len(seen["idiom"]), min(IDIOM_CAP, IDIOM_POINTS * len(seen["idiom"]))
        ),
    ]
    if attribution is not None and attribution.sources:
        count = len(seen["known"])
        penalties.append(
            ArchitecturePenalty("unattributed copies of known sources", count, min(KNOWN_CAP, KNOWN_POINTS * count))
        )
    return penalties, [o for obs in seen.values() for o in obs]
