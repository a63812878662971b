"""The flowc 0.3 fault cells (tests/fault/v03_cells.py) on SQLite (`--db sqlite`), PostgreSQL
(`--db postgres`, FLOWC_TEST_PG), DuckDB (`--db duckdb`) or MySQL/MariaDB (`--db mysql`,
FLOWC_TEST_MYSQL): every cell shows only anomalies its output is predicted to
have, and an output predicted to have one shows it where a cell exercises its clause. Run
through `scripts/fault-matrix`; `--only v03` runs these alone."""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import v03_cells as v3

CELLS = v3.cells("sqlite")


def selected(config: pytest.Config) -> bool:
    only = str(config.getoption("only"))
    return not only or only in "v03" or any(only in f"{p}.{t}" for p in v3.PIPELINES.values() for t in v3.TASKS)


@pytest.fixture(scope="session")
def setup(pytestconfig: pytest.Config) -> v3.Setup:
    if not selected(pytestconfig):
        pytest.skip("--only selects other cells")
    db = pytestconfig.getoption("db")
    pg = None
    if db == "postgres":
        pg = os.environ.get("FLOWC_TEST_PG")
        if not pg:
            pytest.skip("--db postgres: FLOWC_TEST_PG names no PostgreSQL server")
    if db == "mysql":
        pg = os.environ.get("FLOWC_TEST_MYSQL")
        if not pg:
            pytest.skip("--db mysql: FLOWC_TEST_MYSQL names no MySQL server")
    base = Path(os.environ.get("FLOWC_FAULT_WORK") or tempfile.gettempdir())
    base.mkdir(parents=True, exist_ok=True)
    return v3.Setup(db, Path(tempfile.mkdtemp(prefix="v03-cells-", dir=base)), pg)


@pytest.fixture(scope="session")
def outcomes(setup: v3.Setup, pytestconfig: pytest.Config) -> dict[str, v3.Outcome]:
    jobs = max(1, int(pytestconfig.getoption("jobs", 2)))
    mine = v3.cells(setup.db)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = dict(pool.map(lambda c: (v3.cell_id(c), v3.Cell(setup, c).run()), mine))
    ok = 0
    for cell in mine:
        outcome = results[v3.cell_id(cell)]
        predicted = setup.predicted[cell[0]]
        good = v3.as_predicted(outcome.shown, predicted)
        ok += good
        v3.ROWS.append(f"{'ok ' if good else 'BAD'} {setup.pipeline}.{v3.cell_id(cell):<44} predicted "
                       f"{','.join(predicted) or 'none':<24} shows {','.join(sorted(outcome.shown)) or 'clean'}")
    v3.ROWS.append(f"v0.3 cells ({setup.db}): {ok}/{len(mine)} as predicted")
    return results


def test_the_fixtures_are_generated() -> None:
    for db in v3.KINDS:
        path = v3.FAULT_DIR / f"v03_{db}.flow"
        assert path.read_text() == v3.flow(db), f"{path} is stale: regenerate it from v03_cells.flow('{db}')"


@pytest.mark.parametrize("cell", CELLS, ids=v3.cell_id)
def test_cell(cell: tuple[str, str], setup: v3.Setup, outcomes: dict[str, v3.Outcome],
              pytestconfig: pytest.Config) -> None:
    if cell not in v3.cells(setup.db):
        pytest.skip(f"{cell[0]} has no {setup.db} twin (its kind has no such pin)")
    outcome = outcomes[v3.cell_id(cell)]
    predicted = setup.predicted[cell[0]]
    assert v3.as_predicted(outcome.shown, predicted), (
        f"{v3.cell_id(cell)} shows {sorted(outcome.shown)}, predicted {predicted}\n" + "\n".join(outcome.log))


@pytest.mark.parametrize("task", sorted(v3.TASKS))
def test_a_predicted_anomaly_shows(task: str, setup: v3.Setup, outcomes: dict[str, v3.Outcome],
                                   pytestconfig: pytest.Config) -> None:
    if task not in v3.tasks(setup.db):
        pytest.skip(f"{task} has no {setup.db} twin (its kind has no such pin)")
    exercised = set().union(*(v3.EXERCISES[k] for k in v3.TASKS[task]))
    if not setup.clauses[task] & exercised:
        pytest.skip(f"{task}: no cell exercises a clause of its anomalies {sorted(setup.clauses[task])}")
    shown = set().union(*(outcomes[v3.cell_id((task, k))].shown for k in v3.TASKS[task]))
    assert shown, f"{task} is predicted {setup.predicted[task]} and shows nothing in its cells"


def test_the_older_version_cell_fails_without_newest_by(setup: v3.Setup, tmp_path: Path) -> None:
    """The same cell with `newest_by` taken out of the generated module (a plain fenced upsert):
    the later interval's older version replaces the newer one, and the cell shows it."""
    twin = v3.Setup(setup.db, tmp_path, setup.pg_url)
    module = twin.code / twin.pipeline / "newest.py"
    text = module.read_text()
    assert "newest_by=" in text
    module.write_text("".join(line for line in text.splitlines(keepends=True) if "newest_by=" not in line))
    cell = v3.Cell(twin, ("newest", "older_version_late"))
    cell.schema += "_twin"
    assert "changed" in cell.run().shown, "\n".join(cell.log)
