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


def kafka_case(config: pytest.Config, tmp_path: Path, flow_text: str,
               topics: list[str]) -> tuple[Path, Path, kafka_broker.Broker]:
    """A Kafka case of the SQLite pass (skipped in the others): `flow_text` written to a file and
    scaffolded, a broker started with `topics` (one partition each). The caller stops the broker."""
    from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

    assert DIST is not None
    if config.getoption("db") != "sqlite":
        pytest.skip("a Kafka case: it runs in the SQLite pass")
    flow = tmp_path / "case.flow"
    flow.write_text(flow_text, encoding="utf-8")
    code = tmp_path / "code"
    matrix.scaffold(matrix.flowc_bin(), code, [str(flow)])
    broker = kafka_broker.Broker(DIST)
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap, "log_level": 3})
        for future in admin.create_topics([NewTopic(t, 1, 1) for t in topics]).values():
            future.result(30)
    except BaseException:
        broker.stop()
        raise
    return flow, code, broker


@needs_broker
def test_a_transaction_timeout_above_the_brokers_maximum_is_refused(pytestconfig: pytest.Config,
                                                                    tmp_path: Path) -> None:
    """`transaction_timeout 16m` on a broker that allows 15 (its default
    `transaction.max.timeout.ms`): the broker refuses the producer; the attempt exits 65 (no retry
    can help) naming the setting, with nothing produced."""
    _, code, broker = kafka_case(pytestconfig, tmp_path, LONG_TIMEOUT_FLOW, ["orders", "out_long"])
    try:
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


RESENT_FLOW = """\
source rs_in: kafka_topic {
  topic "rs_orders"
  mutable
  pin offsets
  identity id
  fields [id, rec, amount]
}

sink rs_out: kafka_topic {
  topic "rs_out"
}

pipeline rs {
  schedule "@daily"
  start 2026-01-01
  timezone "UTC"
  require none

  task copy {
    read rs_in commit after_write
    write rs_out append
    run command ["python", "-m", "rs.copy"]
  }
}

source rt_in: kafka_topic {
  topic "rs_orders"
  mutable
  pin offsets
  identity id
  fields [id, rec, amount]
}

sink rt_out: kafka_topic {
  topic "rt_out"
}

pipeline rt {
  schedule "@daily"
  start 2026-01-01
  timezone "UTC"
  require none

  task copy {
    read rt_in commit in_transaction
    write rt_out transactional
    on_ambiguous retry
    run command ["python", "-m", "rt.copy"]
  }
}
"""


