"""``bouts eval`` scans a batch's files ahead, with one run of each security scanner: each sample's
security judge then finds every finding in the cache, the same findings a scan of its own gives."""

from __future__ import annotations

from pathlib import Path

from eval_helpers import write

from bouts.evaluation import EvalSettings, Sample, SampleJob
from bouts.evaluation._run import _chunks, prescan
from bouts.judges.security import SecurityJudge
from bouts.judges.security import _scanners as sc
from bouts.judges.security._eslint import EslintTool, default_package_dir, find_node
from bouts.judges.security._judge import _next_to_python
from bouts.judges.security._rules import rules_dir
from bouts.loading import load_challenge
from bouts.loading.view import build_view
from bouts.pipeline import ScoreConfig

INSECURE = "import subprocess\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n"
PLAIN = "def run(cmd):\n    return cmd\n"
BROKEN = "def run(cmd:\n    return cmd\n"


def _challenge(root: Path) -> Path:
    toml = 'id = "one-fn"\ntitle = "One function"\nprofile = "engine"\n[adversarial]\ngenerate = false\n'
    return write(root, {"challenge.toml": toml, "starter/solution.py": "def run(cmd):\n    pass\n",
                        "reference/solution.py": PLAIN,
                        "tests/visible/test_run.py": "from solution import run\n\ndef test_run():\n"
                                                     "    assert run(1) == 1\n",
                        "tests/hidden/test_run_hidden.py": "from solution import run\n\ndef test_two():\n"
                                                           "    assert run(2) == 2\n"})  # fmt: skip


def _job(directory: Path, n: int, program: str) -> SampleJob:
    return SampleJob(Sample("T/0", n, n + 1, "solution", program), "one-fn", directory, program, "agent")


def _files(directory: Path, program: str, tmp: Path) -> list[sc.SourceFile]:
    code = write(tmp / "code", {"solution.py": program})
    view = build_view(load_challenge(directory), code)
    return sc.files_of(view.judged, "submission")[0] + sc.files_of(view.judged_starter, "starter")[0]


def _tools() -> sc.Scanners:
    eslint = EslintTool(default_package_dir(), find_node())
    return sc.Scanners(_next_to_python("semgrep"), _next_to_python("bandit"), rules_dir(), eslint)


def test_prescan_fills_the_cache_each_judge_reads(tmp_path: Path) -> None:
    directory = _challenge(tmp_path / "challenge")
    cache_dir = tmp_path / "cache"
    settings = EvalSettings(config=ScoreConfig(cache_dir=cache_dir), cache_root=cache_dir)
    jobs = [_job(directory, 0, INSECURE), _job(directory, 1, PLAIN), _job(directory, 2, BROKEN)]
    prescan(jobs, settings)
    cache = sc.findings_cache(cache_dir)
    tools = _tools()
    for n, program in enumerate((INSECURE, PLAIN)):
        files = _files(directory, program, tmp_path / f"check{n}")
        warm = sc.scan_files(files, [], tools, cache=cache)
        assert warm.cached == len(files) == 2  # the sample's file and the starter's: no scanner started
        fresh = sc.scan_files(files, [], tools, cache=None)
        assert {t: f for t, f in warm.findings.items() if f} == {t: f for t, f in fresh.findings.items() if f}
    insecure = sc.scan_files(_files(directory, INSECURE, tmp_path / "again"), [], tools, cache=cache)
    assert any("shell=True" in f.message for f in insecure.findings["submission"])  # the finding, from the cache
    broken = _files(directory, BROKEN, tmp_path / "broken")
    assert cache.get(sc.file_key(tools.policy(), broken[0])) is None  # left to its own judge


def test_no_prescan_without_the_security_judge_or_a_cache(tmp_path: Path) -> None:
    directory = _challenge(tmp_path / "challenge")
    cache_dir = tmp_path / "cache"
    others = EvalSettings(config=ScoreConfig(cache_dir=cache_dir, judges=("quality-lint",)), cache_root=cache_dir)
    prescan([_job(directory, 0, INSECURE)], others)
    files = _files(directory, INSECURE, tmp_path / "check")
    assert sc.scan_files(files, [], _tools(), cache=sc.findings_cache(cache_dir)).cached == 0
    assert isinstance(SecurityJudge(), SecurityJudge)


def test_chunks_cover_the_order_once() -> None:
    order = list(range(50))
    chunks = _chunks(order, 8, 32)
    assert [len(c) for c in chunks] == [8, 32, 10]
    assert [i for c in chunks for i in c] == order
    assert _chunks([], 8, 32) == []
