"""Narrowed runs (``bouts.modes``): which judges a tests-only run seats, and the flag that says
what a narrowed run left out."""

from __future__ import annotations

from dataclasses import dataclass

from bouts.judging import builtin_judges
from bouts.modes import correctness_judges, not_run


@dataclass
class J:
    name: str
    component: str


def test_tests_only_seats_the_judges_that_feed_correctness_and_no_other() -> None:
    judges = [J("quality-lint", "code_quality"), J("gen-plugin", "adversarial_generated"), J("sec", "security")]
    assert correctness_judges(judges) == ("gen-plugin",)


def test_no_built_in_judge_feeds_correctness() -> None:
    # static_tests and adversarial come from the test runs; every built-in judge scores another component.
    assert correctness_judges(builtin_judges()) == ()


def test_a_full_run_has_no_flag() -> None:
    assert not_run(["a", "b"], ["a", "b"], generation_asked=True, generation_run=True) is None
    assert not_run(["a"], ["a"], generation_asked=False, generation_run=False) is None


def test_the_flag_names_every_judge_left_out_and_the_generated_tests() -> None:
    flag = not_run([], ["integrity-static", "quality-lint"], generation_asked=True, generation_run=False)
    assert flag is not None and flag.code == "not_run"
    assert "judges integrity-static, quality-lint" in flag.message
    assert "adversarial tests generated from the submission" in flag.message
    only_gen = not_run(["a"], ["a"], generation_asked=True, generation_run=False)
    assert only_gen is not None and ": judges" not in only_gen.message
