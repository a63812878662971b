"""The fault cells at the edges of issue 28 (tests/fault/edges.py): `zombie_in_commit`,
`partial_refusal`, `holder_dies` (PostgreSQL pass), `pod_state`, `many_messages_one_key`. Each
cell is as predicted or the case fails. Run through `scripts/fault-matrix` (`--db sqlite` and
`--db postgres`); `--only KIND` runs one kind."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

import edges
import matrix


def pg_url(config: pytest.Config) -> str | None:
    if config.getoption("db") != "postgres":
        return None
    url = os.environ.get("FLOWC_TEST_PG")
    if not url:
        pytest.skip("--db postgres: FLOWC_TEST_PG names no PostgreSQL server")
    return url


@pytest.mark.parametrize("kind", edges.KINDS)
def test_edge_cell(kind: str, pytestconfig: pytest.Config) -> None:
    db = pytestconfig.getoption("db")
    only = pytestconfig.getoption("only")
    if only and only not in kind:
        pytest.skip(f"--only {only}")
    if not edges.applies(kind, db):
        pytest.skip(f"{kind} runs in the {'PostgreSQL pass' if db == 'sqlite' else 'SQLite and PostgreSQL passes'}")
    if kind == "zombie_in_commit":
        pytest.importorskip("pyiceberg")
    base = Path(os.environ.get("FLOWC_FAULT_WORK") or tempfile.gettempdir())
    base.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f"edge-{kind}-", dir=base))
    outcome = edges.run_cell(kind, folder, matrix.flowc_bin(), pg_url(pytestconfig))
    edges.ROWS.append(f"{'ok ' if outcome.good else 'BAD'} {kind:<24} ({db}) predicted {outcome.predicted:<14} "
                      f"shows {outcome.shows}")
    assert outcome.good, "\n".join(outcome.log)
