"""``[attribution]`` in challenge.toml: known sources a submission may copy only with credit. Each
source is a file or folder of the challenge; every mistake is named by file and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.errors import ChallengeError
from bouts.loading import load_challenge

TOML = 'id = "demo-1"\ntitle = "Demo"\n'


def challenge(root: Path, attribution: str) -> Path:
    files = {
        "challenge.toml": TOML + "\n[attribution]\n" + attribution,
        "starter/app.py": "def f():\n    return 1\n",
        "reference/app.py": "def f():\n    return 2\n",
        "tests/visible/test_v.py": "def test_v():\n    pass\n",
        "tests/hidden/test_h.py": "def test_h():\n    pass\n",
        "known/recipes/rle.py": "def rle(text):\n    return text\n",
        "known/lru.py": "def lru():\n    return 1\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def error(root: Path) -> ChallengeError:
    with pytest.raises(ChallengeError) as info:
        load_challenge(root)
    assert info.value.file == str(root / "challenge.toml")
    return info.value


def test_sources_as_paths_or_tables(tmp_path: Path) -> None:
    sources = 'sources = ["known/recipes", {path = "known/lru.py", names = ["LRU recipe", "https://example.org/lru"]}]'
    spec = load_challenge(challenge(tmp_path / "c", sources + "\n")).spec
    assert [(s.path, s.names) for s in spec.attribution.sources] == [
        ("known/recipes", []), ("known/lru.py", ["LRU recipe", "https://example.org/lru"])
    ]  # fmt: skip
    assert spec.attribution.threshold == 0.85


def test_no_attribution_table_declares_nothing(tmp_path: Path) -> None:
    root = challenge(tmp_path / "c", "")
    (root / "challenge.toml").write_text(TOML)
    assert load_challenge(root).spec.attribution.sources == []


@pytest.mark.parametrize(
    ("attribution", "field", "words"),
    [
        ('sources = ["known/missing.py"]\n', "attribution.sources[0].path", "not a file or folder"),
        ('sources = ["known/lru.py", "../outside"]\n', "attribution.sources[1].path", "without '..'"),
        ('sources = ["/etc/passwd"]\n', "attribution.sources[0].path", "relative path"),
        ('sources = [{path = "known/lru.py", names = ["x"]}]\n', "attribution.sources[0].names", "3 characters"),
        ('sources = ["known/lru.py"]\nthreshold = 0.2\n', "attribution.threshold", "0.5"),
        ('sources = [{path = "known/lru.py", title = "LRU"}]\n', "attribution.sources[0].title", "unknown key"),
    ],
)
def test_a_mistake_names_the_file_and_field(tmp_path: Path, attribution: str, field: str, words: str) -> None:
    err = error(challenge(tmp_path / "c", attribution))
    assert err.field == field and words in err.message, (err.field, err.message)


def test_a_link_out_of_the_challenge_is_refused(tmp_path: Path) -> None:
    root = challenge(tmp_path / "c", 'sources = ["known/elsewhere"]\n')
    (tmp_path / "outside").mkdir()
    (root / "known" / "elsewhere").symlink_to(tmp_path / "outside")
    assert error(root).field == "attribution.sources[0].path"
