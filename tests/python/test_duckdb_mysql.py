"""The `duckdb_table` and `mysql_table` runtimes (flowc_runtime/sql.py, bulk.py,
connectors/sql_table.py): every mode their kinds list, rows sharing a key within an interval,
batches, the state store in the sink's database, a crash midway then a retry, and what each
system needs (DuckDB's file lock, MySQL's implicit commit at DDL and its
`ON DUPLICATE KEY UPDATE`).

DuckDB runs in-process (the `duckdb` package); the MySQL cases run when FLOWC_TEST_MYSQL names
a server (`export FLOWC_TEST_MYSQL=$(scripts/ci-mariadb)`). Each MySQL case prints the server's
version. `FLOWC_VOLUME_ROWS` sets the rows of the volume cases (default 200000).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "templates" / "python"))

from flowc_runtime import Endpoint, Read, Task, Term, Write, run  # noqa: E402
from flowc_runtime.bulk import (  # noqa: E402
    absent_clause,
    insert_keyed,
    insert_many,
    mysql_update,
    newest_clause,
    reduce_keyed,
    upsert_clause,
)
from flowc_runtime.context import Context  # noqa: E402
from flowc_runtime.spec import StateStore  # noqa: E402
from flowc_runtime.sql import Database, mysql_statement  # noqa: E402
from flowc_runtime.state import locate  # noqa: E402

RUNTIME = Path(__file__).resolve().parents[2] / "templates" / "python"
MYSQL = pytest.mark.skipif(not os.environ.get("FLOWC_TEST_MYSQL"), reason="FLOWC_TEST_MYSQL is not set")
DAY1 = ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")
DAY2 = ("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z")
KINDS = ["duckdb_table", pytest.param("mysql_table", marks=MYSQL)]


# --- the two databases --------------------------------------------------------------------------

def mysql_base() -> str:
    return os.environ["FLOWC_TEST_MYSQL"]


def mysql_admin() -> Any:
    from urllib.parse import urlparse

    import pymysql

    parsed = urlparse(mysql_base())
    return pymysql.connect(host=parsed.hostname, port=parsed.port or 3306, user=parsed.username or "root",
                           password=parsed.password or "", autocommit=True)


@pytest.fixture
def url(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh database of the case's kind: a DuckDB file, or a MySQL database (dropped after)."""
    yield from database_url(tmp_path, request.node.callspec.params.get("kind", "duckdb_table"))


def database_url(tmp_path: Path, kind: str) -> Iterator[str]:
    if kind == "duckdb_table":
        yield f"duckdb://{tmp_path}/db.duckdb"
        return
    name = "t_" + uuid.uuid4().hex[:12]
    with mysql_admin() as conn, conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE `{name}`")
        cur.execute("SELECT VERSION()")
        print(f"MySQL server {cur.fetchone()[0]}")  # noqa: T201 - the version the case ran on
    try:
        yield mysql_base().rpartition("/")[0] + "/" + name
    finally:
        with mysql_admin() as conn, conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{name}`")


def select(url: str, sql: str) -> list[tuple[Any, ...]]:
    db = Database(url)
    try:
        if db.dialect == "mysql":
            sql = sql.replace('"', "`")
        return [tuple(r) for r in db.query(sql)]
    finally:
        db.close()


# --- a task ---------------------------------------------------------------------------------------

def files_source() -> Read:
    return Read(Endpoint("raw", "files", {"path": "in/{interval.start}/"}), immutable=True, pin="listing",
                identity=("id",))


def make_task(writes: tuple[Write, ...], kind: str, sink: str = "out") -> Task:
    return Task("p", "t", "@daily", "UTC", False, (files_source(),), writes, (),
                state=StateStore(kind, Endpoint(sink, kind, {"table": "o"})))


def env_for(tmp: Path, url: str, interval: tuple[str, str] = DAY1, attempt: int = 1, run_id: str = "run-1",
            batch: int | None = None, names: tuple[str, ...] = ("out",)) -> dict[str, str]:
    """No FLOWC_STATE: the task's own state store (the sink's database) decides."""
    env = {
        "FLOW_PIPELINE": "p",
        "FLOW_TASK": "t",
        "FLOW_INTERVAL_START": interval[0],
        "FLOW_INTERVAL_END": interval[1],
        "FLOW_RUN_ID": run_id,
        "FLOW_ATTEMPT": str(attempt),
        "FLOW_CONN_RAW": f"file://{tmp}/files",
    }
    env.update({f"FLOW_CONN_{n.upper()}": url for n in names})
    if batch is not None:
        env["FLOWC_BATCH_ROWS"] = str(batch)
    return env


def seed(tmp: Path, rows: list[dict[str, Any]], interval: tuple[str, str] = DAY1, name: str = "a.jsonl") -> None:
    folder = tmp / "files" / "in" / interval[0]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))


def keyed(kind: str, mode: str, newest_by: str | None = None, table: str = "o") -> Write:
    return Write(Endpoint("out", kind, {"table": table}), mode, key=(Term("input_field", "id"),),  # type: ignore[arg-type]
                 primary_key=("id",), newest_by=newest_by)


def same(ctx: Any) -> dict[str, Any]:
    return {"out": ctx.inputs["raw"]}


