"""The host's rewrite of node:test files and its decision from observations (pure, no sandbox)."""

from __future__ import annotations

import textwrap

from bouts.runner.js._decide import check_external, check_inline, equal, truthy
from bouts.runner.js._externalise import rewrite

SOURCE = textwrap.dedent("""\
    import { test } from 'node:test';
    import assert from 'node:assert/strict';
    import { hit, make } from '../../src/lim.mjs';

    test('counts', () => {
      const lim = make(3);
      lim.hit('a');
      assert.equal(lim.hit('a').remaining, 1, 'one left');
      assert.deepEqual([lim.size()], [1]);
      assert.notEqual(lim.hit('b'), null);
      assert.throws(() => lim.hit(7), TypeError);
      assert.ok(lim.size() > 0);
    });
    test('async', async () => {
      assert.equal(await hit('z'), 42);
      await hit('y');
    });
    """)


def test_the_graded_text_holds_no_expected_value_and_no_message() -> None:
    plan = rewrite(SOURCE, "tests/visible/lim.test.mjs")
    assert plan is not None
    graded = plan.graded
    for secret in ("42", "'one left'", "[1]", "TypeError", "assert."):
        assert secret not in graded
    assert "__bouts.v(" in graded and "__bouts.t(" in graded and "__bouts.e(" in graded
    assert plan.total == plan.externalised == 6
    kinds = sorted(s.kind for s in plan.sites.values())
    assert kinds.count("end") == 2 and kinds.count("plain") == 3 and kinds.count("eq") == 3 and "cmp" in kinds


def test_the_checked_text_keeps_every_operand_evaluated_once() -> None:
    plan = rewrite(SOURCE, "tests/visible/lim.test.mjs")
    assert plan is not None
    assert "() => [(lim.hit('a').remaining), (1), ('one left')], 'strictEqual', [0])" in plan.checked
    assert "() => lim.hit(7), () => [TypeError])" in plan.checked
    assert "(await __bouts.va(" in plan.checked


def test_a_done_callback_test_is_not_wrapped() -> None:
    text = "import { test } from 'node:test';\nimport assert from 'node:assert';\n" \
           "test('cb', (t, done) => { assert.ok(1); done(); });\n"
    plan = rewrite(text, "tests/visible/cb.test.mjs")
    assert plan is not None and plan.unwrapped == 1
    assert "__bouts.e(" not in plan.graded


def _sites() -> dict:
    plan = rewrite(SOURCE, "tests/visible/lim.test.mjs")
    assert plan is not None
    return plan.sites


def _run(values: dict[str, object], *, threw: object = None) -> list[list[object]]:
    sites = _sites()
    by_line = {(s.kind, s.line): k for k, s in sites.items()}
    err = threw or {"$err": {}, "message": "no", "names": ["TypeError", "Error", "Object"],
                    "builtin": ["TypeError", "Error"]}  # fmt: skip
    return [
        [by_line[("eq", 8)], "v", [values.get("rem", 1)]],  # plain calls report only when they raise
        [by_line[("eq", 9)], "v", [[1]]],
        [by_line[("ne", 10)], "v", [values.get("ne", {"$o": {}}), None]],
        [by_line[("throws", 11)], "threw", err],
        [by_line[("cmp", 12)], "v", [values.get("ok", 1)]],
        [by_line[("end", 5)], "end", 1],
    ]


def test_a_graded_test_holds_only_with_the_references_values() -> None:
    sites = _sites()
    gold = _run({})
    assert check_external(_run({}), gold, sites) is None
    assert "reference's value" in (check_external(_run({"rem": 2}), gold, sites) or "")
    assert check_external(_run({"ne": None}), gold, sites) == "line 10: values are equal"
    assert check_external(_run({"ok": 0}), gold, sites) is not None
    other = {"$err": {}, "message": "no", "names": ["TypeError", "Error", "Object"], "builtin": ["Error"]}
    assert "another class" in (check_external(_run({}, threw=other), gold, sites) or "")


def test_a_test_that_stops_early_or_adds_observations_does_not_hold() -> None:
    sites, gold = _sites(), _run({})
    assert check_external(_run({})[:-1], gold, sites) is not None
    assert check_external(_run({})[:3] + _run({})[-1:], gold, sites) is not None
    assert check_external(_run({}) + _run({})[-1:], gold, sites) is not None


