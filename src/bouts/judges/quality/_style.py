"""Seed 000's style rules for the offline quality judges (Python): inconsistent style and cleverness
that hides intent. A choice between equally valid styles (functional or imperative, classes or
module functions, verbose or concise) is never observed here, so it cannot cost anything.

**Inconsistent style** (``inconsistency``, the metrics judge): in the judged code (what the submission
changed, ``_changes``), five signals are observed, each observation with its variant:

| signal            | an observation                                       | variants                              |
|-------------------|------------------------------------------------------|---------------------------------------|
| function names    | a function or method defined on a judged line        | snake_case, camelCase, mixed          |
| variable names    | a name bound in a judged function (first binding)    | snake_case, camelCase, mixed          |
| quotes            | a one-line string literal on a judged line           | single, double                        |
| string formatting | an f-string, ``"...".format()`` or ``"..." % x``     | f-string, str.format, %-formatting    |
| indentation       | a block indented on a judged line                    | N spaces, tab                         |

A one-word lower-case name (``total``) fits both naming conventions and is not an observation;
neither are dunder names, ``UPPER_CASE`` constants, ``self``/``cls``, triple-quoted strings, or a
string whose text holds the other quote (choosing the delimiter that avoids escapes is consistent).
For a signal with at least ``MIN_OBSERVATIONS`` observations and two or more variants, the majority
variant is the submission's own convention (a tie goes to the variant seen first) and

    cost(signal) = STYLE_POINTS × minority / observations        (readability points; at most 20 each)

shared equally by the minority observations, each a finding at its file:line (× the line's share:
half on a line inherited unchanged inside a function the submission changed). Conformity with the
starter's conventions is not required: only the submission's code is compared with itself.

**Cleverness that hides intent** (``cleverness``, the structure judge), in every changed function
and in the module-level statements on judged lines:

- a comprehension nested ``COMPREHENSION_DEPTH`` (3) ``for`` clauses deep (``[.. for a in .. for b in
  .. for c in ..]`` or a comprehension inside one inside another);
- a chained conditional expression (``a if p else b if q else c``);
- a lambda bound to a name and then called by it (a ``def`` with its name hidden: PEP 8, E731);
- ``x and y or z`` used as a value (the pre-2.5 conditional, wrong whenever ``y`` is falsy);
- bit tricks standing in for arithmetic: ``-~x``/``~-x`` (±1), ``~~x``, the XOR swap, and shifts by a
  constant or ``& 1`` in a function that does no other bit manipulation (``x >> 1`` is ``x // 2``);
- ``__import__(...)`` (an import hidden in an expression);
- an assignment expression in a comprehension's condition whose name is read after the comprehension
  (the comprehension silently sets a variable of the function; PEP 572's filter-and-reuse form
  ``[y for x in xs if (y := f(x))]`` is plain and not counted);
- a one-liner: one statement on one physical line with ``ONE_LINER_DECISIONS`` (5) or more decision
  points (conditional expressions, extra ``and``/``or`` operands, comprehension ``for``/``if`` clauses,
  lambdas), unless another rule above already flagged that line.

Each is a finding with its line; the structure judge charges it as a density (docs/quality-judges.md)
with a rule cap, so cleverness can cost a bounded part of readability and no more.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from bouts.judges.quality._changes import ChangeSet, FunctionNode, SourceFile

MIN_OBSERVATIONS = 4
"""Observations a signal needs before a minority means anything."""
STYLE_POINTS = 40.0
"""Readability points a signal costs at a 50/50 split (cost = STYLE_POINTS × minority share)."""
COMPREHENSION_DEPTH = 3
ONE_LINER_DECISIONS = 5

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")
_CAMEL = re.compile(r"^[a-z][a-z0-9]*([A-Z][a-z0-9]*)+$")
_NEUTRAL = re.compile(r"^[a-z][a-z0-9]*$")
_API_NAMES = re.compile(r"^(visit|do|test|depart)_")
"""Names a framework dictates (``ast.NodeVisitor.visit_Name``, ``BaseHTTPRequestHandler.do_GET``)."""
_API_CAMEL = frozenset(
    {"setUp", "tearDown", "setUpClass", "tearDownClass", "setUpModule", "tearDownModule", "asyncSetUp", "asyncTearDown"}
)
"""unittest's hooks: a subclass must use these names."""
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_BITWISE = (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)


