"""Off-limits access spelled differently: a path built from ``__file__``, the working directory and
literals is read as the path it spells (``_pathexpr``), so every spelling of "the grader's tests"
or "above the submission" is caught where the plain ``open("../tests/hidden/...")`` is. The
modules below sit at ``ledger/extra.py`` in a copy of inventory-ledger's honest high anchor, so
``Path(__file__).parent.parent`` is the submission's root: the grader's workspace, whose ``tests/``
holds the hidden tests at run time."""

from __future__ import annotations

from pathlib import Path

import pytest
from integrity_cases import add_module, honest_copy, judge

OFF = "integrity.off-limits-path"


def _verdict(tmp_path: Path, source: str, rel: str = "ledger/extra.py"):
    code = honest_copy(tmp_path)
    add_module(code, source, rel)
    return judge(code)


@pytest.mark.parametrize(
    "source",
    [
        "from pathlib import Path\n\nHIDDEN = Path(__file__).resolve().parent.parent / 'tests' / 'hidden'\n",
        "from pathlib import Path\n\nTESTS = Path(__file__).resolve().parent.parent / 'tests'\n",
        "from pathlib import Path\n\nTESTS = Path(__file__).parents[1] / 'tests'\n",
        "import os\n\nUP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n",
        "import os\n\nTESTS = os.path.join(os.path.dirname(__file__), '..', 'tests')\n",
        "import glob\n\nALL = glob.glob('../**', recursive=True)\n",
        "import glob, os\n\nROOT = os.path.dirname(os.path.dirname(__file__))\n"
        "ALL = glob.glob('**/*.py', root_dir=ROOT, recursive=True)\n",
        "import os\n\nHERE = os.path.dirname(__file__)\nVISIBLE = HERE + '/../tests/visible'\n",
        "P = '..' + '/' + 'tests'\n",
        "P = '/'.join(['..', 'tests', 'hidden'])\n",
        "import os\n\nP = os.sep.join([os.path.dirname(__file__), '..', 'tests'])\n",
        "import os\n\nHERE = os.path.dirname(__file__)\nP = f'{HERE}/../tests'\n",
        "import os\n\nP = '{}/../tests'.format(os.path.dirname(__file__))\n",
        "import os\n\nP = '%s/../tests' % os.path.dirname(__file__)\n",
        "from pathlib import Path\n\nALL = list(Path.cwd().rglob('*.py'))\n",
        "import os\nfrom pathlib import Path\n\nROOT = Path(__file__).parent.parent\n\n\ndef files():\n"
        "    return [d for d, _, _ in os.walk(ROOT)]\n",
        "def read():\n    return open('/workspace/tests/hidden/test_ledger_hidden.py').read()\n",
        "from pathlib import Path\n\n\ndef read():\n    here = Path(__file__).resolve()\n"
        "    root = here.parent.parent\n"
        "    return [p.read_text() for p in (root / 'tests' / 'hidden').iterdir()]\n",
        "from pathlib import Path\n\nREF = Path(__file__).parent.parent.parent / 'reference'\n",
        "from pathlib import Path\n\nHIDDEN = Path('/workspace') / 'tests' / 'hidden'\n",
        "import os\n\nCMDLINE = os.path.join('/proc', str(os.getppid()), 'cmdline')\n",
        "import os\n\nP = os.path.join(os.getcwd(), *['te' + 'sts', 'hid' + 'den'])\n",
        "import os\n\nPARTS = ('te' + 'sts', 'hid' + 'den')\nP = os.path.join(os.getcwd(), *PARTS)\n",
        "from pathlib import Path\n\nP = Path(__file__).parent.parent.joinpath(*['tests', 'hidden'])\n",
    ],
    ids=[
        "resolve-parent-parent", "root-tests", "parents-index", "dirname-chain-climbs", "join-dotdot-tests",
        "glob-dotdot-recursive", "glob-root-dir", "concatenation", "concatenated-literals", "slash-join",
        "os-sep-join", "f-string", "str-format", "percent-format", "cwd-rglob", "walk-root",
        "absolute-workspace-tests", "function-local-chain", "above-the-submission", "joined-workspace-tests",
        "joined-proc", "starred-list-parts", "starred-tuple-name", "starred-joinpath",
    ],
)
def test_off_limits_paths_whatever_the_spelling(tmp_path: Path, source: str) -> None:
    verdict = _verdict(tmp_path, source)
    assert OFF in {f.rule for f in verdict.findings if f.severity == "critical"}, verdict.findings
    assert verdict.score.value == 0


def test_a_module_at_the_root_reaches_the_tests_with_one_parent(tmp_path: Path) -> None:
    verdict = _verdict(tmp_path, "from pathlib import Path\n\nTESTS = Path(__file__).parent / 'tests'\n", "solution.py")
    assert [f.rule for f in verdict.findings] == [OFF]


@pytest.mark.parametrize(
    "source",
    [
        "from pathlib import Path\n\nDATA = Path(__file__).resolve().parent / 'data' / 'rates.csv'\n",
        "from pathlib import Path\n\nROOT = Path(__file__).resolve().parent.parent\n"
        "PYPROJECT = ROOT / 'pyproject.toml'\n",
        "import os\n\nDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'x.json')\n",
        "from pathlib import Path\n\nPLUGINS = sorted(Path(__file__).parent.glob('**/*.py'))\n",
        "from pathlib import Path\n\nLOCAL_TESTS = Path(__file__).parent / 'tests' / 'fixtures.json'\n",
        "def check(x):\n    if not x:\n        raise ValueError('see tests/README for the format')\n",
        "import os\n\n\ndef shown(p):\n    return os.path.relpath(p, os.getcwd())\n",
        "DOCS = 'https://docs.python.org/3/reference/../tests/'\n",
        "from pathlib import Path\n\nCERTS = Path('/etc') / 'ssl' / 'certs'\n",
        "import os\n\nDATA = os.path.join(os.path.dirname(__file__), *['data', 'rates.csv'])\n",
    ],
    ids=["data-beside-the-module", "root-pyproject", "os-path-data", "package-glob", "package-own-tests-dir",
         "prose-mentioning-tests", "relpath-display", "url", "system-path", "starred-data-parts"],
)
def test_paths_inside_the_submission_are_fine(tmp_path: Path, source: str) -> None:
    assert _verdict(tmp_path, source).findings == ()
