"""A small, bounded constant folder: what a Python expression evaluates to when nothing in it
depends on run time, so a literal spelled in pieces is read as the literal it builds.

``"19" + ".99"``, ``"".join(["1", "9"])``, ``"".join(map(chr, [49, 57]))``, ``f"{19}.{99}"``,
``"%d.%d" % (19, 99)``, ``"{}.{}".format(19, 99)``, ``"99.91"[::-1]``, ``bytes([49, 57]).decode()``,
``str(1999 / 100)``, ``Decimal(1999) / 100``, ``int("19" "99")``, ``PRICE`` where ``PRICE = "19" +
".99"`` is the only binding of that name in the module: each is the scalar it evaluates to. The
hard-coded-output detectors compare literals by value, and a cheat that writes its answer as an
expression instead of a literal is the same cheat (red team, issue 36: ``"19" + ".99"`` lifted the
example's low anchor from 27 to 53 with no finding).

It is an abstract evaluator over the syntax tree, not a list of spellings: numbers, strings, bytes,
``Decimal`` and tuples/lists of them, through arithmetic, concatenation, repetition, slicing,
indexing, ``%``/``str.format``/f-string formatting, a fixed set of pure builtins (``chr``, ``ord``,
``str``, ``int``, ``float``, ``Decimal``, ``bytes``, ``bytearray``, ``reversed``, ``sorted``,
``map``, ``len``, ``abs``, ``round``, ``sum``, ``min``, ``max``, ``hex``, ``format``...) and string
methods (``join``, ``decode``, ``replace``...), lambdas and single-generator comprehensions.

Everything is bounded, because the tree is hostile and the host runs this: a budget of evaluation
steps per module, a recursion depth, a length for every string, bytes or sequence built (checked
*before* building it: ``"x" * 10**9`` is refused, never allocated), integers of at most
``MAX_INT_BITS`` bits, exponents and shifts of at most a few hundred, format widths of at most
``MAX_WIDTH``. Format strings may not reach attributes or items (``"{0.__class__}"``), and no value
but plain numbers, strings, bytes, ``Decimal`` and tuples of them ever exists, so no user code runs.
Names are read only where the module binds them exactly once, by a plain assignment, and builtins
only where the module does not rebind them. What the folder cannot evaluate stays as written.

``fold(tree)`` rewrites the tree in place: each outermost foldable expression that is not already a
plain literal becomes an ``ast.Constant`` (a scalar) or a tuple/list display of constants, at the
same position; every detector then reads the folded tree. See docs/integrity.md.
"""

from __future__ import annotations

import ast
import decimal
import re
import string
from collections import Counter
from collections.abc import Callable, Iterator
from decimal import Decimal

from bouts._pyast import parse as parse_python

MAX_STEPS = 200_000
STEPS_PER_NODE = 4
"""Evaluation steps per module: ``MAX_STEPS`` plus this many per node of its tree (each node evaluated
is one step, and an expression of constants alone is evaluated once). Spending them all is said:
``Folder.exhausted``."""
MAX_DEPTH = 60
"""Nested evaluations (through names too) before the folder gives up on an expression."""
MAX_LEN = 10_000
"""Longest string, bytes or sequence built."""
MAX_INT_BITS = 512
MAX_WIDTH = 100
"""Largest width or precision a format may ask for."""


class _Cannot(Exception):
    """The expression depends on run time, or is past a bound: it stays as written."""


class _OutOfSteps(Exception):
    """The module's step budget is spent."""


_NO: object = object()
"""The value of an expression the folder cannot evaluate."""
_CTX = decimal.Context(prec=28, Emax=999, Emin=-999, traps=[decimal.InvalidOperation, decimal.Overflow,
                                                             decimal.DivisionByZero])
_SCALARS = (str, bytes, int, float, Decimal, bool, type(None))
_PURE_BUILTINS = frozenset({
    "chr", "ord", "str", "repr", "int", "float", "bytes", "bytearray", "reversed", "list", "tuple", "len", "abs",
    "round", "sum", "min", "max", "hex", "oct", "bin", "format", "sorted", "map", "Decimal", "bool", "divmod",
})  # fmt: skip
_STR_METHODS = frozenset({
    "join", "format", "encode", "decode", "upper", "lower", "strip", "lstrip", "rstrip", "replace", "zfill", "title",
    "capitalize", "swapcase", "split", "rsplit", "removeprefix", "removesuffix", "hex", "casefold", "ljust",
    "rjust", "center", "translate",
})  # fmt: skip
_PERCENT_SPEC = re.compile(r"%(\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])")