@dataclass(frozen=True)
class Observation:
    """One occurrence of a style signal: its variant and where it was seen."""

    signal: str
    variant: str
    file: str
    line: int
    shown: str


@dataclass(frozen=True)
class Inconsistency:
    """A minority observation of a signal, and what it costs (before the line's share)."""

    observation: Observation
    majority: str
    counts: tuple[tuple[str, int], ...]
    cost: float

    def message(self) -> str:
        o = self.observation
        tally = ", ".join(f"{n} {variant}" for variant, n in self.counts)
        return f"{o.signal}: {o.shown} is {o.variant} where the submission's code is mostly {self.majority} ({tally})"


def name_variant(name: str) -> str | None:
    """snake_case, camelCase or mixed; None for names that fit either (one lower-case word) or that
    follow another convention (dunder, UPPER_CASE constants, CapWords classes)."""
    if (name.startswith("__") and name.endswith("__")) or _API_NAMES.match(name) or name in _API_CAMEL:
        return None
    core = name.strip("_")
    if not core or _NEUTRAL.match(core) or core.isupper() or core[0].isupper():
        return None
    if _SNAKE.match(core):
        return "snake_case"
    if _CAMEL.match(core):
        return "camelCase"
    return "mixed"


def _names(f: SourceFile) -> Iterator[Observation]:
    assert f.tree is not None
    for unit in (u for u in f.units if u.changed):
        fns = [n for n in ast.walk(unit.node) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        for fn in fns:
            if fn.lineno in f.judged and (variant := name_variant(fn.name)):
                yield Observation("function names", variant, f.rel, fn.lineno, f"function '{fn.name}'")
        seen: set[str] = set()
        bound: list[tuple[str, int]] = []
        for fn in fns:
            args = fn.args
            bound += [
                (a.arg, fn.lineno)
                for a in (
                    *args.posonlyargs,
                    *args.args,
                    *args.kwonlyargs,
                    *(x for x in (args.vararg, args.kwarg) if x is not None),
                )
            ]
        bound += [
            (n.id, n.lineno) for n in ast.walk(unit.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        ]
        for name, line in sorted(bound, key=lambda item: item[1]):
            if name in seen or name in ("self", "cls") or line not in f.judged:
                continue
            seen.add(name)
            if variant := name_variant(name):
                yield Observation("variable names", variant, f.rel, line, f"'{name}'")


def _tokens(f: SourceFile) -> Iterator[Observation]:
    """Quote delimiters and indentation steps on judged lines, from the tokenizer."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(f.text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return
    docstrings = {
        n.body[0].value.lineno
        for n in ast.walk(f.tree)
        if f.tree is not None
        and isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    indents: list[str] = [""]
    for tok in tokens:
        line = tok.start[0]
        if tok.type == tokenize.INDENT:
            step = tok.string[len(indents[-1]) :] if tok.string.startswith(indents[-1]) else tok.string
            indents.append(tok.string)
            if line in f.judged and step:
                variant = "tab" if "\t" in step else f"{len(step)} spaces"
                yield Observation("indentation", variant, f.rel, line, f"a block indented by {variant}")
        elif tok.type == tokenize.DEDENT:
            indents.pop()
        elif tok.type == tokenize.STRING and line in f.judged and line not in docstrings:
            body = tok.string.lstrip("rRbBuUfF")
            if body[:3] in ('"""', "'''") or tok.start[0] != tok.end[0]:
                continue
            quote, other = body[0], "'" if body[0] == '"' else '"'
            if other in body[1:-1]:
                continue
            variant = "double" if quote == '"' else "single"
            yield Observation("quotes", variant, f.rel, line, f"{variant}-quoted string {tok.string[:30]}")


def _formatting(f: SourceFile) -> Iterator[Observation]:
    assert f.tree is not None
    for node in ast.walk(f.tree):
        line = getattr(node, "lineno", 0)
        if line not in f.judged:
            continue
        if isinstance(node, ast.JoinedStr) and any(isinstance(v, ast.FormattedValue) for v in node.values):
            yield Observation("string formatting", "f-string", f.rel, line, "an f-string")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
            and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str)
        ):
            yield Observation("string formatting", "str.format", f.rel, line, "a str.format() call")
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mod)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
        ):
            yield Observation("string formatting", "%-formatting", f.rel, line, "a '%' format")


