"""The Kafka and Iceberg runtimes' own pieces: connection URLs (accepted and refused), the
state store in an Iceberg catalog's database, offset ranges, and a real round trip through
pyiceberg's SQL catalog on SQLite (conditional commits: the transaction id recognised, a
moved table refused)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from flowc_runtime import iceberg, kafka, state
from flowc_runtime.context import FlowError
from flowc_runtime.spec import Endpoint, StateStore

ROOT = Path(__file__).resolve().parents[2]
CAPS = json.loads((ROOT / "templates" / "python" / "capabilities.json").read_text(encoding="utf-8"))


def test_every_stdlib_kind_has_a_runtime_or_is_documented_as_analysis_only() -> None:
    """A kind of the standard library is FL805 at scaffold only when docs/targets/deploying.md's
    "Kinds without a runtime" names it (the warehouse and database kinds, analysis-only)."""
    kinds = []
    for path in sorted((ROOT / "stdlib").glob("*.flow")):
        kinds += re.findall(r"^kind\s+(\w+)\s*\{", path.read_text(encoding="utf-8"), flags=re.M)
    assert "kafka_topic" in kinds and "iceberg_table" in kinds
    missing = [k for k in kinds if k not in CAPS["data"] and k not in CAPS["effects"]]
    page = (ROOT / "docs/targets/deploying.md").read_text(encoding="utf-8")
    section = page.split("## Kinds without a runtime", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`(\w+_table)`", section))
    assert sorted(k for k in missing if k not in named) == []
    # the runtime's own kinds are not listed as analysis-only
    assert not named & (set(CAPS["data"]) | set(CAPS["effects"]))


def test_kafka_bootstrap_accepts_urls_and_refuses_nothing() -> None:
    assert kafka.bootstrap("kafka://127.0.0.1:9092", "src") == "127.0.0.1:9092"
    assert kafka.bootstrap("a:1,b:2", "src") == "a:1,b:2"
    with pytest.raises(FlowError, match="FLOW_CONN_SRC"):
        kafka.bootstrap(None, "src")
    with pytest.raises(FlowError, match="names no bootstrap server"):
        kafka.bootstrap("kafka://", "src")


def test_transactional_id_is_per_interval_not_per_attempt() -> None:
    a = kafka.transactional_id("p", "t", "2026-01-01T00:00:00Z")
    assert a == kafka.transactional_id("p", "t", "2026-01-01T00:00:00Z")
    assert a != kafka.transactional_id("p", "t", "2026-01-02T00:00:00Z")


def test_offset_ranges_round_trip_and_reach() -> None:
    ranges = {1: (3, 7), 0: (0, 2)}
    assert kafka.decode_ranges(kafka.encode_ranges(ranges)) == ranges
    assert kafka.reached({0: 2, 1: 7}, {0: 2, 1: 7})
    assert not kafka.reached({0: 2, 1: 6}, {0: 2, 1: 7})
    assert not kafka.reached({0: 2}, {0: 2, 1: 7})


class BusyCoordinator:
    """A consumer whose group coordinator answers `code` to the first `busy` calls."""

    def __init__(self, busy: int, code: int) -> None:
        self.busy, self.code, self.calls = busy, code, 0

    def committed(self, parts: list[Any], timeout: float) -> list[Any]:
        import confluent_kafka as ck

        self.calls += 1
        if self.calls <= self.busy:
            raise ck.KafkaException(ck.KafkaError(self.code, "Failed to get committed offsets"))
        return [ck.TopicPartition(tp.topic, tp.partition, 5) for tp in parts]

    def commit(self, offsets: list[Any], asynchronous: bool) -> list[Any]:
        self.committed(offsets, 0)
        return offsets


def test_a_busy_group_coordinator_is_asked_again() -> None:
    """A new or moving coordinator answers NOT_COORDINATOR (seen on Apache Kafka right after
    it started): the offsets are fetched and committed once it answers."""
    import confluent_kafka as ck

    for code in (ck.KafkaError.NOT_COORDINATOR, ck.KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
                 ck.KafkaError.COORDINATOR_NOT_AVAILABLE):
        handle = BusyCoordinator(2, code)
        assert kafka.committed(handle, "orders", [0, 1]) == {0: 5, 1: 5}
        assert handle.calls == 3
        handle = BusyCoordinator(1, code)
        kafka.commit_offsets(handle, "orders", {0: 7})
        assert handle.calls == 2
    other = BusyCoordinator(1, ck.KafkaError.GROUP_AUTHORIZATION_FAILED)
    with pytest.raises(ck.KafkaException):
        kafka.committed(other, "orders", [0])
    assert other.calls == 1


def test_iceberg_locations(tmp_path: Path) -> None:
    where = iceberg.locate(f"file://{tmp_path}", "lake")
    assert where.catalog_uri == f"sqlite:///{tmp_path}/catalog.sqlite"
    assert where.state_url == f"sqlite://{tmp_path}/catalog.sqlite"
    assert where.warehouse == (tmp_path / "warehouse").as_uri()
    pg = iceberg.locate("postgresql://u@127.0.0.1:5432/db?warehouse=file:///w", "lake")
    assert pg.catalog_uri.startswith("postgresql+psycopg://u@127.0.0.1:5432/db")
    assert pg.state_url == "postgresql://u@127.0.0.1:5432/db" and pg.warehouse == "file:///w"
    with pytest.raises(FlowError, match="needs `\\?warehouse="):
        iceberg.locate("postgresql://u@h/db", "lake")
    with pytest.raises(FlowError, match="must be file://"):
        iceberg.locate("s3://bucket/x", "lake")
    with pytest.raises(FlowError, match="FLOW_CONN_LAKE"):
        iceberg.locate(None, "lake")
    with pytest.raises(FlowError, match="NAMESPACE.NAME"):
        iceberg.identifier("nodot", "lake")


def test_the_state_of_an_iceberg_pipeline_is_in_its_catalog(tmp_path: Path) -> None:
    from flowc_runtime.context import context_from_env
    from flowc_runtime.spec import Task

    task = Task("p", "t", None, "UTC", False, (), (), ())
    ctx = context_from_env(task, {"FLOW_INTERVAL_START": "2026-01-01T00:00:00Z", "FLOW_INTERVAL_END": "2026-01-02T00:00:00Z",
                                "FLOW_RUN_ID": "r", "FLOW_ATTEMPT": "1"})
    store = StateStore("iceberg_table", Endpoint("lake", "iceberg_table", {"table": "ns.t"}))
    where = state.locate(store, {"FLOW_CONN_LAKE": f"file://{tmp_path}"}, ctx)
    assert where.url == f"sqlite://{tmp_path}/catalog.sqlite" and not where.schema
    # no runtime for state in a topic: the local file, as `local` (FL806 refuses it in pods)
    kafka_store = StateStore("kafka_topic", Endpoint("out", "kafka_topic", {"topic": "x"}))
    kept = state.locate(kafka_store, {"FLOW_CONN_OUT": "kafka://h:1"}, ctx)
    assert kept.url == state.LOCAL_STATE and "kafka_topic" in kept.description


def test_conditional_commit_round_trip(tmp_path: Path) -> None:
    cat = iceberg.catalog(iceberg.locate(f"file://{tmp_path}", "lake"))
    ident = ("ns", "facts")
    assert iceberg.snapshot_id(iceberg.load(cat, ident)) == iceberg.NO_SNAPSHOT
    iceberg.conditional_commit(cat, ident, [{"id": "a", "amount": 1}], iceberg.NO_SNAPSHOT, "txn-1")
    table = iceberg.load(cat, ident)
    first = iceberg.snapshot_id(table)
    assert first != iceberg.NO_SNAPSHOT
    assert iceberg.txn_done(table, "txn-1") and not iceberg.txn_done(table, "txn-2")
    # a late attempt that recorded the table before txn-1 is refused, and nothing lands
    with pytest.raises(iceberg.CommitRejected):
        iceberg.conditional_commit(cat, ident, [{"id": "b", "amount": 2}], iceberg.NO_SNAPSHOT, "txn-2")
    assert iceberg.read(iceberg.load(cat, ident), None) == [{"id": "a", "amount": 1}]
    iceberg.conditional_commit(cat, ident, [{"id": "b", "amount": 2}], first, "txn-2")
    assert sorted(r["id"] for r in iceberg.read(iceberg.load(cat, ident), None)) == ["a", "b"]
    # the pinned snapshot still reads what it held
    assert iceberg.read(iceberg.load(cat, ident), first) == [{"id": "a", "amount": 1}]
    iceberg.write(cat, ident, [{"id": "c", "amount": 3}], "replace", "id", ["a"])
    assert sorted(r["id"] for r in iceberg.read(iceberg.load(cat, ident), None)) == ["b", "c"]
    iceberg.write(cat, ident, [{"id": "z", "amount": 9}], "overwrite")
    assert iceberg.read(iceberg.load(cat, ident), None) == [{"id": "z", "amount": 9}]


PG = os.environ.get("FLOWC_TEST_PG")


@pytest.mark.skipif(not PG, reason="FLOWC_TEST_PG names no PostgreSQL server")
def test_a_postgresql_catalog_holds_the_table_and_the_state(tmp_path: Path) -> None:
    """pyiceberg's SQL catalog on a real PostgreSQL server (in a schema of its own), and flowc's
    state in the same database."""
    import uuid

    import psycopg

    from flowc_runtime.sql import Database

    assert PG is not None
    schema = f"ice_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        sep = "&" if "?" in PG else "?"
        url = f"{PG}{sep}options=-csearch_path%3D{schema}&warehouse={(tmp_path / 'wh').as_uri()}"
        where = iceberg.locate(url, "lake")
        cat = iceberg.catalog(where)
        ident = ("ns", "facts")
        iceberg.conditional_commit(cat, ident, [{"id": "a", "amount": 1}], iceberg.NO_SNAPSHOT, "txn-1")
        assert iceberg.txn_done(iceberg.load(cat, ident), "txn-1")
        with pytest.raises(iceberg.CommitRejected):
            iceberg.conditional_commit(cat, ident, [{"id": "b", "amount": 2}], iceberg.NO_SNAPSHOT, "txn-2")
        with psycopg.connect(PG, autocommit=True) as conn:
            tables = {r[0] for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,))}
        assert "iceberg_tables" in tables
        db = Database(where.state_url)
        assert db.dialect == "postgres"
        db.close()
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
