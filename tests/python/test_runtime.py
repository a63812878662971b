"""Tests of the generated Python runtime (templates/python/flowc_runtime), run in-process.

Run with `.venv/bin/python -m pytest tests/python` (scripts/python-venv creates .venv).
PostgreSQL tests run when FLOWC_TEST_PG names a server (scripts/ci-postgres prints one).
"""

from __future__ import annotations

import dataclasses
import http.server
import json
import os
import sqlite3
import sys
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "templates" / "python"))

from flowc_runtime import Emit, Endpoint, Read, StateStore, Task, Term, Write, run  # noqa: E402
from flowc_runtime.context import Context, iso, parse_time, previous_tick  # noqa: E402
from flowc_runtime.spec import Pin  # noqa: E402
from flowc_runtime.state import outbox_row_id  # noqa: E402

DAY1 = ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")


def files_source(pin: Pin | None = "listing", identity: tuple[str, ...] | None = ("id",)) -> Read:
    return Read(Endpoint("raw", "files", {"path": "in/{interval.start}/"}), immutable=pin is not None,
                pin=pin, identity=identity)


def make_task(writes: tuple[Write, ...], reads: tuple[Read, ...] | None = None,
              emits: tuple[Emit, ...] = ()) -> Task:
    return Task("p", "t", "@daily", "UTC", False, reads if reads is not None else (files_source(),), writes, emits)


def env_for(tmp: Path, attempt: int = 1, run_id: str = "run-1", interval: tuple[str, str] = DAY1,
            **conns: str) -> dict[str, str]:
    env = {
        "FLOW_PIPELINE": "p",
        "FLOW_TASK": "t",
        "FLOW_INTERVAL_START": interval[0],
        "FLOW_INTERVAL_END": interval[1],
        "FLOW_RUN_ID": run_id,
        "FLOW_ATTEMPT": str(attempt),
        "FLOWC_STATE": f"sqlite://{tmp}/state.sqlite",
        "FLOW_CONN_RAW": f"file://{tmp}/files",
    }
    env.update({f"FLOW_CONN_{k.upper()}": v for k, v in conns.items()})
    return env


def seed(tmp: Path, name: str, rows: list[dict[str, Any]], start: str = DAY1[0]) -> None:
    folder = tmp / "files" / "in" / start
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))


def rows_of(tmp: Path, table: str, fence: bool = False) -> list[tuple[Any, ...]]:
    """The table's rows, without the upsert's fencing column unless `fence`."""
    conn = sqlite3.connect(tmp / "db.sqlite")
    try:
        cursor = conn.execute(f'SELECT * FROM "{table}"')
        names = [d[0] for d in cursor.description]
        rows = [tuple(v for n, v in zip(names, row, strict=True) if fence or n != "_flow_interval_end")
                for row in cursor.fetchall()]
        return sorted(rows, key=repr)
    finally:
        conn.close()


def identity(ctx: Context) -> dict[str, Any]:
    rows = ctx.inputs.get("raw", [])
    return {name: [(r, dict(r)) for r in rows] for name in ("out", "hook", "facts")}


ROWS = [{"id": "a", "amount": 1}, {"id": "b", "amount": 2}]


def test_interval_start_is_the_previous_tick_in_the_pipeline_zone() -> None:
    end = datetime(2026, 3, 29, 1, 0, tzinfo=UTC)  # 03:00 in Berlin, after the DST switch
    start = previous_tick(end, "0 2 * * *", "Europe/Berlin")
    assert iso(start) == "2026-03-28T01:00:00Z"
    assert iso(previous_tick(datetime(2026, 1, 2, tzinfo=UTC), "@daily", "UTC")) == "2026-01-01T00:00:00Z"


def test_interval_start_of_a_schedule_every_minute() -> None:
    # 64 ticks back from four hours after `end` never reached `end`: an Argo CronWorkflow
    # with `* * * * *` failed "no tick before" (the tick's end in an offset of another zone).
    end = parse_time("2026-12-02T04:27:00-03:30")
    assert iso(previous_tick(end, "* * * * *", "Asia/Kolkata")) == "2026-12-02T07:56:00Z"
    assert iso(previous_tick(end, "*/5 * * * *", "UTC")) == "2026-12-02T07:55:00Z"


def test_interval_start_derived_from_end_and_schedule(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", ROWS)
    env = env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")
    del env["FLOW_INTERVAL_START"]
    env["FLOW_SCHEDULE"] = "0 0 * * *"
    env["FLOW_TIMEZONE"] = "UTC"
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert",
                            key=(Term("input_field", "id"),), primary_key=("id",)),))
    assert run(task, identity, env) == 0
    assert len(rows_of(tmp_path, "o")) == 2


def test_placeholders_render_and_braces_escape() -> None:
    ctx = Context("p", "t", datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC), "r", 1)
    assert ctx.render("x/{interval.start}/{{y}}/{interval.end}") == "x/2026-01-01T00:00:00Z/{y}/2026-01-02T00:00:00Z"


def test_formatted_placeholders_render_in_the_pipeline_zone_across_a_dst_change() -> None:
    # Berlin's 29 March 2026 has 23 hours: 00:00 CET (23:00Z) to 00:00 CEST (22:00Z).
    ctx = Context("p", "t", datetime(2026, 3, 28, 23, tzinfo=UTC), datetime(2026, 3, 29, 22, tzinfo=UTC), "r", 1,
                  timezone="Europe/Berlin")
    assert ctx.render("dt={interval.date}") == "dt=2026-03-29"
    assert ctx.render("{interval.start:%Y-%m-%dT%H%M}") == "2026-03-29T0000"
    assert ctx.render("{interval.end:%d %H%M%S}") == "30 000000"
    # Without a format: ISO 8601 in UTC, as before.
    assert ctx.render("{interval.start}/{interval.end}") == "2026-03-28T23:00:00Z/2026-03-29T22:00:00Z"
    # The same instants in UTC fall on the day before.
    utc = Context("p", "t", ctx.interval_start, ctx.interval_end, "r", 1)
    assert utc.render("{interval.date}/{interval.start:%H}") == "2026-03-28/23"


def test_the_timezone_comes_from_the_task_or_flow_timezone(tmp_path: Path) -> None:
    from flowc_runtime.context import context_from_env

    task = Task("p", "t", "@daily", "Asia/Tokyo", False, (files_source(),), (), ())
    env = env_for(tmp_path, interval=("2026-01-01T15:00:00Z", "2026-01-02T15:00:00Z"))
    assert context_from_env(task, env).render("{interval.date}") == "2026-01-02"
    env["FLOW_TIMEZONE"] = "UTC"
    assert context_from_env(task, env).render("{interval.date}") == "2026-01-01"


