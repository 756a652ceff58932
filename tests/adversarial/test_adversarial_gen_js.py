"""JavaScript adversarial generation: the analysis finds the planted weaknesses (with locations),
generation is deterministic from the seed, and in the real sandbox the weak fixture fails where the
validated one passes; on rate-limiter-js the reference passes what the low anchor fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.adversarial import read_sources, run_generated
from bouts.adversarial._js_analyse import JavaScriptAnalyser
from bouts.adversarial._js_examples import js_example_calls
from bouts.adversarial._js_generate import generate_js
from bouts.adversarial.analysers import analyser_for
from bouts.loading import load_challenge
from bouts.models.challenge import Challenge, ChallengeSpec, Limits
from bouts.models.results import Outcome
from bouts.runner.js import run_js
from bouts.sandbox import get_sandbox

FIXTURES = Path(__file__).with_name("fixtures_js")
LIMITER = Path(__file__).resolve().parents[2] / "examples" / "rate-limiter-js"
JS = (".js", ".mjs", ".cjs")


def analyse(root: Path):  # noqa: ANN201
    return JavaScriptAnalyser().analyse(read_sources(root, JS))


def test_registered_for_javascript_and_typescript() -> None:
    assert analyser_for("javascript").version == "js-tree-sitter/1"
    assert analyser_for("typescript").language == "typescript"


def test_analysis_finds_the_planted_weaknesses_with_locations() -> None:
    found = {(t.kind, t.sink, t.where, t.param) for t in analyse(FIXTURES / "weak").targets}
    assert found >= {
        ("unvalidated_input", "indexing", "src/api.mjs:5", "i"),
        ("weak_type", "attribute", "src/api.mjs:8", "s"),
        ("unvalidated_input", "allocation", "src/api.mjs:11", "n"),
        ("missing_null_check", "match", "src/api.mjs:16", "text"),
        ("missing_null_check", "get", "src/api.mjs:25", "key"),
        ("unvalidated_input", "path", "src/api.mjs:30", "name"),
        ("unvalidated_input", "arithmetic", "src/legacy.cjs:2", "w"),
    }
    severities = {t.sink: t.severity for t in analyse(FIXTURES / "weak").targets}
    assert severities["path"] == "critical" and severities["indexing"] == "high" and severities["get"] == "medium"
    entries = {(p.entry.module, p.entry.qualname) for p in analyse(FIXTURES / "weak").probes}
    assert ("src/api.mjs", "Store.price") in entries and ("src/legacy.cjs", "area") in entries  # class, CommonJS


def test_checks_mark_targets_guarded_and_null_checks_clear_them() -> None:
    fixed = analyse(FIXTURES / "fixed")
    assert not [t for t in fixed.targets if t.kind == "missing_null_check"]
    assert all(t.guarded for t in fixed.targets if t.param in ("s", "n", "i"))


def test_factory_methods_are_entries_and_examples_fill_the_factory() -> None:
    analysis = analyse(LIMITER / "anchors" / "low" / "code")
    assert {p.entry.qualname for p in analysis.probes} == {"createLimiter().hit", "createLimiter().reset"}
    visible = LIMITER / "tests" / "visible" / "limiter.test.mjs"
    examples = js_example_calls({"v.test.mjs": visible.read_text()})
    assert examples["createLimiter"][0] == (({"limit": 3, "windowMs": 1000},), {})  # `now: c.now` dropped
    suite = generate_js(analysis, 5, examples)
    assert 'ctor: [{"limit": 3, "windowMs": 1000}]' in suite.tests[0].source


WRAPPER = """
/** The limiter, its results passed through `settle` before they are handed out. */
export function createLimiter(options) {
  const core = createLimiterCore(options);
  return { ...core, hit: (key) => settle(core.hit(key)) };
}