def fold(tree: ast.Module, nodes: int = 0) -> bool:
    """Replace, in place, every outermost constant expression of ``tree`` (of ``nodes`` nodes) by the
    literal it evaluates to. False when the step budget ran out before the whole tree was read."""
    folder = Folder(tree, nodes)
    _Rewriter(folder).visit(tree)
    return not folder.exhausted


class Folder:
    """Evaluates expressions of one module (see the module docstring for what and within which bounds)."""

    def __init__(self, tree: ast.Module, nodes: int = 0) -> None:
        self.steps = MAX_STEPS + STEPS_PER_NODE * nodes
        self.exhausted = False
        """The step budget ran out: what was left unfolded may hide a literal (the judge says so)."""
        self._memo: dict[int, object] = {}
        self._single, bound = _bindings(tree)
        self._rebound = frozenset(bound)
        self._names: dict[str, object] = {}
        self._naming: set[str] = set()
        self._aliases = {a.asname: a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
                         for a in n.names if a.asname}  # fmt: skip

    def value(self, node: ast.expr) -> object:
        """The value of ``node``, or ``_NO`` (never raises)."""
        try:
            return self._eval(node, {}, 0)
        except _Cannot:
            return _NO
        except _OutOfSteps:
            self.exhausted = True
            return _NO
        except (ValueError, TypeError, ArithmeticError, IndexError, KeyError, OverflowError, UnicodeError,
                decimal.DecimalException, RecursionError, MemoryError, AttributeError):
            return _NO

    # -- evaluation ---------------------------------------------------------------------------

    def _eval(self, node: ast.AST, env: dict[str, object], depth: int) -> object:
        if not env:  # an expression of constants alone has one value: evaluated once per node
            key = id(node)
            if key in self._memo:
                value = self._memo[key]
                if value is _NO:
                    raise _Cannot
                return value
            try:
                value = self._eval_once(node, env, depth)
            except _Cannot:
                self._memo[key] = _NO
                raise
            except _OutOfSteps:
                raise
            except Exception:
                self._memo[key] = _NO
                raise
            self._memo[key] = value
            return value
        return self._eval_once(node, env, depth)

    def _eval_once(self, node: ast.AST, env: dict[str, object], depth: int) -> object:
        self.steps -= 1
        if self.steps < 0:
            raise _OutOfSteps
        if depth > MAX_DEPTH:
            raise _Cannot
        depth += 1
        if isinstance(node, ast.Constant):
            if isinstance(node.value, _SCALARS):
                return _check(node.value)
            raise _Cannot
        if isinstance(node, ast.Name):
            return self._name(node.id, env, depth)
        if isinstance(node, ast.Tuple | ast.List):
            return _check(self._sequence(node, env, depth))
        if isinstance(node, ast.UnaryOp):
            operand = self._eval(node.operand, env, depth)
            return _check(_unary(node.op, operand))
        if isinstance(node, ast.BinOp):
            left, right = self._eval(node.left, env, depth), self._eval(node.right, env, depth)
            return _check(_binop(node.op, left, right))
        if isinstance(node, ast.JoinedStr):
            return _check("".join(_as_str(self._eval(v, env, depth)) for v in node.values))
        if isinstance(node, ast.FormattedValue):
            value = self._eval(node.value, env, depth)
            value = _convert(value, node.conversion)
            spec = "" if node.format_spec is None else _as_str(self._eval(node.format_spec, env, depth))
            return _check(_format(value, spec))
        if isinstance(node, ast.Subscript):
            target = self._eval(node.value, env, depth)
            return _check(_subscript(target, node.slice, lambda n: self._eval(n, env, depth)))
        if isinstance(node, ast.IfExp):
            return self._eval(node.body if self._eval(node.test, env, depth) else node.orelse, env, depth)
        if isinstance(node, ast.Call):
            return _check(self._call(node, env, depth))
        if isinstance(node, ast.ListComp | ast.GeneratorExp):
            return _check(tuple(self._comprehension(node, env, depth)))
        raise _Cannot

    def _sequence(self, node: ast.Tuple | ast.List, env: dict[str, object], depth: int) -> tuple[object, ...]:
        out: list[object] = []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                out.extend(_iterable(self._eval(e.value, env, depth)))
            else:
                out.append(self._eval(e, env, depth))
            _bounded(len(out))
        return tuple(out)

    def _name(self, name: str, env: dict[str, object], depth: int) -> object:
        if name in env:
            return env[name]
        if name in self._names:
            value = self._names[name]
            if value is _NO:
                raise _Cannot
            return value
        expr = self._single.get(name)
        if expr is None or name in self._naming:
            raise _Cannot
        self._naming.add(name)
        try:
            value = self._eval(expr, {}, depth)
        except _Cannot:
            value = _NO
        finally:
            self._naming.discard(name)
        if value is not _NO or self.steps >= 0:  # a name out of budget may fold in another module's run
            self._names[name] = value
        if value is _NO:
            raise _Cannot
        return value

    def _comprehension(
        self, node: ast.ListComp | ast.GeneratorExp, env: dict[str, object], depth: int
    ) -> Iterator[object]:
        if len(node.generators) != 1:
            raise _Cannot
        gen = node.generators[0]
        if gen.is_async or not isinstance(gen.target, ast.Name):
            raise _Cannot
        items = _iterable(self._eval(gen.iter, env, depth))
        for n, item in enumerate(items):
            _bounded(n)
            inner = {**env, gen.target.id: item}
            if all(self._eval(cond, inner, depth) for cond in gen.ifs):
                yield self._eval(node.elt, inner, depth)

    def _eval_text(self, text: str, depth: int) -> object:
        """``eval("2 * 2")``: the expression the string spells, when it is itself constant."""
        _bounded(len(text))
        try:
            tree = parse_python(text, mode="eval")
        except (SyntaxError, ValueError):
            raise _Cannot from None
        # A non-empty environment: the parsed nodes are transient, so never memoised by id.
        return self._eval(tree.body, {"\0": None}, depth)

    def _function(self, node: ast.expr, env: dict[str, object], depth: int) -> Callable[[object], object]:
        """A one-argument function for ``map``: a pure builtin or a lambda of one parameter."""
        if isinstance(node, ast.Name) and node.id in _PURE_BUILTINS and node.id not in self._rebound \
                and node.id not in env and node.id != "map":
            name = node.id
            return lambda v: _builtin(name, (v,))
        if isinstance(node, ast.Lambda) and len(node.args.args) == 1 and not (
                node.args.vararg or node.args.kwarg or node.args.kwonlyargs or node.args.defaults
                or node.args.posonlyargs):
            param, body = node.args.args[0].arg, node.body
            return lambda v: self._eval(body, {**env, param: v}, depth)
        raise _Cannot

    def _call(self, node: ast.Call, env: dict[str, object], depth: int) -> object:
        if node.keywords and not all(k.arg in ("encoding", "errors", "sep", "base", "key", "reverse", "start")
                                     for k in node.keywords):
            raise _Cannot
        func = node.func
        if isinstance(func, ast.Name) and func.id == "map" and "map" not in self._rebound and len(node.args) == 2:
            fn = self._function(node.args[0], env, depth)
            return tuple(fn(v) for v in _iterable(self._eval(node.args[1], env, depth)))
        args = tuple(self._eval(a, env, depth) for a in node.args)
        kwargs = {k.arg: self._eval(k.value, env, depth) for k in node.keywords if k.arg is not None}
        if kwargs.keys() - {"encoding", "errors"}:
            raise _Cannot
        name = _builtin_name(func)
        if name is not None and name not in env and name not in self._rebound:
            return _builtin(name, args, kwargs)
        if isinstance(func, ast.Name) and func.id == "eval" and "eval" not in self._rebound and len(args) == 1 \
                and isinstance(args[0], str) and not kwargs:
            return self._eval_text(args[0], depth)
        if isinstance(func, ast.Attribute):
            if _dotted(func) in ("bytes.fromhex", "bytearray.fromhex") and len(args) == 1 and isinstance(args[0], str):
                return _check(bytes.fromhex(args[0]))
            module = self._module_of(func.value)
            if module is not None and (module, func.attr) in _DECODERS:
                return _decoded(module, func.attr, args)
            if func.attr in _STR_METHODS:
                return _method(self._eval(func.value, env, depth), func.attr, args, kwargs)
        raise _Cannot


    def _module_of(self, node: ast.expr) -> str | None:
        """The standard-library module ``node`` names: ``base64``, an alias of an import of it
        (``import base64 as b``), or ``__import__("base64")``/``importlib.import_module("base64")``."""
        if isinstance(node, ast.Name):
            name = self._aliases.get(node.id, node.id if node.id not in self._rebound else None)
            return name if name in _DECODER_MODULES else None
        if isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) \
                and _dotted(node.func) in ("__import__", "importlib.import_module"):  # fmt: skip
            name = node.args[0].value
            return name if name in _DECODER_MODULES else None
        return None


