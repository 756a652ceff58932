"""The labelled trajectory corpus (issue 38): real SWE-bench agent runs, each with the verdict of the
SWE-bench evaluation harness, read from public repositories' git history.

Two commands:

``python benchmarks/trajectory_corpus.py build --mirror OWNER/NAME=GIT_DIR ... --out /work/corpus``
    copies each run's trajectory out of the named git directories (bare clones of the sources below)
    into ``--out`` and writes ``benchmarks/data/trajectory_corpus.jsonl``: one line a run with the
    source repository, path, commit, licence, sha256, label, harness and model.

``python benchmarks/trajectory_corpus.py verify --corpus /work/corpus``
    checks every file the manifest names against its sha256.

The logs themselves are never committed (they are other people's data: see docs/benchmarks.md,
"Trajectory validity", for where to get them); the manifest is.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "data" / "trajectory_corpus.jsonl"
MIT_MINI = "MIT (LICENSE.md: © 2025 Kilian A. Lieret and Carlos E. Jimenez)"


@dataclass(frozen=True)
class Source:
    """One submission: where its trajectories are and where its labels come from."""

    name: str
    repository: str
    commit: str
    ref: str
    trajs: str
    """Folder of ``<instance>/<instance>.traj.json``."""
    labels: str
    """``reports:<folder>`` (per-instance ``<instance>/report.json``) or ``summary:<file>`` (sb-cli
    ``resolved_ids`` / ``unresolved_ids``)."""
    split: str
    licence: str = MIT_MINI


GEMINI = "swebench_results/20251118_gemini-3-pro-74pct"
PR814 = "41a1e33ba94bbf7a0d2410dec46f99a8690113c0"
PR816 = "e5e0fbca1c60561bde25fa473b78717aa4b3f9ec"
SOURCES = (
    Source("gemini-3-pro-verified", "gruckion/mini-swe-agent", "d12a71affd95403b036b2bdbd827349b77bfffb9", "main",
           f"{GEMINI}/trajs", f"reports:{GEMINI}/logs", "SWE-bench Verified (test, 500)"),
    Source("deepseek-lite-test-1-100", "SWE-agent/mini-swe-agent", PR814, "refs/pull/814/head",
           "output/deepseek_bench1", "reports:logs/run_evaluation/deepseek_bench1_eval/deepseek__deepseek-chat",
           "SWE-bench Lite (test, first 100)"),
    Source("deepseek-lite-dev", "SWE-agent/mini-swe-agent", PR814, "refs/pull/814/head",
           "output/deepseek_bench_dev", "reports:logs/run_evaluation/deepseek_bench_eval/deepseek__deepseek-chat",
           "SWE-bench Lite (dev, 23)"),
    Source("deepseek-lite-dev-rerun", "SWE-agent/mini-swe-agent", PR816, "refs/pull/816/head",
           "output/deepseek_chat_dev_rerun", "summary:deepseek__deepseek-chat.deepseek_chat_dev_rerun.json",
           "SWE-bench Lite (dev, 23)"),
    Source("deepseek-lite-dev-noparallel", "SWE-agent/mini-swe-agent", PR816, "refs/pull/816/head",
           "output/deepseek_lite_dev_noparallel", "summary:deepseek__deepseek-chat.deepseek_lite_dev_noparallel.json",
           "SWE-bench Lite (dev, 23)"),
)  # fmt: skip


def _git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True).stdout


def _files(git_dir: Path, commit: str, folder: str) -> list[str]:
    out = _git(git_dir, "ls-tree", "-r", "--name-only", commit, folder).decode()
    return [p for p in out.splitlines() if p]


def _labels(git_dir: Path, src: Source) -> tuple[dict[str, bool], dict[str, str]]:
    """Instance → resolved, and instance → the path the label was read from."""
    kind, where = src.labels.split(":", 1)
    if kind == "summary":
        data = json.loads(_git(git_dir, "show", f"{src.commit}:{where}"))
        labels = {i: True for i in data["resolved_ids"]} | {i: False for i in data["unresolved_ids"]}
        return labels, dict.fromkeys(labels, where)
    labels, paths = {}, {}
    for path in _files(git_dir, src.commit, where):
        if path.endswith("/report.json"):
            instance = path.split("/")[-2]
            report = json.loads(_git(git_dir, "show", f"{src.commit}:{path}"))
            labels[instance] = bool(report.get(instance, report)["resolved"])  # harness nests it; sb-cli not
            paths[instance] = path
    return labels, paths


def _run_info(data: bytes) -> tuple[str, str]:
    """The harness version and model a mini-swe-agent trajectory records."""
    info = json.loads(data).get("info", {})
    model = info.get("config", {}).get("model", {}).get("model_name") or "unknown"
    return f"mini-swe-agent {info.get('mini_version', '?')}", model


def build(mirrors: dict[str, Path], out: Path) -> Iterator[dict[str, object]]:
    seen: dict[str, str] = {}
    for src in SOURCES:
        git_dir = mirrors[src.repository]
        labels, label_paths = _labels(git_dir, src)
        for path in _files(git_dir, src.commit, src.trajs):
            if not path.endswith(".traj.json"):
                continue
            instance = path.split("/")[-2]
            if instance not in labels:
                continue  # no verdict for this run: not in the corpus
            try:
                data = _git(git_dir, "show", f"{src.commit}:{path}")
            except subprocess.CalledProcessError:
                print(f"skipped {src.repository}@{src.commit[:12]}:{path}: not in the snapshot (4 MiB and more)",
                      file=sys.stderr)  # fmt: skip
                continue
            digest = hashlib.sha256(data).hexdigest()
            if digest in seen:
                continue  # the same log under another submission name (PR 816 renamed PR 814's folders)
            seen[digest] = path
            saved = Path(src.repository.replace("/", "+")) / src.commit[:12] / path
            (out / saved).parent.mkdir(parents=True, exist_ok=True)
            (out / saved).write_bytes(data)
            harness, model = _run_info(data)
            yield {
                "run_id": f"{src.name}/{instance}", "instance_id": instance, "file": str(saved),
                "repository": src.repository, "path": path, "commit": src.commit, "ref": src.ref,
                "licence": src.licence, "sha256": digest, "bytes": len(data), "resolved": labels[instance],
                "label_source": label_paths[instance], "harness": harness, "model": model, "split": src.split,
            }  # fmt: skip


def load_manifest(path: Path = MANIFEST) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def verify(corpus: Path, manifest: list[dict[str, object]]) -> list[str]:
    """The problems: files missing or not byte-for-byte the manifest's."""
    problems = []
    for row in manifest:
        file = corpus / str(row["file"])
        if not file.is_file():
            problems.append(f"{row['run_id']}: missing {file}")
        elif hashlib.sha256(file.read_bytes()).hexdigest() != row["sha256"]:
            problems.append(f"{row['run_id']}: {file} does not match its sha256")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--mirror", action="append", default=[], help="OWNER/NAME=GIT_DIR (repeat)")
    b.add_argument("--out", type=Path, required=True)
    v = sub.add_parser("verify")
    v.add_argument("--corpus", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "build":
        mirrors = {k: Path(v) for k, v in (m.split("=", 1) for m in args.mirror)}
        rows = list(build(mirrors, args.out))
        MANIFEST.parent.mkdir(parents=True, exist_ok=True)
        MANIFEST.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
        print(f"{len(rows)} runs written to {MANIFEST}")
        return 0
    problems = verify(args.corpus, load_manifest())
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(load_manifest()) - len(problems)} of {len(load_manifest())} files verified")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
