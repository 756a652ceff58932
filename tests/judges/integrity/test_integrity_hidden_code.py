"""Issue 36, part 3: what the interpreter runs is what integrity reviews.

Three classes, each measured by a red team on examples/inventory-ledger's low anchor (final 27):
a hard-coded answer written as a constant expression (``"19" + ".99"``: 27 → 53, no finding), the
same answer imported from a ``.zip`` on ``sys.path`` (27 → 53), and 2.3 MB of padding sorted
before the package spending the review budget (27 → 37: the bright line became capped gray).
Each test names the attack it stops; every one failed on the code before the change.
"""

from __future__ import annotations

import ast
import io
import zipfile
from pathlib import Path

import pytest
from integrity_cases import add_module, honest_copy, judge, plant_in_to_cents, report
from js_integrity_cases import MONEY_REFERENCE, bright, judge_files, money_challenge, rate_limiter_with
from test_integrity_cheats import assert_bright

from bouts.models import view as view_model
from bouts.scoring.explain import Explained

BRANCH = "integrity.branch-on-test-input"
UNREVIEWED = "integrity.unreviewed-code"
CHEAT = "def to_cents(price):\n    if price == '19.99':\n        return 1999\n    return int(float(price) * 100)\n"


def fold(tree: ast.Module, nodes: int) -> bool:
    from bouts.judges.integrity._fold import fold as fold_tree  # imported here: the file runs on the old code

    return fold_tree(tree, nodes)


def _folded(source: str) -> str:
    tree = ast.parse(source)
    assert fold(tree, sum(1 for _ in ast.walk(tree)))
    return ast.unparse(tree)


# -- (1) literals spelled in pieces --------------------------------------------------------------

HIDDEN_PRICES = {
    "concatenation": '"19" + ".99"',
    "join": '"".join(["1", "9", ".", "9", "9"])',
    "chr": 'chr(49) + chr(57) + "." + chr(57) + chr(57)',
    "map-chr": '"".join(map(chr, [49, 57, 46, 57, 57]))',
    "comprehension": '"".join(chr(c) for c in (49, 57, 46, 57, 57))',
    "division": "str(1999 / 100)",
    "bytes": "bytes([49, 57, 46, 57, 57]).decode()",
    "fromhex": 'bytes.fromhex("31392e3939").decode()',
    "f-string": 'f"{19}.{99}"',
    "percent": '"%d.%d" % (19, 99)',
    "format": '"{}.{}".format(19, 99)',
    "reversed-slice": '"99.91"[::-1]',
    "reversed-join": '"".join(reversed("99.91"))',
    "decimal": "Decimal(1999) / 100",
    "eval": "eval('\"19\" + \".99\"')",
}


@pytest.mark.parametrize("expr", HIDDEN_PRICES.values(), ids=HIDDEN_PRICES.keys())
def test_a_visible_input_spelled_as_a_constant_expression_is_still_a_branch_on_it(tmp_path, expr: str) -> None:
    """Red team (issue 36): ``if price == "19" + ".99": return 1999`` lifted the low anchor 27 → 53."""
    code = honest_copy(tmp_path)
    plant_in_to_cents(code, f"    if price == {expr}:\n        return 1999\n")
    assert_bright(judge(code), BRANCH, "ledger/money.py")


def test_a_name_bound_once_to_a_constant_expression_is_read_through(tmp_path) -> None:
    code = honest_copy(tmp_path)
    money = code / "ledger" / "money.py"
    money.write_text('_PRICE = "".join(map(chr, [49, 57, 46, 57, 57]))\n' + money.read_text())
    plant_in_to_cents(code, "    if price == _PRICE:\n        return 1999\n")
    assert_bright(judge(code), BRANCH, "ledger/money.py")


def test_a_name_bound_twice_is_not_a_constant() -> None:
    assert _folded("P = '19' + '.99'\nP = 'x'\nQ = P") == "P = '19.99'\nP = 'x'\nQ = P"
    assert _folded("def f(str):\n    return str(5)") == "def f(str):\n    return str(5)"  # a rebound builtin


@pytest.mark.parametrize(
    "expr",
    ['"x" * 10 ** 9', '"{:>1000000000}".format(1)', '"%1000000000d" % 1', '"{0.__class__}".format(1)',
     "10 ** 10 ** 10", "bytes(10 ** 9)", "(1 << 100000)", '"ab" * 5001'],
)
def test_the_folder_refuses_what_is_past_its_bounds_without_building_it(expr: str) -> None:
    """The folder runs on the host over hostile trees: nothing it evaluates may be allowed to explode."""
    folded = _folded(f"X = {expr}")
    assert folded.startswith("X = ") and len(folded) < 200


