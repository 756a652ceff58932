"""``bouts stats`` on synthetic scorecards with planted signals."""

from __future__ import annotations

import json
import random
from pathlib import Path

from calib_factories import WEIGHTS, make_card
from typer.testing import CliRunner

from bouts.calibration.scorecards import parse_scorecards
from bouts.calibration.stats import attempt_from_scorecard, summarise
from bouts.cli.main import app
from bouts.models.scorecard import Scorecard

BANDS = ((90, "Elite"), (75, "Strong"), (55, "Competent"), (35, "Struggling"), (15, "Weak"), (0, "Failed"))


def _clip(x: float) -> float:
    return round(min(100.0, max(0.0, x)), 2)


def synthetic(n: int, seed: int = 7) -> list[Scorecard]:
    """Planted: objective vs integrity strongly negative; strategy ≈ process (redundant);
    efficiency nearly constant (no information); a 3-judge code_quality panel that agrees."""
    rng = random.Random(seed)
    cards = []
    for i in range(n):
        objective = _clip(rng.gauss(60, 20))
        integrity = _clip(100 - 0.9 * (objective - 20) + rng.gauss(0, 8))
        process = _clip(rng.gauss(70, 15))
        strategy = _clip(process + rng.gauss(0, 3))
        recovery = _clip(rng.gauss(60, 25))
        efficiency = _clip(rng.gauss(97, 1))
        quality = _clip(rng.gauss(70, 15))
        comps = dict(objective=objective, integrity=integrity, process=process, strategy=strategy,
                     recovery=recovery, efficiency=efficiency, code_quality=quality)  # fmt: skip
        final = round(sum(WEIGHTS.get(k, 0) * v for k, v in comps.items()))
        band = next(b for lo, b in BANDS if final >= lo)
        flags = (("judge_divergence", "objective vs integrity"),) if abs(objective - integrity) > 40 else ()
        panel = {"lint": quality, **{j: _clip(quality + rng.gauss(0, 4)) for j in ("metrics", "structure")}}
        cards.append(make_card(comps, agent=f"agent-{i}", final=final, band=band, flags=flags, panel=panel))
    return cards


def test_sixty_attempts_show_the_planted_signals() -> None:
    report = summarise([attempt_from_scorecard(c) for c in synthetic(60)], challenge="demo")
    assert report.enough and report.needed == 0 and report.attempts == 60
    corr = {frozenset((c.a, c.b)): c for c in report.correlations}
    oi = corr[frozenset(("objective", "integrity"))]
    assert oi.r is not None and oi.r < -0.5 and oi.p is not None and oi.p < 0.001
    codes = {f.code: f for f in report.findings}
    assert codes["cheating_suspected"].level == "flag"
    assert "agents may be cheating to pass tests" in codes["cheating_suspected"].message
    assert codes["redundant_judges"].components == ["process", "strategy"]
    assert "efficiency" in codes["no_information"].components
    comps = {c.component: c for c in report.components}
    assert sum(comps["objective"].histogram) == 60
    assert comps["objective"].point_biserial is not None and comps["objective"].point_biserial > 0.5
    panel = report.panels[0]
    assert panel.component == "code_quality" and panel.alpha is not None and panel.alpha > 0.8
    assert "panel_disagreement" not in codes


def test_fewer_than_fifty_says_how_many_more_and_draws_no_findings() -> None:
    report = summarise([attempt_from_scorecard(c) for c in synthetic(20)])
    assert not report.enough and report.needed == 30
    assert report.findings == [] and report.correlations  # preliminary numbers are still shown


def test_scorecards_parse_from_json_and_jsonl_and_stats_runs_from_the_cli(tmp_path: Path) -> None:
    cards = synthetic(55)
    (tmp_path / "one.json").write_text(cards[0].to_json())
    (tmp_path / "rest.jsonl").write_text("\n".join(c.model_dump_json(by_alias=True) for c in cards[1:]) + "\n")
    assert len(parse_scorecards((tmp_path / "rest.jsonl").read_text(), source="rest.jsonl")) == 54
    result = CliRunner().invoke(app, ["stats", "demo", "--scorecards", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["schema"] == "bouts.stats/1" and data["attempts"] == 55
    assert any(f["code"] == "cheating_suspected" for f in data["findings"])
    text = CliRunner().invoke(app, ["stats", "demo", "--scorecards", str(tmp_path)])
    assert text.exit_code == 0 and "agents may be cheating" in text.output