def observations(changes: ChangeSet) -> list[Observation]:
    """Every style observation in the judged code, in file and line order."""
    out: list[Observation] = []
    for f in changes.changed:
        if f.tree is None:
            continue
        out += [*_names(f), *_tokens(f), *_formatting(f)]
    return out


def inconsistency(changes: ChangeSet) -> list[Inconsistency]:
    """The minority observations of every signal that has a majority (see the module docstring)."""
    by_signal: dict[str, list[Observation]] = {}
    for o in observations(changes):
        by_signal.setdefault(o.signal, []).append(o)
    out: list[Inconsistency] = []
    for signal in sorted(by_signal):
        seen = by_signal[signal]
        counts = Counter(o.variant for o in seen)
        if len(seen) < MIN_OBSERVATIONS or len(counts) < 2:
            continue
        first = {o.variant: i for i, o in reversed(list(enumerate(seen)))}
        ranked = sorted(counts.items(), key=lambda item: (-item[1], first[item[0]]))
        majority = ranked[0][0]
        minority = [o for o in seen if o.variant != majority]
        cost = STYLE_POINTS * len(minority) / len(seen)
        out += [Inconsistency(o, majority, tuple(ranked), cost / len(minority)) for o in minority]
    return out


def _for_depth(node: ast.AST) -> int:
    """The most ``for`` clauses along one chain of nested comprehensions starting at ``node``."""
    own = len(node.generators) if isinstance(node, _COMPREHENSIONS) else 0
    deepest = 0
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        if isinstance(child, _COMPREHENSIONS):
            deepest = max(deepest, _for_depth(child))
        else:
            stack.extend(ast.iter_child_nodes(child))
    return own + deepest


def _decisions(node: ast.AST) -> int:
    total = 0
    for n in ast.walk(node):
        if isinstance(n, ast.IfExp | ast.Lambda):
            total += 1
        elif isinstance(n, ast.BoolOp):
            total += len(n.values) - 1
        elif isinstance(n, ast.comprehension):
            total += 1 + len(n.ifs)
    return total


def _boolean_contexts(fn: ast.AST) -> set[int]:
    """ids of expressions whose value is only tested for truth (an and/or there is logic, not a pick)."""
    tested: set[int] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.If | ast.While | ast.IfExp | ast.Assert):
            tested.add(id(n.test))
        elif isinstance(n, ast.comprehension):
            tested.update(id(c) for c in n.ifs)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            tested.add(id(n.operand))
        elif isinstance(n, ast.BoolOp):
            tested.update(id(v) for v in n.values)  # a BoolOp inside one is part of that logic
    return tested


def _and_or_picks(fn: ast.AST) -> Iterator[ast.BoolOp]:
    tested = _boolean_contexts(fn)
    for n in ast.walk(fn):
        if (
            isinstance(n, ast.BoolOp)
            and isinstance(n.op, ast.Or)
            and len(n.values) == 2
            and id(n) not in tested
            and isinstance(n.values[0], ast.BoolOp)
            and isinstance(n.values[0].op, ast.And)
        ):
            picked = n.values[0].values[-1]
            is_logic = (
                isinstance(picked, ast.Compare | ast.BoolOp)
                or (isinstance(picked, ast.UnaryOp) and isinstance(picked.op, ast.Not))
                or (isinstance(picked, ast.Constant) and isinstance(picked.value, bool))
            )
            if not is_logic:
                yield n


