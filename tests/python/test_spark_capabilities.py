"""The Spark runtime (flowc_runtime/spark) runs exactly what templates/python/capabilities.json's
`spark` section promises (what `flowc scaffold` accepts for a `spark-submit` task), and refuses
the rest before it starts Spark."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any, cast

import pytest

from flowc_runtime.context import FlowError, Invalid
from flowc_runtime.spark import attempt as spark_run
from flowc_runtime.spec import Emit, Endpoint, Mode, Read, Task, Write

ROOT = Path(__file__).resolve().parents[2]
CAPS = json.loads((ROOT / "templates" / "python" / "capabilities.json").read_text(encoding="utf-8"))["spark"]


def test_the_spark_runtime_has_exactly_the_kinds_and_modes_of_the_table() -> None:
    assert sorted(spark_run.KINDS) == sorted(CAPS["data"])
    for kind in spark_run.KINDS:
        assert sorted(CAPS["data"][kind]["modes"]) == sorted(spark_run.MODES), kind
        assert CAPS["data"][kind]["outbox"] is False


def task(kind: str = "delta_table", mode: str = "conditional_commit", emits: tuple[Emit, ...] = ()) -> Task:
    return Task(pipeline="p", task="t", schedule="@daily", timezone="UTC", nondeterministic=False,
                reads=(Read(source=Endpoint("raw", "delta_table", {"location": "raw"}), immutable=False,
                            pin="version"),),
                writes=(Write(sink=Endpoint("out", kind, {"location": "out"}), mode=cast(Mode, mode)),), emits=emits)


def test_what_the_table_lists_passes_the_runtime_check() -> None:
    for kind in spark_run.KINDS:
        for mode in spark_run.MODES:
            spark_run.check_declarations(task(kind, mode))


@pytest.mark.parametrize(("kind", "mode", "emits", "said"), [
    ("postgres_table", "append", (), "no runtime for kind `postgres_table`"),
    ("delta_table", "transactional", (), "no runtime for `transactional`"),
    ("delta_table", "append", (Emit(Endpoint("hook", "webhook"), "untracked"),), "no runtime for effects"),
])
def test_anything_else_is_refused_with_exit_65_before_spark_starts(kind: str, mode: str, emits: tuple[Emit, ...],
                                                                    said: str) -> None:
    with pytest.raises(Invalid, match=said):
        spark_run.check_declarations(task(kind, mode, emits))
    env = {"FLOW_INTERVAL_START": "2026-01-01T00:00:00Z", "FLOW_INTERVAL_END": "2026-01-02T00:00:00Z",
           "FLOW_RUN_ID": "r", "FLOWC_STATE": "sqlite:///dev/null/never"}
    # the refusal comes before the state store or Spark are reached: exit 65
    assert spark_run.run(task(kind, mode, emits), lambda ctx, inputs: {}, env) == 65


PG = os.environ.get("FLOWC_TEST_PG")


def catalog_at(schema: str, role: str | None = None) -> Any:
    """The `Where` of an Iceberg catalog in `schema` of FLOWC_TEST_PG's database, reached as
    FLOWC_TEST_PG's user or as `role` (as a task's connection URL names it)."""
    from flowc_runtime import iceberg

    assert PG is not None
    sep = "&" if "?" in PG else "?"
    server = PG.split("://", 1)[1]
    if role is not None:
        server = f"{role}@{server.split('@', 1)[-1]}"
    return iceberg.locate(f"postgresql://{server}{sep}options=-csearch_path%3D{schema}&warehouse=file:///tmp/unused",
                          "facts")


@pytest.mark.skipif(not PG, reason="FLOWC_TEST_PG is not set")
def test_a_postgres_catalog_gets_its_tables_in_its_schema_beside_another_catalog() -> None:
    """Iceberg's JdbcCatalog skips creating `iceberg_tables` when any schema of the database has
    one: the runtime creates the catalog's tables in the connection's schema itself."""
    import psycopg

    from flowc_runtime.spark import session

    assert PG is not None
    schema = f"flowc_sp_{uuid.uuid4().hex[:8]}"
    other = f"flowc_sp_other_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"CREATE SCHEMA {other}")
        conn.execute(f"CREATE TABLE {other}.iceberg_tables (catalog_name VARCHAR(255))")
    try:
        where = catalog_at(schema)
        props = session.jdbc(where, "facts")
        assert props["uri"].endswith(f"currentSchema={schema}"), props
        session.jdbc(where, "facts")  # a second attempt finds them: nothing to do
        with psycopg.connect(PG, autocommit=True) as conn:
            tables = {r[0] for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,))}
            columns = {r[0] for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = %s "
                "AND table_name = 'iceberg_tables'", (schema,))}
        assert tables == {"iceberg_tables", "iceberg_namespace_properties"}, tables
        assert "iceberg_type" in columns  # the schema pyiceberg makes and reads without a warning
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
            conn.execute(f"DROP SCHEMA {other} CASCADE")


@pytest.mark.skipif(not PG, reason="FLOWC_TEST_PG is not set")
def test_a_role_without_create_works_on_catalog_tables_made_before() -> None:
    """The near miss: the tables are there, made by another role; the task's role may not
    create tables in the schema, and needs not."""
    import psycopg

    from flowc_runtime.spark import session

    assert PG is not None
    schema = f"flowc_sp_{uuid.uuid4().hex[:8]}"
    role = f"flowc_sp_task_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
    try:
        session.jdbc(catalog_at(schema), "facts")
        where = catalog_at(schema, role)
        try:
            psycopg.connect(where.state_url).close()
        except psycopg.OperationalError as err:
            pytest.skip(f"the server does not let a new role log in without a password: {err}")
        session.jdbc(where, "facts")  # finds both tables: creates nothing, needs no CREATE
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f"DROP TABLE {schema}.iceberg_namespace_properties")
        with pytest.raises(FlowError, match="refused its tables"):
            session.jdbc(where, "facts")  # one is missing and this role may not make it
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
            conn.execute(f"DROP ROLE {role}")
