"""The analysis finds each planted weakness with its location; generation is deterministic.
Pure: no submission code runs here (that happens only in the sandbox, see the other module)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.adversarial import PythonAnalyser, analyser_for, generate, read_sources
from bouts.adversarial._model import SEVERITY, TMP_PATH, HandleRecipe, severity_of

FIXTURES = Path(__file__).with_name("fixtures")
LEDGER = Path(__file__).resolve().parents[2] / "examples" / "inventory-ledger"


def analyse(root: Path):  # noqa: ANN201
    return PythonAnalyser().analyse(read_sources(root, (".py",)))


@pytest.mark.parametrize(
    ("kind", "where", "sink"),
    [
        ("unvalidated_input", "planted/palette.py:6", "indexing"),
        ("non_atomic_update", "planted/counter.py:11", "rmw"),
        ("missing_null_check", "planted/parsing.py:6", "re.match"),
        ("pattern_mismatch", "planted/versions.py:3", "version"),
    ],
)
def test_each_planted_weakness_is_found_with_its_location(kind: str, where: str, sink: str) -> None:
    analysis = analyse(FIXTURES / "weak")
    found = [t for t in analysis.targets if t.kind == kind and t.where == where and t.sink == sink]
    assert found, [(t.kind, t.where, t.sink) for t in analysis.targets]
    assert any(p.target in found for p in analysis.probes), "found but not probed"


def test_fixed_versions_leave_only_guarded_targets() -> None:
    targets = analyse(FIXTURES / "fixed").targets
    assert all(t.guarded for t in targets if t.kind == "unvalidated_input")
    assert not [t for t in targets if t.kind in ("non_atomic_update", "missing_null_check", "pattern_mismatch")]


def test_special_casing_a_value_is_not_a_check() -> None:
    # The low anchor's `if price == "19.99": return 1999` must not hide `float(price)`.
    low = analyse(LEDGER / "anchors" / "low" / "code")
    assert any(t.kind == "weak_type" and t.function == "ledger.money:to_cents" for t in low.targets)
    assert any(p.entry.qualname == "Ledger.add_item" and p.param == "unit_price" for p in low.probes)


def test_only_the_package_exports_are_entries() -> None:
    entries = {p.entry.qualname for p in analyse(LEDGER / "reference").probes}
    assert "from_cents" not in entries  # ledger.money's helper is not exported by ledger/__init__
    assert {"Ledger.receive", "Ledger.movements"} <= entries


def test_generation_is_deterministic_from_the_seed_and_compiles() -> None:
    analysis = analyse(FIXTURES / "weak")
    one, again, other = generate(analysis, 11), generate(analysis, 11), generate(analysis, 12)
    assert one.files == again.files
    assert one.files != other.files
    assert all(t.id.startswith("tests/generated/test_gen_") for t in one.tests)
    assert {t.strategy for t in one.tests} == {"fuzz", "race", "metamorphic"}


def test_only_the_files_whose_tests_draw_values_import_hypothesis() -> None:
    # Importing hypothesis and validating its strategies is most of collecting a generated file in
    # the sandbox: a file of race tests needs none of it (the fuzz runtime is _runtime_fuzz.py).
    suite = generate(analyse(FIXTURES / "weak"), 11)
    draws = {t.id.split("::")[0]: t.strategy for t in suite.tests}
    assert set(draws.values()) == {"race", "fuzz", "metamorphic"}
    for path, text in suite.files.items():
        compile(text, path, "exec")
        imports = "from hypothesis import" in text
        assert imports == ("@fuzz(" in text or "@version_pairs(" in text), path
        assert imports == (draws[path] != "race"), path
        assert "def ungraceful(" in text and "def race(" in text  # the core runtime is in every file


def test_a_file_that_does_not_parse_is_a_note_not_an_error() -> None:
    analysis = PythonAnalyser().analyse({"pkg/__init__.py": "def f(:\n", "ok.py": "def g(i):\n    return [1][i]\n"})
    assert any("does not parse" in n for n in analysis.notes)
    assert [p.entry.qualname for p in analysis.probes] == ["g"]


def test_severity_table() -> None:
    assert severity_of("unvalidated_input", "sql") == "critical"
    assert severity_of("unvalidated_input", "indexing") == "high"
    assert SEVERITY["non_atomic_update"] == "high" and SEVERITY["weak_type"] == "low"


def test_python_and_javascript_are_registered() -> None:
    assert [analyser_for(name).language for name in ("python", "javascript", "typescript")] == [
        "python", "javascript", "typescript"]  # fmt: skip


ROOMS = Path(__file__).resolve().parents[2] / "examples" / "room-bookings"
LEAGUE = Path(__file__).resolve().parents[2] / "examples" / "league-table"


def test_an_infrastructure_handle_is_never_fuzzed_nor_faked() -> None:
    """Stops the room-bookings false positive: `init_schema(db=0)` failed on every submission."""
    analysis = analyse(ROOMS / "reference")
    assert not [p for p in analysis.probes if p.http is None]
    why = {t.where: reason for t, reason in analysis.skipped}
    assert "infrastructure handle" in why["bookings/db.py:100"]


def test_an_entry_that_needs_a_connection_is_not_called_with_a_plain_value() -> None:
    analysis = PythonAnalyser().analyse({"store.py": (
        "def save(conn, key):\n    return conn.execute(f'INSERT {key}')\n\n"
        "def fetch(key, session=None):\n    return [1][key]\n\n"
        "def get(items, key):\n    return items[key]\n"
    )})  # fmt: skip
    called = {(p.entry.qualname, p.param) for p in analysis.probes}
    assert called == {("fetch", "key"), ("get", "key"), ("get", "items")}


def test_iteration_is_not_a_weak_type_target() -> None:
    """Stops the league-table false positive: `standings(0)` raises Python's own TypeError at the
    `for`, the exception a deliberate check raises too, so no caller can tell the difference."""
    assert not analyse(LEAGUE / "reference").probes
    analysis = PythonAnalyser().analyse({"m.py": "def total(xs):\n    return sum(xs) + len(xs)\n\n"
                                                 "def names(rows):\n    return [r for r in sorted(rows)]\n"})
    assert {(t.function, t.sink) for t in analysis.targets} == {("m:total", "conversion")}  # sum(), not len()


def test_http_operations_of_a_fastapi_factory_are_found_with_their_app_recipe() -> None:
    analysis = analyse(ROOMS / "reference")
    http = [p for p in analysis.probes if p.http]
    assert [(p.http.method, p.http.path) for p in http] == [
        ("POST", "/rooms"), ("GET", "/rooms"), ("POST", "/bookings"), ("GET", "/rooms/{room_id}/bookings"),
        ("DELETE", "/bookings/{booking_id}"),
    ]  # fmt: skip
    assert http[3].http.operation_id == "room_bookings_rooms__room_id__bookings_get"  # FastAPI's default id
    assert http[0].target.function == "bookings.app:create_app.add_room" and http[0].target.severity == "high"
    recipe = http[0].http.app
    assert (recipe.module, recipe.attr, recipe.call) == ("bookings.app", "create_app", True)
    ((name, handle),) = recipe.kwargs
    assert name == "db" and isinstance(handle, HandleRecipe)
    assert (handle.module, handle.cls, handle.ctor) == ("bookings.db", "SqliteDatabase", (("path", TMP_PATH),))
    assert handle.init == (("bookings.db", "init_schema", "db"),)


def test_http_routes_on_a_module_app_and_an_included_router() -> None:
    analysis = PythonAnalyser().analyse({
        "svc/__init__.py": "",
        "svc/items.py": (
            "from fastapi import APIRouter\nrouter = APIRouter(prefix='/items')\n\n"
            "@router.get('/{item_id}')\ndef one(item_id: int):\n    return {}\n"
        ),
        "svc/main.py": (
            "from fastapi import FastAPI\nfrom svc.items import router\napp = FastAPI()\n"
            "app.include_router(router, prefix='/v1')\n\n"
            "@app.api_route('/ping', methods=['GET', 'HEAD'], operation_id='ping')\ndef ping():\n    return 'ok'\n"
        ),
    })  # fmt: skip
    ops = {(p.http.method, p.http.path, p.http.operation_id, p.target.file) for p in analysis.probes if p.http}
    assert ops == {
        ("GET", "/ping", "ping", "svc/main.py"), ("HEAD", "/ping", "ping", "svc/main.py"),
        ("GET", "/v1/items/{item_id}", "one_v1_items__item_id__get", "svc/items.py"),
    }  # fmt: skip
    assert {p.http.app.attr for p in analysis.probes if p.http} == {"app"}


def test_an_app_factory_the_generator_cannot_build_is_skipped_with_the_reason() -> None:
    analysis = PythonAnalyser().analyse({"web.py": (
        "from fastapi import FastAPI\n\ndef make(settings: Settings):\n    app = FastAPI()\n\n"
        "    @app.get('/')\n    def root():\n        return {}\n\n    return app\n"
    )})  # fmt: skip
    assert not analysis.probes
    ((target, why),) = analysis.skipped
    assert target.sink == "http" and "cannot build" in why


def test_the_http_file_embeds_both_runtimes_compiles_and_is_deterministic() -> None:
    analysis = analyse(ROOMS / "reference")
    one, again = generate(analysis, 5), generate(analysis, 5)
    assert one.files == again.files and list(one.files) == ["tests/generated/test_gen_http.py"]
    text = one.files["tests/generated/test_gen_http.py"]
    assert "def ungraceful(" in text and "def http_operation(" in text and "preload('bookings.app',)" in text
    assert f"TMP_PATH = {TMP_PATH!r}" in text.replace('"', "'")  # the runtime knows the analyser's marker
    assert {(t.strategy, t.entry) for t in one.tests} >= {("openapi", "POST /rooms")}