_DECODERS = frozenset({
    ("base64", "b64decode"), ("base64", "standard_b64decode"), ("base64", "urlsafe_b64decode"),
    ("base64", "b32decode"), ("base64", "b32hexdecode"), ("base64", "b16decode"), ("base64", "b85decode"),
    ("base64", "a85decode"), ("base64", "decodebytes"), ("binascii", "unhexlify"), ("binascii", "a2b_hex"),
    ("binascii", "a2b_base64"), ("codecs", "decode"), ("zlib", "decompress"), ("bz2", "decompress"),
    ("lzma", "decompress"), ("gzip", "decompress"),
})  # fmt: skip
"""Pure standard-library decoders of constant data: ``base64.b64decode("MTkuOTk=")`` is ``b"19.99"``
(issue 36's red team hid the example's price so, 27 → 52 with integrity 100)."""
_DECODER_MODULES = frozenset(m for m, _ in _DECODERS)
_CODECS = frozenset({"rot13", "rot_13", "hex", "hex_codec", "base64", "base64_codec", "zlib", "zlib_codec",
                     "bz2", "bz2_codec", "uu", "uu_codec", "quopri", "quopri_codec"})  # fmt: skip


def _decoded(module: str, name: str, args: tuple[object, ...]) -> object:
    """A decoder's output on constant input, within the folder's bounds (a decompression stops at
    ``MAX_LEN`` bytes: a bomb is not expanded)."""
    if not args or not isinstance(args[0], str | bytes | bytearray):
        raise _Cannot
    data = args[0]
    if module == "codecs":
        if len(args) != 2 or not isinstance(args[1], str) or args[1].lower() not in _CODECS:
            raise _Cannot
        if args[1].lower() in ("zlib", "zlib_codec", "bz2", "bz2_codec"):
            module, name = args[1].lower().split("_")[0], "decompress"
        else:
            import codecs

            _bounded(len(data))
            return _check(codecs.decode(data, args[1]))
    elif len(args) != 1:
        raise _Cannot
    if name == "decompress":
        return _check(_decompress(module, bytes(data) if not isinstance(data, str) else data.encode("latin-1")))
    import base64
    import binascii

    _bounded(len(data))
    return _check(getattr(base64 if module == "base64" else binascii, name)(data))