# --- the modes ------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_upsert_keeps_the_last_row_of_a_key_across_batches(tmp_path: Path, url: str, kind: str) -> None:
    seed(tmp_path, [{"id": "a", "amount": 1}, {"id": "b", "amount": 2}, {"id": "a", "amount": 3},
                    {"id": "a", "amount": 4}])
    task = make_task((keyed(kind, "upsert"),), kind)
    assert run(task, same, env_for(tmp_path, url, batch=3)) == 0
    assert select(url, 'SELECT id, amount FROM "o" ORDER BY id') == [("a", 4), ("b", 2)]
    # not fenced (the kinds have no `fenced` line): the table has no fencing column
    columns = select(url, "SELECT column_name FROM information_schema.columns WHERE table_name = 'o'")
    assert ("_flow_interval_end",) not in columns


def users_table(url: str, kind: str, mode: str, column: str) -> Write:
    """A table `o` the user made (`id` and `column`), and the write of `mode` into it."""
    db = Database(url)
    try:
        db.execute(f"CREATE TABLE {'`o`' if kind == 'mysql_table' else 'o'} (id VARCHAR(20) PRIMARY KEY, {column})")
    finally:
        db.close()
    return keyed(kind, mode) if mode == "upsert" else Write(Endpoint("out", kind, {"table": "o"}), "append")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("mode", ["upsert", "append"])
def test_an_existing_integer_column_takes_whole_floats_and_refuses_fractions(
        tmp_path: Path, url: str, kind: str, mode: str, capfd: pytest.CaptureFixture[str]) -> None:
    """The user's table has an integer column; the output's numbers are floats (a JSON `2.0`, a
    pandas column with nulls): 2.0 is stored as 2; 1.5 is refused, exit 65, naming the column and
    nothing written (DuckDB and MySQL rounded it to 2 without a word)."""
    write = users_table(url, kind, mode, "n INTEGER")
    seed(tmp_path, [{"id": "a", "n": 2.0}, {"id": "b", "n": None}])
    assert run(make_task((write,), kind), same, env_for(tmp_path, url)) == 0
    assert select(url, 'SELECT id, n FROM "o" ORDER BY id') == [("a", 2), ("b", None)]
    seed(tmp_path, [{"id": "c", "n": 1.5}], interval=DAY2)
    capfd.readouterr()
    assert run(make_task((write,), kind), same, env_for(tmp_path, url, interval=DAY2, run_id="r2")) == 65
    err = capfd.readouterr().err
    assert "column `n` of `o` is an integer column: the output holds a number with a fraction" in err, err
    assert select(url, 'SELECT id, n FROM "o" ORDER BY id') == [("a", 2), ("b", None)]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("mode", ["upsert", "append"])
def test_a_field_an_existing_table_has_no_column_for_is_exit_65(
        tmp_path: Path, url: str, kind: str, mode: str, capfd: pytest.CaptureFixture[str]) -> None:
    """A table the user made, without a column for one of the output's fields: exit 65 naming
    the field (it was the database's error at every attempt, exit 75 with a traceback); a field
    that differs from its column only in case still goes into it (the database resolves it)."""
    write = users_table(url, kind, mode, "v INTEGER")
    seed(tmp_path, [{"id": "a", "V": 1}])
    assert run(make_task((write,), kind), same, env_for(tmp_path, url)) == 0
    seed(tmp_path, [{"id": "b", "v": 2, "extra": "x"}], interval=DAY2)
    capfd.readouterr()
    assert run(make_task((write,), kind), same, env_for(tmp_path, url, interval=DAY2, run_id="r2")) == 65
    err = capfd.readouterr().err
    assert "output field `extra` is not a column of `o`, a table this write did not create" in err, err
    assert "Traceback" not in err
    assert select(url, 'SELECT id, v FROM "o" ORDER BY id') == [("a", 1)]


