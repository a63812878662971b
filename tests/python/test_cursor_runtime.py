"""flowc 0.3 cursor reads in the runtime (`read S cursor [lookback L] [inclusive]`): the range
`(bookmark - L, high]` pinned at the first attempt, the bookmark in the state store, moved with
the write's own transaction when the state store is the sink's database. In-process, on SQLite.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "templates" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from flowc_runtime import Context, Endpoint, Read, Term, Write, run  # noqa: E402
from flowc_runtime.spec import Cursor  # noqa: E402
from test_runtime import DAY1, env_for, make_task  # noqa: E402

DAY2 = ("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z")
DAY3 = ("2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z")


def source_db(tmp: Path, rows: list[tuple[Any, ...]], columns: str = "id TEXT, seq INTEGER") -> None:
    conn = sqlite3.connect(tmp / "src.sqlite")
    try:
        conn.execute(f"CREATE TABLE IF NOT EXISTS src ({columns})")
        conn.executemany(f"INSERT INTO src VALUES ({', '.join('?' * len(rows[0]))})", rows)
        conn.commit()
    finally:
        conn.close()


def cursor_read(column: str = "seq", **how: Any) -> Read:
    return Read(Endpoint("src", "sqlite_table", {"table": "src"}), immutable=False, pin="cursor",
                identity=("id",), cursor=Cursor(column, **how))


def copy(ctx: Context) -> dict[str, Any]:
    return {"out": [(r, dict(r)) for r in ctx.inputs["src"]]}


def task(mode: str = "append", **how: Any) -> Any:
    key = (Term("input_field", "id"),) if mode == "upsert" else None
    return make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), mode,  # type: ignore[arg-type]
                            key=key, primary_key=("id",) if key else None),),
                     reads=(cursor_read(**how),))


def env(tmp: Path, interval: tuple[str, str], run_id: str = "r", shared: bool = False, **more: Any) -> dict[str, str]:
    values = env_for(tmp, interval=interval, run_id=run_id, src=f"sqlite://{tmp}/src.sqlite",
                     out=f"sqlite://{tmp}/db.sqlite", **more)
    if shared:
        values["FLOWC_STATE"] = f"sqlite://{tmp}/db.sqlite"
    return values


def ids(tmp: Path) -> list[str]:
    conn = sqlite3.connect(tmp / "db.sqlite")
    try:
        return sorted(str(r[0]) for r in conn.execute('SELECT id FROM "o"').fetchall())
    finally:
        conn.close()


def bookmark(tmp: Path, shared: bool = False) -> str | None:
    conn = sqlite3.connect(tmp / ("db.sqlite" if shared else "state.sqlite"))
    try:
        rows = conn.execute("SELECT value FROM flowc_bookmarks WHERE source = 'src'").fetchall()
        return str(rows[0][0]) if rows else None
    finally:
        conn.close()


def test_each_interval_reads_after_the_bookmark_and_a_late_row_behind_it_is_skipped(tmp_path: Path) -> None:
    source_db(tmp_path, [("a", 1), ("b", 2), ("c", 3)])
    assert run(task(), copy, env(tmp_path, DAY1)) == 0
    assert ids(tmp_path) == ["a", "b", "c"]
    assert bookmark(tmp_path) == "3"
    # a new row after the bookmark, and one committed late with a cursor value behind it
    source_db(tmp_path, [("d", 4), ("late", 2)])
    assert run(task(), copy, env(tmp_path, DAY2, run_id="r2")) == 0
    assert ids(tmp_path) == ["a", "b", "c", "d"]  # `late` is lost: no lookback (cursor_complete false)
    assert bookmark(tmp_path) == "4"


def test_a_lookback_rereads_behind_the_bookmark_and_an_upsert_absorbs_the_rereads(tmp_path: Path) -> None:
    source_db(tmp_path, [("a", 1), ("b", 2), ("c", 3)])
    assert run(task("upsert", lookback_count=2), copy, env(tmp_path, DAY1)) == 0
    source_db(tmp_path, [("d", 4), ("late", 2)])
    assert run(task("upsert", lookback_count=2), copy, env(tmp_path, DAY2, run_id="r2")) == 0
    assert ids(tmp_path) == ["a", "b", "c", "d", "late"]


def test_a_lookback_into_an_append_duplicates_the_rereads(tmp_path: Path) -> None:
    source_db(tmp_path, [("a", 1), ("b", 2), ("c", 3)])
    assert run(task(lookback_count=1), copy, env(tmp_path, DAY1)) == 0
    source_db(tmp_path, [("d", 4)])
    assert run(task(lookback_count=1), copy, env(tmp_path, DAY2, run_id="r2")) == 0
    # (3 - 1, 4]: `c` again
    assert ids(tmp_path) == ["a", "b", "c", "c", "d"]


def test_inclusive_rereads_the_boundary_value(tmp_path: Path) -> None:
    source_db(tmp_path, [("a", 1), ("b", 2)])
    assert run(task(inclusive=True), copy, env(tmp_path, DAY1)) == 0
    source_db(tmp_path, [("same", 2), ("c", 3)])  # shares the bookmark's value, arrives after the read
    assert run(task(inclusive=True), copy, env(tmp_path, DAY2, run_id="r2")) == 0
    assert ids(tmp_path) == ["a", "b", "b", "c", "same"]
    # exclusive: the row sharing the bookmark's value is skipped forever
    other = tmp_path / "x"
    other.mkdir()
    source_db(other, [("a", 1), ("b", 2)])
    assert run(task(), copy, env(other, DAY1)) == 0
    source_db(other, [("same", 2), ("c", 3)])
    assert run(task(), copy, env(other, DAY2, run_id="r2")) == 0
    assert ids(other) == ["a", "b", "c"]


def test_a_retry_rereads_exactly_the_range_pinned_by_the_first_attempt(tmp_path: Path) -> None:
    source_db(tmp_path, [("a", 1), ("b", 2)])

    def failing(ctx: Context) -> dict[str, Any]:
        raise RuntimeError("transform failed")

    assert run(task(), failing, env(tmp_path, DAY1)) != 0
    assert bookmark(tmp_path) is None
    source_db(tmp_path, [("c", 3)])  # committed after the pin: the next interval's
    assert run(task(), copy, env(tmp_path, DAY1, attempt=2)) == 0
    assert ids(tmp_path) == ["a", "b"]
    assert bookmark(tmp_path) == "2"
    assert run(task(), copy, env(tmp_path, DAY2, run_id="r2")) == 0
    assert ids(tmp_path) == ["a", "b", "c"]


def test_a_backfill_of_an_older_interval_never_moves_the_bookmark_back(tmp_path: Path) -> None:
    source_db(tmp_path, [("a", 1)])
    assert run(task("upsert"), copy, env(tmp_path, DAY1)) == 0
    source_db(tmp_path, [("b", 2)])
    assert run(task("upsert"), copy, env(tmp_path, DAY2, run_id="r2")) == 0
    assert bookmark(tmp_path) == "2"
    assert run(task("upsert"), copy, env(tmp_path, DAY1, run_id="again")) == 0  # its pinned range: (None, 1]
    assert bookmark(tmp_path) == "2"


def test_a_time_cursor_with_a_duration_lookback_keeps_the_columns_text_format(tmp_path: Path) -> None:
    source_db(tmp_path, [("a", "2026-01-01 10:00:00"), ("b", "2026-01-01 11:00:00")], "id TEXT, seq TEXT")
    assert run(task(lookback_seconds=1800), copy, env(tmp_path, DAY1)) == 0
    source_db(tmp_path, [("late", "2026-01-01 10:45:00"), ("c", "2026-01-01 12:00:00")])
    assert run(task(lookback_seconds=1800), copy, env(tmp_path, DAY2, run_id="r2")) == 0
    # (11:00 - 30 min, 12:00]: `late` (10:45) and `b` (11:00) again, `c`
    assert ids(tmp_path) == ["a", "b", "b", "c", "late"]


@pytest.mark.parametrize("shared", [True, False])
def test_the_bookmark_commits_with_the_write_where_the_state_is_the_sinks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared: bool) -> None:
    """A write's COMMIT that fails after its statements ran: the bookmark, written in the same
    transaction (state in the sink's database), is rolled back with the rows."""
    from flowc_runtime import hooks, sql

    source_db(tmp_path, [("a", 1), ("b", 2)])
    armed = {"on": False}
    real = sql.Database.commit

    def arm() -> None:
        armed["on"] = True

    def commit(self: sql.Database) -> None:
        if armed["on"]:
            armed["on"] = False
            raise RuntimeError("the connection dropped at COMMIT")
        real(self)

    monkeypatch.setattr(hooks, "before_transaction_commit", arm)
    monkeypatch.setattr(sql.Database, "commit", commit)
    assert run(task("upsert"), copy, env(tmp_path, DAY1, shared=shared)) != 0
    conn = sqlite3.connect(tmp_path / "db.sqlite")
    try:
        conn.execute("ROLLBACK") if conn.in_transaction else None
        present = conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'o'").fetchone()[0]
        written = conn.execute('SELECT count(*) FROM "o"').fetchone()[0] if present else 0
    finally:
        conn.close()
    assert written == 0
    assert bookmark(tmp_path, shared) is None
    monkeypatch.setattr(hooks, "before_transaction_commit", lambda: None)
    assert run(task("upsert"), copy, env(tmp_path, DAY1, shared=shared, attempt=2)) == 0
    assert ids(tmp_path) == ["a", "b"]
    assert bookmark(tmp_path, shared) == "2"


def test_the_range_is_read_batch_by_batch_in_cursor_order(tmp_path: Path) -> None:
    source_db(tmp_path, [(f"r{i:02d}", 50 - i) for i in range(40)])
    seen: list[int] = []

    def ordered(ctx: Context) -> dict[str, Any]:
        def rows() -> Any:
            for r in ctx.inputs["src"]:
                seen.append(int(r["seq"]))
                yield r, dict(r)
        return {"out": rows()}

    values = env(tmp_path, DAY1)
    values["FLOWC_BATCH_ROWS"] = "3"
    assert run(task(), ordered, values) == 0
    assert seen == sorted(seen) and len(seen) == 40
    source_db(tmp_path, [("new", 60)])
    values = env(tmp_path, DAY2, run_id="r2")
    values["FLOWC_BATCH_ROWS"] = "3"
    assert run(task(), ordered, values) == 0
    assert seen[40:] == [60]
    assert len(ids(tmp_path)) == 41


@pytest.mark.skipif(not os.environ.get("FLOWC_TEST_PG"), reason="FLOWC_TEST_PG names no PostgreSQL server")
def test_a_timestamp_cursor_on_postgres_with_the_state_in_the_sinks_database(tmp_path: Path) -> None:
    import uuid

    import psycopg

    base = os.environ["FLOWC_TEST_PG"]
    schema = "cur_" + uuid.uuid4().hex[:10]
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    url = f"{base}{'&' if '?' in base else '?'}options={quote('-csearch_path=' + schema)}"
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE src (id TEXT PRIMARY KEY, seq TIMESTAMPTZ)")
            conn.execute("INSERT INTO src VALUES ('a', '2026-01-01 10:00+00'), ('b', '2026-01-01 11:00+00')")
        pg_task = make_task((Write(Endpoint("out", "postgres_table", {"table": "o"}), "upsert",
                                   key=(Term("input_field", "id"),), primary_key=("id",)),),
                            reads=(Read(Endpoint("src", "postgres_table", {"table": "src"}), immutable=False,
                                        pin="cursor", identity=("id",),
                                        cursor=Cursor("seq", lookback_seconds=3600, inclusive=True)),))

        def pg_env(interval: tuple[str, str], run_id: str) -> dict[str, str]:
            values = env_for(tmp_path, interval=interval, run_id=run_id, src=url, out=url)
            values["FLOWC_STATE"] = url
            return values

        def copy_id(ctx: Context) -> dict[str, Any]:
            return {"out": [(r, {"id": r["id"], "seen": str(r["seq"])}) for r in ctx.inputs["src"]]}

        assert run(pg_task, copy_id, pg_env(DAY1, "r1")) == 0
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("INSERT INTO src VALUES ('late', '2026-01-01 10:30+00'), ('c', '2026-01-01 12:00+00')")
        assert run(pg_task, copy_id, pg_env(DAY2, "r2")) == 0
        with psycopg.connect(url, autocommit=True) as conn:
            got = sorted(r[0] for r in conn.execute("SELECT id FROM o").fetchall())
            mark = conn.execute("SELECT value FROM flowc_bookmarks").fetchall()
        assert got == ["a", "b", "c", "late"]  # `late` (10:30) is inside the hour behind 11:00
        assert len(mark) == 1 and "2026-01-01T12:00:00+00:00" in str(mark[0][0])
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_a_timestamptz_cursor_on_duckdb(tmp_path: Path) -> None:
    """A DuckDB source whose cursor column is `TIMESTAMPTZ` (an `updated_at` in UTC): its rows and
    the bookmark read as zoned datetimes. DuckDB hands such a value to Python through `pytz`,
    which the runtime's requirements did not list: every attempt failed (exit 75) on the first
    read of the column."""
    import duckdb

    conn = duckdb.connect(str(tmp_path / "src.duckdb"))
    try:
        conn.execute("CREATE TABLE src (id VARCHAR PRIMARY KEY, seq TIMESTAMPTZ)")
        conn.execute("INSERT INTO src VALUES ('a', '2026-01-01 10:00+00'), ('b', '2026-01-01 11:00+00')")
    finally:
        conn.close()
    duck_task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert",
                                 key=(Term("input_field", "id"),), primary_key=("id",)),),
                          reads=(Read(Endpoint("src", "duckdb_table", {"table": "src"}), immutable=False,
                                      pin="cursor", identity=("id",), cursor=Cursor("seq")),))

    def copy_seen(ctx: Context) -> dict[str, Any]:
        return {"out": [(r, {"id": r["id"], "seen": r["seq"].isoformat()}) for r in ctx.inputs["src"]]}

    values = env_for(tmp_path, interval=DAY1, run_id="r1", src=f"duckdb://{tmp_path}/src.duckdb",
                     out=f"sqlite://{tmp_path}/db.sqlite")
    assert run(duck_task, copy_seen, values) == 0
    conn2 = sqlite3.connect(tmp_path / "db.sqlite")
    try:
        got = sorted(conn2.execute('SELECT id, seen FROM "o"').fetchall())
    finally:
        conn2.close()
    assert got == [("a", "2026-01-01T10:00:00+00:00"), ("b", "2026-01-01T11:00:00+00:00")]
    assert "2026-01-01T11:00:00+00:00" in str(bookmark(tmp_path))