def test_format_directives_j_u_v_g_and_percent() -> None:
    # 1 January 2027 is a Friday in ISO week 53 of 2026.
    ctx = Context("p", "t", datetime(2027, 1, 1, 6, 5, 4, tzinfo=UTC), datetime(2027, 1, 2, tzinfo=UTC), "r", 1)
    assert ctx.render("{interval.start:%j %u %V %G %%}") == "001 5 53 2026 %"
    assert ctx.render("{interval.start:%Y%m%d-%H%M%S}") == "20270101-060504"
    assert ctx.render("{interval.end:day %j of %Y}") == "day 002 of 2027"


def test_literal_braces_are_never_placeholders() -> None:
    ctx = Context("p", "t", datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC), "r", 1)
    # What flowc hands over for `\{interval.start\}`: the text, not the time.
    assert ctx.render("a/{{interval.start}}/b") == "a/{interval.start}/b"
    assert ctx.render("{{{interval.date}}}") == "{2026-01-01}"
    assert ctx.render("{{ds}}") == "{ds}"


def test_upsert_twice_keeps_one_row_per_key(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", ROWS)
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert",
                            key=(Term("input_field", "id"),), primary_key=("id",)),))
    conn = f"sqlite://{tmp_path}/db.sqlite"
    assert run(task, identity, env_for(tmp_path, out=conn)) == 0
    assert run(task, identity, env_for(tmp_path, attempt=2, out=conn)) == 0
    assert rows_of(tmp_path, "o") == [("a", 1), ("b", 2)]


def test_listing_pin_keeps_the_first_attempts_files(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", ROWS)
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "append"),))
    conn = f"sqlite://{tmp_path}/db.sqlite"
    assert run(task, identity, env_for(tmp_path, out=conn)) == 0
    seed(tmp_path, "late.jsonl", [{"id": "c", "amount": 3}])
    assert run(task, identity, env_for(tmp_path, attempt=2, out=conn)) == 0
    ids = [r[0] for r in rows_of(tmp_path, "o")]
    assert "c" not in ids and ids.count("a") == 2  # plain append duplicates, the pin holds


def test_unpinned_read_sees_new_files(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", ROWS)
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert",
                            key=(Term("input_field", "id"),), primary_key=("id",)),),
                     reads=(files_source(pin=None),))
    conn = f"sqlite://{tmp_path}/db.sqlite"
    assert run(task, identity, env_for(tmp_path, out=conn)) == 0
    seed(tmp_path, "late.jsonl", [{"id": "c", "amount": 3}])
    assert run(task, identity, env_for(tmp_path, attempt=2, out=conn)) == 0
    assert [r[0] for r in rows_of(tmp_path, "o")] == ["a", "b", "c"]


def test_snapshot_pin_reads_the_staging_copy(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("CREATE TABLE src (id TEXT PRIMARY KEY, amount INT)")
    conn.execute("INSERT INTO src VALUES ('a', 1)")
    source = Read(Endpoint("src", "sqlite_table", {"table": "src"}), immutable=False, pin="snapshot", identity=("id",))
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert",
                            key=(Term("input_field", "id"),), primary_key=("id",)),), reads=(source,))

    def copy(ctx: Context) -> dict[str, Any]:
        return {"out": ctx.inputs["src"]}

    url = f"sqlite://{db}"
    assert run(task, copy, env_for(tmp_path, src=url, out=url)) == 0
    conn.execute("UPDATE src SET amount = 100")
    conn.execute("INSERT INTO src VALUES ('z', 9)")
    assert run(task, copy, env_for(tmp_path, attempt=2, src=url, out=url)) == 0
    assert sorted(conn.execute("SELECT id, amount FROM o").fetchall()) == [("a", 1)]
    # a new interval pins anew
    day2 = ("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z")
    assert run(task, copy, env_for(tmp_path, interval=day2, src=url, out=url)) == 0
    assert sorted(conn.execute("SELECT id, amount FROM o").fetchall()) == [("a", 100), ("z", 9)]


def test_replace_partition_deletes_then_inserts(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", ROWS)
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "replace_partition",
                            partition=Term("interval_start", column="day")),))
    conn = f"sqlite://{tmp_path}/db.sqlite"
    for attempt in (1, 2, 3):
        assert run(task, identity, env_for(tmp_path, attempt=attempt, out=conn)) == 0
    assert len(rows_of(tmp_path, "o")) == 2


def test_ledger_of_records_dedups_and_ledger_of_attempts_does_not(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", ROWS)
    conn = f"sqlite://{tmp_path}/db.sqlite"
    records = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "append_ledger",
                               key=(Term("input_field", "id"),)),))
    attempts = make_task((Write(Endpoint("out2", "sqlite_table", {"table": "o2"}), "append_ledger",
                                key=(Term("input_field", "id"), Term("attempt_number", column="attempt"))),))

    def both(ctx: Context) -> dict[str, Any]:
        rows = ctx.inputs["raw"]
        return {"out": rows, "out2": rows}

    for attempt in (1, 2):
        assert run(records, both, env_for(tmp_path, attempt=attempt, out=conn)) == 0
        assert run(attempts, both, env_for(tmp_path, attempt=attempt, out2=conn)) == 0
    assert len(rows_of(tmp_path, "o")) == 2
    assert len(rows_of(tmp_path, "o2")) == 4


class Recorder:
    def __init__(self, status: int = 200, failing: tuple[int, ...] = ()) -> None:
        """Answers `status`, and 500 to the calls numbered in `failing` (from 1); `calls` holds
        the calls answered 2xx only, `tried` counts every call."""
        self.calls: list[tuple[str | None, dict[str, Any]]] = []
        self.status = status
        self.failing = failing
        self.tried = 0
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                recorder.tried += 1
                status = 500 if recorder.tried in recorder.failing else recorder.status
                if status < 300:
                    recorder.calls.append((self.headers.get("Idempotency-Key"), body))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"


def test_outbox_rows_are_relayed_once_with_their_id_as_idempotency_key(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", ROWS)
    hook = Recorder()
    task = make_task(
        (Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert", key=(Term("input_field", "id"),),
               primary_key=("id",)),),
        emits=(Emit(Endpoint("hook", "webhook", {"url": "http://unused"}), "outbox", outbox="out",
                    key=(Term("input_field", "id"),), idempotency_key=True),),
    )
    conn = f"sqlite://{tmp_path}/db.sqlite"
    assert run(task, identity, env_for(tmp_path, out=conn, hook=hook.url)) == 0
    assert run(task, identity, env_for(tmp_path, attempt=2, out=conn, hook=hook.url)) == 0
    assert len(hook.calls) == 2
    expected = outbox_row_id(task, task.emits[0], (Term("input_field", "id"),), json.dumps(["a"]), DAY1[0])
    assert expected in {key for key, _ in hook.calls}


