"""Issue 37, JavaScript/TypeScript: ``globalThis["ev" + "al"](x)``, ``(0, eval)(x)``, the Function
constructor reached as ``.constructor`` and ``require("child_" + "process")`` are findings with the
severity of the plain call, which Semgrep and ESLint only see by name."""

from __future__ import annotations

import pytest

from bouts.judges.security import SecurityJudge, SecurityReport
from bouts.judges.security._dynamic_js import RULE_LOOKUP, RULE_SINK, javascript_findings

EVAL_SPELLINGS = {
    "global_concat": 'export function run(x) {\n  return globalThis["ev" + "al"](x);\n}\n',
    "window_reversed": ('const n = "lave".split("").reverse().join("");\n'
                        "export function run(x) {\n  return window[n](x);\n}\n"),
    "indirect": "export function run(x) {\n  return (0, eval)(x);\n}\n",
    "alias": "const e = eval;\nexport function run(x) {\n  return e(x);\n}\n",
    "char_codes": "export function run(x) {\n  return globalThis[String.fromCharCode(101, 118, 97, 108)](x);\n}\n",
    "base64": 'export function run(x) {\n  return global[atob("ZXZhbA==")](x);\n}\n',
    "template": 'const a = "ev";\nexport function run(x) {\n  return self[`${a}al`](x);\n}\n',
    "function_constructor": "export function run(x) {\n  return (function () {}).constructor(x)();\n}\n",
    "array_constructor": "export function run(x) {\n  return [].constructor.constructor(x)();\n}\n",
}
PLAIN_EVAL = "export function run(x) {\n  return eval(x);\n}\n"


@pytest.fixture(scope="module")
def spelled(tmp_path_factory: pytest.TempPathFactory) -> SecurityReport:
    root = tmp_path_factory.mktemp("computed-js")
    (root / "code").mkdir()
    (root / "starter").mkdir()
    for name, source in {**EVAL_SPELLINGS, "plain": PLAIN_EVAL}.items():
        (root / "code" / f"{name}.mjs").write_text(source)
    return SecurityJudge().scan(root / "code", root / "starter")


def _severities(report: SecurityReport, file: str) -> list[str]:
    return [f.severity for f in report.findings if f.file == file and f.counted]


def test_the_plain_call_is_one_critical_finding(spelled: SecurityReport) -> None:
    assert _severities(spelled, "plain.mjs") == ["critical"]


@pytest.mark.parametrize("name", sorted(EVAL_SPELLINGS))
def test_a_computed_name_eval_is_the_same_finding_as_a_plain_eval(spelled: SecurityReport, name: str) -> None:
    assert _severities(spelled, f"{name}.mjs") == _severities(spelled, "plain.mjs")


def _rules(source: str, path: str = "m.js") -> list[tuple[str, int, str]]:
    return [(f.rule.removeprefix("bouts:"), f.cwe or 0, f.severity) for f in javascript_findings(path, source)]


@pytest.mark.parametrize("source, cwe", [
    ('require("child_" + "process").exec(cmd);', 78),
    ('const m = `child_${"process"}`;\nrequire(m).execSync(cmd);', 78),
    ('require(["node:child", "process"].join("_")).spawn(cmd);', 78),
    ('import("v" + "m").then((vm) => vm.runInNewContext(code));', 95),
    ('process.binding("spawn_sync").spawn(options);', 78),
    ('Object.getPrototypeOf(async function () {}).constructor("await 1")();', 95),
    ("globalThis.eval(code);", 95),
])
def test_modules_and_constructors_reached_by_computed_names(source: str, cwe: int) -> None:
    assert _rules(source) == [(RULE_SINK, cwe, "critical")]


def test_a_non_constant_key_on_the_global_object_is_a_named_high_finding() -> None:
    assert _rules("globalThis[name](x);") == [(RULE_LOOKUP, 470, "high")]


def test_typescript_is_read_too() -> None:
    assert _rules('const f: Function = globalThis["ev" + "al"];', "m.ts") == [(RULE_SINK, 95, "critical")]


@pytest.mark.parametrize("source", [
    PLAIN_EVAL + 'new Function(x);\nrequire("child_process").exec(cmd);\n',  # the scanners' findings
    'if (typeof eval === "function") {}\nif (f instanceof Function) {}\n',
    "const hasOwn = Function.call.bind(Object.hasOwnProperty);\n",
    'const key = "a" + "b";\nobj[key] = 1;\nthis.constructor.name;\nconst o = { eval: 1 };\n',
    'window.addEventListener("load", f);\nconst lib = require("./lib/" + name);\n',
    "function walk(parent, keys) {\n  for (const k of keys) walk(parent[k]);\n}\n",
    "const self = this;\nself[name]();\n",
])
def test_honest_code_has_no_computed_name_finding(source: str) -> None:
    assert _rules(source) == []