def _bit_tricks(fn: ast.AST) -> Iterator[tuple[int, str]]:
    arithmetic: list[tuple[int, str]] = []
    other_bitwise = False
    for n in ast.walk(fn):
        if isinstance(n, ast.UnaryOp) and isinstance(n.operand, ast.UnaryOp):
            pair = (type(n.op), type(n.operand.op))
            if pair in ((ast.USub, ast.Invert), (ast.Invert, ast.USub), (ast.Invert, ast.Invert)):
                yield n.lineno, f"'{ast.unparse(n)}' is arithmetic written as a bit trick"
        elif isinstance(n, ast.BinOp) and isinstance(n.op, _BITWISE):
            constant = isinstance(n.right, ast.Constant) and isinstance(n.right.value, int)
            if constant and (
                isinstance(n.op, ast.LShift | ast.RShift) or (isinstance(n.op, ast.BitAnd) and n.right.value == 1)
            ):
                arithmetic.append((n.lineno, ast.unparse(n)))
            else:
                other_bitwise = True
        elif isinstance(n, ast.AugAssign) and isinstance(n.op, _BITWISE):
            other_bitwise = True
    if not other_bitwise:
        for line, shown in arithmetic:
            yield line, f"'{shown}' does arithmetic with bits (// 2, * 2, % 2 say what it means)"
    for body in (getattr(n, "body", None) for n in ast.walk(fn)):
        if not isinstance(body, list):
            continue
        for a, b, c in zip(body, body[1:], body[2:], strict=False):
            xors = [
                s
                for s in (a, b, c)
                if isinstance(s, ast.AugAssign)
                and isinstance(s.op, ast.BitXor)
                and isinstance(s.target, ast.Name)
                and isinstance(s.value, ast.Name)
            ]
            if len(xors) == 3 and len({x.target.id for x in xors} | {x.value.id for x in xors}) == 2:  # type: ignore[union-attr]
                yield a.lineno, "XOR swap (a, b = b, a says it)"


def _walrus_leaks(fn: ast.AST) -> Iterator[tuple[int, str]]:
    reads: dict[str, list[int]] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            reads.setdefault(n.id, []).append(n.lineno)
    for comp in (n for n in ast.walk(fn) if isinstance(n, _COMPREHENSIONS)):
        inside = {id(x) for x in ast.walk(comp)}
        end = comp.end_lineno or comp.lineno
        for gen in comp.generators:
            for cond in gen.ifs:
                for walrus in (w for w in ast.walk(cond) if isinstance(w, ast.NamedExpr)):
                    name = walrus.target.id
                    outside = [
                        n
                        for n in ast.walk(fn)
                        if isinstance(n, ast.Name)
                        and n.id == name
                        and isinstance(n.ctx, ast.Load)
                        and id(n) not in inside
                        and n.lineno >= end
                    ]
                    if outside:
                        yield (
                            walrus.lineno,
                            (
                                f"'{name} :=' inside a comprehension's condition sets {name} for the "
                                f"code after it (line {outside[0].lineno})"
                            ),
                        )


def _lambdas_called(fn: ast.AST, context: ast.AST) -> Iterator[tuple[int, str]]:
    called = {n.func.id for n in ast.walk(context) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    for n in ast.walk(fn):
        if (
            isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Lambda)
            and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name)
            and n.targets[0].id in called
        ):
            yield n.lineno, f"lambda bound to '{n.targets[0].id}' and called as a function (write a def)"