def test_a_failed_relay_exits_75_and_the_next_attempt_sends_the_rest(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", ROWS)
    hook = Recorder(status=500)
    task = make_task(
        (Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert", key=(Term("input_field", "id"),),
               primary_key=("id",)),),
        emits=(Emit(Endpoint("hook", "webhook", {"url": "http://unused"}), "outbox", outbox="out",
                    key=(Term("input_field", "id"),), idempotency_key=False),),
    )
    conn = f"sqlite://{tmp_path}/db.sqlite"
    assert run(task, identity, env_for(tmp_path, out=conn, hook=hook.url)) == 75
    hook.status = 200
    assert run(task, identity, env_for(tmp_path, attempt=2, out=conn, hook=hook.url)) == 0
    assert all(key is None for key, _ in hook.calls)  # an emit without an idempotency key sends none
    assert sorted(c[1]["record"]["id"] for c in hook.calls) == ["a", "b"]


def test_nothing_committed_exits_75(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", ROWS)
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "append"),))
    assert run(task, identity, env_for(tmp_path)) == 75  # no FLOW_CONN_OUT
    env = env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")
    del env["FLOW_RUN_ID"]
    assert run(task, identity, env) == 75


def test_idempotency_key_effect_sends_the_declared_key(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", ROWS)
    hook = Recorder()
    task = make_task((), emits=(Emit(Endpoint("hook", "http_request", {"url": "http://unused"}), "idempotency_key",
                                     key=(Term("input_field", "id"),), idempotency_key=True),))
    assert run(task, identity, env_for(tmp_path, hook=hook.url)) == 0
    assert sorted(str(k) for k, _ in hook.calls) == ['["a"]', '["b"]']


def delta_task(location: str) -> Task:
    return make_task((Write(Endpoint("facts", "delta_table", {"location": location}), "conditional_commit"),))


def test_conditional_commit_is_done_once_per_interval(tmp_path: Path) -> None:
    from deltalake import DeltaTable

    seed(tmp_path, "a.jsonl", ROWS)
    task = delta_task("facts")
    conn = f"file://{tmp_path}/files"
    assert run(task, identity, env_for(tmp_path, facts=conn)) == 0
    assert run(task, identity, env_for(tmp_path, attempt=2, facts=conn)) == 0
    assert run(task, identity, env_for(tmp_path, run_id="rerun", facts=conn)) == 0
    table = DeltaTable(str(tmp_path / "files" / "facts"))
    assert table.version() == 0 and len(table.to_pyarrow_table()) == 2
    assert table.transaction_version(f"flowc/p/t/{DAY1[0]}") == 1


def test_conditional_commit_rejects_a_moved_table(tmp_path: Path) -> None:
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    seed(tmp_path, "a.jsonl", ROWS)
    uri = str(tmp_path / "files" / "facts")
    write_deltalake(uri, pa.Table.from_pylist([{"id": "x", "amount": 0}]))
    task = delta_task("facts")
    conn = f"file://{tmp_path}/files"
    # the first attempt records version 0, then crashes before committing (simulated by a failing transform)
    def boom(ctx: Context) -> dict[str, Any]:
        raise RuntimeError("crash")

    assert run(task, boom, env_for(tmp_path, facts=conn)) == 75
    write_deltalake(uri, pa.Table.from_pylist([{"id": "y", "amount": 0}]), mode="append")  # another writer
    assert run(task, identity, env_for(tmp_path, attempt=2, facts=conn)) == 70
    assert DeltaTable(uri).version() == 1


@pytest.mark.skipif(not os.environ.get("FLOWC_TEST_PG"), reason="FLOWC_TEST_PG is not set")
def test_postgres_upsert_ledger_and_outbox(tmp_path: Path) -> None:
    import psycopg

    base = os.environ["FLOWC_TEST_PG"]
    schema = "t_" + uuid.uuid4().hex[:10]
    with psycopg.connect(base, autocommit=True) as c:
        c.execute(f'CREATE SCHEMA "{schema}"')
    url = f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"
    seed(tmp_path, "a.jsonl", ROWS)
    hook = Recorder()
    task = make_task(
        (Write(Endpoint("out", "postgres_table", {"table": "o"}), "upsert", key=(Term("input_field", "id"),),
               primary_key=("id",)),
         Write(Endpoint("led", "postgres_table", {"table": "l"}), "append_ledger", key=(Term("input_field", "id"),))),
        emits=(Emit(Endpoint("hook", "webhook", {"url": "http://unused"}), "outbox", outbox="out",
                    key=(Term("input_field", "id"),), idempotency_key=True),),
    )

    def fan(ctx: Context) -> dict[str, Any]:
        rows = ctx.inputs["raw"]
        return {"out": rows, "led": rows, "hook": rows}

    for attempt in (1, 2):
        env = env_for(tmp_path, attempt=attempt, out=url, led=url, hook=hook.url)
        env["FLOWC_STATE"] = url
        assert run(task, fan, env) == 0
    try:
        with psycopg.connect(url, autocommit=True) as c:
            assert c.execute("SELECT count(*) FROM o").fetchone() == (2,)
            assert c.execute("SELECT count(*) FROM l").fetchone() == (2,)
            assert c.execute("SELECT count(*) FROM flowc_outbox WHERE sent = 1").fetchone() == (2,)
        assert len(hook.calls) == 2
    finally:
        with psycopg.connect(base, autocommit=True) as c:
            c.execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_internal_retries_retry_the_write_in_the_same_attempt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import flowc_runtime.hooks as hooks

    seed(tmp_path, "a.jsonl", ROWS)
    raised: list[str] = []

    def fail_once() -> None:
        if not raised:
            raised.append("write_error")
            raise RuntimeError("injected write error")

    monkeypatch.setattr(hooks, "before_transaction_commit", fail_once)
    conn = f"sqlite://{tmp_path}/db.sqlite"
    write = Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert", key=(Term("input_field", "id"),),
                  primary_key=("id",))
    without = Task("p", "t", "@daily", "UTC", False, (files_source(),), (write,), ())
    assert run(without, identity, env_for(tmp_path, out=conn)) == 75  # failed before the commit
    with_retry = Task("p", "t", "@daily", "UTC", False, (files_source(),), (write,), (), internal_retries=1)
    raised.clear()
    assert run(with_retry, identity, env_for(tmp_path, attempt=2, out=conn)) == 0
    assert rows_of(tmp_path, "o") == [("a", 1), ("b", 2)]


