"""Issue 41 item N7: the CPU one upload costs the API to check, before and after the scan.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_upload_check.py [--repeat 3]

Builds archives of small files (10,000 members: the cap; 20,000 and a zip whose central directory
holds 100,000 empty entries: past it; and ~150 MiB of content in four files) and measures the
process's CPU (user + system, ``getrusage``) of checking each one:

- before: what ``bouts.service.intake`` did until issue 41, ``load_submission`` into a scratch
  directory (extract every file, walk the tree, read every file back to hash it, remove it);
- after: ``inspect_submission_archive``, one streamed pass that writes nothing and stops at the
  first cap.

Prints the median of ``--repeat`` runs per archive. Results: docs/benchmarks.md, "Checking an upload".
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from bouts.errors import SubmissionError
from bouts.loading import load_submission
from bouts.loading.submission import inspect_submission_archive

META = b'agent = "a"\nchallenge = "inventory-ledger"\n'


def small_files(n: int) -> dict[str, bytes]:
    files = {"submission.toml": META}
    files |= {f"code/d{i // 100}/f{i}.py": f"x = {i}\n".encode() for i in range(n - 1)}
    return files


def write_tar(path: Path, files: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for rel, data in files.items():
            info = tarfile.TarInfo(f"s/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def write_zip(path: Path, files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as zf:
        for rel, data in files.items():
            zf.writestr(f"s/{rel}", data)
    return path


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(check: Callable[[], object], repeat: int) -> tuple[float, str]:
    times, outcome = [], ""
    for _ in range(repeat):
        start = cpu()
        try:
            check()
            outcome = "accepted"
        except SubmissionError as exc:
            outcome = "refused: " + exc.message.split(": ")[-1][:40]
        times.append(cpu() - start)
    return statistics.median(times), outcome


def before(archive: Path, scratch: Path) -> Callable[[], object]:
    def run() -> object:
        with tempfile.TemporaryDirectory(dir=scratch) as tmp:
            return load_submission(archive, Path(tmp)).content_hash

    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        big = {"submission.toml": META, "code/noise.bin": os.urandom(1200 * 1024)}
        big |= {f"code/zeros{i}.bin": b"\0" * (49 * 1024 * 1024) for i in range(3)}
        archives = {
            "10,000 small files, .tar.gz": write_tar(d / "a.tar.gz", small_files(10_000)),
            "10,000 small files, .zip": write_zip(d / "a.zip", small_files(10_000)),
            "20,000 small files, .tar.gz": write_tar(d / "b.tar.gz", small_files(20_000)),
            "100,000 empty entries, .zip": write_zip(
                d / "b.zip", {f"{i}": b"" for i in range(100_000)}, zipfile.ZIP_STORED
            ),
            "~148 MiB in 4 files, .tar.gz": write_tar(d / "c.tar.gz", big),
        }
        print("| archive | size | before, CPU s | after, CPU s | outcome |")
        print("|---|---:|---:|---:|---|")
        for label, archive in archives.items():
            old, outcome = measure(before(archive, d), args.repeat)
            new, outcome_new = measure(lambda a=archive: inspect_submission_archive(a), args.repeat)
            same = outcome if outcome == outcome_new else f"{outcome} / {outcome_new}"
            size = archive.stat().st_size / 1024 / 1024
            print(f"| {label} | {size:.1f} MiB | {old:.2f} | {new:.2f} | {same} |", flush=True)


if __name__ == "__main__":
    main()