@needs_broker
def test_audit_tells_a_resent_message_from_a_recurring_record(pytestconfig: pytest.Config,
                                                               tmp_path: Path) -> None:
    """`message-resent` on a real broker. Day 1 runs and is re-run by hand (a new run: a new
    attempt that re-reads its pinned offsets and appends the same two messages again); day 2
    copies two new source messages equal to day 1's. Besides, another producer's message
    without flowc's headers, and an aborted transaction's message carrying day 2's headers.
    The audit counts day 1's two values sent by two attempts, and nothing else: not day 2's
    values that day 1 also sent (a recurring record), not the unmarked message, not the aborted
    one (read `read_committed`). Each message the runtime sent names its task, interval and
    attempt (the attempt's fencing token, counted per interval). And on a `transactional`
    output (`rt`), two attempts' copies of one message, planted with the runtime's headers, are
    an error; the same value from two intervals is not counted. And once the source topic's
    first records are deleted (as retention does), day 1's pinned offset range is `pin-gone`
    (a warning: re-running day 1 fails), day 2's, still held, is not."""
    import json as jsonlib

    import confluent_kafka as ck
    from confluent_kafka.admin import AdminClient

    flow, code, broker = kafka_case(pytestconfig, tmp_path, RESENT_FLOW, ["rs_orders", "rs_out", "rt_out"])
    try:
        servers = broker.bootstrap
        plain = ck.Producer({"bootstrap.servers": servers, "log_level": 3})

        def seed() -> None:
            for rec in ("a", "b"):
                plain.produce("rs_orders", value=jsonlib.dumps({"id": rec, "rec": rec, "amount": 1}).encode())
            assert plain.flush(30) == 0

        env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_"))}
        env.update({"PYTHONPATH": str(code), "FLOW_CONN_RS_IN": f"kafka://{servers}",
                    "FLOW_CONN_RS_OUT": f"kafka://{servers}", "FLOWC_STATE": f"sqlite://{tmp_path}/state.sqlite"})

        def run(day: int, run_id: str) -> None:
            start, end = matrix.INTERVALS[day]
            proc = subprocess.run(
                [sys.executable, "-m", "rs.copy"], cwd=tmp_path, capture_output=True, text=True, timeout=180,
                env={**env, "FLOW_INTERVAL_START": start, "FLOW_INTERVAL_END": end, "FLOW_RUN_ID": run_id,
                     "FLOW_ATTEMPT": "1"})
            assert proc.returncode == 0, proc.stderr

        seed()
        run(0, "day-1")
        run(0, "day-1-rerun")
        seed()
        run(1, "day-2")
        plain.produce("rs_out", value=jsonlib.dumps({"id": "a", "rec": "a", "amount": 1}).encode())
        assert plain.flush(30) == 0
        zombie = ck.Producer({"bootstrap.servers": servers, "transactional.id": "rs-zombie", "log_level": 3})
        zombie.init_transactions(30)
        zombie.begin_transaction()
        zombie.produce("rs_out", value=b'{"amount":1,"id":"a","rec":"a"}',
                       headers=[("flowc-task", b"rs.copy"), ("flowc-interval", matrix.INTERVALS[1][0].encode()),
                                ("flowc-attempt", b"99")])
        zombie.flush(30)
        zombie.abort_transaction(30)

        # the runtime's headers, as a reader sees them
        reader = ck.Consumer({"bootstrap.servers": servers, "group.id": "rs-test", "auto.offset.reset": "earliest",
                              "isolation.level": "read_committed", "enable.auto.commit": False, "log_level": 3})
        reader.assign([ck.TopicPartition("rs_out", 0, 0)])
        marks = []
        for _ in range(100):
            msg = reader.poll(0.5)
            if msg is not None and msg.error() is None:
                marks.append(dict(msg.headers() or []))
            if len(marks) == 7:
                break
        reader.close()
        for day, attempt, value in ((0, b"1", b"v"), (0, b"2", b"v"), (0, b"1", b"w"), (1, b"3", b"w")):
            plain.produce("rt_out", value=value,
                          headers=[("flowc-task", b"rt.copy"), ("flowc-interval", matrix.INTERVALS[day][0].encode()),
                                   ("flowc-attempt", attempt)])
        assert plain.flush(30) == 0
        # retention deleted day 1's source records (offsets 0 and 1); day 2 read offsets 2 and 3
        admin = AdminClient({"bootstrap.servers": servers, "log_level": 3})
        for future in admin.delete_records([ck.TopicPartition("rs_orders", 0, 2)]).values():
            future.result(30)

        def audit(pipeline: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [str(matrix.flowc_bin()), "audit", "--format", "json", "--since", matrix.DAYS[0], "--until",
                 matrix.DAYS[1], "--at", matrix.AUDIT_AT, "--pipeline", pipeline, str(flow)],
                env={**env, "FLOW_CONN_RT_IN": f"kafka://{servers}", "FLOW_CONN_RT_OUT": f"kafka://{servers}",
                     "FLOWC_PYTHON": sys.executable},
                cwd=tmp_path, capture_output=True, text=True, timeout=300)

        appended, planted = audit("rs"), audit("rt")
    finally:
        broker.stop()
    days = [m.get("flowc-interval") for m in marks]
    assert days == [d.encode() for d in [matrix.INTERVALS[0][0]] * 4 + [matrix.INTERVALS[1][0]] * 2] + [None], marks
    assert all(m.get("flowc-task") == b"rs.copy" for m in marks[:6]), marks
    # the fencing token counts the attempts of one interval: day 1's two runs, day 2's one
    assert [m.get("flowc-attempt") for m in marks[:6]] == [b"1", b"1", b"2", b"2", b"1", b"1"], marks
    assert appended.returncode == 0, appended.stdout + appended.stderr
    report = jsonlib.loads(appended.stdout)
    resent = [f for f in report["findings"] if f["check"] == "message-resent"]
    assert len(resent) == 1 and resent[0]["count"] == 2 and resent[0]["severity"] == "note", report
    assert "2 messages were sent again in topic `rs_out` by another attempt of its interval (2 more copies; " \
           f"interval {matrix.INTERVALS[0][0]}" in resent[0]["message"], resent
    gone = [f for f in report["findings"] if f["check"] == "pin-gone"]
    assert [(f["input"], f["count"], f["severity"]) for f in gone] == [("rs_in", 1, "warning")], report
    assert gone[0]["examples"] == [{"interval_start": matrix.INTERVALS[0][0], "pinned": "partition 0 offsets 0-2",
                                    "why": "the partition now starts at offset 2", "partitions": 1}], gone
    assert planted.returncode == 1, planted.stdout + planted.stderr
    report = jsonlib.loads(planted.stdout)
    resent = [f for f in report["findings"] if f["check"] == "message-resent"]
    assert len(resent) == 1 and resent[0]["count"] == 1 and resent[0]["severity"] == "error", report
    assert "1 message was sent again in topic `rt_out` by another attempt of its interval (1 more copy; " \
           f"interval {matrix.INTERVALS[0][0]}: attempts 1,2)" in resent[0]["message"], resent


