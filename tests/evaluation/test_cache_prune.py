"""The cache stays bounded: ``bouts cache prune`` removes what nothing reads (leftovers of killed
writers, old layouts), entries unused for a while, and the least recently used past a size, and
never the caches' secrets, another user's files, or what a link points to."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bouts.cache import Store, prune, summary
from bouts.cache._prune import IN_USE_S, LEFTOVER_S
from bouts.cli.main import app

NOW = time.time()
DAY = 86400.0


def _put(store: Store, name: str, age_days: float, size: int = 1000) -> Path:
    material = {"n": name}
    assert store.put(material, {"blob": "x" * size})
    path = store.path(store.key(material))
    os.utime(path, (NOW - age_days * DAY, NOW - age_days * DAY))
    return path


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def test_the_least_recently_used_go_first_until_the_cache_fits(cache: Path) -> None:
    results, plans = Store.open(cache, "results"), Store.open(cache, "plans")
    old = _put(results, "old", 30)
    older = _put(plans, "older", 40)
    recent = _put(results, "recent", 1)
    newest = _put(plans, "newest", 0.5)
    one = recent.stat().st_size
    report = prune(cache, max_bytes=2 * one + 10, now=NOW)
    assert not older.exists() and not old.exists()  # the two oldest, across namespaces
    assert recent.exists() and newest.exists()
    assert (cache / "secret").is_file()
    assert report.total("removed").entries == 2 and report.total("kept").entries == 2
    assert set(report.removed) == {"results", "plans"}


def test_a_hit_makes_an_entry_recent(cache: Path) -> None:
    results = Store.open(cache, "results")
    read = _put(results, "read", 30)
    unread = _put(results, "unread", 20)
    assert results.get({"n": "read"}) is not None  # a hit touches it
    prune(cache, max_bytes=read.stat().st_size + 10)
    assert read.exists() and not unread.exists()


def test_older_than_removes_only_entries_unused_that_long(cache: Path) -> None:
    store = Store.open(cache, "reference")
    stale, fresh = _put(store, "stale", 45), _put(store, "fresh", 3)
    prune(cache, older_than_s=30 * DAY, now=NOW)
    assert not stale.exists() and fresh.exists()


def test_a_dry_run_removes_nothing_and_says_the_same(cache: Path) -> None:
    store = Store.open(cache, "results")
    paths = [_put(store, str(i), 10 - i) for i in range(4)]
    weight = sum(p.stat().st_size for p in paths)
    dry = prune(cache, max_bytes=0, dry_run=True, now=NOW)
    assert all(p.exists() for p in paths)
    assert (dry.total("removed").entries, dry.total("removed").bytes) == (4, weight)
    real = prune(cache, max_bytes=0, now=NOW)
    assert (real.total("removed").entries, real.total("removed").bytes) == (4, weight)
    assert not any(p.exists() for p in paths)
    assert (cache / "secret").is_file()  # max_bytes=0 still keeps the secret


def test_leftovers_old_layouts_and_links_go_and_nothing_else(cache: Path, tmp_path: Path) -> None:
    store = Store.open(cache, "results")
    entry = _put(store, "kept", 0)
    bucket = entry.parent
    old_tmp, new_tmp = bucket / "a1.tmp", bucket / "b2.tmp"
    old_tmp.write_text("half"), new_tmp.write_text("being written")
    os.utime(old_tmp, (NOW - 2 * LEFTOVER_S, NOW - 2 * LEFTOVER_S))
    legacy = cache / f"oracle-{'c' * 64}.json"
    legacy.write_text("{}")
    target = tmp_path / "outside.json"
    target.write_text("not the cache's")
    link = bucket / f"{'d' * 64}.json"
    link.symlink_to(target)
    notes = bucket / "README"
    notes.write_text("not an entry")
    report = prune(cache, now=NOW)  # no limit: leftovers only
    assert not old_tmp.exists() and not legacy.exists() and not link.is_symlink()
    assert new_tmp.exists() and entry.exists() and notes.exists() and target.read_text() == "not the cache's"
    assert report.removed["leftover"].entries == 3


def _environment(cache: Path, key: str, age_s: float) -> Path:
    env = cache / "deps" / "python" / key
    (env / "site" / "pkg").mkdir(parents=True)
    (env / "site" / "pkg" / "__init__.py").write_text("x = 1\n" * 100)
    for path in (env / "site" / "pkg" / "__init__.py", env / "site" / "pkg", env / "site"):
        path.chmod(0o555 if path.is_dir() else 0o444)  # as the sandbox reads it
    os.utime(env, (NOW - age_s, NOW - age_s))
    return env


def test_prepared_environments_go_whole_unless_a_run_may_be_using_them(cache: Path) -> None:
    unused = _environment(cache, "a" * 64, 10 * DAY)
    in_use = _environment(cache, "b" * 64, IN_USE_S / 2)
    building = cache / "deps" / "python" / ".building-x1"
    (building / "env").mkdir(parents=True)
    os.utime(building, (NOW - 2 * LEFTOVER_S, NOW - 2 * LEFTOVER_S))
    report = prune(cache, max_bytes=0, now=NOW)
    assert not unused.exists() and not building.exists()
    assert (in_use / "site" / "pkg" / "__init__.py").is_file()
    assert report.removed["deps/python"].entries == 1 and report.kept["deps/python"].entries == 1
    assert summary(cache, now=NOW)["deps/python"].bytes == 600


def test_the_llm_answer_store_is_pruned_as_a_nested_namespace(cache: Path) -> None:
    answers = Store.open(cache / "llm", "answers", engine_keyed=False)
    path = _put(answers, "prompt", 60)
    assert "llm/answers" in summary(cache)
    prune(cache, older_than_s=30 * DAY, now=NOW)
    assert not path.exists() and (cache / "llm" / "secret").is_file()


def test_the_cli_reports_and_refuses_a_size_it_cannot_read(cache: Path) -> None:
    store = Store.open(cache, "results")
    _put(store, "one", 5)
    _put(store, "two", 1)
    runner = CliRunner()
    info = runner.invoke(app, ["cache", "info", "--cache-dir", str(cache), "--json"])
    assert info.exit_code == 0, info.output
    assert json.loads(info.output)["kinds"]["results"]["entries"] == 2
    done = runner.invoke(app, ["cache", "prune", "--cache-dir", str(cache), "--older-than", "3d", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["removed"] == {"results": {"entries": 1, "bytes": pytest.approx(1100, abs=200)}}
    bad = runner.invoke(app, ["cache", "prune", "--cache-dir", str(cache), "--max-size", "lots"])
    assert bad.exit_code == 2
    assert "max-size" in bad.output and "not a size" in bad.output
    assert summary(cache)["results"].entries == 1


@pytest.mark.parametrize(("text", "size"), [("4096", 4096), ("500M", 500 << 20), ("2G", 2 << 30),
                                            ("1.5GiB", 3 << 29), ("10kb", 10240), ("0", 0)])  # fmt: skip
def test_sizes_read_as_the_help_says(text: str, size: int) -> None:
    from bouts.cli.cache import parse_size

    assert parse_size(text) == size


@pytest.mark.parametrize(("text", "seconds"), [("30d", 30 * DAY), ("12h", 43200.0), ("2w", 14 * DAY),
                                               ("7", 7 * DAY), ("90m", 5400.0)])  # fmt: skip
def test_spans_read_as_the_help_says(text: str, seconds: float) -> None:
    from bouts.cli.cache import parse_span

    assert parse_span(text) == seconds


def test_a_dataset_folder_counts_and_goes_with_its_entry(cache: Path) -> None:
    store = Store.open(cache, "datasets")
    material = {"dataset": "d" * 64, "profile": "engine"}
    store.put(material, {"hashes": {}})
    key = store.key(material)
    folder = cache / "datasets" / key
    (folder / "HumanEval_0" / "tests").mkdir(parents=True)
    (folder / "HumanEval_0" / "tests" / "test_x.py").write_text("x" * 5000)
    staging = cache / "datasets" / ".import-abc"
    (staging / "out").mkdir(parents=True)
    for path in (folder, store.path(key), staging):
        os.utime(path, (NOW - 40 * DAY, NOW - 40 * DAY))
    assert summary(cache, now=NOW)["datasets"].bytes >= 5000  # the challenges are counted
    assert store.get(material) is not None  # used now: the entry's time is the folder's too
    prune(cache, older_than_s=30 * DAY, now=NOW)
    assert folder.is_dir() and not staging.exists()  # a killed import's staging is a leftover
    prune(cache, max_bytes=0, now=NOW)  # used within the hour: an evaluation may be reading it
    assert folder.is_dir() and not store.path(key).exists()  # the entry itself was read whole
    prune(cache, max_bytes=0, now=NOW + 2 * IN_USE_S)
    assert not folder.exists()


def test_links_to_folders_are_never_walked(cache: Path, tmp_path: Path) -> None:
    store = Store.open(cache, "results")
    mine = _put(store, "mine", 40)
    outside = tmp_path / "outside"
    victim = outside / "ab" / f"{'a' * 64}.json"
    victim.parent.mkdir(parents=True)
    victim.write_text("{}")
    (cache / "evil").symlink_to(outside)  # a namespace that is a link
    # a bucket that is a link; the entry's own bucket depends on the engine's fingerprint in its key
    bucket = next(b for b in ("cd", "ce") if b != mine.parent.name)
    (cache / "results" / bucket).symlink_to(outside / "ab")
    (cache / "deps" / "python").mkdir(parents=True)
    (cache / "deps" / "python" / ("e" * 64)).symlink_to(outside)  # an environment that is a link
    os.utime(victim, (NOW - 90 * DAY, NOW - 90 * DAY))
    report = prune(cache, max_bytes=0, older_than_s=DAY, now=NOW)
    assert victim.read_text() == "{}" and (outside / "ab").is_dir()
    assert report.total("removed").entries == 1  # only the entry of the cache itself
