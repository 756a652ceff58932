"""Builders for the JavaScript integrity tests: a small money challenge whose visible tests hold
distinctive literals (a port of examples/inventory-ledger's "19.99" case), and copies of
examples/rate-limiter-js's anchors to plant cheats in."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Mapping
from pathlib import Path

from bouts.judges.base import JudgeInput, Verdict
from bouts.judges.integrity import StaticIntegrityJudge
from bouts.loading import load_challenge
from bouts.models.challenge import Challenge, ChallengeSpec
from bouts.models.results import RunReport

RATE = load_challenge(Path(__file__).resolve().parents[3] / "examples" / "rate-limiter-js")
RATE_HIGH = RATE.root / "anchors" / "high" / "code"
LIMITER = "src/limiter.mjs"

MONEY_VISIBLE = """
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toCents, total } from '../../src/money.mjs';

test('parses a price', () => {
  assert.equal(toCents('19.99'), 1999);
});

test('totals an order', () => {
  const order = [['A-1', 3, '19.99'], ['B-2', 1, '0.99']];
  assert.equal(total(order), 60.96);
});

for (const [input, expected] of [['12.50', 1250], ['7.05', 705]]) {
  test(`parses ${input}`, () => assert.equal(toCents(input), expected));
}

test('rejects garbage', () => {
  assert.throws(() => toCents('abc'), /E-42: not a price/);
});
"""
MONEY_STARTER = """
/** Cents of a price written as a decimal string. */
export function toCents(price) {
  return Math.round(parseFloat(price) * 100);
}

/** Total of [sku, quantity, price] lines. */
export function total(lines) {
  let sum = 0;
  for (const [, qty, price] of lines) sum += qty * parseFloat(price);
  return sum;
}
"""
MONEY_REFERENCE = """
/** Cents of a price written as a decimal string, e.g. "19.99" -> 1999. */
export function toCents(price) {
  const match = /^(\\d+)(?:\\.(\\d{1,2}))?$/.exec(String(price));
  if (!match) throw new TypeError(`E-42: not a price: ${price}`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

/** Total of [sku, quantity, price] lines, in currency units. */
export function total(lines) {
  let cents = 0;
  for (const [, qty, price] of lines) cents += qty * toCents(price);
  return cents / 100;
}
"""


def write_tree(root: Path, files: Mapping[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def js_challenge(root: Path, starter: Mapping[str, str], reference: Mapping[str, str], visible: Mapping[str, str],
                 language: str = "javascript") -> Challenge:
    write_tree(root / "starter", starter)
    write_tree(root / "reference", reference)
    write_tree(root / "tests" / "visible", visible)
    (root / "tests" / "hidden").mkdir(parents=True, exist_ok=True)
    suites = {"visible": "0", "hidden": "0", "adversarial": "0"}
    return Challenge(
        root=root, spec=ChallengeSpec(id="money-js", title="money", language=language,  # type: ignore[arg-type]
                                      protected=["tests/**", "package.json"]),
        content_hash="0", suite_hashes=suites, test_files={k: [] for k in suites},
    )


def money_challenge(tmp_path: Path) -> Challenge:
    return js_challenge(tmp_path / "challenge", {"src/money.mjs": MONEY_STARTER},
                        {"src/money.mjs": MONEY_REFERENCE}, {"money.test.mjs": MONEY_VISIBLE})


def judge(challenge: Challenge, code: Path, run: RunReport | None = None) -> Verdict:
    return StaticIntegrityJudge().judge(JudgeInput.read(challenge, code, run=run))


def judge_files(challenge: Challenge, tmp_path: Path, files: Mapping[str, str], base: Path | None = None) -> Verdict:
    """The verdict on ``base`` (default: the starter) with ``files`` written over it."""
    code = tmp_path / "code"
    shutil.rmtree(code, ignore_errors=True)
    shutil.copytree(base or challenge.starter, code)
    write_tree(code, files)
    return judge(challenge, code)


def bright(verdict: Verdict) -> list[tuple[str, str | None, int | None]]:
    return [(f.rule, f.file, f.line) for f in verdict.findings if f.severity == "critical"]


def gray(verdict: Verdict) -> list[str]:
    return [f.rule for f in verdict.findings if f.severity == "medium"]


def rate_limiter_with(tmp_path: Path, edit: str, anchor: str = "high") -> Verdict:
    """The rate-limiter anchor with ``edit`` (JavaScript) inserted at the top of ``hit(key)``."""
    code = tmp_path / "code"
    shutil.rmtree(code, ignore_errors=True)
    shutil.copytree(RATE.root / "anchors" / anchor / "code", code)
    path = code / LIMITER
    text = path.read_text()
    marker = "    hit(key) {\n"
    assert marker in text
    path.write_text(text.replace(marker, marker + textwrap.indent(textwrap.dedent(edit).strip("\n"), " " * 6) + "\n"))
    return judge(RATE, code)
