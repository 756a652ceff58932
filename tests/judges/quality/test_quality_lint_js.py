"""quality-lint on JavaScript/TypeScript: ESLint's core rules (the engine's install in tools/eslint,
the engine's config), mapped to the four dimensions, on changed code only, and never steered by the
submission (eslint-disable comments, its own eslint.config.js)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from quality_helpers import Run, challenge_at, write_tree

from bouts.errors import InfrastructureError
from bouts.judges.base import JudgeInput, Verdict
from bouts.judges.quality import LintJudge
from bouts.judges.quality._js_lint import RULES, rule_options
from bouts.judges.security._eslint import default_package_dir, find_node
from bouts.judging import _safe
from bouts.scoring.explain import Explained, NotScored

pytestmark = pytest.mark.slow_io  # runs an external tool for seconds (tests/conftest.py)


def test_node_and_the_engines_eslint_are_installed() -> None:
    # scripts/setup installs both; without them every JS lint verdict would be "not scored".
    assert find_node() is not None and (default_package_dir() / "node_modules" / "eslint").is_dir()

JS = {"language": "javascript"}
STARTER = {"src/util.mjs": "export function keep(x) {\n  return x;\n}\n"}
CLEAN = """
    export function total(items) {
      let sum = 0;
      for (const item of items) {
        if (item.price === undefined) {
          throw new Error(`no price for ${item.name}`);
        }
        sum += item.price * item.count;
      }
      return sum;
    }
    """
MESSY = """
    export function total(items) {
      var sum = 0;
      var unused = 1;
      for (var i = 0; i < items.length; i++) {
        if (items[i].price == undefined) {
          throw "no price for " + items[i].name;
        }
        try { sum += items[i].price * items[i].count; } catch (err) {}
      }
      return sum;
    }
    """


def lint(run_judge: Run, code: dict[str, str], starter: dict[str, str] = STARTER, **kw: object) -> Verdict:
    verdict = run_judge(LintJudge(**kw), starter, code, **JS)
    assert isinstance(verdict.score, Explained), verdict.score
    return verdict


def found(verdict: Verdict) -> set[str]:
    return {f.rule for f in verdict.findings}


def test_known_hits_score_lower_than_clean_code(run_judge: Run) -> None:
    clean = lint(run_judge, {**STARTER, "src/total.mjs": CLEAN})
    messy = lint(run_judge, {**STARTER, "src/total.mjs": MESSY})
    assert clean.score.value == 100 and not clean.findings
    assert {"eslint:no-var", "eslint:no-unused-vars", "eslint:eqeqeq", "eslint:no-throw-literal",
            "eslint:no-empty", "eslint:prefer-template"} <= found(messy)
    assert messy.score.value < 80
    assert sum(f.points for f in messy.findings) == pytest.approx(100 - messy.score.value, abs=0.05)
    assert all(f.file == "src/total.mjs" and f.line and f.dimension == RULES[f.rule[7:]].dimension
               for f in messy.findings)
    assert messy.versions["eslint"] == "10.15.0" and "quality-lint rules" in messy.versions


@pytest.mark.parametrize(
    ("source", "rule", "dimension"),
    [
        ("export function f(x) { const y = 2; return x; }\n", "no-unused-vars", "readability"),
        ("Array.prototype.last = function () { return this[this.length - 1]; };\nexport const y = 1;\n",
         "no-extend-native", "architecture"),
        ("export function f(x) { return x == 1; }\n", "eqeqeq", "robustness"),
        ("export function f(x) { return y + x; }\n", "no-undef", "robustness"),
        ("export function f(x) { var y = x; return y; }\n", "no-var", "idiomaticity"),
    ],
)
def test_each_dimension_has_rules(run_judge: Run, source: str, rule: str, dimension: str) -> None:
    verdict = lint(run_judge, {**STARTER, "src/new.mjs": source})
    hit = next(f for f in verdict.findings if f.rule == f"eslint:{rule}")
    assert hit.dimension == dimension and hit.points > 0 and verdict.dimensions[dimension] < 100


def test_disable_comments_and_submission_config_change_nothing(run_judge: Run) -> None:
    plain = lint(run_judge, {**STARTER, "src/total.mjs": MESSY})
    silenced = "/* eslint-disable */\n// eslint-disable-next-line\n/* eslint no-var: \"off\", eqeqeq: \"off\" */\n"
    config = 'export default [{ rules: {} }, { ignores: ["**"] }];\n'
    hidden = lint(run_judge, {
        **STARTER,
        "src/total.mjs": silenced + textwrap.dedent(MESSY).lstrip().replace(
            "var unused = 1;", "var unused = 1; // eslint-disable-line"),
        "eslint.config.js": config, "eslint.config.mjs": config, ".eslintrc.json": '{"root": true, "rules": {}}',
        ".eslintignore": "**\n", "package.json": '{"eslintConfig": {"rules": {"no-var": "off"}}}',
    })
    # same rules, same count, same places
    assert sorted(f.rule for f in hidden.findings if f.file == "src/total.mjs") == sorted(
        f.rule for f in plain.findings)
    shifts = {h.line - p.line for h, p in zip(  # type: ignore[operator]
        [f for f in hidden.findings if f.file == "src/total.mjs"], plain.findings, strict=True)}
    assert shifts == {3}  # the same findings, moved down by the three comment lines


def test_only_changed_code_counts_and_inherited_lines_weigh_half(run_judge: Run) -> None:
    starter = {"src/a.mjs": """
        export function old(x) {
          var y = x;
          return y;
        }
        export function edited(x) {
          var z = x;
          return z;
        }
        """}
    code = {"src/a.mjs": starter["src/a.mjs"].replace("return z;", "return z + 1;")}
    verdict = lint(run_judge, code, starter)
    hits = [f for f in verdict.findings if f.rule == "eslint:no-var"]
    assert [f.line for f in hits] == [6]  # `old` is unchanged: its `var` is not judged
    assert "inherited from starter/" in hits[0].message
    written = lint(run_judge, {"src/a.mjs": code["src/a.mjs"].replace("var z = x;", "var z = x + 0;")}, starter)
    assert next(f for f in written.findings if f.rule == "eslint:no-var").points == pytest.approx(2 * hits[0].points)


def test_typescript_is_linted_without_core_rules_that_misread_types(run_judge: Run) -> None:
    source = """
        export type Handler = (request: string, attempt: number) => void;
        interface Options { limit: number }
        export function limit(options: Options): number {
          var value = options.limit;
          return value == 0 ? 1 : value;
        }
        """
    verdict = run_judge(LintJudge(), {"src/a.ts": "export const a = 1;\n"}, {"src/a.ts": "export const a = 1;\n",
                                                                                "src/b.ts": source}, **JS)
    assert isinstance(verdict.score, Explained)
    assert found(verdict) == {"eslint:no-var", "eslint:eqeqeq"}  # no unused `request`/`attempt`, no undefined type
    assert not any(n in rule_options(typescript=True) for n, r in RULES.items() if not r.typescript)


def test_odd_file_names_stay_paths(run_judge: Run) -> None:
    verdict = lint(run_judge, {**STARTER, "-rf.mjs": "export function f(x) { var y = x; return y; }\n"})
    assert [(f.rule, f.file) for f in verdict.findings] == [("eslint:no-var", "-rf.mjs")]


def test_missing_node_or_eslint_is_not_scored_never_100(tmp_path: Path) -> None:
    challenge = challenge_at(tmp_path / "challenge", STARTER, **JS)
    inp = JudgeInput.read(challenge, write_tree(tmp_path / "code", {**STARTER, "src/total.mjs": CLEAN}))
    for judge in (LintJudge(node=tmp_path / "no-node"), LintJudge(eslint_dir=tmp_path / "no-eslint")):
        with pytest.raises(InfrastructureError, match="quality-lint judge cannot lint JavaScript"):
            judge.judge(inp)
        verdict, flag = _safe(judge, inp)  # what the scorecard shows
        assert isinstance(verdict.score, NotScored) and "infrastructure" in verdict.score.reason
        assert flag is not None and flag.code == "judge_unavailable"
    assert LintJudge().judge(inp).score.value == 100  # with ESLint there, the same code is scored


def test_typescript_any_is_a_finding_and_unknown_or_a_real_type_is_not(run_judge: Run) -> None:
    """Before: `any` cost nothing in TypeScript (issue 39, item 6: no TypeScript `any` rule)."""
    loose = """
        export function parse(raw: any): any {
          const items: Array<any> = JSON.parse(raw);
          return items;
        }
        """
    strict = """
        export function parse(raw: string): unknown {
          const items: Array<number> = JSON.parse(raw);
          return items;
        }
        """
    base = {"src/a.ts": "export const a = 1;\n"}
    hits = [f for f in run_judge(LintJudge(), base, {**base, "src/b.ts": loose}, **JS).findings
            if f.rule == "eslint:no-restricted-syntax"]  # fmt: skip
    assert [f.line for f in hits] == [1, 1, 2] and all(f.dimension == "robustness" for f in hits)
    assert "`any` turns type checking off" in hits[0].message
    clean = run_judge(LintJudge(), base, {**base, "src/b.ts": strict}, **JS)
    assert not [f for f in clean.findings if f.rule == "eslint:no-restricted-syntax"]
