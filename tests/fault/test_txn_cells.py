"""The `conditional_commit txn TERM` fault cells (tests/fault/txn_cells.py) on Delta and Iceberg:
every cell shows only anomalies its output is predicted to have, an output predicted to have
one shows it, and every table carries the transaction ids its write's `txn` derives. The state
store is SQLite (`--db sqlite`) or PostgreSQL (`--db postgres`, FLOWC_TEST_PG). Run through
`scripts/fault-matrix`; `--only txn` runs these alone."""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import txn_cells as tx

CELLS = tx.cells()


def selected(config: pytest.Config) -> bool:
    only = str(config.getoption("only"))
    return not only or only in "txn" or any(only in f"{tx.PIPELINE}.{t}" for t in tx.TASKS)


@pytest.fixture(scope="session")
def txn_setup(pytestconfig: pytest.Config) -> tx.Setup:
    if not selected(pytestconfig):
        pytest.skip("--only selects other cells")
    db = pytestconfig.getoption("db")
    pg = None
    if db == "postgres":
        pg = os.environ.get("FLOWC_TEST_PG")
        if not pg:
            pytest.skip("--db postgres: FLOWC_TEST_PG names no PostgreSQL server")
    base = Path(os.environ.get("FLOWC_FAULT_WORK") or tempfile.gettempdir())
    base.mkdir(parents=True, exist_ok=True)
    return tx.Setup(db, Path(tempfile.mkdtemp(prefix="txn-cells-", dir=base)), pg)


@pytest.fixture(scope="session")
def txn_outcomes(txn_setup: tx.Setup, pytestconfig: pytest.Config) -> dict[str, tx.Outcome]:
    jobs = max(1, int(pytestconfig.getoption("jobs", 2)))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = dict(pool.map(lambda c: (tx.cell_id(c), tx.Cell(txn_setup, c).run()), CELLS))
    ok = 0
    for cell in CELLS:
        outcome = results[tx.cell_id(cell)]
        predicted = txn_setup.predicted[cell[0]]
        good = tx.as_predicted(outcome.shown, predicted) and not outcome.problems
        ok += good
        tx.ROWS.append(f"{'ok ' if good else 'BAD'} {tx.PIPELINE}.{tx.cell_id(cell):<44} predicted "
                       f"{','.join(predicted) or 'none':<24} shows {','.join(sorted(outcome.shown)) or 'clean'}")
    tx.ROWS.append(f"txn cells ({txn_setup.db} state): {ok}/{len(CELLS)} as predicted")
    return results


def test_the_fixture_is_generated() -> None:
    assert tx.FLOW.read_text() == tx.flow(), f"{tx.FLOW} is stale: regenerate it from txn_cells.flow()"


@pytest.mark.parametrize("cell", CELLS, ids=tx.cell_id)
def test_cell(cell: tuple[str, str], txn_setup: tx.Setup, txn_outcomes: dict[str, tx.Outcome]) -> None:
    outcome = txn_outcomes[tx.cell_id(cell)]
    predicted = txn_setup.predicted[cell[0]]
    assert tx.as_predicted(outcome.shown, predicted) and not outcome.problems, (
        f"{tx.cell_id(cell)} shows {sorted(outcome.shown)}, predicted {predicted}; {outcome.problems}\n"
        + "\n".join(outcome.log))


@pytest.mark.parametrize("task", sorted(tx.TASKS))
def test_a_predicted_anomaly_shows(task: str, txn_setup: tx.Setup, txn_outcomes: dict[str, tx.Outcome]) -> None:
    exercised = set().union(*(tx.EXERCISES[k] for k in tx.KINDS))
    if not txn_setup.clauses[task] & exercised:
        pytest.skip(f"{task}: no cell exercises a clause of its anomalies {sorted(txn_setup.clauses[task])}")
    shown = set().union(*(txn_outcomes[tx.cell_id((task, k))].shown for k in tx.KINDS))
    assert shown, f"{task} is predicted {txn_setup.predicted[task]} and shows nothing in its cells"


def test_the_run_scoped_txn_is_predicted_to_duplicate(txn_setup: tx.Setup) -> None:
    """The fixture holds both sides of the cell: the stable ids clean, `txn run.id` duplicate."""
    for task, (_, _, txn) in tx.TASKS.items():
        assert ("duplicate" in txn_setup.predicted[task]) == (txn == "txn run.id"), (task, txn_setup.predicted[task])


def test_the_restore_cell_fails_without_txn(txn_setup: tx.Setup, tmp_path: Path) -> None:
    """The same cell with `txn` taken out of the generated module (flowc's own id, as before
    the runtime honoured `txn`): the re-run finds the interval's id and commits nothing, so
    `txn run.id`'s predicted duplicate does not show and the table carries the wrong ids."""
    twin = tx.Setup(txn_setup.db, tmp_path, txn_setup.pg_url)
    module = twin.code / tx.PIPELINE / "ice_run.py"
    text = module.read_text()
    assert "txn=" in text
    module.write_text("".join(line for line in text.splitlines(keepends=True) if "txn=" not in line))
    cell = tx.Cell(twin, ("ice_run", "restore_new_txn"))
    cell.schema += "_twin"
    outcome = cell.run()
    assert "duplicate" not in outcome.shown and outcome.problems, "\n".join(outcome.log)
