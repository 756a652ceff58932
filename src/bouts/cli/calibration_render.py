"""Render calibration reports for the terminal (Rich). Presentation only."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from bouts.calibration.report import CheckReport
from bouts.calibration.review import ReviewItem, current_score
from bouts.calibration.stats_report import ComponentValidity, StatsReport, ValidityReport
from bouts.cli._errors import markup_safe, plain

_LEVEL = {"error": "[bold red]✗ error[/]", "warning": "[yellow]! warning[/]"}
_BARS = " ▁▂▃▄▅▆▇█"


def _n(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}".rstrip("0").rstrip(".")


def check(console: Console, report: CheckReport, path: str | None = None) -> None:
    """``path``: the directory checked, as given (problem files are relative to it)."""
    errors = sum(p.level == "error" for p in report.problems)
    if report.launch:
        verdict = "[bold green]PASS[/]: fit to launch"
    elif errors or not report.incomplete:
        verdict = "[bold red]FAIL[/]: must not launch"
    else:
        verdict = "[bold yellow]NOT A LAUNCH CHECK[/]: no errors found, but it did not run " + markup_safe(
            "; ".join(report.incomplete))
    warnings = len(report.problems) - errors
    shown = f"{path} ({report.challenge})" if path and path != report.challenge else report.challenge
    console.print(f"bouts check {markup_safe(shown)}: {verdict} ({errors} error(s), {warnings} warning(s))",
                  soft_wrap=True)  # fmt: skip
    if report.problems:
        t = Table(title="problems", show_lines=False)
        for col in ("", "check", "where", "problem"):
            t.add_column(col, overflow="fold")
        for p in report.problems:
            where = " ".join(w for w in (p.file, f"[{p.field}]" if p.field else None) if w)
            t.add_row(_LEVEL[p.level], plain(p.check), plain(where), plain(p.message))
        console.print(t)
    if report.lint:
        lint = report.lint
        thin = [c for c in lint.coverage if len(c.hidden) < 2]
        console.print(
            f"[bold]lint[/]: {len(lint.coverage)} visible behaviours, {lint.hidden_total} hidden cases "
            f"({len(thin)} behaviour(s) under 2); {len(lint.seeded_hidden)} hidden tests read the seed"
        )
        if lint.assertions:
            parts = ", ".join(f"{c.suite} {c.externalised}/{c.total}" for c in lint.assertions)
            console.print(f"      assertions decided outside the sandbox: {parts}")
        if lint.mix:
            shares = " / ".join(f"{c} {lint.mix.shares[c]:.0f}%" for c in lint.mix.shares)
            target = "/".join(f"{v:.0f}" for v in lint.mix.target.values())
            console.print(f"      mix: {shares} (target {target}; {lint.mix.declared} declared by marker)")
    if report.starter:
        st = report.starter
        console.print(
            f"[bold]starter[/]: passes {len(st.visible_passed)} of {st.visible_total} visible tests"
            + (f", {st.errored} errored" if st.errored else "")
        )
    if report.reference:
        ref = report.reference
        console.print(
            f"[bold]reference[/]: {ref.runs} run(s) × 2 seed phases, seeds {ref.seeds}; {ref.tests} tests, "
            f"{len(ref.quarantined)} quarantined"
            + (f" (written to {ref.quarantine_file})" if ref.quarantine_file else "")
        )
        for q in ref.quarantined:
            console.print(plain(f"      quarantined {q.id}: {'; '.join(q.failures[:3])}"))
        if ref.slowest:
            s = ref.slowest[0]
            console.print(
                f"      slowest test {s.slowest_s:g} s ({markup_safe(s.id)}); suggested test_timeout_s = "
                f"{_n(ref.suggested_test_timeout_s)}, suite_timeout_s = {_n(ref.suggested_suite_timeout_s)}"
            )
    if report.reference and report.reference.generated:
        console.print(plain(f"      generated adversarial tests on the reference: {report.reference.generated}"))
    if report.anchors:
        _anchors(console, report)
    if report.skipped:
        console.print(f"[dim]skipped: {', '.join(report.skipped)}[/]")


def _anchors(console: Console, report: CheckReport) -> None:
    """One table: per component, each anchor's expected score (or —) and what was measured; then the
    math line of every component that is off its expected score or breaks the anchors' order."""
    t = Table(title="anchors: expected → measured (✗ more than ±10 off)")
    t.add_column("component")
    for a in report.anchors:
        t.add_column(a.level, justify="right")
    keys = list(dict.fromkeys([*(k for a in report.anchors for k in a.measured if k != "final"),
                               *(c.component for a in report.anchors for c in a.checks), "final"]))  # fmt: skip
    for key in keys:
        cells = []
        for a in report.anchors:
            c = next((c for c in a.checks if c.component == key), None)
            got = a.measured.get(key, c.actual if c else None)
            if c is None:
                cells.append(f"— → {_n(got)}")
            else:
                cells.append(f"{_n(c.expected)} → {_n(got)} {'✓' if c.ok else '[red]✗[/]'}")
        t.add_row(key, *cells)
    t.add_row("band", *(a.band or "—" for a in report.anchors))
    console.print(t)
    for a in report.anchors:
        for key, lines in a.math.items():
            console.print(plain(f"  {a.level} {key}:"))
            for line in lines[-4:]:
                console.print(plain(f"      {line}"))