def test_an_internal_retry_after_an_earlier_commit_starts_a_fresh_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first write commits; the second fails once, mid-transaction. Its own transaction is
    rolled back, so the internal retry begins a new one and succeeds (it used to fail on BEGIN)."""
    import flowc_runtime.bulk as bulk

    seed(tmp_path, "a.jsonl", ROWS)
    conn = f"sqlite://{tmp_path}/db.sqlite"
    first = Write(Endpoint("out", "sqlite_table", {"table": "o1"}), "upsert", key=(Term("input_field", "id"),),
                  primary_key=("id",))
    second = Write(Endpoint("facts", "sqlite_table", {"table": "o2"}), "upsert", key=(Term("input_field", "id"),),
                   primary_key=("id",))
    failed: list[str] = []
    insert = bulk.insert_many

    def insert_failing_once(db: Any, table: str, columns: Any, values: Any, conflict: str = "") -> None:
        if table == "o2" and not failed:
            failed.append(table)
            raise RuntimeError("transient failure inside the transaction")
        insert(db, table, columns, values, conflict)

    monkeypatch.setattr(bulk, "insert_many", insert_failing_once)
    task = Task("p", "t", "@daily", "UTC", False, (files_source(),), (first, second), (), internal_retries=1)
    assert run(task, identity, env_for(tmp_path, out=conn, facts=conn)) == 0
    assert failed == ["o2"]
    assert rows_of(tmp_path, "o1") == [("a", 1), ("b", 2)]
    assert rows_of(tmp_path, "o2") == [("a", 1), ("b", 2)]


# --- flowc 0.2: fenced upserts, serialized replaces, interval-scoped overwrites, readiness --------

DAY2 = ("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z")


def upsert_task(kind: str = "sqlite_table") -> Task:
    return make_task((Write(Endpoint("out", kind, {"table": "o"}), "upsert",
                            key=(Term("input_field", "id"),), primary_key=("id",)),))


def test_upsert_of_an_older_interval_leaves_a_newer_row_alone(tmp_path: Path) -> None:
    conn = f"sqlite://{tmp_path}/db.sqlite"
    seed(tmp_path, "a.jsonl", [{"id": "a", "amount": 1}], start=DAY1[0])
    seed(tmp_path, "a.jsonl", [{"id": "a", "amount": 2}, {"id": "b", "amount": 20}], start=DAY2[0])
    assert run(upsert_task(), identity, env_for(tmp_path, interval=DAY1, out=conn)) == 0
    assert run(upsert_task(), identity, env_for(tmp_path, interval=DAY2, run_id="run-2", out=conn)) == 0
    assert rows_of(tmp_path, "o", fence=True) == [("a", 2, DAY2[1]), ("b", 20, DAY2[1])]
    # a re-run (or a late attempt) of day 1 writes nothing over day 2's row
    assert run(upsert_task(), identity, env_for(tmp_path, interval=DAY1, run_id="rerun", out=conn)) == 0
    assert rows_of(tmp_path, "o") == [("a", 2), ("b", 20)]
    # a retry of day 2 itself still updates (the fence is `<=`, not `<`)
    seed(tmp_path, "a.jsonl", [{"id": "a", "amount": 3}, {"id": "b", "amount": 30}], start=DAY2[0])
    unpinned = make_task(upsert_task().writes, reads=(files_source(pin=None),))
    assert run(unpinned, identity, env_for(tmp_path, interval=DAY2, attempt=2, run_id="run-2", out=conn)) == 0
    assert rows_of(tmp_path, "o") == [("a", 3), ("b", 30)]


def test_manual_runs_are_fenced_by_their_trigger_time(tmp_path: Path) -> None:
    """A manual pipeline's interval is the trigger time: the later trigger wins, even when the
    earlier run commits last (a late attempt)."""
    conn = f"sqlite://{tmp_path}/db.sqlite"
    early = ("2026-01-05T10:00:00Z", "2026-01-05T10:00:00Z")
    late = ("2026-01-05T11:30:00Z", "2026-01-05T11:30:00Z")
    seed(tmp_path, "a.jsonl", [{"id": "a", "amount": 1}], start=early[0])
    seed(tmp_path, "a.jsonl", [{"id": "a", "amount": 2}], start=late[0])
    manual = Task("p", "t", None, "UTC", False, (files_source(),), upsert_task().writes, ())
    assert run(manual, identity, env_for(tmp_path, interval=late, run_id="m2", out=conn)) == 0
    assert run(manual, identity, env_for(tmp_path, interval=early, run_id="m1", out=conn)) == 0
    assert rows_of(tmp_path, "o", fence=True) == [("a", 2, late[1])]


def test_upsert_adds_the_fencing_column_to_a_table_that_lacks_it(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "db.sqlite", isolation_level=None)
    db.execute('CREATE TABLE o (id TEXT PRIMARY KEY, amount INT)')
    db.execute("INSERT INTO o VALUES ('a', 0)")
    db.close()
    seed(tmp_path, "a.jsonl", ROWS)
    assert run(upsert_task(), identity, env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")) == 0
    # a row written before the column existed has no interval: any interval replaces it
    assert rows_of(tmp_path, "o", fence=True) == [("a", 1, DAY1[1]), ("b", 2, DAY1[1])]


def files_sink_task(path: str) -> Task:
    return make_task((Write(Endpoint("out", "files", {"path": path}), "overwrite"),))


def files_rows(folder: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for path in sorted(folder.rglob("*.jsonl")):
        found += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return sorted(found, key=lambda r: str(r["id"]))


def test_overwrite_of_an_interval_scoped_path_replaces_only_its_interval(tmp_path: Path) -> None:
    out = f"file://{tmp_path}/files"
    seed(tmp_path, "a.jsonl", [{"id": "a1", "amount": 1}], start=DAY1[0])
    seed(tmp_path, "a.jsonl", [{"id": "a2", "amount": 2}], start=DAY2[0])
    scoped = files_sink_task("out/{interval.start}/")
    assert run(scoped, identity, env_for(tmp_path, interval=DAY1, out=out)) == 0
    assert run(scoped, identity, env_for(tmp_path, interval=DAY2, run_id="run-2", out=out)) == 0
    assert run(scoped, identity, env_for(tmp_path, interval=DAY1, run_id="rerun", out=out)) == 0
    assert [r["id"] for r in files_rows(tmp_path / "files" / "out")] == ["a1", "a2"]
    assert [r["id"] for r in files_rows(tmp_path / "files" / "out" / DAY2[0])] == ["a2"]
    # the near miss: a fixed path holds only the last writer's interval (FL204)
    fixed = files_sink_task("latest/")
    assert run(fixed, identity, env_for(tmp_path, interval=DAY2, run_id="run-2", out=out)) == 0
    assert run(fixed, identity, env_for(tmp_path, interval=DAY1, run_id="rerun", out=out)) == 0
    assert [r["id"] for r in files_rows(tmp_path / "files" / "latest")] == ["a1"]


def pins_of(tmp: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(tmp / "state.sqlite")
    try:
        return list(conn.execute("SELECT name, value FROM flowc_pins").fetchall())
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def test_input_that_has_not_landed_exits_75_and_pins_nothing(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    conn = f"sqlite://{tmp_path}/db.sqlite"
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "append"),))
    assert run(task, identity, env_for(tmp_path, out=conn)) == 75
    err = capfd.readouterr().err
    assert "`raw`: input not ready" in err and f"in/{DAY1[0]}" in err
    assert pins_of(tmp_path) == []
    (tmp_path / "files" / "in" / DAY1[0]).mkdir(parents=True)  # the folder, but no data file yet
    assert run(task, identity, env_for(tmp_path, attempt=2, out=conn)) == 75
    assert "holds no data file" in capfd.readouterr().err
    assert pins_of(tmp_path) == []
    seed(tmp_path, "a.jsonl", ROWS)
    assert run(task, identity, env_for(tmp_path, attempt=3, out=conn)) == 0
    assert rows_of(tmp_path, "o") == [("a", 1), ("b", 2)]
    assert [name for name, _ in pins_of(tmp_path)] == ["read:raw"]


def test_an_unpinned_read_waits_for_its_input_too(tmp_path: Path) -> None:
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "append"),),
                     reads=(files_source(pin=None),))
    assert run(task, identity, env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")) == 75


def test_ready_marker_waits_for_the_marker_and_does_not_read_it(tmp_path: Path) -> None:
    conn = f"sqlite://{tmp_path}/db.sqlite"
    source = Read(Endpoint("raw", "files", {"path": "in/{interval.start}/"}), immutable=True, pin="listing",
                  identity=("id",), ready="marker", ready_marker="DONE")
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "append"),), reads=(source,))
    seed(tmp_path, "a.jsonl", ROWS)
    assert run(task, identity, env_for(tmp_path, out=conn)) == 75  # data, but no marker yet
    assert pins_of(tmp_path) == []
    (tmp_path / "files" / "in" / DAY1[0] / "DONE").write_text("")
    assert run(task, identity, env_for(tmp_path, attempt=2, out=conn)) == 0
    assert rows_of(tmp_path, "o") == [("a", 1), ("b", 2)]
    assert json.loads(pins_of(tmp_path)[0][1]) == ["a.jsonl"]


def test_ready_always_reads_a_missing_folder_as_empty(tmp_path: Path) -> None:
    source = Read(Endpoint("raw", "files", {"path": "in/{interval.start}/"}), immutable=True, pin="listing",
                  identity=("id",), ready="always")
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "append"),), reads=(source,))
    assert run(task, identity, env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")) == 0
    assert [name for name, value in pins_of(tmp_path) if value == "[]"] == ["read:raw"]


def test_a_ready_the_kind_cannot_check_is_an_error(tmp_path: Path) -> None:
    source = Read(Endpoint("raw", "sqlite_table", {"table": "src"}), immutable=False, pin="snapshot",
                  ready="nonempty")
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "append"),), reads=(source,))
    url = f"sqlite://{tmp_path}/db.sqlite"
    assert run(task, identity, env_for(tmp_path, raw=url, out=url)) == 75
    assert pins_of(tmp_path) == []


@pytest.mark.parametrize("where", ["path", "connection"])
def test_a_path_the_runtime_cannot_read_is_an_error_not_an_empty_listing(
    tmp_path: Path, where: str, capfd: pytest.CaptureFixture[str]
) -> None:
    path = "hdfs://cluster/in/{interval.start}/" if where == "path" else "in/{interval.start}/"
    source = Read(Endpoint("raw", "files", {"path": path}), immutable=True, pin="listing", identity=("id",),
                  ready="always")
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), "append"),), reads=(source,))
    env = env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")
    if where == "connection":
        env["FLOW_CONN_RAW"] = "hdfs://cluster/"
    assert run(task, identity, env) == 70  # not 75: a retry would fail the same way
    assert "a retry cannot help" in capfd.readouterr().err
    assert pins_of(tmp_path) == []
    assert not (tmp_path / "db.sqlite").exists() or not rows_of_exists(tmp_path, "o")


def rows_of_exists(tmp: Path, table: str) -> bool:
    conn = sqlite3.connect(tmp / "db.sqlite")
    try:
        return bool(conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchall())
    finally:
        conn.close()


# --- flowc 0.2: manual intervals under Argo, outbox ids, the relay, the state store ---------------

ARGO_MANUAL_END = "2026-03-01T10:15:00+01:00"  # Argo's {{workflow.creationTimestamp}}, RFC 3339


def argo_manual_env(tmp: Path, end: str = ARGO_MANUAL_END, uid: str = "6c1f-uid", **conns: str) -> dict[str, str]:
    """Exactly what the generated Argo Workflow of a manual pipeline sets (codegen/argo.rs): no
    FLOW_INTERVAL_START, no FLOW_SCHEDULE; FLOW_ATTEMPT is 1 without a retryStrategy."""
    env = {
        "FLOW_PIPELINE": "p",
        "FLOW_TASK": "t",
        "FLOW_INTERVAL_END": end,
        "FLOW_TIMEZONE": "UTC",
        "FLOW_RUN_ID": uid,
        "FLOW_ATTEMPT": "1",
        "FLOWC_STATE": f"sqlite://{tmp}/state.sqlite",
        "FLOW_CONN_RAW": f"file://{tmp}/files",
    }
    env.update({f"FLOW_CONN_{k.upper()}": v for k, v in conns.items()})
    return env


def manual_task(writes: tuple[Write, ...], emits: tuple[Emit, ...] = (), state: StateStore | None = None) -> Task:
    raw = Read(Endpoint("raw", "files", {"path": "in/manual/"}), immutable=True, pin="listing", identity=("id",))
    return Task("p", "t", None, "UTC", False, (raw,), writes, emits, state=state)


def seed_manual(tmp: Path, name: str, rows: list[dict[str, Any]]) -> None:
    folder = tmp / "files" / "in" / "manual"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_a_manual_pipeline_under_argos_env_runs_with_start_equal_to_end(tmp_path: Path) -> None:
    from flowc_runtime.context import context_from_env

    task = manual_task(())
    ctx = context_from_env(task, argo_manual_env(tmp_path))
    assert iso(ctx.interval_start) == iso(ctx.interval_end) == "2026-03-01T09:15:00Z"
    # a scheduled task under the same env still derives its start from its schedule
    scheduled = Task("p", "t", "@daily", "UTC", False, (), (), ())
    derived = context_from_env(scheduled, argo_manual_env(tmp_path))
    assert iso(derived.interval_start) == "2026-03-01T00:00:00Z"
    # and the whole attempt runs (it exited 75 before)
    seed_manual(tmp_path, "a.jsonl", ROWS)
    out = Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert", key=(Term("input_field", "id"),),
                primary_key=("id",))
    assert run(manual_task((out,)), identity, argo_manual_env(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")) == 0
    assert len(rows_of(tmp_path, "o")) == 2


def outbox_task(mode: str = "upsert", effect_key: tuple[Term, ...] | None = None, holder_key: bool = True) -> Task:
    key = (Term("input_field", "id"),) if holder_key else None
    out = Write(Endpoint("out", "sqlite_table", {"table": "o"}), mode,  # type: ignore[arg-type]
                key=key, primary_key=("id",) if holder_key else None)
    hook = Emit(Endpoint("hook", "webhook", {"url": "http://unused"}), "outbox", outbox="out", effect_key=effect_key)
    return manual_task((out,), (hook,))


def test_outbox_row_ids_follow_the_effect_key_not_the_trigger_time(tmp_path: Path) -> None:
    seed_manual(tmp_path, "a.jsonl", ROWS)
    conn = f"sqlite://{tmp_path}/db.sqlite"

    def twice(task: Task) -> list[str]:
        hook = Recorder()
        for end, uid in (("2026-03-01T10:00:00Z", "u1"), ("2026-03-02T10:00:00Z", "u2")):
            assert run(task, identity, argo_manual_env(tmp_path, end=end, uid=uid, out=conn, hook=hook.url)) == 0
        return sorted(c[1]["record"]["id"] for c in hook.calls)

    # the holder's key (input.id) has no interval term: the second run sends nothing again
    assert twice(outbox_task()) == ["a", "b"]
    # near misses: an effect key with an interval term, and a keyless append, send once per run
    (tmp_path / "db.sqlite").unlink()
    assert twice(outbox_task(effect_key=(Term("input_field", "id"), Term("interval_start")))) == ["a", "a", "b", "b"]
    (tmp_path / "db.sqlite").unlink()
    assert twice(outbox_task(mode="append", holder_key=False)) == ["a", "a", "b", "b"]


def test_outbox_row_id_depends_on_the_interval_only_through_interval_terms() -> None:
    task = outbox_task()
    emit = task.emits[0]
    by_id = (Term("input_field", "id"),)
    assert outbox_row_id(task, emit, by_id, '["a"]', DAY1[0]) == outbox_row_id(task, emit, by_id, '["a"]', DAY1[1])
    day = (Term("input_field", "id"), Term("interval_start"))
    assert outbox_row_id(task, emit, day, '["a"]', DAY1[0]) != outbox_row_id(task, emit, day, '["a"]', DAY1[1])
    assert outbox_row_id(task, emit, None, '["#",0]', DAY1[0]) != outbox_row_id(task, emit, None, '["#",0]', DAY1[1])


def sent_flags(tmp: Path) -> dict[str, int]:
    conn = sqlite3.connect(tmp / "db.sqlite")
    try:
        rows = conn.execute("SELECT payload, sent FROM flowc_outbox").fetchall()
    finally:
        conn.close()
    return {json.loads(p)["record"]["id"]: s for p, s in rows}


def test_a_failing_receiver_ends_the_attempt_with_75_and_what_was_sent_marked(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", ROWS + [{"id": "c", "amount": 3}])
    hook = Recorder(failing=(2, 3))
    task = make_task(
        (Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert", key=(Term("input_field", "id"),),
               primary_key=("id",)),),
        emits=(Emit(Endpoint("hook", "webhook", {"url": "http://unused"}), "outbox", outbox="out"),),
    )
    conn = f"sqlite://{tmp_path}/db.sqlite"
    assert run(task, identity, env_for(tmp_path, out=conn, hook=hook.url)) == 75
    assert sent_flags(tmp_path) == {"a": 1, "b": 0, "c": 0}
    assert run(task, identity, env_for(tmp_path, attempt=2, out=conn, hook=hook.url)) == 75
    assert run(task, identity, env_for(tmp_path, attempt=3, out=conn, hook=hook.url)) == 0
    # each message delivered once, in the order the rows were inserted
    assert [c[1]["record"]["id"] for c in hook.calls] == ["a", "b", "c"]
    assert sent_flags(tmp_path) == {"a": 1, "b": 1, "c": 1}


class Crash(BaseException):
    """A hard stop of the attempt (as SIGKILL would be), raised from a hook."""


def test_a_crash_between_a_send_and_its_mark_sends_only_that_row_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import flowc_runtime.hooks as hooks

    seed(tmp_path, "a.jsonl", ROWS + [{"id": "c", "amount": 3}])
    hook = Recorder()
    task = make_task(
        (Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert", key=(Term("input_field", "id"),),
               primary_key=("id",)),),
        emits=(Emit(Endpoint("hook", "webhook", {"url": "http://unused"}), "outbox", outbox="out"),),
    )
    conn = f"sqlite://{tmp_path}/db.sqlite"
    sends = {"n": 0}

    def step(name: str) -> None:
        if name == "after_send":
            sends["n"] += 1
            if sends["n"] == 2:
                raise Crash

    monkeypatch.setattr(hooks, "step", step)
    with pytest.raises(Crash):
        run(task, identity, env_for(tmp_path, out=conn, hook=hook.url))
    assert sent_flags(tmp_path) == {"a": 1, "b": 0, "c": 0}
    monkeypatch.setattr(hooks, "step", lambda name: None)
    assert run(task, identity, env_for(tmp_path, attempt=2, out=conn, hook=hook.url)) == 0
    assert [c[1]["record"]["id"] for c in hook.calls] == ["a", "b", "b", "c"]


def two_live_relays(url: str) -> list[str]:
    """Two connections relay the same five rows at once; the first holds its first row while
    the second runs. Returns every record id sent, by either."""
    from flowc_runtime import state
    from flowc_runtime.sql import Database

    task = make_task(())
    first = Database(url)
    first.create_bookkeeping()
    rows = [{"id": f"r{i}", "pipeline": "p", "task": "t", "effect": "hook", "interval_start": DAY1[0],
             "idempotency_key": None, "payload": json.dumps({"record": {"id": f"r{i}"}}), "sent": 0} for i in range(5)]
    first.begin()
    state.insert_outbox(first, rows)
    first.commit()
    sent: list[str] = []
    holding, released = threading.Event(), threading.Event()

    def slow(effect: str, payload: dict[str, Any], key: str | None) -> bool:
        if not holding.is_set():
            holding.set()
            released.wait(timeout=5)
        sent.append(payload["record"]["id"])
        return True

    def fast(effect: str, payload: dict[str, Any], key: str | None) -> bool:
        sent.append(payload["record"]["id"])
        return True

    first.close()

    def relay(send: state.Sender) -> None:
        db = Database(url)  # one connection per thread, as one per attempt
        try:
            state.relay(db, task, send, lambda m: None)
        finally:
            db.close()

    worker = threading.Thread(target=relay, args=(slow,))
    worker.start()
    holding.wait(timeout=5)
    other = threading.Thread(target=relay, args=(fast,))
    other.start()
    time.sleep(0.5)
    released.set()
    worker.join(timeout=30)
    other.join(timeout=30)
    return sent


def test_two_live_relays_on_sqlite_never_send_one_row_twice(tmp_path: Path) -> None:
    sent = two_live_relays(f"sqlite://{tmp_path}/db.sqlite")
    assert sorted(sent) == [f"r{i}" for i in range(5)]


def pg_schema() -> tuple[str, str, str]:
    import psycopg

    base = os.environ["FLOWC_TEST_PG"]
    schema = "t_" + uuid.uuid4().hex[:10]
    with psycopg.connect(base, autocommit=True) as c:
        c.execute(f'CREATE SCHEMA "{schema}"')
    return base, schema, f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"


def pg_drop(base: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(base, autocommit=True) as c:
        c.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.mark.skipif(not os.environ.get("FLOWC_TEST_PG"), reason="FLOWC_TEST_PG is not set")
def test_postgres_upsert_is_fenced(tmp_path: Path) -> None:
    import psycopg

    base, schema, url = pg_schema()
    try:
        seed(tmp_path, "a.jsonl", [{"id": "a", "amount": 1}], start=DAY1[0])
        seed(tmp_path, "a.jsonl", [{"id": "a", "amount": 2}], start=DAY2[0])
        task = upsert_task("postgres_table")
        for interval, run_id in ((DAY2, "run-2"), (DAY1, "rerun"), (DAY2, "run-2")):
            env = env_for(tmp_path, interval=interval, run_id=run_id, out=url)
            env["FLOWC_STATE"] = url
            assert run(task, identity, env) == 0
        with psycopg.connect(url, autocommit=True) as c:
            assert c.execute("SELECT id, amount, _flow_interval_end FROM o").fetchall() == [("a", 2, DAY2[1])]
    finally:
        pg_drop(base, schema)


@pytest.mark.skipif(not os.environ.get("FLOWC_TEST_PG"), reason="FLOWC_TEST_PG is not set")
def test_postgres_replace_partition_waits_for_another_replace_of_that_partition(tmp_path: Path) -> None:
    """Two live attempts of one interval: the second replace waits on the advisory lock of
    (table, partition) until the first commits, then deletes its rows: one copy, not two."""
    import time

    from flowc_runtime.keys import canonical
    from flowc_runtime.sql import Database

    base, schema, url = pg_schema()
    try:
        seed(tmp_path, "a.jsonl", ROWS)
        task = make_task((Write(Endpoint("out", "postgres_table", {"table": "o"}), "replace_partition",
                                partition=Term("interval_start", column="day")),))
        env = env_for(tmp_path, out=url)
        env["FLOWC_STATE"] = url
        assert run(task, identity, env) == 0
        other = Database(url)
        other.begin()
        other.lock("flowc-partition", "o", canonical(DAY1[0]))  # a live attempt holding the partition
        other.execute("INSERT INTO o (id, amount, day) VALUES ('zombie', 9, %s)", (DAY1[0],))
        codes: list[int] = []
        env2 = dict(env, FLOW_ATTEMPT="2")
        thread = threading.Thread(target=lambda: codes.append(run(task, identity, env2)))
        thread.start()
        time.sleep(1.5)
        waited = thread.is_alive() and not codes  # waiting for the lock
        other.commit()
        thread.join(30)
        assert waited
        assert codes == [0]
        # the waiting replace saw the other's committed row and replaced it: one copy
        assert sorted(r[0] for r in other.query("SELECT id FROM o")) == ["a", "b"]
        other.close()
    finally:
        pg_drop(base, schema)


def test_a_delta_replace_refused_by_a_concurrent_commit_exits_75(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Delta's conflict check refuses the second of two replaces of one partition: nothing of
    it is committed, so the attempt exits 75 (retried), not 70."""
    import deltalake
    from deltalake import DeltaTable
    from deltalake.exceptions import CommitFailedError

    seed(tmp_path, "a.jsonl", ROWS)
    task = make_task((Write(Endpoint("facts", "delta_table", {"location": "parts"}), "replace_partition",
                            partition=Term("interval_start", column="day")),))
    conn = f"file://{tmp_path}/files"
    assert run(task, identity, env_for(tmp_path, facts=conn)) == 0
    real = deltalake.write_deltalake

    def conflicting(*args: Any, **kwargs: Any) -> None:
        raise CommitFailedError("Commit failed: a concurrent transactions added new data")

    monkeypatch.setattr(deltalake, "write_deltalake", conflicting)
    assert run(task, identity, env_for(tmp_path, attempt=2, facts=conn)) == 75
    monkeypatch.setattr(deltalake, "write_deltalake", real)
    assert run(task, identity, env_for(tmp_path, attempt=3, facts=conn)) == 0
    table = DeltaTable(str(tmp_path / "files" / "parts"))
    assert len(table.to_pyarrow_table()) == 2