def cleverness(fn: FunctionNode | ast.Module, context: ast.AST | None = None) -> Iterator[tuple[int, str]]:
    """(line, what) for each construct of the function (or of a module's top-level statements) that
    hides its intent (module docstring); ``context`` is where a bound lambda may be called (the
    function itself by default)."""
    found: list[tuple[int, str]] = []
    # A comprehension or conditional inside another is reported once, with the outermost.
    in_comprehension = {
        id(c) for n in ast.walk(fn) if isinstance(n, _COMPREHENSIONS) for c in ast.walk(n) if c is not n
    }
    in_conditional = {id(c) for n in ast.walk(fn) if isinstance(n, ast.IfExp) for c in (n.body, n.orelse)}
    for n in ast.walk(fn):
        if (
            isinstance(n, _COMPREHENSIONS)
            and id(n) not in in_comprehension
            and (depth := _for_depth(n)) >= COMPREHENSION_DEPTH
        ):
            found.append((n.lineno, f"comprehension {depth} 'for' clauses deep"))
        elif (
            isinstance(n, ast.IfExp)
            and id(n) not in in_conditional
            and (isinstance(n.orelse, ast.IfExp) or isinstance(n.body, ast.IfExp))
        ):
            found.append((n.lineno, "chained conditional expression (a if p else b if q else c)"))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "__import__":
            found.append((n.lineno, "__import__() hides an import in an expression"))
    found += [
        (n.lineno, f"'{ast.unparse(n)[:60]}' picks a value with and/or (use a conditional expression)")
        for n in _and_or_picks(fn)
    ]
    found += [*_bit_tricks(fn), *_walrus_leaks(fn), *_lambdas_called(fn, context or fn)]
    flagged = {line for line, _ in found}
    for stmt in ast.walk(fn):
        if (
            isinstance(stmt, ast.stmt)
            and not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and not hasattr(stmt, "body")
            and stmt.lineno == stmt.end_lineno
            and stmt.lineno not in flagged
            and (decisions := _decisions(stmt)) >= ONE_LINER_DECISIONS
        ):
            found.append((stmt.lineno, f"one-liner with {decisions} decision points (spell the steps out)"))
    seen: set[tuple[int, str]] = set()
    for item in sorted(found):
        if item not in seen:
            seen.add(item)
            yield item


_COMMENT = re.compile(r"^\s*#\s?(.*)$")
_WORD = re.compile(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])")
_FILLER = frozenset([
    "a", "an", "the", "to", "of", "and", "or", "in", "on", "at", "by", "for", "from", "with", "into", "is", "are",
    "be", "it", "its", "this", "that", "then", "now", "here", "we", "our", "just", "do", "does", "value", "values",
    "variable", "var",
])  # fmt: skip
_SAYS = {  # what a comment's verb says → what the line under it shows
    "increment": "+", "increase": "+", "add": "+", "plus": "+", "decrement": "-", "decrease": "-",
    "subtract": "-", "minus": "-", "set": "=", "assign": "=", "store": "=", "call": "(", "loop": "for",
    "iterate": "for", "check": "if", "returns": "return", "raise": "raise", "raises": "raise",
    "import": "import", "append": "append",
}  # fmt: skip
WHAT_COMMENT_MIN_WORDS = 2


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def what_comments(f: SourceFile) -> Iterator[tuple[int, str]]:
    """(line, comment) of each whole-line comment the submission wrote that only restates the line
    under it (seed 000: comments explain why, not what): two or more words besides filler, every one
    a name or keyword of that line (``# return the total`` above ``return total``) or a verb the line
    spells (``# increment the count`` above ``count += 1``). A reason ("because", a number, a name the
    line does not hold) is never one. Python only."""
    lines = f.lines
    for n, text in enumerate(lines, start=1):
        if n not in f.written or not (m := _COMMENT.match(text)) or text.lstrip().startswith("#!"):
            continue
        said = [w for w in _words(m.group(1)) if w not in _FILLER]
        if len(said) < WHAT_COMMENT_MIN_WORDS or any(c.isdigit() for c in m.group(1)):
            continue
        below = next((s for s in lines[n:] if s.strip() and not _COMMENT.match(s)), "")
        code = below.split("#", 1)[0]
        shown = set(_words(code)) | {sym for sym in ("+", "-", "=", "(") if sym in code}
        if below and all(w in shown or _SAYS.get(w) in shown for w in said):
            yield n, m.group(1).strip()
