"""pytest options and the one matrix run the cases of test_matrix.py judge.

Options: --db sqlite|postgres|duckdb|mysql, --only SUBSTRING, --flip PIPELINE.TASK.OUTPUT (repeatable),
--jobs N, --cells-verbose. The rows are printed at the end of the session.

Every cell works in a folder under `FLOWC_FAULT_WORK`; without it, under a temporary folder of
the session, removed at its end (every run left its cells in /tmp before): set
`FLOWC_FAULT_WORK` to keep them."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

import edges
import kafka_iceberg
import matrix
import txn_cells
import v03_cells

_results: list[matrix.Result] = []


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fault matrix")
    group.addoption("--db", choices=["sqlite", "postgres", "duckdb", "mysql"], default="sqlite")
    group.addoption("--only", default="", help="run only tasks whose PIPELINE.TASK contains this")
    group.addoption("--flip", action="append", default=[], help="invert the prediction of PIPELINE.TASK.OUTPUT")
    # Scenarios at once. A scenario's attempts wait on files, locks and servers part of the time:
    # one more than the cores keeps them busy (on 2 cores, 3 ran the SQLite modes in 53 s where
    # 2 took 69 s and 4 took 59 s).
    group.addoption("--jobs", type=int, default=min((os.cpu_count() or 1) + 1, 8))
    group.addoption("--cells-verbose", action="store_true", help="print every attempt's log under each cell")


_session_work: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    # No binary, no matrix: there is no other oracle to fall back to.
    try:
        matrix.flowc_bin()
    except matrix.MissingBinary as err:
        raise pytest.UsageError(f"fault matrix: {err}") from err
    if not os.environ.get("FLOWC_FAULT_WORK"):
        work = tempfile.mkdtemp(prefix="flowc-fault-")
        _session_work.append(work)
        os.environ["FLOWC_FAULT_WORK"] = work


def pytest_unconfigure(config: pytest.Config) -> None:
    for work in _session_work:
        shutil.rmtree(work, ignore_errors=True)
        os.environ.pop("FLOWC_FAULT_WORK", None)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "cell_id" in metafunc.fixturenames:
        ids = matrix.cell_ids(metafunc.config.getoption("db"), metafunc.config.getoption("only"))
        metafunc.parametrize("cell_id", ids, ids=ids)


@pytest.fixture(scope="session")
def result(pytestconfig: pytest.Config) -> matrix.Result:
    outcome = matrix.run_matrix(
        pytestconfig.getoption("db"),
        pytestconfig.getoption("only"),
        pytestconfig.getoption("flip"),
        pytestconfig.getoption("jobs"),
    )
    _results.append(outcome)
    return outcome


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    for outcome in _results:
        terminalreporter.write_line("")
        for line in outcome.lines(verbose=config.getoption("cells_verbose")):
            terminalreporter.write_line(line)
    if edges.ROWS:
        terminalreporter.write_line("")
        for line in edges.ROWS:
            terminalreporter.write_line(line)
        good = sum(1 for line in edges.ROWS if line.startswith("ok "))
        terminalreporter.write_line(f"edge cells ({config.getoption('db')}): {good}/{len(edges.ROWS)} as predicted")
    if kafka_iceberg.ROWS:
        terminalreporter.write_line("")
        for line in kafka_iceberg.ROWS:
            terminalreporter.write_line(line)
    if v03_cells.ROWS:
        terminalreporter.write_line("")
        for line in v03_cells.ROWS:
            terminalreporter.write_line(line)
    if txn_cells.ROWS:
        terminalreporter.write_line("")
        for line in txn_cells.ROWS:
            terminalreporter.write_line(line)