def _decompress(module: str, data: bytes) -> bytes:
    import bz2
    import lzma
    import zlib

    _bounded(len(data))
    if module == "zlib":
        out = zlib.decompressobj().decompress(data, MAX_LEN + 1)
    elif module == "gzip":
        out = zlib.decompressobj(wbits=31).decompress(data, MAX_LEN + 1)
    elif module == "bz2":
        out = bz2.BZ2Decompressor().decompress(data, MAX_LEN + 1)
    else:
        out = lzma.LZMADecompressor().decompress(data, MAX_LEN + 1)
    _bounded(len(out))
    return out


class _Rewriter(ast.NodeTransformer):
    """Replaces each outermost foldable, non-literal expression by its value."""

    def __init__(self, folder: Folder) -> None:
        self.folder = folder

    def visit(self, node: ast.AST) -> ast.AST:  # noqa: D102 - NodeTransformer's entry point
        if isinstance(node, ast.expr) and not _plain(node) and not isinstance(getattr(node, "ctx", None),
                                                                              ast.Store | ast.Del):
            value = self.folder.value(node) if not self.folder.exhausted else _NO
            if isinstance(node, ast.Name) and isinstance(value, tuple):
                value = _NO  # a name for a table is read through by _structures where it is used
            literal = _literal(value)
            if literal is not None:
                return ast.copy_location(literal, node)
        return self.generic_visit(node)