@MYSQL
def test_a_nan_mysql_cannot_store_is_exit_65(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A NaN or an infinity (a float JSON and Parquet can carry): MySQL has no such value and
    PyMySQL refuses to send it, the same at every attempt: exit 65 saying so (it was exit 75
    with a traceback, retried forever)."""
    for url in database_url(tmp_path, "mysql_table"):
        seed(tmp_path, [{"id": "a", "x": 1.5}, {"id": "b", "x": float("nan")}])
        assert run(make_task((keyed("mysql_table", "upsert"),), "mysql_table"), same, env_for(tmp_path, url)) == 65
        err = capfd.readouterr().err
        assert "MySQL cannot store a float that is NaN or infinite" in err and "Traceback" not in err, err


@pytest.mark.parametrize("mode", ["upsert", "append", "insert_if_absent"])
def test_an_existing_duckdb_list_column_takes_a_list_as_it_is(tmp_path: Path, mode: str) -> None:
    """A user's DuckDB `VARCHAR[]` column takes a record's list as the list it is (sent as it is
    since the runtime looks up an existing table's array columns; DuckDB's cast of the JSON text
    gave the same list, commas, quotes and brackets in the values included)."""
    url = f"duckdb://{tmp_path}/db.duckdb"
    db = Database(url)
    try:
        db.execute('CREATE TABLE "o" (id VARCHAR PRIMARY KEY, tags VARCHAR[], n INTEGER[])')
    finally:
        db.close()
    write = keyed("duckdb_table", mode) if mode != "append" else Write(Endpoint("out", "duckdb_table", {"table": "o"}),
                                                                       "append")
    tags = ["x", "y,z", 'q"', "[b]", " s "]
    seed(tmp_path, [{"id": "a", "tags": tags, "n": [1, 2]}, {"id": "b", "tags": [], "n": None}])
    assert run(make_task((write,), "duckdb_table"), same, env_for(tmp_path, url)) == 0
    assert select(url, 'SELECT id, tags, n FROM "o" ORDER BY id') == [("a", tags, [1, 2]), ("b", [], None)]


@pytest.mark.parametrize("kind", KINDS)
def test_insert_if_absent_keeps_the_first_committed_row(tmp_path: Path, url: str, kind: str) -> None:
    seed(tmp_path, [{"id": "a", "v": 1}, {"id": "a", "v": 9}])
    seed(tmp_path, [{"id": "a", "v": 2}, {"id": "b", "v": 20}], interval=DAY2)
    task = make_task((keyed(kind, "insert_if_absent"),), kind)
    assert run(task, same, env_for(tmp_path, url, batch=1)) == 0
    assert run(task, same, env_for(tmp_path, url, interval=DAY2, run_id="r2")) == 0
    assert run(task, same, env_for(tmp_path, url, interval=DAY2, run_id="r3")) == 0
    assert select(url, 'SELECT id, v FROM "o" ORDER BY id') == [("a", 1), ("b", 20)]


@pytest.mark.parametrize("kind", KINDS)
def test_newest_by_keeps_the_greater_version_whoever_writes_last(tmp_path: Path, url: str, kind: str) -> None:
    # within day 2: version 5 then an older 3 of `a` (the 5 stays); `b`'s NULL stored version is replaced
    seed(tmp_path, [{"id": "a", "version": 1, "v": "old"}, {"id": "b", "version": None, "v": "x"}])
    seed(tmp_path, [{"id": "a", "version": 5, "v": "new"}, {"id": "a", "version": 3, "v": "older"},
                    {"id": "b", "version": 2, "v": "y"}], interval=DAY2)
    task = make_task((keyed(kind, "upsert", newest_by="version"),), kind)
    assert run(task, same, env_for(tmp_path, url, interval=DAY1)) == 0
    assert run(task, same, env_for(tmp_path, url, interval=DAY2, run_id="r2", batch=1)) == 0
    # day 1 re-run after day 2: its older version does not come back
    assert run(task, same, env_for(tmp_path, url, interval=DAY1, run_id="rerun")) == 0
    assert select(url, 'SELECT id, version, v FROM "o" ORDER BY id') == [("a", 5, "new"), ("b", 2, "y")]
    # a tie keeps the stored row; a NULL incoming version keeps it too
    seed(tmp_path, [{"id": "a", "version": 5, "v": "tie"}, {"id": "b", "version": None, "v": "null"}])
    assert run(task, same, env_for(tmp_path, url, interval=DAY1, run_id="rerun2")) == 0
    assert select(url, 'SELECT id, version, v FROM "o" ORDER BY id') == [("a", 5, "new"), ("b", 2, "y")]


def test_duckdb_keyed_batches_in_one_statement_leave_what_row_by_row_writes_leave(tmp_path: Path) -> None:
    """`insert_if_absent` and `newest by` on DuckDB: a batch reduced to one row per key and
    written in one statement (`insert_keyed`) against the same rows written one by one with the
    same clause (DuckDB's `executemany`), over random batches with repeated keys, equal, older
    and NULL versions, and rows already stored; both tables must end alike."""
    import random

    db = Database(f"duckdb:///{tmp_path}/k.duckdb")
    rng = random.Random(7)
    cols = ("id", "version", "v")
    for trial in range(60):
        newest = "version" if trial % 2 else None
        for t in ("one", "each"):
            db.execute(f'DROP TABLE IF EXISTS "{t}"')
            db.execute(f'CREATE TABLE "{t}" (id TEXT PRIMARY KEY, version INTEGER, v TEXT)')
        clause = (newest_clause(db, "{t}", cols, ["id"], "version") if newest
                  else absent_clause(db, ["id"]))
        for _ in range(3):  # batches, each on what the earlier ones left
            batch = [(rng.choice("abcd"), rng.choice([None, 1, 2, 2, 3]), f"r{n}") for n in range(rng.randint(1, 12))]
            insert_keyed(db, "one", cols, batch, clause.replace("{t}", "one"), ["id"], newest)
            insert_many(db, "each", cols, batch, clause.replace("{t}", "each"))
            assert (db.query('SELECT * FROM "one" ORDER BY id') == db.query('SELECT * FROM "each" ORDER BY id')), batch
    db.close()


def test_reduce_keyed_keeps_the_row_one_by_one_writes_keep_and_declines_what_sql_orders_otherwise() -> None:
    cols = ("id", "version", "v")
    rows = [("a", 1, "x"), ("a", 3, "y"), ("a", 3, "z"), ("a", None, "n"), ("b", None, "p"), ("b", None, "q")]
    assert reduce_keyed(cols, rows, ["id"], None) == [("a", 1, "x"), ("b", None, "p")]
    assert reduce_keyed(cols, rows, ["id"], "version") == [("a", 3, "y"), ("b", None, "p")]
    # near misses: row by row instead
    assert reduce_keyed(cols, [("a", 1, "x"), ("a", "2", "y")], ["id"], "version") is None  # mixed types
    assert reduce_keyed(cols, [("a", float("nan"), "x")], ["id"], "version") is None
    assert reduce_keyed(cols, [(None, 1, "x"), (None, 2, "y")], ["id"], None) is None  # NULL keys never meet
    assert reduce_keyed(cols, rows, ["missing"], None) is None


@pytest.mark.parametrize("kind", KINDS)
def test_replace_partition_and_append(tmp_path: Path, url: str, kind: str) -> None:
    """replace partition deletes each partition once, whatever the batches; a retry replaces
    again (the same rows); a plain append appends again, as declared (FL202)."""
    rows = [{"id": f"r{i}", "day": "d1" if i < 5 else "d2", "amount": i} for i in range(9)]
    seed(tmp_path, rows)
    part = Write(Endpoint("out", kind, {"table": "p"}), "replace_partition", partition=Term("input_field", "day"))
    app = Write(Endpoint("log", kind, {"table": "a"}), "append")
    task = make_task((part, app), kind)
    for attempt in (1, 2):
        env = env_for(tmp_path, url, attempt=attempt, batch=2, names=("out", "log"))
        assert run(task, lambda ctx: {"out": ctx.inputs["raw"], "log": ctx.inputs["raw"]}, env) == 0
    expected = sorted((r["id"], r["day"], r["amount"]) for r in rows)
    assert sorted(select(url, 'SELECT id, day, amount FROM "p"')) == expected
    assert sorted(select(url, 'SELECT id, day, amount FROM "a"')) == sorted(expected * 2)


def test_duckdb_overwrite_replaces_the_table_and_adds_a_late_column(tmp_path: Path) -> None:
    url = f"duckdb://{tmp_path}/db.duckdb"
    rows = [{"id": f"r{i}", "amount": i} for i in range(5)]
    rows[3]["note"] = "late column"
    seed(tmp_path, rows)
    task = make_task((Write(Endpoint("out", "duckdb_table", {"table": "w"}), "overwrite"),), "duckdb_table")
    for attempt in (1, 2):
        assert run(task, same, env_for(tmp_path, url, attempt=attempt, batch=2)) == 0
    assert sorted(select(url, 'SELECT id, amount, note FROM "w"')) == sorted(
        (r["id"], r["amount"], r.get("note")) for r in rows)


@MYSQL
def test_mysql_refuses_ddl_after_its_first_rows_and_commits_nothing(tmp_path: Path) -> None:
    """MySQL commits the open transaction at ALTER TABLE: a column that appears only in a later
    batch cannot be added once rows are written, so the write fails whole (exit 75) instead of
    committing half (the table it created before its first row stays, empty: DDL is not
    transactional in MySQL). With every column in the first batch it succeeds."""
    name = "t_" + uuid.uuid4().hex[:12]
    with mysql_admin() as conn, conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE `{name}`")
    url = mysql_base().rpartition("/")[0] + "/" + name
    try:
        rows = [{"id": f"r{i}", "amount": i} for i in range(4)]
        rows[3]["note"] = "late column"
        seed(tmp_path, rows)
        task = make_task((Write(Endpoint("out", "mysql_table", {"table": "w"}), "append"),), "mysql_table")
        assert run(task, same, env_for(tmp_path, url, batch=2)) == 75
        assert select(url, "SELECT COUNT(*) FROM w") == [(0,)]
        rows[0]["note"] = None
        seed(tmp_path, rows)
        task = make_task((Write(Endpoint("out", "mysql_table", {"table": "w2"}), "append"),), "mysql_table")
        assert run(task, same, env_for(tmp_path, url, attempt=2, batch=2)) == 0
        assert select(url, "SELECT COUNT(*), COUNT(note) FROM w2") == [(4, 1)]
    finally:
        with mysql_admin() as conn, conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{name}`")


@pytest.mark.parametrize("kind", KINDS)
def test_the_state_and_the_outbox_live_in_the_sinks_database(tmp_path: Path, url: str, kind: str) -> None:
    seed(tmp_path, [{"id": "a", "amount": 1}])
    assert run(make_task((keyed(kind, "upsert"),), kind), same, env_for(tmp_path, url)) == 0
    tables = {r[0] for r in select(url, "SELECT table_name FROM information_schema.tables")}
    assert {"flowc_pins", "flowc_attempts", "flowc_attempt_head", "flowc_outbox"} <= tables
    assert not (tmp_path / ".flowc").exists()
    assert select(url, 'SELECT outcome FROM "flowc_attempts"') == [("ok",)]


def test_locate_names_the_sinks_own_database() -> None:
    ctx = Context("p", "t", datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC), "r", 1)
    duck = StateStore("duckdb_table", Endpoint("out", "duckdb_table", {"table": "o", "database": "w/{interval.start}.db"}))
    assert locate(duck, {}, ctx).url.startswith("duckdb://w/")
    assert locate(duck, {"FLOW_CONN_OUT": "duckdb:///x.db"}, ctx).url == "duckdb:///x.db"
    my = StateStore("mysql_table", Endpoint("out", "mysql_table", {"table": "o"}))
    assert locate(my, {"FLOW_CONN_OUT": "mysql://u@h:1/db"}, ctx).url == "mysql://u@h:1/db"
    with pytest.raises(Exception, match="FLOW_CONN_OUT"):
        locate(my, {}, ctx)


# --- a crash midway, then the retry ---------------------------------------------------------------

CRASHING_TASK = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {runtime!r})
    import flowc_runtime.hooks as hooks
    from flowc_runtime import Endpoint, Read, Task, Term, Write, main
    from flowc_runtime.spec import StateStore

    staged = {{"n": 0}}

    def step(name):
        if name == "mid_batch" and os.environ.get("CRASH_AT_BATCH"):
            staged["n"] += 1
            if staged["n"] == int(os.environ["CRASH_AT_BATCH"]):
                os.kill(os.getpid(), signal.SIGKILL)

    hooks.step = step
    read = Read(Endpoint("raw", "files", {{"path": "in/"}}), immutable=True, pin="listing", identity=("id",))
    sink = Endpoint("out", {kind!r}, {{"table": "o"}})
    write = Write(sink, "upsert", key=(Term("input_field", "id"),), primary_key=("id",))
    task = Task("p", "t", "@daily", "UTC", False, (read,), (write,), (), on_ambiguous="retry",
                state=StateStore({kind!r}, sink))

    def transform(ctx):
        return {{"out": ({{"id": r["id"], "amount": r["amount"], "name": r["name"]}} for r in ctx.inputs["raw"])}}

    main(task, transform)
""")


@pytest.mark.parametrize("kind", KINDS)
def test_rows_crash_midway_then_retry(tmp_path: Path, url: str, kind: str) -> None:
    """FLOWC_VOLUME_ROWS rows (a key in 10 twice, the later wins) streamed in batches of 10000;
    attempt 1 is killed after half the batches (nothing is visible), attempt 2 writes them all."""
    total = int(os.environ.get("FLOWC_VOLUME_ROWS") or "20000")
    folder = tmp_path / "files" / "in"
    folder.mkdir(parents=True)
    expected: dict[str, tuple[str, int, str]] = {}
    with (folder / "a.jsonl").open("w") as out:
        for i in range(total):
            key = f"k{i // 2}" if i % 10 in (0, 1) else f"k{i}"
            out.write(json.dumps({"id": key, "amount": i, "name": f"n{i % 97}"}) + "\n")
            expected[key] = (key, i, f"n{i % 97}")
    script = tmp_path / "volume_task.py"
    script.write_text(CRASHING_TASK.format(runtime=str(RUNTIME), kind=kind))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_"))}
    env.update(env_for(tmp_path, url))
    size = 10_000
    env["FLOWC_BATCH_ROWS"] = str(size)
    batches = max(1, total // size)
    first = subprocess.run([sys.executable, str(script)], env={**env, "CRASH_AT_BATCH": str(max(1, batches // 2))},
                           cwd=tmp_path, capture_output=True, text=True, check=False)
    assert first.returncode == -signal.SIGKILL, first.stderr
    assert not select(url, "SELECT table_name FROM information_schema.tables WHERE table_name = 'o'") or \
        select(url, 'SELECT COUNT(*) FROM "o"') == [(0,)]
    started = time.monotonic()
    retry = subprocess.run([sys.executable, str(script)], env={**env, "FLOW_ATTEMPT": "2"}, cwd=tmp_path,
                           capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    assert retry.returncode == 0, retry.stderr
    print(f"{kind}: {total} rows written in {seconds:.1f}s")  # noqa: T201 - the figure docs/scaffold.md quotes
    got = select(url, 'SELECT id, amount, name FROM "o"')
    assert sorted(got) == sorted(expected.values())


# --- what each system needs -------------------------------------------------------------------------

HOLDER = textwrap.dedent("""
    import sys, time
    import duckdb
    conn = duckdb.connect(sys.argv[1])
    conn.execute("CREATE TABLE IF NOT EXISTS held (x INTEGER)")
    print("holding", flush=True)
    time.sleep(float(sys.argv[2]))
    conn.close()
""")


def test_a_duckdb_file_held_by_another_process_is_waited_for(tmp_path: Path) -> None:
    """Only one process can open a DuckDB file: the runtime waits while another holds it (and
    holds it itself only for a statement, a transaction or a step of its setup), instead of failing the attempt."""
    db = tmp_path / "db.duckdb"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), "2"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        seed(tmp_path, [{"id": "a", "amount": 1}])
        started = time.monotonic()
        assert run(make_task((keyed("duckdb_table", "upsert"),), "duckdb_table"), same,
                   env_for(tmp_path, f"duckdb://{db}")) == 0
        assert time.monotonic() - started >= 1.0  # it waited for the holder
    finally:
        holder.wait(timeout=30)
    # and between its statements the task left the file closed: another process opens it now
    import duckdb

    duckdb.connect(str(db)).close()


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every opening of a DuckDB file in this process (`duckdb.connect`), in order."""
    import duckdb

    calls: list[object] = []
    real = duckdb.connect

    def counted(*a: Any, **k: Any) -> Any:
        calls.append(a)
        return real(*a, **k)

    monkeypatch.setattr(duckdb, "connect", counted)
    return calls


def test_a_held_block_opens_the_duckdb_file_once(tmp_path: Path, opened: list[object]) -> None:
    """`Database.held()`: the statements of a block share one opening of the file (each opening
    and closing costs tens of milliseconds), closed after it unless a transaction holds it."""
    from flowc_runtime.sql import Database

    db = Database(f"duckdb://{tmp_path}/db.duckdb")
    db.execute("CREATE TABLE t (a INTEGER)")
    db.execute("INSERT INTO t VALUES (1)")
    assert len(opened) == 2  # the near miss: outside a block, each statement opens the file
    with db.held():
        db.execute("INSERT INTO t VALUES (2)")
        assert db.query("SELECT count(*) FROM t") == [(2,)]
        assert db._conn is not None
    assert len(opened) == 3 and db._conn is None  # closed after the block: another process may open it
    with db.held():
        db.begin()
        db.execute("INSERT INTO t VALUES (3)")
    held_open = db.in_transaction and db._conn is not None  # the transaction keeps the file to its end
    db.commit()
    assert held_open and db._conn is None
    assert db.query("SELECT count(*) FROM t") == [(3,)]


def test_a_duckdb_task_opens_its_file_a_few_times(tmp_path: Path, opened: list[object]) -> None:
    """A keyed upsert with its state in the sink's DuckDB file: its setup (the runtime's tables,
    the state store, the attempts' tables) opens the file once per step, not once per statement
    (20 openings for this task before, 9 after)."""
    import duckdb

    seed(tmp_path, [{"id": "a", "amount": 1}, {"id": "b", "amount": 2}])
    url = f"duckdb://{tmp_path}/db.duckdb"
    assert run(make_task((keyed("duckdb_table", "upsert"),), "duckdb_table"), same, env_for(tmp_path, url)) == 0
    assert 0 < len(opened) <= 10, len(opened)
    assert sorted(duckdb.connect(f"{tmp_path}/db.duckdb").execute("SELECT id, amount FROM o").fetchall()) == [
        ("a", 1), ("b", 2)]


def test_mysql_statements_are_spelled_for_mysql() -> None:
    assert mysql_statement("INSERT INTO `flowc_pins` (`pipeline`, `task`) VALUES (%s, %s) ON CONFLICT DO NOTHING") == (
        "INSERT INTO `flowc_pins` (`pipeline`, `task`) VALUES (%s, %s) ON DUPLICATE KEY UPDATE `pipeline` = `pipeline`")
    created = mysql_statement("CREATE TABLE IF NOT EXISTS flowc_x (pipeline TEXT NOT NULL, value TEXT NOT NULL, "
                              "PRIMARY KEY (pipeline))")
    assert "pipeline VARCHAR(191) NOT NULL" in created and "value TEXT NOT NULL" in created
    assert "id VARCHAR(191) PRIMARY KEY" in mysql_statement("CREATE TABLE t (id TEXT PRIMARY KEY, body TEXT)")


class _Quoting:
    dialect = "mysql"

    @staticmethod
    def quote(name: str) -> str:
        return f"`{name}`"


def test_mysql_newest_by_assigns_the_version_last() -> None:
    """MySQL assigns ON DUPLICATE KEY UPDATE's columns left to right, each seeing the ones before:
    the version the condition reads must change last, or the later columns would compare
    against the new version and keep their old values."""
    db: Any = _Quoting()
    clause = newest_clause(db, "o", ["id", "version", "v"], ["id"], "version")
    assert clause.index("`v` = IF(") < clause.index("`version` = IF(")
    assert "VALUES(`version`) IS NOT NULL AND (`version` IS NULL OR `version` < VALUES(`version`))" in clause
    assert upsert_clause(db, "o", ["id", "v"], ["id"], None) == " ON DUPLICATE KEY UPDATE `v` = VALUES(`v`)"
    assert mysql_update(db, ["id"], [], None, True) == " ON DUPLICATE KEY UPDATE `id` = `id`"


# --- values the table's columns cannot hold -------------------------------------------------------

# an integer column that gets a float, then text; a boolean column that gets a number
WIDENED: list[dict[str, Any]] = [
    {"id": "r0", "amount": 0, "flag": True}, {"id": "r1", "amount": 1, "flag": False},
    {"id": "r2", "amount": 2.5, "flag": True}, {"id": "r3", "amount": 3, "flag": 3},
    {"id": "r4", "amount": "n/a", "flag": None}, {"id": "r5", "amount": None, "flag": False},
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("mode", ["upsert", "append", "append_ledger", "overwrite"])
def test_a_table_this_write_makes_widens_a_column_its_later_values_do_not_fit(
        tmp_path: Path, url: str, kind: str, mode: Any) -> None:
    """A table the write creates is typed from its first rows (`amount` an integer, `flag` a
    boolean); a later float widens the integer column to a float, later text or a number among
    booleans widens it to text, inside the write's transaction: every value kept (before: a
    DuckDB float was rounded into the integer column, and text failed the write). MySQL commits
    at DDL, so there a column that must be widened fails the write, exit 65, nothing committed."""
    seed(tmp_path, WIDENED)
    write = Write(Endpoint("out", kind, {"table": "o"}), mode, key=(Term("input_field", "id"),),
                  primary_key=("id",) if mode == "upsert" else None)
    code = run(make_task((write,), kind), lambda ctx: {"out": ctx.inputs["raw"]}, env_for(tmp_path, url, batch=2))
    if kind == "mysql_table":
        assert code == 65
        assert select(url, "SELECT COUNT(*) FROM o")[0][0] == 0  # made before the write's transaction, empty
        return
    assert code == 0
    got = {row[0]: row[1:] for row in select(url, 'SELECT "id", "amount", "flag" FROM o')}
    assert set(got) == {r["id"] for r in WIDENED}
    for record in WIDENED:
        amount, flag = got[record["id"]]
        want = record["amount"]
        assert (amount is None) == (want is None)
        if isinstance(want, str):
            assert amount == want
        elif want is not None:
            assert float(amount) == want  # a number, or the text of one: nothing rounded
        want_flag = record["flag"]
        assert (flag is None) == (want_flag is None)
        if want_flag is not None:
            assert str(flag).lower() in ({"true", "t"} if want_flag is True else {"false", "f"} if want_flag is False
                                         else {str(want_flag)})


@pytest.mark.parametrize("kind", KINDS)
def test_a_value_an_existing_table_refuses_exits_65_without_the_value(
        tmp_path: Path, url: str, kind: str, capfd: pytest.CaptureFixture[str]) -> None:
    """An existing table's columns are the user's: a value its column cannot hold (text in an
    integer column) is the database's refusal, which every attempt meets again: exit 65 (no
    retry can help; it was 75, retried), never the value in the log."""
    db = Database(url)
    try:
        quote = "`" if kind == "mysql_table" else '"'
        db.execute(f"CREATE TABLE o ({quote}id{quote} VARCHAR(20) PRIMARY KEY, {quote}amount{quote} BIGINT)")
        if kind == "mysql_table":
            db.commit()
    finally:
        db.close()
    seed(tmp_path, [{"id": "r0", "amount": 1}, {"id": "r1", "amount": "hunter2"}])
    write = Write(Endpoint("out", kind, {"table": "o"}), "upsert", key=(Term("input_field", "id"),),
                  primary_key=("id",))
    assert run(make_task((write,), kind), lambda ctx: {"out": ctx.inputs["raw"]}, env_for(tmp_path, url)) == 65
    err = capfd.readouterr().err
    assert "no retry can help" in err and "the database refused a value" in err and "hunter2" not in err
    assert select(url, "SELECT COUNT(*) FROM o")[0][0] == 0


@pytest.fixture
def any_url(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh database of the case's kind: SQLite, DuckDB, MySQL, PostgreSQL (a schema)."""
    kind = request.node.callspec.params["kind"]
    if kind == "sqlite_table":
        yield f"sqlite://{tmp_path}/db.sqlite"
    elif kind == "postgres_table":
        import psycopg

        base = os.environ["FLOWC_TEST_PG"]
        schema = "t_" + uuid.uuid4().hex[:10]
        with psycopg.connect(base, autocommit=True) as c:
            c.execute(f'CREATE SCHEMA "{schema}"')
        try:
            yield f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"
        finally:
            with psycopg.connect(base, autocommit=True) as c:
                c.execute(f'DROP SCHEMA "{schema}" CASCADE')
    else:
        yield from database_url(tmp_path, kind)


PG = pytest.mark.skipif(not os.environ.get("FLOWC_TEST_PG"), reason="FLOWC_TEST_PG is not set")


@pytest.mark.parametrize("kind", ["sqlite_table", "duckdb_table", pytest.param("mysql_table", marks=MYSQL),
                                  pytest.param("postgres_table", marks=PG)])
@pytest.mark.parametrize("mode", ["upsert", "insert_if_absent"])
def test_a_keyed_write_into_a_table_with_no_key_on_its_columns_exits_65(
        tmp_path: Path, any_url: str, kind: str, mode: str, capfd: pytest.CaptureFixture[str]) -> None:
    """An upsert or an insert-if-absent finds the stored row of a key by the table's primary key
    or a unique index on the key's columns. A user's table without one: SQLite, DuckDB and
    PostgreSQL refused the statement at every attempt (exit 75, retried for ever), and MySQL
    inserted every row again, a duplicate at each re-run of an interval. Now exit 65, naming
    the columns, nothing written. The near miss: a unique index (not a primary key) on them,
    and on PostgreSQL 15+ an upsert, which merges by `MERGE` and needs no index."""
    quote = "`" if kind == "mysql_table" else '"'
    key_type = "VARCHAR(20)" if kind == "mysql_table" else "TEXT"

    def make(table: str, index: bool) -> None:
        db = Database(any_url)
        try:
            db.execute(f"CREATE TABLE {table} ({quote}id{quote} {key_type}, {quote}amount{quote} BIGINT)")
            if index:
                db.execute(f"CREATE UNIQUE INDEX {table}_id ON {table} ({quote}id{quote})")
            if db.in_transaction:
                db.commit()
        finally:
            db.close()

    make("bare", index=False)
    make("indexed", index=True)
    seed(tmp_path, [{"id": "a", "amount": 1}, {"id": "b", "amount": 2}])
    for table, run_id in (("bare", "r1"), ("indexed", "r2"), ("indexed", "r3")):
        write = Write(Endpoint("out", kind, {"table": table}), mode, key=(Term("input_field", "id"),),  # type: ignore[arg-type]
                      primary_key=("id",))
        task = make_task((write,), kind)
        env = env_for(tmp_path, any_url, run_id=run_id)
        if kind == "sqlite_table":  # (a SQLite sink holds no state: a state file beside it)
            task = Task("p", "t", "@daily", "UTC", False, (files_source(),), (write,), ())
            env["FLOWC_STATE"] = f"sqlite://{tmp_path}/state.sqlite"
        merged = kind == "postgres_table" and mode == "upsert"
        if table == "bare" and not merged:
            assert run(task, same, env) == 65, table
            err = capfd.readouterr().err
            assert "no retry can help" in err and "unique index on exactly (id)" in err, err
            assert select(any_url, "SELECT COUNT(*) FROM bare") == [(0,)]
        else:
            assert run(task, same, env) == 0, table
    if kind != "postgres_table" or mode != "upsert":
        assert select(any_url, "SELECT id, amount FROM indexed ORDER BY id") == [("a", 1), ("b", 2)]


@pytest.mark.parametrize("kind", ["sqlite_table", "duckdb_table", pytest.param("mysql_table", marks=MYSQL),
                                  pytest.param("postgres_table", marks=PG)])
def test_parquet_decimals_times_and_zoned_timestamps_reach_every_sql_kind(tmp_path: Path, any_url: str,
                                                                         kind: str) -> None:
    """A Parquet file's decimal, time and zoned timestamp columns (a day of finance data):
    SQLite could not bind a Decimal or a time (exit 75 at every attempt), and MySQL wrote a
    zoned timestamp's wall time without its offset (10:00+02:00 stored as 10:00, two hours
    off); now SQLite stores their exact text, MySQL the time in UTC."""
    import datetime as dt
    from decimal import Decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "files" / "in" / DAY1[0]
    folder.mkdir(parents=True)
    paris = dt.timezone(dt.timedelta(hours=2))
    pq.write_table(pa.table({
        "id": ["a", "b"],
        "price": pa.array([Decimal("12345678901234567.25"), None], pa.decimal128(20, 2)),
        "at": pa.array([dt.time(9, 30, 5), dt.time(23, 59)], pa.time64("us")),
        "ts": pa.array([dt.datetime(2026, 1, 1, 10, 0, tzinfo=paris), None], pa.timestamp("us", tz="+02:00")),
        "day": pa.array([dt.date(2026, 1, 1), dt.date(2026, 2, 28)], pa.date32()),
    }), folder / "a.parquet")
    write = Write(Endpoint("out", kind, {"table": "o"}), "upsert", key=(Term("input_field", "id"),),
                  primary_key=("id",))
    task = make_task((write,), kind)
    env = env_for(tmp_path, any_url)
    if kind == "sqlite_table":
        task = Task("p", "t", "@daily", "UTC", False, (files_source(),), (write,), ())
        env["FLOWC_STATE"] = f"sqlite://{tmp_path}/state.sqlite"
    assert run(task, same, env) == 0
    got = select(any_url, 'SELECT "id", "price", "at", "ts", "day" FROM "o" ORDER BY "id"')
    assert [str(v) for v in got[0][:3]] == ["a", "12345678901234567.25", "09:30:05"]
    if kind == "mysql_table":
        assert got[0][3] == "2026-01-01 08:00:00"  # its time in UTC
    if kind == "sqlite_table":
        assert got[0][3:] == ("2026-01-01 10:00:00+02:00", "2026-01-01")
    assert got[1][1] is None and got[1][3] is None


def test_sqlite_binds_what_a_postgres_source_reads_as_its_text(tmp_path: Path) -> None:
    """A PostgreSQL source's uuid, interval and inet columns read as Python's UUID, timedelta
    and ip address objects, which sqlite3 cannot bind (exit 75 at every attempt): SQLite stores
    their text."""
    import datetime as dt
    import ipaddress

    seed(tmp_path, [{"id": "a"}])
    values = {"u": uuid.UUID("12345678-1234-5678-1234-567812345678"), "span": dt.timedelta(days=1, seconds=5),
              "ip": ipaddress.ip_address("10.0.0.1"), "net": ipaddress.ip_network("10.0.0.0/8")}
    write = Write(Endpoint("out", "sqlite_table", {"table": "o"}), "append")
    task = Task("p", "t", "@daily", "UTC", False, (files_source(),), (write,), ())
    env = env_for(tmp_path, f"sqlite://{tmp_path}/db.sqlite")
    env["FLOWC_STATE"] = f"sqlite://{tmp_path}/state.sqlite"
    assert run(task, lambda ctx: {"out": [{**r, **values} for r in ctx.inputs["raw"]]}, env) == 0
    assert select(f"sqlite://{tmp_path}/db.sqlite", "SELECT id, u, span, ip, net FROM o") == [
        ("a", "12345678-1234-5678-1234-567812345678", "1 day, 0:00:05", "10.0.0.1", "10.0.0.0/8")]


@pytest.mark.parametrize("kind", ["sqlite_table", "duckdb_table", pytest.param("mysql_table", marks=MYSQL),
                                  pytest.param("postgres_table", marks=PG)])
@pytest.mark.parametrize("batch", [1, 100])
def test_fields_that_differ_only_in_case_are_refused_where_column_names_ignore_case(
        tmp_path: Path, any_url: str, kind: str, batch: int, capfd: pytest.CaptureFixture[str]) -> None:
    """`x` and `X` are two columns on PostgreSQL and one on SQLite, DuckDB and MySQL, which
    refused to make the second (`duplicate column name`: exit 75 at every attempt). A table the
    write creates there: exit 65 naming both, whether they meet in one batch or two, nothing
    written (MySQL, which commits at DDL, keeps the table its first batch made, empty). The near
    miss: a table of the user's with `x` takes a field `X` into it, as the database resolves
    the name."""
    seed(tmp_path, [{"id": "a", "x": 1}, {"id": "b", "X": 2}])
    env = env_for(tmp_path, any_url, batch=batch)
    write = Write(Endpoint("out", kind, {"table": "o"}), "append")
    task = make_task((write,), kind)
    if kind == "sqlite_table":
        task = Task("p", "t", "@daily", "UTC", False, (files_source(),), (write,), ())
        env["FLOWC_STATE"] = f"sqlite://{tmp_path}/state.sqlite"
    if kind == "postgres_table":
        assert run(task, same, env) == 0
        assert select(any_url, 'SELECT id, x, "X" FROM o ORDER BY id') == [("a", 1, None), ("b", None, 2)]
        return
    assert run(task, same, env) == 65
    err = capfd.readouterr().err
    assert "differ only in case" in err and "`x`" in err and "`X`" in err, err
    db = Database(any_url)
    try:
        if kind == "mysql_table" and batch == 1:  # (made from the first batch: MySQL commits at DDL)
            assert db.query("SELECT COUNT(*) FROM o") == [(0,)]
            db.execute("DROP TABLE o")
        assert not db.table_exists("o")
        db.execute("CREATE TABLE o (id VARCHAR(20), x BIGINT)")
        if db.in_transaction:
            db.commit()
    finally:
        db.close()
    assert run(task, same, {**env, "FLOW_RUN_ID": "run-2"}) == 0
    assert select(any_url, 'SELECT id, x FROM o ORDER BY id') == [("a", 1), ("b", 2)]