def stats(console: Console, report: StatsReport) -> None:
    head = f"bouts stats {markup_safe(report.challenge or '')}: {report.attempts} scored attempt(s)"
    if not report.enough:
        head += f"; [yellow]{report.needed} more needed[/] before findings are drawn (preliminary numbers below)"
    console.print(head)
    if report.components:
        t = Table(title="components")
        for col in ("component", "weight", "n", "mean", "std", "histogram 0→100", "top−bottom", "r_pb"):
            t.add_column(col, justify="right" if col not in ("component", "histogram 0→100") else "left")
        for c in report.components:
            peak = max(c.histogram) or 1
            hist = "".join(_BARS[round(8 * h / peak)] for h in c.histogram)
            t.add_row(c.component, _n(c.weight), str(c.n), _n(c.mean, 1), _n(c.std, 1), hist,
                      _n(c.top_bottom_gap, 1), _n(c.point_biserial))  # fmt: skip
        console.print(t)
    if report.correlations:
        t = Table(title="Pearson correlations (|r| ≥ 0.3 or the objective–integrity pair)")
        for col in ("pair", "r", "p", "n"):
            t.add_column(col, justify="left" if col == "pair" else "right")
        for c in report.correlations:
            if (c.r is not None and abs(c.r) >= 0.3) or {c.a, c.b} == {"objective", "integrity"}:
                t.add_row(f"{c.a} × {c.b}", _n(c.r), f"{c.p:.2g}" if c.p is not None else "—", str(c.n))
        console.print(t)
    for p in report.panels:
        dist = ", ".join(f"{j} {_n(d, 1)}" for j, d in p.distance_from_median.items())
        console.print(f"panel {p.component}: Krippendorff α = {_n(p.alpha)} over {p.units} attempts; "
                      f"distance from the median: {dist}")  # fmt: skip
    if report.bands:
        console.print("bands: " + ", ".join(f"{b} {n}" for b, n in sorted(report.bands.items())))
    console.print(f"judge_divergence flags: {report.divergent}")
    for f in report.findings:
        mark = "[bold red]⚑ flag[/]" if f.level == "flag" else "[cyan]→ suggestion[/]"
        console.print(mark, plain(f.message))


def _mean(x: float | None) -> str:
    return "—" if x is None else (f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.1f}")


def _validity_row(c: ComponentValidity, groups: list[str]) -> list[str]:
    value = "—" if c.value is None else _n(c.value)
    interval = "" if c.ci_low is None else f" [{_n(c.ci_low)}, {_n(c.ci_high)}]"
    sep = "—" if c.value is None else _n(max(c.value, 1 - c.value) if c.measure == "auc" else abs(c.value))
    return [c.component, str(c.scored), f"{c.not_scored_rate:.0%}", *(_mean(c.mean_by_label.get(g)) for g in groups),
            value + interval, sep]  # fmt: skip


def validity(console: Console, report: ValidityReport) -> None:
    groups = list(report.by_label)
    counts = ", ".join(f"{n} {markup_safe(g)}" for g, n in report.by_label.items())
    measure = "AUC" if report.measure == "auc" else "Spearman ρ"
    console.print(f"bouts stats validity: {report.runs} labelled runs ({counts}); {measure} by "
                  f"{markup_safe(report.label)}, 95% bootstrap interval ({report.bootstrap} resamples, "
                  f"seed {report.seed})")  # fmt: skip
    for title, rows in (("components", report.components), ("baselines", report.baselines)):
        if not rows:
            continue
        t = Table(title=f"{title} (means by label)")
        for col in ["", "scored", "unscored", *groups, f"{measure} [95% CI]", "sep."]:
            t.add_column(plain(col), justify="left" if not col else "right", no_wrap=not col or "CI" in col)
        for c in rows:
            t.add_row(*(plain(x) for x in _validity_row(c, groups)))
        console.print(t)
    console.print("[dim]sep. (separation): max(AUC, 1 − AUC), or |ρ|; 0.5 (0) is chance. "
                  "A run a component did not score is left out of its numbers.[/]")  # fmt: skip
    for c in report.components:
        if not any(c.top_findings.values()):
            continue
        console.print(f"[bold]{markup_safe(c.component)}[/] most frequent findings")
        for g, found in c.top_findings.items():
            line = "; ".join(f"{f.rule} {f.share:.0%}" for f in found) or "none"
            console.print(plain(f"  {g}: {line}"))


def review_list(console: Console, items: list[ReviewItem]) -> None:
    t = Table(title=f"review queue ({len(items)})")
    for col in ("id", "level", "status", "original", "current", "flag"):
        t.add_column(col, overflow="fold")
    for i in items:
        level = f"{i.level} {i.level_name}"
        t.add_row(plain(i.id), level, i.status, _n(i.original), _n(current_score(i)), plain(i.flag))
    console.print(t)


def review_item(console: Console, item: ReviewItem) -> None:
    console.print(
        f"[bold]{markup_safe(item.id)}[/]: {markup_safe(item.agent)} iteration {item.iteration} on "
        f"{markup_safe(item.challenge)}"
    )
    console.print(f"level {item.level} ({item.level_name}), {item.status}; score {_n(item.original)} → "
                  f"current {_n(current_score(item))}")  # fmt: skip
    console.print(plain(f"flag: {item.flag}"))
    console.print(plain("judges: " + ", ".join(f"{k} {_n(v)}" for k, v in item.judges.items())))
    t = Table(title="history (append-only)")
    for col in ("at", "event", "level", "who", "why", "before → after"):
        t.add_column(col, overflow="fold")
    for e in item.history:
        change = f"{_n(e.before)} → {_n(e.after)}" if e.kind == "decided" else ""
        kind = f"{e.kind} ({e.outcome})" if e.outcome else e.kind
        t.add_row(e.at.isoformat(timespec="seconds"), kind, str(e.level), plain(e.actor), plain(e.reason), change)
    console.print(t)