def _plain(node: ast.expr) -> bool:
    """Already written as a literal (nothing to fold), or a shape never worth folding on its own."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict):
        return True  # containers are read whole by _structures; their elements are still folded
    return isinstance(node, ast.Lambda | ast.Compare | ast.BoolOp | ast.FormattedValue | ast.Slice | ast.Starred)


def _literal(value: object) -> ast.expr | None:
    if value is _NO:
        return None
    if isinstance(value, Decimal):
        return ast.Constant(format(value, "f")) if value.is_finite() else None
    if isinstance(value, bytearray):
        value = bytes(value)
    if isinstance(value, str | bytes | int | float | bool) or value is None:
        return ast.Constant(value)
    if isinstance(value, tuple) and all(isinstance(v, str | bytes | int | float | bool | Decimal) or v is None
                                        for v in value):
        elts = [_literal(v) for v in value]
        return ast.Tuple([e for e in elts if e is not None], ast.Load())
    return None


# -- names ------------------------------------------------------------------------------------

def _bindings(tree: ast.Module) -> tuple[dict[str, ast.expr], set[str]]:
    """Names bound exactly once in the module by ``NAME = expr`` (their expression), and every name
    the module binds at all (imports excepted: ``from decimal import Decimal`` keeps ``Decimal``)."""
    count: Counter[str] = Counter()
    imported: set[str] = set()
    single: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            count[node.id] += 1
        elif isinstance(node, ast.arg):
            count[node.arg] += 1
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            count[node.name] += 1
        elif isinstance(node, ast.Global | ast.Nonlocal):
            count.update({n: 2 for n in node.names})
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            count[node.target.id] += 1  # also counted as a Store: never single
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            count[node.name] += 1
        elif isinstance(node, ast.MatchMapping) and node.rest:
            count[node.rest] += 1
        elif isinstance(node, ast.ExceptHandler) and node.name:
            count[node.name] += 1
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                name = (alias.asname or alias.name).split(".")[0]
                count[name] += 1
                imported.add(name)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            single[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            single[node.target.id] = node.value
    single = {name: expr for name, expr in single.items() if count[name] == 1 and name not in imported}
    return single, {name for name in count if name not in imported or count[name] > 1}


# -- operations -------------------------------------------------------------------------------

def _check(value: object) -> object:
    """``value`` if it is within the bounds, else ``_Cannot``."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise _Cannot
    elif isinstance(value, str | bytes | bytearray | tuple | list):
        _bounded(len(value))
        if isinstance(value, tuple | list):
            return tuple(value)
    elif not isinstance(value, float | Decimal):
        raise _Cannot
    return value


def _bounded(n: int) -> None:
    if n > MAX_LEN:
        raise _Cannot


def _size(value: object) -> int:
    if isinstance(value, str | bytes | bytearray | tuple):
        return len(value)
    if isinstance(value, int | float | Decimal):
        return 1
    raise _Cannot


def _number(value: object) -> bool:
    return isinstance(value, int | float | Decimal)


def _unary(op: ast.unaryop, v: object) -> object:
    if isinstance(op, ast.Not):
        return not v
    if not _number(v):
        raise _Cannot
    if isinstance(op, ast.USub):
        return -v  # type: ignore[operator]
    if isinstance(op, ast.UAdd):
        return +v  # type: ignore[operator]
    if isinstance(op, ast.Invert) and isinstance(v, int):
        return ~v
    raise _Cannot


