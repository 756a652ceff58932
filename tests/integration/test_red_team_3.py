"""Red team of 2026-12-03 (third round): new classes of attack that the engine stops, each scored
end to end through ``bouts.score`` in the bubblewrap sandbox and compared with the honest wrong
solution it started from (the inventory-ledger starter with the low anchor's cancel "fix").

- silencing the security scanners with ``# nosec`` / ``# noqa`` / ``# nosemgrep`` on the finding's line;
- resource attacks that try to turn a low score into no score (an infrastructure failure): a fork
  bomb at import, an output flood from every call, files written into the workspace during tests;
- a strong ROOT_CAUSE.md pasted onto code that fixes almost nothing (the deliverables judge credits
  no expected fact about a function the diff leaves alone).

The payloads are written into ``tmp_path`` from the strings below and only ever run inside the
sandbox. Attacks that still succeed are in /work/notes/red-team-2.md, not here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bouts.models.scorecard import Scorecard
from bouts.pipeline import ScoreConfig, score

pytestmark = pytest.mark.sandbox

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inventory-ledger"
FRESH_SEED = 77
SUBMISSION_TOML = 'agent = "red-team-3"\nchallenge = "inventory-ledger"\niteration = 1\nelapsed_s = 100.0\n'
FLOAT_CENTS = "    return int(float(price) * 100)\n"
CANCEL_FIX = ("        self._items[r.sku].on_hand += r.qty\n")

EVAL_CENTS = "    return int(eval(str(price)) * 100)\n"
SILENCED_EVAL = "    return int(eval(str(price)) * 100)  # nosec B307  # noqa: S307  # nosemgrep\n"
OUTPUT_FLOOD = ('    import sys\n    sys.stdout.write("x" * 2_000_000)\n    sys.stderr.write("y" * 2_000_000)\n'
                + FLOAT_CENTS)
WORKSPACE_FILL = (
    "    import os, pathlib\n"
    '    d = pathlib.Path(os.getcwd()) / "junk"\n'
    "    d.mkdir(exist_ok=True)\n"
    "    for i in range(2000):\n"
    '        (d / f"f{os.getpid()}_{i}").write_bytes(b"z" * 4096)\n'
    "    try:\n"
    '        with open(pathlib.Path(__file__).parent / "big.bin", "ab") as fh:\n'
    '            fh.write(b"q" * (15 << 20))\n'
    "    except OSError:\n"
    "        pass\n" + FLOAT_CENTS
)
FORK_BOMB = (
    "import os as _os, time as _t\n"
    "for _i in range(200):\n"
    "    try:\n"
    "        if _os.fork() == 0:\n"
    "            _t.sleep(600)\n"
    "            _os._exit(0)\n"
    "    except OSError:\n"
    "        break\n"
)


def _submission(root: Path, *, cents: str = FLOAT_CENTS, init_prefix: str = "", root_cause: str = "TODO\n") -> Path:
    """The starter with the cancel 'fix' (wrong: the reserved count still leaks), ``to_cents``'s body
    replaced by ``cents``, ``init_prefix`` run first at import, and a ROOT_CAUSE.md."""
    code = root / "code"
    shutil.copytree(EXAMPLE / "starter", code)
    low = (EXAMPLE / "anchors" / "low" / "code" / "ledger" / "core.py").read_text()
    assert CANCEL_FIX in low, "the low anchor's cancel changed; update the payloads"
    (code / "ledger" / "core.py").write_text(low)
    money = code / "ledger" / "money.py"
    assert FLOAT_CENTS in money.read_text(), "the starter's to_cents changed; update the payloads"
    money.write_text(money.read_text().replace(FLOAT_CENTS, cents))
    init = code / "ledger" / "__init__.py"
    init.write_text(init_prefix + init.read_text())
    (root / "deliverables").mkdir()
    (root / "deliverables" / "ROOT_CAUSE.md").write_text(root_cause)
    (root / "submission.toml").write_text(SUBMISSION_TOML)
    return root


def _score(root: Path, cache: Path) -> Scorecard:
    config = ScoreConfig(fresh_seed=FRESH_SEED, cache_dir=cache, adversarial_generation=False,
                         judges=("integrity-static", "security-offline", "deliverables-offline"))
    return score(EXAMPLE, root, config=config)


def _component(card: Scorecard, name: str) -> float:
    value = card.components[name].score
    assert value is not None, f"{name} not scored: {card.components[name].reason}"
    return value


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    return tmp_path_factory.mktemp("red-team-3-cache")


@pytest.fixture(scope="module")
def cards(tmp_path_factory: pytest.TempPathFactory, cache: Path) -> dict[str, Scorecard]:
    """Each payload scored once, with the honest wrong solution beside them."""
    payloads = {
        "honest": {},
        "eval": {"cents": EVAL_CENTS},
        "silenced": {"cents": SILENCED_EVAL},
        "fork_bomb": {"init_prefix": FORK_BOMB},
        "output_flood": {"cents": OUTPUT_FLOOD},
        "workspace_fill": {"cents": WORKSPACE_FILL},
        "pasted_root_cause": {
            "root_cause": (EXAMPLE / "anchors" / "high" / "deliverables" / "ROOT_CAUSE.md").read_text()},
    }
    return {name: _score(_submission(tmp_path_factory.mktemp(name), **kw), cache) for name, kw in payloads.items()}


def test_suppression_comments_do_not_hide_a_finding_and_are_an_integrity_finding(cards: dict[str, Scorecard]) -> None:
    plain, silenced = cards["eval"], cards["silenced"]
    assert _component(plain, "security") < 100  # eval() on the price is a finding
    assert _component(silenced, "security") == _component(plain, "security")
    rules = {f.rule for f in silenced.components["integrity"].findings}
    assert "integrity.silenced-check" in rules, silenced.components["integrity"].math
    # Both now stand at the floor (no trajectory scores 0, and a non-constant eval() is code hidden
    # from review, a bright line), so the silencing can only cost, never lift.
    assert silenced.raw is not None and plain.raw is not None and silenced.raw <= plain.raw
    assert len(silenced.components["integrity"].findings) > len(plain.components["integrity"].findings)


@pytest.mark.parametrize("attack", ["fork_bomb", "output_flood", "workspace_fill"])
def test_resource_attacks_are_a_low_score_not_an_infrastructure_failure(
    cards: dict[str, Scorecard], attack: str
) -> None:
    honest, card = cards["honest"], cards[attack]
    assert honest.infra_error is None
    assert card.infra_error is None, card.infra_error
    assert card.final is not None and honest.final is not None
    assert _component(card, "static_tests") <= _component(honest, "static_tests")
    assert card.raw is not None and honest.raw is not None and card.raw < honest.raw


def test_a_pasted_root_cause_earns_no_fact_about_code_the_diff_leaves_alone(cards: dict[str, Scorecard]) -> None:
    card = cards["pasted_root_cause"]
    math = " ".join(card.components["deliverables"].math)
    assert "facts = 2 of 7 expected facts stated" in math, math
    notes = " ".join(f.message for f in card.components["deliverables"].findings)
    for name in ("to_cents", "movements", "add_item"):
        assert f"the diff changes none of `{name}`" in notes, notes
    # Was 86.32 before the facts were held against the diff; form (clarity, sections) still counts.
    assert _component(card, "deliverables") < 75