function settle(result) {
  return result;
}
"""


@pytest.mark.parametrize("wrapper", [WRAPPER, WRAPPER.replace("return { ...core,", "return ({ ...core,").replace(
    ") };", ") });")])  # fmt: skip
def test_an_api_wrapped_in_a_spread_object_is_probed_as_the_unwrapped_one(wrapper: str) -> None:
    """Red-team report, minor: spreading the factory's object into a wrapper (``{ ...core, hit }``)
    hid every method from the analyser, so the generated half of the adversarial score vanished."""
    starter = (LIMITER / "starter" / "src" / "limiter.mjs").read_text()
    exported = "export function createLimiter("
    wrapped = starter.replace(exported, "function createLimiterCore(") + wrapper
    plain = JavaScriptAnalyser().analyse({"src/limiter.mjs": starter})
    hidden = JavaScriptAnalyser().analyse({"src/limiter.mjs": wrapped})
    entries = {(p.entry.qualname, p.param) for p in plain.probes}
    assert entries == {("createLimiter().hit", "key"), ("createLimiter().reset", "key")}
    assert {(p.entry.qualname, p.param) for p in hidden.probes} == entries and not hidden.skipped
    # `reset` is reached through the spread, `hit` through the wrapper's call of core.hit(key).
    assert {p.target.function for p in hidden.probes} == {"src/limiter.mjs:createLimiterCore.hit",
                                                          "src/limiter.mjs:createLimiterCore.reset"}  # fmt: skip


def test_examples_skip_calls_expected_to_throw() -> None:
    src = "assert.throws(() => f(0));\nexpect(() => f(-1)).toThrow();\nf(2, 'x');\n"
    assert js_example_calls({"a.test.mjs": src})["f"] == [((2, "x"), {})]


def test_generation_is_deterministic_from_the_seed() -> None:
    analysis = analyse(FIXTURES / "weak")
    a, b, c = generate_js(analysis, 11), generate_js(analysis, 11), generate_js(analysis, 12)
    assert a.files == b.files and a.files != c.files
    assert all(p.startswith("tests/generated/test_gen_") and p.endswith(".mjs") for p in a.files)
    assert len(a.tests) == len(analysis.probes)


def planted_challenge(root: Path) -> Challenge:
    spec = ChallengeSpec(id="planted-js", title="Planted", language="javascript",
                         limits=Limits(test_timeout_s=20, suite_timeout_s=120, memory_mb=1024, max_processes=64))
    return Challenge(root=root, spec=spec, content_hash="c" * 64, suite_hashes={}, test_files={})  # fmt: skip


@pytest.fixture(scope="module")
def sandbox():  # noqa: ANN201
    return get_sandbox("bubblewrap")


def test_sandboxed_weak_fails_and_fixed_passes(sandbox, tmp_path: Path) -> None:  # noqa: ANN001
    suite = generate_js(analyse(FIXTURES / "weak"), 7)
    ids = [t.id for t in suite.tests]
    out = {}
    for which in ("weak", "fixed"):
        report = run_js(planted_challenge(tmp_path), FIXTURES / which, sandbox=sandbox, suites=(), seed=7,
                        generated=suite.files, expected_ids=ids).report  # fmt: skip
        assert not report.tampering
        out[which] = {r.id.split("::")[-1]: r for r in report.results}
    failed = {name for name, r in out["weak"].items() if r.outcome is not Outcome.PASSED}
    for name in ("pick_i", "shout_s", "stars_n", "firstWord_text", "Store_price_key", "readConf_name"):
        assert any(f.endswith(name) for f in failed), (name, {k: v.detail for k, v in out["weak"].items()})
    assert not any(f.endswith("area_w") for f in failed)  # NaN arithmetic does not throw
    stars = next(r for n, r in out["weak"].items() if n.endswith("stars_n"))
    assert "raised by the engine inside String.repeat" in stars.detail
    bad = {n: r.detail for n, r in out["fixed"].items() if r.outcome is not Outcome.PASSED}
    assert not bad, bad


def test_rate_limiter_reference_passes_what_the_low_anchor_fails(sandbox) -> None:  # noqa: ANN001
    challenge = load_challenge(LIMITER)
    visible = {rel: (LIMITER / rel).read_text() for rel in challenge.test_files["visible"]}
    suite = generate_js(analyse(LIMITER / "anchors" / "low" / "code"), 1234, js_example_calls(visible))
    ids = [t.id for t in suite.tests]
    outcomes = {}
    for name, code in (("reference", LIMITER / "reference"), ("low", LIMITER / "anchors" / "low" / "code")):
        report = run_js(challenge, code, sandbox=sandbox, suites=(), seed=1234, generated=suite.files,
                        expected_ids=ids).report  # fmt: skip
        outcomes[name] = {r.id.split("::")[-1]: r.outcome for r in report.results}
    assert set(outcomes["reference"].values()) == {Outcome.PASSED}
    assert outcomes["low"]["test_gen_001_createLimiter_hit_key"] is Outcome.FAILED
    run = run_generated(challenge, LIMITER / "reference", sandbox=sandbox, seed=1234)  # nothing to probe: not scored
    assert run.analyser == "js-tree-sitter/1" and run.report is None