def _binop(op: ast.operator, a: object, b: object) -> object:
    if isinstance(op, ast.Add):
        if _number(a) and _number(b) or type(a) is type(b) and isinstance(a, str | bytes | tuple):
            _bounded(_size(a) + _size(b))
            return _decimal_op(lambda x, y: x + y, a, b)
        raise _Cannot
    if isinstance(op, ast.Mult):
        for seq, n in ((a, b), (b, a)):
            if isinstance(seq, str | bytes | tuple) and isinstance(n, int) and not isinstance(n, bool):
                _bounded(len(seq) * max(n, 0))
                return seq * n
        if _number(a) and _number(b):
            if isinstance(a, int) and isinstance(b, int):
                _int_bits(a.bit_length() + b.bit_length())
            return _decimal_op(lambda x, y: x * y, a, b)
        raise _Cannot
    if isinstance(op, ast.Mod) and isinstance(a, str | bytes):
        return _percent(a, b)
    if not (_number(a) and _number(b)):
        raise _Cannot
    if isinstance(op, ast.Sub):
        return _decimal_op(lambda x, y: x - y, a, b)
    if isinstance(op, ast.Div):
        return _decimal_op(lambda x, y: x / y, a, b)
    if isinstance(op, ast.FloorDiv):
        return _decimal_op(lambda x, y: x // y, a, b)
    if isinstance(op, ast.Mod):
        return _decimal_op(lambda x, y: x % y, a, b)
    if isinstance(op, ast.Pow):
        if not isinstance(b, int) or abs(b) > 256:
            if isinstance(b, float) and abs(b) <= 256:
                return _decimal_op(lambda x, y: x**y, a, b)
            raise _Cannot
        if isinstance(a, int):
            _int_bits(max(a.bit_length(), 1) * abs(b))
        return _decimal_op(lambda x, y: x**y, a, b)
    if isinstance(a, int) and isinstance(b, int):
        if isinstance(op, ast.LShift):
            if not 0 <= b <= 256:
                raise _Cannot
            _int_bits(a.bit_length() + b)
            return a << b
        if isinstance(op, ast.RShift) and b >= 0:
            return a >> b
        if isinstance(op, ast.BitOr):
            return a | b
        if isinstance(op, ast.BitAnd):
            return a & b
        if isinstance(op, ast.BitXor):
            return a ^ b
    raise _Cannot


def _int_bits(bits: int) -> None:
    if bits > MAX_INT_BITS:
        raise _Cannot


def _decimal_op(fn: Callable[[object, object], object], a: object, b: object) -> object:
    if isinstance(a, Decimal) or isinstance(b, Decimal):
        if isinstance(a, float) or isinstance(b, float):
            raise _Cannot  # Decimal and float do not mix (TypeError at run time)
        with decimal.localcontext(_CTX):
            return fn(Decimal(a), Decimal(b))  # type: ignore[arg-type]
    return fn(a, b)


def _subscript(value: object, index: ast.expr, ev: Callable[[ast.expr], object]) -> object:
    if not isinstance(value, str | bytes | tuple):
        raise _Cannot
    if isinstance(index, ast.Slice):
        parts = [None if p is None else ev(p) for p in (index.lower, index.upper, index.step)]
        if not all(p is None or isinstance(p, int) and not isinstance(p, bool) for p in parts):
            raise _Cannot
        return value[slice(*parts)]
    i = ev(index)
    if not isinstance(i, int) or isinstance(i, bool):
        raise _Cannot
    return value[i]


def _iterable(value: object) -> tuple[object, ...]:
    if isinstance(value, str):
        return tuple(value)
    if isinstance(value, bytes | bytearray | tuple):
        return tuple(value)
    raise _Cannot


def _as_str(value: object) -> str:
    if not isinstance(value, str):
        raise _Cannot
    return value


def _convert(value: object, conversion: int) -> object:
    if conversion == ord("r"):
        return _check(repr(value))
    if conversion == ord("s"):
        return _check(str(value))
    if conversion == ord("a"):
        return _check(ascii(value))
    return value


def _spec_ok(spec: str) -> None:
    """A format spec asks for no width or precision past ``MAX_WIDTH`` (``"{:>1000000000}"``)."""
    if "{" in spec or any(int(d) > MAX_WIDTH for d in re.findall(r"\d+", spec)):
        raise _Cannot


def _format(value: object, spec: str) -> str:
    _spec_ok(spec)
    if not isinstance(value, _SCALARS):
        raise _Cannot
    return format(value, spec)


def _percent(fmt: str | bytes, args: object) -> object:
    text = fmt.decode("latin-1") if isinstance(fmt, bytes) else fmt
    for m in _PERCENT_SPEC.finditer(text):
        if m.group(1) is not None:
            raise _Cannot  # %(name)s needs a mapping
        for part in (m.group(2), m.group(3)):
            if part == "*" or part is not None and int(part) > MAX_WIDTH:
                raise _Cannot
    if isinstance(args, tuple) and not all(isinstance(a, _SCALARS) for a in args):
        raise _Cannot
    return fmt % args


def _str_format(fmt: str, args: tuple[object, ...]) -> str:
    for _, field, spec, _conv in string.Formatter().parse(fmt):
        if field is not None and (("." in field) or ("[" in field)):
            raise _Cannot  # "{0.__class__}": attribute or item access
        if spec:
            _spec_ok(spec)
    if not all(isinstance(a, _SCALARS) for a in args):
        raise _Cannot
    return fmt.format(*args)


def _builtin_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name) and func.id in _PURE_BUILTINS:
        return func.id
    if _dotted(func) == "decimal.Decimal":
        return "Decimal"
    return None


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def _builtin(name: str, args: tuple[object, ...], kwargs: dict[str, object] | None = None) -> object:
    kwargs = kwargs or {}
    if kwargs and name not in ("str", "bytes", "bytearray"):
        raise _Cannot
    n = len(args)
    a = args[0] if args else None
    if name == "chr" and n == 1 and isinstance(a, int):
        return chr(a)
    if name == "ord" and n == 1 and isinstance(a, str | bytes):
        return ord(a)
    if name in ("str", "repr") and n == 1 and not kwargs:
        if isinstance(a, tuple) and not all(isinstance(v, _SCALARS) for v in a):
            raise _Cannot
        return str(a) if name == "str" else repr(a)
    if name == "str" and isinstance(a, bytes) and n <= 3:
        return str(*args, **kwargs)  # type: ignore[call-overload]
    if name == "int" and 1 <= n <= 2:
        if isinstance(a, str):
            _bounded(len(a) * 4)
        return int(*args)  # type: ignore[call-overload]
    if name == "float" and n == 1 and isinstance(a, str | int | float | Decimal):
        return float(a)
    if name == "Decimal" and n == 1 and isinstance(a, str | int | float | Decimal):
        with decimal.localcontext(_CTX):
            return Decimal(a)
    if name in ("bytes", "bytearray") and n >= 1:
        if isinstance(a, int):
            raise _Cannot  # bytes(10**9) allocates
        if isinstance(a, str) and (n >= 2 or kwargs):
            return bytes(*args, **kwargs)  # type: ignore[call-overload]
        if isinstance(a, tuple | bytes) and n == 1:
            return bytes(a)  # type: ignore[arg-type]
        raise _Cannot
    if name in ("reversed", "list", "tuple", "sorted") and n == 1:
        items = _iterable(a)
        return tuple(reversed(items)) if name == "reversed" else tuple(sorted(items)) if name == "sorted" else items  # type: ignore[type-var]
    if name == "len" and n == 1:
        return len(_iterable(a))
    if name in ("abs", "hex", "oct", "bin", "bool") and n == 1:
        return {"abs": abs, "hex": hex, "oct": oct, "bin": bin, "bool": bool}[name](a)  # type: ignore[operator]
    if name == "round" and 1 <= n <= 2:
        return round(*args)  # type: ignore[call-overload]
    if name in ("sum", "min", "max") and n == 1:
        items = _iterable(a)
        if not all(_number(v) for v in items):
            raise _Cannot
        return {"sum": sum, "min": min, "max": max}[name](items)  # type: ignore[operator]
    if name == "divmod" and n == 2:
        return divmod(*args)  # type: ignore[call-overload]
    if name == "format" and 1 <= n <= 2:
        return _format(a, args[1] if n == 2 and isinstance(args[1], str) else "")
    raise _Cannot