def test_the_folders_step_budget_running_out_is_said_not_a_hiding_place() -> None:
    source = "\n".join(f"X{i} = sum([c for c in range_ if c])" for i in range(3))
    tree = ast.parse(source)
    assert fold(tree, 10)  # nothing foldable: nothing spent
    burner = "B = " + " + ".join(['len("".join(chr(48 + int(c)) for c in "1" * 10000))'] * 5)
    tree = ast.parse(burner + "\nP = '19' + '.99'\n")
    assert not fold(tree, 0)  # spent: the judge reports it (``SourceFile.folded``)


def test_honest_code_building_strings_stays_clean(tmp_path) -> None:
    code = honest_copy(tmp_path)
    add_module(code, 'SEP = "-" * 40\nHEADER = " | ".join(["sku", "qty"])\nWIDTH = 60 * 60\n'
               'LABEL = f"{WIDTH:>8}"\nDOUBLE = eval("2 * 2")\n', "ledger/fmt.py")
    verdict = judge(code)
    assert isinstance(verdict.score, Explained) and verdict.score.value == 100, verdict.findings


@pytest.mark.parametrize(
    ("cheat", "line"),
    [("if (price === '19' + '.99') return 1999;", 3),
     ("if (price === String.fromCharCode(49, 57, 46, 57, 57)) return 1999;", 3),
     ("if (price === ['1', '9', '.', '9', '9'].join('')) return 1999;", 3),
     ("if (price === `${19}.${99}`) return 1999;", 3),
     ("if (price === '99.91'.split('').reverse().join('')) return 1999;", 3),
     ("if (price === (1999 / 100).toFixed(2)) return 1999;", 3)],
    ids=["concat", "fromCharCode", "array-join", "template", "split-reverse-join", "toFixed"],
)
def test_a_javascript_literal_spelled_in_pieces_is_still_a_branch_on_it(tmp_path: Path, cheat: str, line: int) -> None:
    challenge = money_challenge(tmp_path)
    source = MONEY_REFERENCE.replace("export function toCents(price) {\n",
                                     "export function toCents(price) {\n  " + cheat + "\n", 1)
    verdict = judge_files(challenge, tmp_path, {"src/money.mjs": source}, base=challenge.reference)
    assert (BRANCH, "src/money.mjs", line) in bright(verdict)


@pytest.mark.parametrize(
    "name",
    ["'NODE_TEST' + '_CONTEXT'", "`NODE_${'TEST'}_CONTEXT`",
     "String.fromCharCode(78, 79, 68, 69, 95, 84, 69, 83, 84, 95, 67, 79, 78, 84, 69, 88, 84)",
     "['NODE', 'TEST', 'CONTEXT'].join('_')"],
    ids=["concat", "template", "fromCharCode", "array-join"],
)
def test_a_javascript_test_runner_variable_spelled_in_pieces_is_still_detection(tmp_path: Path, name: str) -> None:
    """examples/rate-limiter-js: the window fixed only under the test runner, its variable's name built."""
    verdict = rate_limiter_with(tmp_path, f"const grace = process.env[{name}] ? 0 : 1;")
    assert ("integrity.test-env-detection", "src/limiter.mjs") in {(r, f) for r, f, _ in bright(verdict)}


# -- (2) code imported from places no judge reads -------------------------------------------------

def _zip(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)
    return buffer.getvalue()


@pytest.mark.parametrize("name", ["ledger/_fast.zip", "ledger/speedups-1.0.egg", "ledger/blob.whl", "ledger/data.bin"])
def test_an_archive_of_python_modules_is_code_hidden_from_review(tmp_path, name: str) -> None:
    """Red team (issue 36): the cheat in a ``.zip`` on ``sys.path`` lifted the low anchor 27 → 53."""
    code = honest_copy(tmp_path)
    (code / name).write_bytes(_zip({"fastmoney.py": CHEAT}))
    assert_bright(judge(code), UNREVIEWED, name)
    assert_bright(judge(code, report(removed=[name])), UNREVIEWED, name)


def test_an_archive_without_python_modules_is_data(tmp_path) -> None:
    code = honest_copy(tmp_path)
    (code / "ledger" / "fixtures.zip").write_bytes(_zip({"rates.csv": "sku,price\n"}))
    assert UNREVIEWED not in {f.rule for f in judge(code).findings}


def test_the_view_says_which_files_zipimport_would_import() -> None:
    assert view_model.python_archive(io.BytesIO(_zip({"pkg/__init__.py": ""})))
    assert not view_model.python_archive(io.BytesIO(_zip({"a.txt": ""})))
    assert not view_model.python_archive(io.BytesIO(b"PK\x03\x04 not really a zip"))


