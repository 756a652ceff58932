"""Issue 41 item N7: the CPU one upload costs the API to check, before and after the scan.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_upload_check.py [--repeat 3]
    git archive 85278a7 src | tar -x -C /tmp/before   # the tree before issue 41's N7
    PYTHONPATH=/tmp/before/src .venv/bin/python benchmarks/bench_upload_check.py

Builds archives of small files (10,000 members: the cap; 20,000 and a zip whose central directory
holds 100,000 empty entries: past it), of ~150 MiB of content in four files, and of both caps at
once (10,000 members, ~197 MiB) and measures the
process's CPU (user + system, ``getrusage``) of checking each one:

- extract: ``load_submission`` into a scratch directory (extract every file, walk the tree, read
  every file back to hash it, remove it): what ``bouts.service.intake`` did until issue 41 (run it
  on the tree before, as above), and what a worker still does;
- scan: ``inspect_submission_archive``, one streamed pass that writes nothing and stops at the
  first cap: what the intake does now ("n/a" on the tree before).

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

try:
    from bouts.loading.submission import inspect_submission_archive
except ImportError:  # the tree before issue 41
    inspect_submission_archive = None  # type: ignore[assignment]

META = b'agent = "a"\nchallenge = "inventory-ledger"\n'


def small_files(n: int) -> dict[str, bytes]:
    files = {"submission.toml": META}
    files |= {f"code/d{i // 100}/f{i}.py": f"x = {i}\n".encode() for i in range(n - 1)}
    return files


def worst() -> dict[str, bytes]:
    """Both caps at once: 10,000 members holding just under 200 MiB (four 49 MiB files of zeros,
    and 1.2 MiB of noise so that the archive stays under the 200:1 ratio cap)."""
    files = small_files(10_000 - 5)
    files["code/noise.bin"] = os.urandom(1200 * 1024)
    files |= {f"code/zeros{i}.bin": b"\0" * (49 * 1024 * 1024) for i in range(4)}
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
            "both caps: 10,000 files, ~197 MiB, .tar.gz": write_tar(d / "d.tar.gz", worst()),
        }
        print("| archive | size | extract, CPU s | scan, CPU s | outcome |")
        print("|---|---:|---:|---:|---|")
        for label, archive in archives.items():
            old, outcome = measure(before(archive, d), args.repeat)
            new = "n/a"
            if inspect_submission_archive is not None:
                took, outcome_new = measure(lambda a=archive: inspect_submission_archive(a), args.repeat)
                new, outcome = f"{took:.2f}", outcome if outcome == outcome_new else f"{outcome} / {outcome_new}"
            size = archive.stat().st_size / 1024 / 1024
            print(f"| {label} | {size:.1f} MiB | {old:.2f} | {new} | {outcome} |", flush=True)


if __name__ == "__main__":
    main()