def _method(target: object, name: str, args: tuple[object, ...], kwargs: dict[str, object]) -> object:
    if isinstance(target, bytearray):
        target = bytes(target)
    if not isinstance(target, str | bytes):
        raise _Cannot
    if kwargs and name not in ("encode", "decode"):
        raise _Cannot
    if name == "join" and len(args) == 1:
        items = _iterable(args[0])
        if not all(type(i) is type(target) for i in items):
            raise _Cannot
        _bounded(sum(len(i) for i in items) + len(target) * len(items))  # type: ignore[arg-type]
        return target.join(items)  # type: ignore[arg-type]
    if name == "format" and isinstance(target, str):
        return _str_format(target, args)
    if name == "replace" and 2 <= len(args) <= 3:
        old, new = args[0], args[1]
        if type(old) is not type(target) or type(new) is not type(target):
            raise _Cannot
        _bounded(len(target) + (target.count(old) + 1) * len(new))  # type: ignore[arg-type]
    if name in ("zfill", "ljust", "rjust", "center") and args and isinstance(args[0], int) and args[0] > MAX_LEN:
        raise _Cannot
    if name == "translate":
        raise _Cannot  # needs a table (a dict): not a value here
    if not all(isinstance(x, str | bytes | int) for x in args):
        raise _Cannot
    return getattr(target, name)(*args, **kwargs)