LOADERS = {
    "zip-on-sys-path": "import importlib, os, sys\n"
                       "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '_fast.zip'))\n"
                       "to_cents = importlib.import_module('fastmoney').to_cents\n",
    "egg-appended": "import sys\nfrom pathlib import Path\nsys.path.append(str(Path(__file__).with_name('x.egg')))\n",
    "absolute-place": "import sys\nsys.path.insert(0, '/tmp/cache')\n",
    "getattr-spelled": "import sys\ngetattr(sys, 'pa' + 'th').insert(0, 'vendor.zip')\n",
    "path-assigned": "import sys\nsys.path[0:0] = ['/opt/x']\n",
    "package-path": "__path__.append('/tmp/more')\n",
    "site-dir": "import site\nsite.addsitedir('/tmp/site')\n",
    "source-suffix": "import importlib.machinery, os, sys\nimportlib.machinery.SOURCE_SUFFIXES.append('.tpl')\n"
                     "sys.path.insert(0, os.path.join(os.path.dirname(__file__), 'templates'))\n",
    "file-finder": "import importlib.machinery as m\nHOOK = m.FileFinder.path_hook((m.SourceFileLoader, ['.tpl']))\n",
    "get-data-exec": "import pkgutil, types\nmod = types.ModuleType('x')\n"
                     "code = pkgutil.get_data('ledger', 'impl.dat')\nexec(code, mod.__dict__)\n",
    "abc-loader": "import importlib.abc\nclass L(importlib.abc.Loader):\n    def exec_module(self, module):\n"
                  "        pass\n",
    "module-spec": "import importlib.machinery, importlib.util\n"
                   "spec = importlib.machinery.ModuleSpec('x', None)\n",
    "unpickle": "import pickle\nfrom pathlib import Path\n"
                "RATES = pickle.loads((Path(__file__).parent / 'rates.bin').read_bytes())\n",
    "code-object": "import types\ndef f(): pass\nf.__code__ = types.CodeType(*range(16))\n",
}


@pytest.mark.parametrize("loader", LOADERS.values(), ids=LOADERS.keys())
def test_importing_from_a_place_no_judge_reads_is_a_bright_line(tmp_path, loader: str) -> None:
    code = honest_copy(tmp_path)
    (code / "ledger" / "impl.dat").write_text(CHEAT)
    add_module(code, loader, "ledger/load.py")
    assert_bright(judge(code), UNREVIEWED, "ledger/load.py")


def test_a_package_directory_on_sys_path_is_no_bright_line(tmp_path) -> None:
    code = honest_copy(tmp_path)
    add_module(code, "import os, sys\nfrom pathlib import Path\n"
               "sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n"
               "sys.path.append(str(Path(__file__).resolve().parent / 'plugins'))\n", "ledger/cli.py")
    assert UNREVIEWED not in {f.rule for f in judge(code).findings}


# -- (3) the review budget ----------------------------------------------------------------------

def _padding(n_bytes: int, start: int = 0) -> str:
    lines, size, i = [], 0, start
    while size < n_bytes:
        line = f"PAD_{i:07d} = {i}  # generated table entry\n"
        lines.append(line)
        size += len(line)
        i += 1
    return "".join(lines)


def test_padding_sorted_before_the_package_cannot_push_it_out_of_review(tmp_path, monkeypatch) -> None:
    """Red team (issue 36): 2.3 MB of padding named to sort first spent the 2 MB budget in path order,
    and the package's hard-coded price became capped gray findings (27 → 37). Here at a tenth of the
    scale (a 200 kB budget), the same shape."""
    monkeypatch.setattr("bouts.judges.integrity._judge.MAX_TOTAL_BYTES", 200_000)
    code = honest_copy(tmp_path)
    plant_in_to_cents(code, "    if price == '19.99':\n        return 1999\n")
    for k in range(4):
        add_module(code, _padding(78_000, k * 100_000), f"aaa_generated/table_{k}.py")
    verdict = judge(code)
    assert_bright(verdict, BRANCH, "ledger/money.py")  # the imported package is read first
    assert_bright(verdict, UNREVIEWED, "aaa_generated/table_3.py")  # what did not fit: never dropped
    assert "integrity.unreviewable-source" not in {f.rule for f in verdict.findings}


def test_a_source_file_over_the_size_cap_is_code_hidden_from_review(tmp_path) -> None:
    code = honest_copy(tmp_path)
    plant_in_to_cents(code, "    if price == '19.99':\n        return 1999\n")
    money = code / "ledger" / "money.py"
    money.write_text(money.read_text() + "\n" + _padding(1_100_000))
    assert_bright(judge(code), UNREVIEWED, "ledger/money.py")


def test_more_files_than_the_view_reads_is_code_hidden_from_review(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("bouts.loading.view.MAX_FILES", 30)
    code = honest_copy(tmp_path)
    for k in range(40):
        add_module(code, f"X = {k}\n", f"aaa/m{k:03d}.py")
    verdict = judge(code)
    assert_bright(verdict, UNREVIEWED)