def test_a_checked_test_holds_when_nothing_raised_and_it_ended() -> None:
    sites = _sites()
    assert check_inline(_run({}), sites) is None
    raised = _run({})[:2] + [[1, "raise", {"$err": {}}]]
    assert check_inline(raised, sites) is not None
    assert check_inline(_run({})[:-1], sites) == "the test did not reach its end"
    assert check_inline([["x", "v", 1]], sites) == "malformed observations"


def test_encodings_compare_strictly_and_lies_equal_nothing() -> None:
    assert equal({"$n": "NaN"}, {"$n": "NaN"}) and not equal({"$n": "-0"}, 0)
    assert equal({"$set": [1, 2], "names": []}, {"$set": [2, 1], "names": []})
    assert equal({"$o": {"a": 1, "b": 2}}, {"$o": {"b": 2, "a": 1}})
    assert not equal({"$o": {"a": {"$get": 1}}}, {"$o": {"a": {"$get": 1}}})
    assert not equal({"$proxy": 1}, {"$proxy": 1}) and not equal(True, 1)
    assert not truthy({"$u": 1}) and not truthy("") and not truthy(0) and truthy({"$o": {}}) and not truthy(False)


def test_bouts_check_counts_javascript_assertions_with_the_runners_rewrite() -> None:
    from bouts.calibration.assertions import assertion_counts

    # vitest/jest matchers are externalised too; a matcher on a mock function (its subject is no
    # value) is counted and named, decided in the test process.
    vitest = ("import { test, expect, vi } from 'vitest';\ntest('x', () => { expect(1).not.toBe(2); });\n"
              "test('y', () => { const f = vi.fn(); f(1); expect(f).toHaveBeenCalledWith(1); });\n")
    counts, problems = assertion_counts({"tests/hidden/lim.test.mjs": ("hidden", SOURCE),
                                         "tests/hidden/v.test.mjs": ("hidden", vitest)})  # fmt: skip
    assert [(c.suite, c.externalised, c.total) for c in counts] == [("hidden", 7, 8)]
    assert [p.field for p in problems] == ["line 3"]


def test_a_relational_ok_is_compared_on_the_host_with_its_literal_kept_there() -> None:
    # A forger answering `res.retryAfterMs >= 0` with an object whose valueOf reads the line's literal
    # is observed as the object it is, and compares as nothing.
    text = "import { test } from 'node:test';\nimport assert from 'node:assert';\n" \
           "test('t', () => { assert.ok(f() >= 10); });\n"
    plan = rewrite(text, "tests/visible/t.test.mjs")
    assert plan is not None and "10" not in plan.graded
    site = next(k for k, s in plan.sites.items() if s.kind == "cmp")
    end = next(k for k, s in plan.sites.items() if s.kind == "end")
    gold = [[site, "v", [12]], [end, "end", 1]]
    assert check_external([[site, "v", [10]], [end, "end", 1]], gold, plan.sites) is None
    assert check_external([[site, "v", [9]], [end, "end", 1]], gold, plan.sites) is not None
    lying = {"$inst": {}, "names": ["Lie", "Object"], "builtin": []}
    assert check_external([[site, "v", [lying]], [end, "end", 1]], gold, plan.sites) is not None


def test_a_test_function_passed_by_name_is_counted_as_unwrapped() -> None:
    # Its end is not observed: a file holding one does not require ends in its checked runs.
    text = "import { test } from 'node:test';\nimport assert from 'node:assert';\n" \
           "function body() { assert.ok(1); }\ntest('named', body);\ntest.todo('later');\n"
    plan = rewrite(text, "tests/visible/named.test.mjs")
    assert plan is not None and plan.unwrapped == 1 and plan.externalised == 1


def test_a_checked_test_returning_a_promise_holds_when_its_callbacks_observe_after_its_end() -> None:
    sites = _sites()
    run = _run({})
    assert check_inline(run[-1:] + run[:-1], sites) is None
    assert check_inline(run + run[-1:], sites) is not None  # two ends: observations forged
