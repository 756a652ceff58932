"""Render scorecards and computed profiles for the terminal (Rich). Presentation only."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from bouts.cli._errors import plain
from bouts.models.results import Outcome
from bouts.models.scorecard import Scorecard
from bouts.scoring.explain import fmt
from bouts.scoring.profiles import ProfileResult

_OUTCOME_STYLE = {
    Outcome.PASSED: "green",
    Outcome.FAILED: "red",
    Outcome.ERROR: "red",
    Outcome.TIMEOUT: "magenta",
    Outcome.CRASHED: "magenta",
    Outcome.MISSING: "yellow",
}


def _num(x: float | None) -> str:
    return "—" if x is None else fmt(x)


def scorecard(
    console: Console, card: Scorecard, *, show_tests: bool = False, behaviours: dict[str, str] | None = None
) -> None:
    """The readable breakdown: headline, components, profiles, flags, then the math line by line."""
    headline = Text()
    final = "—" if card.final is None else str(card.final)
    headline.append(f"{final}", style="bold")
    headline.append(f"  {card.band or 'not scored'}")
    if card.provisional:
        headline.append("  (provisional)", style="yellow")
    headline.append(
        plain(
            f"\n{card.agent} · iteration {card.iteration} · {card.challenge} · "
            f"profile {card.profile} · family {card.family}"
            + (" (custom weights)" if card.weights_source == "custom" else "")
        )
    )
    console.print(Panel(headline, title="Bouts scorecard", expand=False))

    table = Table(title="Components", show_lines=False)
    provisional = any(c.effective_weight not in (None, c.weight) for c in card.components.values())
    columns = ["component", "score", "weight"] + (["applied"] if provisional else []) + ["points", "note"]
    for col in columns:
        table.add_column(col, justify="left" if col in ("component", "note") else "right")
    for name, comp in card.components.items():
        applied = [_num(comp.effective_weight)] if provisional else []
        if comp.status == "not_scored":
            note = plain(f"not scored: {comp.reason}", style="dim")
            table.add_row(name, "—", _num(comp.weight), *applied, "—", note)
        else:
            table.add_row(name, _num(comp.score), _num(comp.weight), *applied, _num(comp.points), "")
    console.print(table)

    prof = Table(title="Profiles")
    for col in ("profile", "final", "band", "note"):
        prof.add_column(col)
    for name, p in card.profile_details.items():
        note = f"provisional: {', '.join(p.missing)} not scored" if p.provisional else ""
        marker = " ◀" if name == card.profile else ""
        prof.add_row(name + marker, "—" if p.final is None else str(p.final), p.band or "—", note)
    console.print(prof)

    if card.llm_usage is not None:
        console.print(_llm_usage(card))
    if card.excluded:
        lines = [f"{e.path} ({e.files} file{'s' if e.files != 1 else ''}): {e.reason}" for e in card.excluded]
        console.print(Group(*[plain(f"not judged: {line}", style="dim") for line in lines]))
    if card.flags:
        console.print(Group(*[plain(f"⚑ {f.code}: {f.message}", style="yellow") for f in card.flags]))
    if show_tests and card.tests:
        tests = Table(title="Tests")
        for col in ("suite", "test", "outcome", "detail"):
            tests.add_column(col, overflow="fold")  # a test id is never cut: it is what an author looks up
        for t in card.tests:
            outcome = Text(t.outcome.value, style=_OUTCOME_STYLE[t.outcome])
            detail = t.detail[:200]
            if t.suite == "hidden" and behaviours is not None:
                from bouts.authoring.behaviours import behaviour_of

                name = behaviour_of(t.id, behaviours)
                detail = f"behaviour '{name}'" + (f": {detail}" if detail else "") if name else detail
            tests.add_row(t.suite, plain(t.id), outcome, plain(detail))
        console.print(tests)
    # Text, not markup: math lines hold "[judge]" prefixes and submitted names, never Rich tags.
    console.print(Panel(plain("\n".join(card.math)), title="Math", expand=False))


def _llm_usage(card: Scorecard) -> Table:
    """The LLM judges' cost record: one line per judge, then the sum (what ``--json`` calls ``llm_usage``)."""
    usage = card.llm_usage
    assert usage is not None
    table = Table(title="LLM judges")
    table.add_column("judge", overflow="fold")  # the judge's name is the model id: never cut it
    table.add_column("status", overflow="fold")
    for col in ("requests", "cache hits", "tokens in", "tokens out", "cost USD"):
        table.add_column(col, justify="right")
    for j in usage.judges:  # why a judge did not score is in the flags and the component's math
        table.add_row(plain(j.judge), plain(j.status), str(j.requests), str(j.cache_hits), str(j.tokens_in),
                      str(j.tokens_out), f"{j.cost_usd:.4f}")  # fmt: skip
    table.add_row("total", "", str(usage.requests), str(usage.cache_hits), str(usage.tokens_in),
                  str(usage.tokens_out), f"{usage.cost_usd:.4f}", style="bold")  # fmt: skip
    return table


def profile_result(console: Console, result: ProfileResult) -> None:
    """``bouts compute``: the math, then the final score."""
    for line in result.math:
        console.print(plain(line), highlight=False)
    if result.final is None:
        console.print(f"{result.profile}: not scored")
    else:
        note = " (provisional)" if result.provisional else ""
        console.print(f"final: {result.final} ({result.band}){note}", style="bold", highlight=False)