def test_a_table_parameter_with_a_placeholder_is_rendered_for_the_interval(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", ROWS)
    task = make_task((Write(Endpoint("out", "sqlite_table", {"table": "o_{interval.start:%Y%m%d}"}), "upsert",
                            key=(Term("input_field", "id"),), primary_key=("id",)),))
    conn = f"sqlite://{tmp_path}/db.sqlite"
    assert run(task, identity, env_for(tmp_path, out=conn)) == 0
    assert rows_of(tmp_path, "o_20260101") == [("a", 1), ("b", 2)]
    assert not rows_of_exists(tmp_path, "o_{interval.start:%Y%m%d}")


def drop_pg_schemas(base: str, *schemas: str) -> None:
    import psycopg

    with psycopg.connect(base, autocommit=True) as c:
        for schema in schemas:
            c.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.mark.skipif(not os.environ.get("FLOWC_TEST_PG"), reason="FLOWC_TEST_PG is not set")
def test_two_live_relays_on_postgres_skip_the_claimed_row() -> None:
    base, schema, url = pg_schema()
    try:
        sent = two_live_relays(url)
        assert sorted(sent) == [f"r{i}" for i in range(5)]
        assert sent[0] != "r0"  # the second relay went on past the row the first one held
    finally:
        drop_pg_schemas(base, schema)


def fresh_folder_attempts(tmp: Path, task: Task, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Attempt 1 pins and crashes after reading; a late file lands; attempt 2 runs in a new empty
    working folder, as a retried pod does."""
    import flowc_runtime.hooks as hooks

    seed(tmp, "a.jsonl", ROWS)
    first = tmp / "work-1"
    first.mkdir()
    monkeypatch.chdir(first)

    def step(name: str) -> None:
        if name == "after_read":
            raise RuntimeError("crash after read")

    monkeypatch.setattr(hooks, "step", step)
    assert run(task, identity, env) == 75
    monkeypatch.setattr(hooks, "step", lambda name: None)
    seed(tmp, "late.jsonl", [{"id": "late", "amount": 9}])
    second = tmp / "work-2"
    second.mkdir()
    monkeypatch.chdir(second)
    assert run(task, identity, {**env, "FLOW_ATTEMPT": "2"}) == 0


@pytest.mark.skipif(not os.environ.get("FLOWC_TEST_PG"), reason="FLOWC_TEST_PG is not set")
def test_a_postgres_state_store_keeps_the_pin_for_an_attempt_in_a_fresh_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import psycopg

    base, schema, url = pg_schema()
    out_ep = Endpoint("out", "postgres_table", {"table": "o"})
    out = Write(out_ep, "upsert", key=(Term("input_field", "id"),), primary_key=("id",))
    try:
        for store, expected in ((StateStore("postgres_table", out_ep), 2), (None, 3)):
            with psycopg.connect(url, autocommit=True) as c:
                c.execute("DROP TABLE IF EXISTS o")
            folder = tmp_path / ("pg" if store else "local")
            env = env_for(folder, out=url)
            del env["FLOWC_STATE"]
            fresh_folder_attempts(folder, dataclasses.replace(make_task((out,)), state=store), env, monkeypatch)
            with psycopg.connect(url, autocommit=True) as c:
                # durable: the retry read what attempt 1 pinned; local: it re-listed (the near miss)
                assert c.execute("SELECT count(*) FROM o").fetchone() == (expected,)
        with psycopg.connect(url, autocommit=True) as c:
            pins = c.execute(f'SELECT name FROM "{schema}_flowc".pins').fetchall()
            assert pins == [("read:raw",)]
            assert c.execute("SELECT to_regclass('flowc_pins') IS NOT NULL").fetchone() == (True,)
            assert c.execute("SELECT count(*) FROM flowc_pins").fetchone() == (0,)
    finally:
        drop_pg_schemas(base, schema, schema + "_flowc")


def test_a_delta_state_store_lives_in_the_tables_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    facts = Endpoint("facts", "delta_table", {"location": "facts"})
    out = Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert", key=(Term("input_field", "id"),),
                primary_key=("id",))
    task = Task("p", "t", "@daily", "UTC", False, (files_source(),), (out,), (),
                state=StateStore("delta_table", facts))
    env = env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite", facts=f"file://{tmp_path}/lake")
    del env["FLOWC_STATE"]
    fresh_folder_attempts(tmp_path, task, env, monkeypatch)
    assert len(rows_of(tmp_path, "o")) == 2
    assert (tmp_path / "lake" / "facts" / "_flowc" / "state.sqlite").exists()
    assert not (tmp_path / "work-1" / ".flowc").exists()
    # an object store is refused, never replaced by a local file
    remote = Task("p", "t", "@daily", "UTC", False, (files_source(),), (out,), (),
                  state=StateStore("delta_table", Endpoint("facts", "delta_table", {"location": "s3://b/facts"})))
    assert run(remote, identity, env) == 75


def test_without_a_state_store_state_is_the_working_folders_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(tmp_path, "a.jsonl", ROWS)
    monkeypatch.chdir(tmp_path)
    env = env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")
    del env["FLOWC_STATE"]
    out = Write(Endpoint("out", "sqlite_table", {"table": "o"}), "append")
    assert run(make_task((out,)), identity, env) == 0
    assert (tmp_path / ".flowc" / "state.sqlite").exists()


@pytest.mark.skipif(not os.environ.get("FLOWC_TEST_PG"), reason="FLOWC_TEST_PG is not set")
def test_postgres_outbox_has_its_sequence_and_an_older_one_gets_it_inside_the_write() -> None:
    """A new `flowc_outbox` has `seq` from the start; an older one (made without it) gets it inside
    the write's transaction, its rows numbered in insertion order; a table the runtime cannot
    alter fails with the server's own error, not a later "current transaction is aborted"."""
    from flowc_runtime.sql import Database
    from flowc_runtime.state import ensure_outbox, insert_outbox

    def row(ident: str) -> dict[str, Any]:
        return {"id": ident, "pipeline": "p", "task": "t", "effect": "e", "interval_start": DAY1[0],
                "idempotency_key": None, "payload": "{}", "sent": 0}

    base, schema, url = pg_schema()
    try:
        fresh = Database(url)
        fresh.create_bookkeeping()
        assert [r[0] for r in fresh.query("SELECT column_name FROM information_schema.columns WHERE "
                                          "table_name = 'flowc_outbox' AND table_schema = current_schema() "
                                          "AND column_name = 'seq'")] == ["seq"]
        fresh.execute("DROP TABLE flowc_outbox")
        fresh.execute("CREATE TABLE flowc_outbox (id TEXT PRIMARY KEY, pipeline TEXT NOT NULL, task TEXT NOT NULL, "
                      "effect TEXT NOT NULL, interval_start TEXT NOT NULL, idempotency_key TEXT, "
                      "payload TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0)")
        fresh.execute("INSERT INTO flowc_outbox (id, pipeline, task, effect, interval_start, payload) "
                      "VALUES ('old', 'p', 't', 'e', %s, '{}')", (DAY1[0],))
        fresh.close()
        older = Database(url)
        older.begin()
        insert_outbox(older, [row("b"), row("a")])
        older.commit()
        assert older.query("SELECT id FROM flowc_outbox ORDER BY seq") == [("old",), ("b",), ("a",)]
        older.close()
        # a table it cannot alter (here a view without `seq`): the ALTER's error, and the
        # transaction still usable up to the rollback
        broken = Database(url)
        broken.execute("DROP TABLE flowc_outbox")
        broken.execute("CREATE VIEW flowc_outbox AS SELECT 'x'::text AS id")
        broken.begin()
        with pytest.raises(Exception, match="view") as failed:
            ensure_outbox(broken)
        assert "aborted" not in str(failed.value)
        assert broken.query("SELECT 1") == [(1,)]  # the savepoint kept the transaction
        with pytest.raises(Exception, match="view"):  # asked again: not marked done by the failure
            ensure_outbox(broken)
        broken.rollback()
        broken.close()
    finally:
        pg_drop(base, schema)
