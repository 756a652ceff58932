"""The engine's on-disk cache (``bouts.cache.Store``): served only when it is the entry asked for,
written by this engine with this cache's secret; anything else is a miss, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from bouts.cache import Store, default_cache_dir
from bouts.errors import InfrastructureError

MATERIAL = {"challenge": "c" * 64, "submission": "s" * 64, "seed": 1}
PAYLOAD = {"final": 82, "band": "Strong"}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "cache", "results")


def test_a_stored_payload_is_served_for_the_same_material_only(store: Store) -> None:
    assert store.get(MATERIAL) is None
    assert store.put(MATERIAL, PAYLOAD)
    assert store.get(MATERIAL) == PAYLOAD
    assert store.get({**MATERIAL, "seed": 2}) is None
    assert Store.open(store.root, "reference").get(MATERIAL) is None  # namespaces never mix


def test_a_new_cache_directory_is_private_to_its_user(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "a" / "b", "results")
    store.put(MATERIAL, PAYLOAD)
    assert store.root.stat().st_mode & 0o777 == 0o700
    assert (store.root / "secret").stat().st_mode & 0o777 == 0o600
    assert store.path(store.key(MATERIAL)).stat().st_mode & 0o077 == 0


def test_an_entry_renamed_to_another_key_is_refused(store: Store) -> None:
    # Attack: copy a good scorecard's entry over the key of another submission.
    store.put(MATERIAL, {"final": 100})
    other = {**MATERIAL, "submission": "x" * 64}
    target = store.path(store.key(other))
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(store.path(store.key(MATERIAL)), target)
    assert store.get(other) is None


def test_an_edited_payload_is_refused(store: Store) -> None:
    # Attack: raise the stored score in place, keeping the entry's key and MAC.
    store.put(MATERIAL, {"final": 12})
    path = store.path(store.key(MATERIAL))
    entry = json.loads(path.read_text())
    entry["payload"] = entry["payload"].replace("12", "99")
    path.write_text(json.dumps(entry))
    assert store.get(MATERIAL) is None


def test_an_entry_written_with_another_caches_secret_is_refused(tmp_path: Path) -> None:
    # Attack: an entry made elsewhere (another machine, a forger who lacks this cache's secret).
    mine = Store.open(tmp_path / "mine", "results")
    theirs = Store.open(tmp_path / "theirs", "results")
    theirs.put(MATERIAL, {"final": 100})
    target = mine.path(mine.key(MATERIAL))
    target.parent.mkdir(parents=True)
    shutil.copy(theirs.path(theirs.key(MATERIAL)), target)
    assert mine.get(MATERIAL) is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),  # cut short
        lambda p: p.write_text("not json"),
        lambda p: p.write_text("[1, 2]"),
        lambda p: p.write_text(json.dumps({"schema": "bouts.cache/1"})),
        lambda p: p.write_bytes(b"\xff\xfe\x00"),
    ],
)
def test_a_damaged_entry_is_a_miss_and_is_rewritten(store: Store, damage) -> None:
    store.put(MATERIAL, PAYLOAD)
    damage(store.path(store.key(MATERIAL)))
    assert store.get(MATERIAL) is None
    assert store.put(MATERIAL, PAYLOAD) and store.get(MATERIAL) == PAYLOAD


def test_an_entry_others_can_write_or_a_link_is_refused(store: Store, tmp_path: Path) -> None:
    store.put(MATERIAL, PAYLOAD)
    path = store.path(store.key(MATERIAL))
    path.chmod(0o666)
    assert store.get(MATERIAL) is None
    path.chmod(0o600)
    elsewhere = tmp_path / "elsewhere.json"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    assert store.get(MATERIAL) is None


def test_a_cache_directory_others_can_write_is_refused_by_name(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(InfrastructureError) as err:
        Store.open(shared, "results")
    assert str(shared) in err.value.describe() and "writable by nobody else" in err.value.describe()


def test_a_secret_others_can_read_or_write_is_refused(store: Store) -> None:
    (store.root / "secret").chmod(0o644)
    with pytest.raises(InfrastructureError, match="secret"):
        Store.open(store.root, "results")


def test_a_changed_engine_never_reads_an_old_entry(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    store.put(MATERIAL, PAYLOAD)
    monkeypatch.setattr("bouts.cache._store.engine_fingerprint", lambda: "another engine")
    assert store.get(MATERIAL) is None


def test_a_store_not_keyed_by_the_engine_survives_an_engine_change_and_keeps_every_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = Store.open(tmp_path / "llm", "answers", engine_keyed=False)
    assert answers.put({"prompt": "p"}, {"text": "t"})
    monkeypatch.setattr("bouts.cache._store.engine_fingerprint", lambda: "another engine")
    assert answers.get({"prompt": "p"}) == {"text": "t"}  # an LLM's answer does not depend on the engine
    assert answers.key({"prompt": "p"}) != Store.open(tmp_path / "llm", "answers").key({"prompt": "p"})
    (entry,) = (tmp_path / "llm" / "answers").rglob("*.json")
    data = json.loads(entry.read_text())
    data["payload"] = json.dumps({"text": "forged"})
    entry.write_text(json.dumps(data))
    assert answers.get({"prompt": "p"}) is None  # the MAC still decides


def test_an_unwritable_cache_costs_a_run_never_an_error(store: Store) -> None:
    (store.root / "results").mkdir()
    (store.root / "results").chmod(0o500)
    try:
        if os.access(store.root / "results", os.W_OK):  # root ignores the mode
            pytest.skip("running as a user the mode does not bind")
        assert store.put(MATERIAL, PAYLOAD) is False
        assert store.get(MATERIAL) is None
    finally:
        (store.root / "results").chmod(0o700)


def test_the_default_directory_follows_the_environment_the_driver_passes() -> None:
    assert default_cache_dir({"BOUTS_CACHE_DIR": "/x/y"}) == Path("/x/y")
    assert default_cache_dir({"XDG_CACHE_HOME": "/c"}) == Path("/c/bouts")
    assert default_cache_dir({}) == Path("~/.cache/bouts").expanduser()


def test_the_engine_fingerprint_moves_with_an_installed_version_or_a_file_of_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bouts.cache import _fingerprint

    site = tmp_path / "site"
    (site / "semgrep-1.0.0.dist-info").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(site))
    fingerprint = _fingerprint.engine_fingerprint.__wrapped__  # uncached
    before = fingerprint()
    assert fingerprint() == before
    (site / "semgrep-1.0.0.dist-info").rename(site / "semgrep-1.0.1.dist-info")
    upgraded = fingerprint()
    assert upgraded != before
    package = tmp_path / "bouts"
    shutil.copytree(Path(_fingerprint.__file__).parents[1], package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(_fingerprint, "PACKAGE_DIR", package)
    copy = fingerprint()
    (package / "scoring" / "weights.py").write_text((package / "scoring" / "weights.py").read_text() + "\n# edit\n")
    assert fingerprint() != copy
