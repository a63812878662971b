"""The Kafka and Iceberg fault cells (tests/fault/kafka_iceberg.py): each output shows what its
predicted guarantee allows, and the zombie cells of the exactly-once Kafka task fail once
Kafka's fencing is switched off. Needs the broker (Apache Kafka: scripts/install-kafka-broker);
without it every case here is skipped, saying so. Run through `scripts/fault-matrix`."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import kafka_broker
import kafka_iceberg as ki
import matrix

DIST = kafka_broker.broker_dist()
needs_broker = pytest.mark.skipif(
    DIST is None, reason="no Kafka broker: run scripts/install-kafka-broker (or set FLOWC_KAFKA_DIST)"
)
OUTPUTS = sorted({(p, t, s) for p, t, s, _ in ki.CELLS})


def pg_url(config: pytest.Config) -> str | None:
    """The PostgreSQL server of the `--db postgres` pass (the Iceberg cells' catalog and state)."""
    if config.getoption("db") != "postgres":
        return None
    url = os.environ.get("FLOWC_TEST_PG")
    if not url:
        pytest.skip("--db postgres: FLOWC_TEST_PG names no PostgreSQL server")
    return url


def runs(cell: tuple[str, str, str, str], config: pytest.Config) -> bool:
    """The SQLite pass runs every cell; the PostgreSQL pass the Iceberg ones, on a PostgreSQL catalog
    (the Kafka cells' systems are the broker and SQLite files: they run once, in the SQLite pass).
    The DuckDB and MySQL passes run none."""
    db = config.getoption("db")
    return db == "sqlite" or (db == "postgres" and cell[0] == "iq")


@pytest.fixture(scope="session")
def setup(pytestconfig: pytest.Config) -> ki.Setup:
    base = Path(os.environ.get("FLOWC_FAULT_WORK") or tempfile.gettempdir())
    base.mkdir(parents=True, exist_ok=True)
    setup = ki.Setup(Path(tempfile.mkdtemp(prefix="kafka-iceberg-", dir=base)))
    setup.config = pytestconfig
    return setup


@pytest.fixture(scope="session")
def outcomes(setup: ki.Setup, pytestconfig: pytest.Config) -> dict[str, ki.Outcome]:
    assert DIST is not None
    jobs = max(1, int(pytestconfig.getoption("jobs", 2)))

    pg = pg_url(pytestconfig)
    cells = [c for c in ki.CELLS if runs(c, pytestconfig)]

    def one(cell: tuple[str, str, str, str]) -> tuple[str, ki.Outcome]:
        return ki.cell_id(cell), ki.Cell(setup, cell, DIST, pg=pg).run()

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = dict(pool.map(one, cells))
    by_output: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for cell in cells:
        by_output[cell[:3]].append(ki.cell_id(cell))
    ok = 0
    for output, ids in sorted(by_output.items()):
        guarantee = setup.predicted[output]["guarantee"]
        for cid in ids:
            outcome = results[cid]
            shown = ",".join(sorted(outcome.anomalies)) or "clean"
            if guarantee in ki.STRONG:
                good = not outcome.anomalies and not outcome.problems
            else:
                good = outcome.anomalies <= ki.expected(guarantee) and not outcome.problems
            ok += good
            ki.ROWS.append(f"{'ok ' if good else 'BAD'} {cid:<58} predicted {guarantee:<14} shows {shown:<6} "
                           f"audit: {outcome.audit or 'none'}"
                           + (f" ({'; '.join(outcome.problems)})" if outcome.problems else ""))
    where = "PostgreSQL catalog" if pg else "SQLite catalog"
    ki.ROWS.append(f"kafka/iceberg cells ({where}): {ok}/{len(cells)} as predicted")
    return results


@needs_broker
@pytest.mark.parametrize("cell", ki.CELLS, ids=ki.cell_id)
def test_cell(cell: tuple[str, str, str, str], setup: ki.Setup, outcomes: dict[str, ki.Outcome]) -> None:
    """A strong output shows no anomaly in any cell; a weak one shows only what it allows."""
    if not runs(cell, setup.config):
        pytest.skip("a Kafka cell: it runs in the SQLite pass")
    outcome = outcomes[ki.cell_id(cell)]
    guarantee = setup.predicted[cell[:3]]["guarantee"]
    detail = "\n".join(outcome.log)
    if guarantee in ki.STRONG:
        assert not outcome.anomalies and not outcome.problems, f"{outcome.anomalies} {outcome.problems}\n{detail}"
    else:
        assert outcome.anomalies <= ki.expected(guarantee), f"{outcome.anomalies} is more than {guarantee} allows\n{detail}"


@needs_broker
@pytest.mark.parametrize("output", [o for o in OUTPUTS], ids=".".join)
def test_weak_output_shows_its_anomaly(output: tuple[str, str, str], setup: ki.Setup,
                                       outcomes: dict[str, ki.Outcome]) -> None:
    """A weak output shows its predicted anomaly in at least one of its cells."""
    guarantee = setup.predicted[output]["guarantee"]
    if guarantee in ki.STRONG:
        pytest.skip(f"{'.'.join(output)} is {guarantee}: test_cell checks that no cell shows an anomaly")
    mine = [c for c in ki.CELLS if c[:3] == output and runs(c, setup.config)]
    if not mine:
        pytest.skip("a Kafka output: its cells run in the SQLite pass")
    shown = set().union(*(outcomes[ki.cell_id(c)].anomalies for c in mine))
    assert shown & ki.expected(guarantee), f"{'.'.join(output)} ({guarantee}) showed no anomaly in any cell"


@needs_broker
def test_the_zombie_cell_fails_without_fencing(setup: ki.Setup) -> None:
    """The same late zombie with a `transactional.id` per attempt (fencing switched off)
    commits after its retry did: the output of the exactly-once task is duplicated.
    (`zombie_at_commit` has no such twin: its zombie already sent its offsets to its open
    transaction, and while they are pending the broker answers the retry's offset fetch
    UNSTABLE_OFFSET_COMMIT, so no retry produces until that transaction times out and is
    aborted; see docs/scaffold.md.)"""
    assert DIST is not None
    if setup.config.getoption("db") != "sqlite":
        pytest.skip("a Kafka cell: it runs in the SQLite pass")
    outcome = ki.Cell(setup, ("kq", "txn", "kq_out_txn", "late_zombie"), DIST, ["no_fencing"]).run()
    assert "dup" in outcome.anomalies, "\n".join(outcome.log)


LONG_TIMEOUT_FLOW = """\
source long_in: kafka_topic {
  topic "orders"
  mutable
  pin offsets
  identity id
  fields [id, rec, amount]
}

sink long_out: kafka_topic {
  topic "out_long"
  transaction_timeout 16m
}

pipeline lt {
  schedule "@daily"
  start 2026-01-01
  timezone "UTC"
  require none

  task copy {
    read long_in commit in_transaction
    write long_out transactional
    run command ["python", "-m", "lt.copy"]
  }
}
"""


@needs_broker
def test_a_transaction_timeout_above_the_brokers_maximum_is_refused(pytestconfig: pytest.Config,
                                                                    tmp_path: Path) -> None:
    """`transaction_timeout 16m` on a broker that allows 15 (its default
    `transaction.max.timeout.ms`): the broker refuses the producer; the attempt exits 65 (no retry
    can help) naming the setting, with nothing produced."""
    from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

    assert DIST is not None
    if pytestconfig.getoption("db") != "sqlite":
        pytest.skip("a Kafka case: it runs in the SQLite pass")
    flow = tmp_path / "long.flow"
    flow.write_text(LONG_TIMEOUT_FLOW, encoding="utf-8")
    code = tmp_path / "code"
    matrix.scaffold(matrix.flowc_bin(), code, [str(flow)])
    broker = kafka_broker.Broker(DIST)
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap, "log_level": 3})
        for future in admin.create_topics([NewTopic("orders", 1, 1), NewTopic("out_long", 1, 1)]).values():
            future.result(30)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_"))}
        env.update({"PYTHONPATH": str(code), "FLOW_INTERVAL_START": "2026-01-01T00:00:00Z",
                    "FLOW_INTERVAL_END": "2026-01-02T00:00:00Z", "FLOW_RUN_ID": "r", "FLOW_ATTEMPT": "1",
                    "FLOW_CONN_LONG_IN": f"kafka://{broker.bootstrap}",
                    "FLOW_CONN_LONG_OUT": f"kafka://{broker.bootstrap}",
                    "FLOWC_STATE": f"sqlite://{tmp_path}/state.sqlite"})
        proc = subprocess.run([sys.executable, "-m", "lt.copy"], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
    finally:
        broker.stop()
    assert proc.returncode == 65, proc.stderr
    assert "refuses a transaction timeout of 960 s (the sink's `transaction_timeout`)" in proc.stderr, proc.stderr