@needs_broker
def test_the_kafka_reader_streams_partition_after_partition_and_commits_on_close(
        pytestconfig: pytest.Config) -> None:
    """`kafka.read_batches` (what a Kafka source's read spills batch by batch, instead of holding
    the range in memory) against the real broker: every message of the range, partition after
    partition in offset order, at most `size` a batch; with `store` (`commit auto`) the group's
    offsets reach the range's ends once the reader is closed, and without it they stay."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

    assert DIST is not None
    if pytestconfig.getoption("db") != "sqlite":
        pytest.skip("a Kafka case: it runs in the SQLite pass")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "templates" / "python"))
    from flowc_runtime import kafka

    broker = kafka_broker.Broker(DIST)
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap, "log_level": 3})
        for future in admin.create_topics([NewTopic("many", 2, 1)]).values():
            future.result(30)
        producer = Producer({"bootstrap.servers": broker.bootstrap, "log_level": 3})
        for i in range(2500):
            producer.produce("many", value=f'{{"i": {i}}}'.encode(), partition=i % 2)
        assert producer.flush(30) == 0
        handle = kafka.consumer(broker.bootstrap, "g")
        try:
            ranges = kafka.ranges_now(handle, "many")
        finally:
            handle.close()
        assert ranges == {0: (0, 1250), 1: (0, 1250)}
        for group, store in (("plain", False), ("auto", True)):
            batches = list(kafka.read_batches(broker.bootstrap, group, "many", ranges, 400, store=store))
            assert [len(b) for b in batches] == [400, 400, 400, 400, 400, 400, 100]
            got = [r["i"] for b in batches for r in b]
            assert got == list(range(0, 2500, 2)) + list(range(1, 2500, 2))
            handle = kafka.consumer(broker.bootstrap, group)
            try:
                done = kafka.committed(handle, "many", [0, 1])
            finally:
                handle.close()
            assert kafka.reached(done, {0: 1250, 1: 1250}) is store, done
    finally:
        broker.stop()
