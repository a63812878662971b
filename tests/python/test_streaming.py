"""The streaming data path of the generated runtime (flowc_runtime/batches.py, bulk.py): inputs
and outputs batch by batch, the record and the batch API, bulk writes inside the one
transaction, keys shared within an interval, a crash after some batches, the progress line.

Run with `.venv/bin/python -m pytest tests/python/test_streaming.py`; the PostgreSQL cases run
when FLOWC_TEST_PG names a server. `FLOWC_VOLUME_ROWS` sets the rows of the volume test
(default 1000000).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "templates" / "python"))

from flowc_runtime import Endpoint, Read, Task, Term, Write, run  # noqa: E402
from flowc_runtime.batches import DEFAULT_BATCH_ROWS, Output, Progress, Records, batch_rows  # noqa: E402
from flowc_runtime.context import Context, FlowError, Invalid  # noqa: E402

RUNTIME = Path(__file__).resolve().parents[2] / "templates" / "python"
PG = pytest.mark.skipif(not os.environ.get("FLOWC_TEST_PG"), reason="FLOWC_TEST_PG is not set")
DAY1 = ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")


def files_source() -> Read:
    return Read(Endpoint("raw", "files", {"path": "in/{interval.start}/"}), immutable=True, pin="listing",
                identity=("id",))


def make_task(writes: tuple[Write, ...], reads: tuple[Read, ...] | None = None) -> Task:
    return Task("p", "t", "@daily", "UTC", False, reads if reads is not None else (files_source(),), writes, ())


def env_for(tmp: Path, attempt: int = 1, **conns: str) -> dict[str, str]:
    env = {
        "FLOW_PIPELINE": "p",
        "FLOW_TASK": "t",
        "FLOW_INTERVAL_START": DAY1[0],
        "FLOW_INTERVAL_END": DAY1[1],
        "FLOW_RUN_ID": "run-1",
        "FLOW_ATTEMPT": str(attempt),
        "FLOWC_STATE": f"sqlite://{tmp}/state.sqlite",
        "FLOW_CONN_RAW": f"file://{tmp}/files",
    }
    env.update({f"FLOW_CONN_{k.upper()}": v for k, v in conns.items()})
    return env


def seed(tmp: Path, name: str, rows: list[dict[str, Any]]) -> None:
    folder = tmp / "files" / "in" / DAY1[0]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))


def rows_of(tmp: Path, table: str) -> list[tuple[Any, ...]]:
    """The table's rows, without the upsert's fencing column, sorted."""
    rows = sqlite_rows(tmp, f'SELECT * FROM "{table}"', names=True)
    names = rows[0]
    return sorted((tuple(v for n, v in zip(names, row, strict=True) if n != "_flow_interval_end")
                   for row in rows[1:]), key=repr)


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


def upsert(kind: str = "sqlite_table", table: str = "o") -> Write:
    return Write(Endpoint("out", kind, {"table": table}), "upsert", key=(Term("input_field", "id"),),
                 primary_key=("id",))


def sqlite_rows(tmp: Path, sql: str, names: bool = False) -> list[tuple[Any, ...]]:
    """The rows `sql` selects in db.sqlite (`names`: the column names first)."""
    conn = sqlite3.connect(tmp / "db.sqlite")
    try:
        cursor = conn.execute(sql)
        head = [tuple(d[0] for d in cursor.description)] if names else []
        return head + list(cursor.fetchall())
    finally:
        conn.close()


# --- inputs -------------------------------------------------------------------------------------


def test_an_input_is_read_in_batches_of_flowc_batch_rows(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", [{"id": f"r{i}", "amount": i} for i in range(10)])
    seen: dict[str, Any] = {}

    def transform(ctx: Context) -> dict[str, Any]:
        raw = ctx.inputs["raw"]
        assert isinstance(raw, Records)
        seen["sizes"] = [b.num_rows for b in raw.batches()]
        seen["records"] = [r["id"] for r in raw]  # iterated again: read again
        seen["len"] = len(raw)
        return {"out": raw}

    env = env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")
    env["FLOWC_BATCH_ROWS"] = "3"
    assert run(make_task((upsert(),)), transform, env) == 0
    assert seen == {"sizes": [3, 3, 3, 1], "records": [f"r{i}" for i in range(10)], "len": 10}
    assert len(rows_of(tmp_path, "o")) == 10


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_parquet_and_csv_inputs_are_arrow_batches(tmp_path: Path, fmt: str) -> None:
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    folder = tmp_path / "files" / "in" / "2026-01-01T00:00:00Z"
    folder.mkdir(parents=True)
    table = pa.table({"id": [f"r{i}" for i in range(7)], "amount": list(range(7))})
    if fmt == "parquet":
        pq.write_table(table, folder / "a.parquet")
    else:
        pa_csv.write_csv(table, folder / "a.csv")
    seen: list[int] = []

    def transform(ctx: Context) -> dict[str, Any]:
        def out() -> Iterator[Any]:
            for batch in ctx.inputs["raw"].batches():  # type: ignore[attr-defined]
                seen.append(batch.num_rows)
                yield batch
        return {"out": out()}

    env = env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")
    env["FLOWC_BATCH_ROWS"] = "2"
    assert run(make_task((upsert(),)), transform, env) == 0
    assert seen == [2, 2, 2, 1]
    assert rows_of(tmp_path, "o") == sorted([(f"r{i}", i) for i in range(7)], key=repr)


def json_lines_batches(text: str, size: int = 4) -> list[Any]:
    import io

    from flowc_runtime.formats import decode_batches
    return [row for batch in decode_batches(io.BytesIO(text.encode("utf-8")), "jsonl", "f.jsonl", size)
            for row in batch]


def test_json_lines_are_read_as_json_loads_reads_each_line() -> None:
    from flowc_runtime.formats import decode
    records = [{"id": "a", "n": 1}, {"id": "b\u2028c", "n": None, "x": [1, {"y": "z"}]}, {"f": 1.5e300, "e": ""},
               {"s": "line,\"quoted\"\\n", "t": True}, {"nan": float("inf")}, {"u": "\u00e9\U0001f600"}, {}]
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    text = lines[0] + "\n\n" + lines[1] + "\r\n  \n" + "\n".join(lines[2:])  # blank lines, CRLF, no final newline
    for size in (1, 2, 3, 100):
        assert json_lines_batches(text, size) == records
    assert decode(text.encode("utf-8"), "jsonl", "f.jsonl")[1] == records  # U+2028 inside a string is no line end
    assert json_lines_batches("\n \n") == []


def test_a_json_line_error_names_the_file_s_line() -> None:
    """The line a JSON Lines error names is the file's (blank lines and earlier batches
    counted), not the line within the one line json reports; bytes that are not UTF-8 name
    their line and byte; a byte order mark before the first line is skipped (the whole-file
    reader and JSON documents too), and one starting a later line is an error."""
    from flowc_runtime.formats import decode

    good = '{"a": 1}\r\n\n{"a": 2}\n{"a": 3}\n'
    for size in (1, 2, 100):
        with pytest.raises(FlowError, match=r"not valid jsonl: line 5: Expecting ',' delimiter at column 9$"):
            json_lines_batches(good + '{"a": 4 "b"}\n{"a": 5}\n', size)
    raw = (good + '{"a": "\u00e9"}\n').encode("utf-8") + b'{"a": "\xff"}\n'
    with pytest.raises(FlowError, match=r"line 6 is not UTF-8 text \(invalid start byte at its byte 8\)"):
        [row for batch in decode_batches_of(raw, 2) for row in batch]
    bom = b"\xef\xbb\xbf"
    assert [row for batch in decode_batches_of(bom + good.encode(), 2) for row in batch] == [{"a": 1}, {"a": 2},
                                                                                            {"a": 3}]
    assert decode(bom + good.encode(), "jsonl", "f.jsonl")[1] == [{"a": 1}, {"a": 2}, {"a": 3}]
    assert decode(bom + b'[{"a": 1}]', "json", "f.json")[1] == [{"a": 1}]
    with pytest.raises(FlowError, match="line 5: Expecting value at column 1"):
        [row for batch in decode_batches_of(good.encode() + bom + b'{"a": 4}\n', 1) for row in batch]


def decode_batches_of(data: bytes, size: int, fmt: str = "jsonl") -> list[Any]:
    import io

    from flowc_runtime.formats import decode_batches
    return list(decode_batches(io.BytesIO(data), fmt, f"f.{fmt}", size))


def test_a_csv_file_s_header_names_each_column_once_and_an_empty_file_has_no_records() -> None:
    """An empty CSV file (a Spark task's empty partition) has no records, like an empty JSON
    Lines file; a header naming a column twice, or a column with no name, is an error (the
    records would keep one of the two), in the batch reader and the whole-file one alike."""
    from flowc_runtime.formats import decode

    assert decode_batches_of(b"", 10, "csv") == [] and decode(b"", "csv", "f.csv") == ([], [])
    assert decode_batches_of(b"", 10, "jsonl") == [] and decode(b"", "jsonl", "f.jsonl") == ([], [])
    # the near miss: distinct names, a byte order mark before the header
    assert [b.to_pylist() for b in decode_batches_of(b"\xef\xbb\xbfa,b\n1,2\n", 10, "csv")] == [[{"a": 1, "b": 2}]]
    for header, message in [(b"a,b,a", "two columns are named `a`"), (b"a,,c", "its column 2 has no name"),
                            (b"a, ", "its column 2 has no name")]:
        data = header + b"\n" + b",".join(b"1" for _ in header.split(b",")) + b"\n"
        with pytest.raises(FlowError, match=message):
            decode_batches_of(data, 10, "csv")
        with pytest.raises(FlowError, match=message):
            decode(data, "csv", "f.csv")


@pytest.mark.parametrize("tail", [b"zz", b"1.5", b"n/a", b"true", b""])
@pytest.mark.parametrize("head", [b"%d", b"", b"2026-01-%02d"])
def test_a_csv_file_of_many_blocks_reads_with_the_types_of_the_whole_file(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path, head: bytes,
                                                                          tail: bytes) -> None:
    """pyarrow's streaming CSV reader types the columns from the first block, and failed at a
    later value the type cannot hold (text after a block of integers: exit 75, every attempt).
    The columns now get the types the whole-file reader infers, and the same values."""
    import io

    import pyarrow as pa
    import pyarrow.csv as pa_csv

    from flowc_runtime import formats

    monkeypatch.setattr(formats, "CSV_BLOCK", 1 << 14)
    lines = [(head % (i % 28 + 1) if b"%" in head else head) + b",x\n" for i in range(20_000)]
    data = b"a,b\n" + b"".join(lines) + tail + b",y\n" + b"".join(lines[:100])
    assert len(data) > 3 * formats.CSV_BLOCK
    whole = pa_csv.read_csv(io.BytesIO(data))
    got = pa.Table.from_batches(decode_batches_of(data, 7000, "csv"))  # an object's bytes
    assert got.schema == whole.schema and got.equals(whole)
    path = tmp_path / "f.csv"  # a local file
    path.write_bytes(data)
    with path.open("rb") as stream:
        got = pa.Table.from_batches(list(formats.decode_batches(stream, "csv", "f.csv", 7000)))
    assert got.schema == whole.schema and got.equals(whole)


def test_a_csv_file_of_many_blocks_keeps_line_breaks_inside_quoted_values(monkeypatch: pytest.MonkeyPatch,
                                                                            tmp_path: Path) -> None:
    """A quoted value holding a line break (a note, an address: how Excel and most exports
    write them) in a file larger than a block: pyarrow's streaming reader cut the block at the
    break and failed the file (`Expected 3 columns, got 2`: exit 75, every attempt)."""
    import pyarrow as pa

    from flowc_runtime import formats

    monkeypatch.setattr(formats, "CSV_BLOCK", 1 << 14)
    data = b"id,note,n\n" + b"".join(b'%d,"first %d\nsecond, ""quoted""",%d\n' % (i, i, i) for i in range(5000))
    assert len(data) > 10 * formats.CSV_BLOCK
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    for got in (pa.Table.from_batches(decode_batches_of(data, 700, "csv")),
                pa.Table.from_batches(list(formats.decode_batches(path.open("rb"), "csv", "f.csv", 700)))):
        assert got.num_rows == 5000
        assert got.column("note").to_pylist() == [f'first {i}\nsecond, "quoted"' for i in range(5000)]
        assert got.column("n").to_pylist() == list(range(5000))


def test_a_csv_error_does_not_quote_the_file() -> None:
    """pyarrow's CSV errors quote the row or the value they stopped at (a value may be a
    secret): the message keeps what went wrong and where, not the file's text."""
    rows = b"a,b\n1,x\n2,sekr3t,more\n"
    from flowc_runtime.formats import arrow_error, decode

    for read in (lambda: decode_batches_of(rows, 10, "csv"), lambda: decode(rows, "csv", "f.csv")):
        with pytest.raises(FlowError, match="Expected 2 columns, got 3") as caught:
            read()
        assert "sekr3t" not in str(caught.value)
    assert arrow_error(ValueError("In CSV column #0: CSV conversion error to int64: invalid value 'sekr3t'")) == (
        "In CSV column #0: CSV conversion error to int64")


@pytest.mark.parametrize("text", [
    # Two lines as one value (the second a member of the first) and a line adding a member of
    # its own to the batch's object: the members count as many as the lines.
    '{"a": 1\n{"b": 2}}\n{"x": 1}, "k": {"y": 2}\n',
    '{"x": 1}, "k": {"y": 2}\n',  # a member too many
    '{"a": [{"b": 1}\n{"c": 2}]}\n{"x": 1}, {"y": 2}\n',
    '{"a": "x\ny"}\n',  # a line ending inside a string
    '{"a": 1}, {"b": 2}\n',
    '{"a": 1} {"b": 2}\n',
    '{"a": 1},\n{"b": 2}\n',
    '{"a": 1\n}\n',
    "[" * 100_000 + "]" * 100_000 + "\n",  # deeper than the decoder goes: an error, not a crash
])
def test_a_json_line_that_is_not_one_whole_value_is_an_error(text: str) -> None:
    for size in (1, 2, 10):
        with pytest.raises(FlowError, match="is not valid jsonl"):
            json_lines_batches(text, size)


@pytest.mark.parametrize("line", ["[1, 2]", "3", '"text"', "null"])
def test_a_json_line_that_is_no_object_is_an_error(line: str) -> None:
    with pytest.raises(FlowError, match="every record must be a JSON object"):
        json_lines_batches('{"a": 1}\n' + line + "\n")


def test_a_bad_batch_size_is_an_error() -> None:
    assert batch_rows({}) == DEFAULT_BATCH_ROWS == 2000
    assert batch_rows({"FLOWC_BATCH_ROWS": "5"}) == 5
    for bad in ("0", "-1", "many"):
        with pytest.raises(FlowError, match="FLOWC_BATCH_ROWS"):
            batch_rows({"FLOWC_BATCH_ROWS": bad})


def test_an_sql_input_is_read_in_batches(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "src.sqlite")
    conn.execute("CREATE TABLE s (id TEXT, amount INTEGER)")
    conn.executemany("INSERT INTO s VALUES (?, ?)", [(f"r{i}", i) for i in range(5)])
    conn.commit()
    conn.close()
    read = Read(Endpoint("raw", "sqlite_table", {"table": "s"}), immutable=False, pin=None, identity=("id",))
    seen: list[int] = []

    def transform(ctx: Context) -> dict[str, Any]:
        seen.extend(b.num_rows for b in ctx.inputs["raw"].batches())  # type: ignore[attr-defined]
        return {"out": ctx.inputs["raw"]}

    env = env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite", raw=f"sqlite://{tmp_path}/src.sqlite")
    env["FLOWC_BATCH_ROWS"] = "2"
    assert run(make_task((upsert(),), reads=(read,)), transform, env) == 0
    assert seen == [2, 2, 1]
    assert len(rows_of(tmp_path, "o")) == 5


@PG
def test_a_postgres_input_read_while_its_own_connection_writes(tmp_path: Path) -> None:
    """A table read batch by batch on the connection its task writes through: each fetch comes
    after the write's open COPY is ended (a fetch in the middle of a COPY waited forever)."""
    import psycopg

    base, schema, url = pg_schema()
    stuck = False
    try:
        with psycopg.connect(url, autocommit=True) as c:
            c.execute("CREATE TABLE s (id TEXT, amount INTEGER)")
            with c.cursor().copy("COPY s FROM STDIN") as copy:
                for i in range(7):
                    copy.write_row((f"r{i % 5}", i))
        read = Read(Endpoint("raw", "postgres_table", {"table": "s"}), immutable=False, pin=None, identity=("id",))
        led = Write(Endpoint("led", "postgres_table", {"table": "l"}), "append_ledger", key=(Term("input_field", "id"),))
        env = env_for(tmp_path, out=url, led=url, raw=url)
        env["FLOWC_BATCH_ROWS"] = "2"
        env["FLOWC_STATE"] = url
        task = make_task((upsert("postgres_table"), led), reads=(read,))
        codes: list[int] = []
        # in a thread, so that a fetch stuck behind an open COPY fails the test instead of hanging it
        worker = threading.Thread(target=lambda: codes.append(
            run(task, lambda ctx: {"out": ctx.inputs["raw"], "led": ctx.inputs["raw"]}, env)), daemon=True)
        worker.start()
        worker.join(60)
        stuck = worker.is_alive()
        assert not stuck, "the task did not finish in 60 s"
        assert codes == [0]
        with psycopg.connect(url, autocommit=True) as c:
            assert c.execute("SELECT id, amount FROM o ORDER BY id").fetchall() == [
                ("r0", 5), ("r1", 6), ("r2", 2), ("r3", 3), ("r4", 4)]
            assert c.execute("SELECT id, amount FROM l ORDER BY id").fetchall() == [
                ("r0", 0), ("r1", 1), ("r2", 2), ("r3", 3), ("r4", 4)]
    finally:
        if not stuck:  # (a stuck task holds its locks: the schema could not be dropped)
            pg_drop(base, schema)


# --- outputs ------------------------------------------------------------------------------------


def test_a_generator_output_is_written_while_it_is_produced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first batch is staged when the transform has produced little more than one batch:
    the output is never gathered in memory."""
    import flowc_runtime.hooks as hooks

    produced = {"n": 0}
    at_first_batch: list[int] = []

    def step(name: str) -> None:
        if name == "mid_batch" and not at_first_batch:
            at_first_batch.append(produced["n"])

    monkeypatch.setattr(hooks, "step", step)

    def transform(ctx: Context) -> dict[str, Any]:
        def out() -> Iterator[dict[str, Any]]:
            for i in range(5000):
                produced["n"] += 1
                yield {"id": f"r{i}", "amount": i}
        return {"out": out()}

    env = env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")
    env["FLOWC_BATCH_ROWS"] = "100"
    assert run(make_task((upsert(),), reads=()), transform, env) == 0
    assert at_first_batch and at_first_batch[0] <= 101
    assert sqlite_rows(tmp_path, "SELECT COUNT(*) FROM o") == [(5000,)]


def test_batch_api_outputs_pyarrow_tables_and_batches(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", [{"id": "a", "amount": 1}, {"id": "b", "amount": 2}])

    def transform(ctx: Context) -> dict[str, Any]:
        table = ctx.inputs["raw"].table()  # type: ignore[attr-defined]
        doubled = table.set_column(1, "amount", pa.array([2 * v for v in table["amount"].to_pylist()]))
        return {"out": doubled, "led": (b for b in doubled.to_batches())}

    led = Write(Endpoint("led", "sqlite_table", {"table": "l"}), "append_ledger", key=(Term("input_field", "id"),))
    conn = f"sqlite://{tmp_path}/db.sqlite"
    assert run(make_task((upsert(), led)), transform, env_for(tmp_path, out=conn, led=conn)) == 0
    assert rows_of(tmp_path, "o") == [("a", 2), ("b", 4)]
    assert rows_of(tmp_path, "l") == [("a", 2), ("b", 4)]


@pytest.mark.parametrize("kind", ["sqlite_table", pytest.param("postgres_table", marks=PG)])
def test_the_batch_api_writes_what_the_record_api_writes(tmp_path: Path, kind: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Every SQL mode, the batch API's Arrow batches (written from their columns) against the
    record API's records: the same tables, with keys shared across batches, nulls, a column
    filled from an input field, the interval's partition, and an internal retry of every write
    (its first commit fails) that replays the spilled batches."""
    import flowc_runtime.hooks as hooks

    commits = [0]

    def every_first_commit_fails() -> None:
        commits[0] += 1
        if commits[0] % 2:
            raise RuntimeError("transient")

    monkeypatch.setattr(hooks, "before_transaction_commit", every_first_commit_fails)
    rows = [{"id": f"r{i % 7}", "day": f"d{i % 3}", "amount": None if i % 5 == 0 else i, "meta": {"n": i}}
            for i in range(20)]
    seed(tmp_path, "a.jsonl", rows)
    writes = (
        upsert(kind, "up"),
        Write(Endpoint("led", kind, {"table": "led"}), "append_ledger", key=(Term("input_field", "id"),)),
        Write(Endpoint("rp", kind, {"table": "rp"}), "replace_partition", partition=Term("input_field", "day")),
        Write(Endpoint("rd", kind, {"table": "rd"}), "replace_partition",
              partition=Term("interval_start", column="day")),
        Write(Endpoint("ow", kind, {"table": "ow"}), "overwrite"),
        Write(Endpoint("ap", kind, {"table": "ap"}), "append", key=(Term("input_field", "id", column="k"),)),
    )
    names = [w.sink.name for w in writes]
    tables: dict[str, list[list[tuple[Any, ...]]]] = {}
    for api in ("records", "batches"):
        folder = tmp_path / api
        folder.mkdir()
        if kind == "postgres_table":
            base, schema, url = pg_schema()
        else:
            url = f"sqlite://{folder}/db.sqlite"
        try:
            env = env_for(tmp_path, 1, **dict.fromkeys(names, url))
            env["FLOWC_STATE"] = url if kind == "postgres_table" else f"sqlite://{folder}/state.sqlite"
            env["FLOWC_BATCH_ROWS"] = "6"  # keys shared across batches

            def transform(ctx: Context, api: str = api) -> dict[str, Any]:
                raw = ctx.inputs["raw"]
                return {n: (raw.batches() if api == "batches" else iter(raw)) for n in names}  # type: ignore[attr-defined]

            task = Task("p", "t", "@daily", "UTC", False, (files_source(),), writes, (), internal_retries=1)
            assert run(task, transform, env) == 0
            got = []
            for table in ("up", "led", "rp", "rd", "ow", "ap"):
                sql = f'SELECT * FROM "{table}"'
                if kind == "postgres_table":
                    import psycopg

                    with psycopg.connect(url, autocommit=True) as c:
                        pg_cursor = c.execute(sql)
                        head = tuple(d[0] for d in (pg_cursor.description or ()))
                        body = pg_cursor.fetchall()
                else:
                    head, *body = sqlite_rows(folder, sql, names=True)
                got.append([head, *sorted(body, key=repr)])
            tables[api] = got
        finally:
            if kind == "postgres_table":
                pg_drop(base, schema)
    assert commits[0] == 2 * 2 * len(writes)  # each write failed once, then committed, in both runs
    assert tables["batches"] == tables["records"]
    assert len(tables["records"][0]) == 1 + 7 and len(tables["records"][1]) == 1 + 7
    assert [len(t) for t in tables["records"][2:]] == [1 + 20] * 4


def test_an_output_that_is_no_iterable_of_records_is_an_error(tmp_path: Path) -> None:
    seed(tmp_path, "a.jsonl", [{"id": "a", "amount": 1}])
    env = env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")
    # a deterministic error of the transform (MODEL-v0.3 C0): exit 65, never retried
    assert run(make_task((upsert(),)), lambda ctx: {"out": [1, 2]}, env) == 65
    assert run(make_task((upsert(),)), lambda ctx: {"out": {"id": "a"}}, env) == 65
    assert not (tmp_path / "db.sqlite").exists() or sqlite_rows(
        tmp_path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'o'") == [(0,)]


def test_a_transform_failing_on_a_later_output_commits_nothing(tmp_path: Path) -> None:
    """With two writes, the second output is read to its end before the first commit."""
    seed(tmp_path, "a.jsonl", [{"id": "a", "amount": 1}, {"id": "b", "amount": 2}])

    def transform(ctx: Context) -> dict[str, Any]:
        def bad() -> Iterator[dict[str, Any]]:
            yield {"id": "a", "amount": 1}
            raise ValueError("bad record")
        return {"out": ctx.inputs["raw"], "facts": bad()}

    facts = Write(Endpoint("facts", "sqlite_table", {"table": "f"}), "append")
    conn = f"sqlite://{tmp_path}/db.sqlite"
    assert run(make_task((upsert(), facts)), transform, env_for(tmp_path, out=conn, facts=conn)) == 75
    assert sqlite_rows(tmp_path, "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('o', 'f')") == [(0,)]


def test_an_internal_retry_replays_a_generator_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import flowc_runtime.hooks as hooks

    failed: list[bool] = []

    def fail_once() -> None:
        if not failed:
            failed.append(True)
            raise RuntimeError("transient")

    monkeypatch.setattr(hooks, "before_transaction_commit", fail_once)
    calls = {"n": 0}

    def transform(ctx: Context) -> dict[str, Any]:
        calls["n"] += 1
        return {"out": ({"id": f"r{i}", "amount": i} for i in range(25))}

    env = env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")
    env["FLOWC_BATCH_ROWS"] = "4"
    task = Task("p", "t", "@daily", "UTC", False, (), (upsert(),), (), internal_retries=1)
    assert run(task, transform, env) == 0
    assert failed and calls["n"] == 1
    assert sqlite_rows(tmp_path, "SELECT COUNT(*) FROM o") == [(25,)]


def test_a_spilled_output_whose_transform_failed_fails_again() -> None:
    def broken() -> Iterator[dict[str, Any]]:
        yield {"id": "a"}
        raise ValueError("boom")

    output = Output("out", broken(), 1, {}, spill=True)
    with pytest.raises(ValueError, match="boom"):
        list(output.batches())
    with pytest.raises(FlowError, match="failed while producing"):
        list(output.batches())
    output.close()


# --- keys shared within one interval ------------------------------------------------------------


def shared_keys(kind: str, url: str, tmp: Path) -> None:
    rows = [{"id": "a", "amount": 1}, {"id": "b", "amount": 2}, {"id": "a", "amount": 3}, {"id": "a", "amount": 4}]
    seed(tmp, "a.jsonl", rows)
    led = Write(Endpoint("led", kind, {"table": "l"}), "append_ledger", key=(Term("input_field", "id"),))
    env = env_for(tmp, out=url, led=url)
    env["FLOWC_BATCH_ROWS"] = "3"  # the duplicates of `a` fall in two batches
    if kind == "postgres_table":
        env["FLOWC_STATE"] = url
    assert run(make_task((upsert(kind), led)), lambda ctx: {"out": ctx.inputs["raw"], "led": ctx.inputs["raw"]},
               env) == 0


def test_sqlite_upsert_keeps_the_last_and_ledger_the_first_of_a_shared_key(tmp_path: Path) -> None:
    shared_keys("sqlite_table", f"sqlite://{tmp_path}/db.sqlite", tmp_path)
    assert rows_of(tmp_path, "o") == [("a", 4), ("b", 2)]
    assert rows_of(tmp_path, "l") == [("a", 1), ("b", 2)]


@PG
def test_postgres_upsert_keeps_the_last_and_ledger_the_first_of_a_shared_key(tmp_path: Path) -> None:
    import psycopg

    base, schema, url = pg_schema()
    try:
        shared_keys("postgres_table", url, tmp_path)
        with psycopg.connect(url, autocommit=True) as c:
            assert c.execute("SELECT id, amount FROM o ORDER BY id").fetchall() == [("a", 4), ("b", 2)]
            assert c.execute("SELECT id, amount FROM l ORDER BY id").fetchall() == [("a", 1), ("b", 2)]
    finally:
        pg_drop(base, schema)


@PG
def test_a_postgres_table_a_staged_write_creates_gets_its_primary_key_after_its_rows(tmp_path: Path) -> None:
    """A table a staged write creates is made without its primary key, which is built after the
    rows, before the commit: the committed table has the key; a second interval upserts into
    it; a record with no key value is refused (exit 65) and leaves no table; a table that exists
    already is left with the indexes it has (none added to a user's table)."""
    import psycopg

    base, schema, url = pg_schema()

    def indexes(c: Any, table: str) -> list[tuple[Any, ...]]:
        return list(c.execute("SELECT i.indisprimary, pg_get_indexdef(i.indexrelid) FROM pg_index AS i "
                              "WHERE i.indrelid = %s::regclass", (table,)).fetchall())

    try:
        rows = [{"id": f"k{i}", "amount": i} for i in range(7)] + [{"id": "k2", "amount": 20}]
        seed(tmp_path, "a.jsonl", rows)
        env = env_for(tmp_path, out=url)
        env["FLOWC_BATCH_ROWS"] = "3"
        env["FLOWC_STATE"] = url
        task = make_task((upsert("postgres_table"),))
        assert run(task, lambda ctx: {"out": ctx.inputs["raw"]}, env) == 0
        with psycopg.connect(url, autocommit=True) as c:
            assert indexes(c, "o") == [(True, f"CREATE UNIQUE INDEX o_pkey ON {schema}.o USING btree (id)")]
            assert c.execute("SELECT id, amount FROM o ORDER BY id").fetchall() == [
                (f"k{i}", 20 if i == 2 else i) for i in range(7)]
        later = {"FLOW_INTERVAL_START": "2026-01-02T00:00:00Z", "FLOW_INTERVAL_END": "2026-01-03T00:00:00Z",
                 "FLOW_RUN_ID": "run-2"}
        again = [{"id": "k1", "amount": 100}, {"id": "k9", "amount": 9}]
        (tmp_path / "files" / "in" / later["FLOW_INTERVAL_START"]).mkdir(parents=True)
        (tmp_path / "files" / "in" / later["FLOW_INTERVAL_START"] / "b.jsonl").write_text("{}\n")
        assert run(task, lambda ctx: {"out": again}, {**env, **later}) == 0
        with psycopg.connect(url, autocommit=True) as c:
            assert c.execute("SELECT id, amount FROM o WHERE id IN ('k1', 'k9') ORDER BY id").fetchall() == [
                ("k1", 100), ("k9", 9)]
            assert c.execute("SELECT count(*) FROM o").fetchone() == (8,)
        # no key value: refused, and the table this write created is not left behind
        missing = make_task((upsert("postgres_table", table="m"),))
        keyless = [{"id": "a", "amount": 1}, {"id": None, "amount": 2}]
        assert run(missing, lambda ctx: {"out": keyless}, {**env, "FLOW_RUN_ID": "run-3"}) == 65
        with psycopg.connect(url, autocommit=True) as c:
            assert c.execute("SELECT to_regclass('m')").fetchone() == (None,)
            # the near miss: a table of the user's, without a key, keeps having none
            c.execute("CREATE TABLE u (id TEXT, amount BIGINT)")
        theirs = make_task((upsert("postgres_table", table="u"),))
        assert run(theirs, lambda ctx: {"out": rows}, {**env, "FLOW_RUN_ID": "run-4"}) == 0
        with psycopg.connect(url, autocommit=True) as c:
            assert indexes(c, "u") == []
            assert c.execute("SELECT count(*), count(DISTINCT id) FROM u").fetchone() == (7, 7)
    finally:
        pg_drop(base, schema)


@PG
def test_two_postgres_writers_creating_one_table_at_once_upsert_into_it() -> None:
    """Two upserts find the table absent at once: the second waits for the first's creation
    lock, then finds the table the first committed (with its key and rows) and merges into it:
    it did not make the table, so it neither inserts with no join nor adds the key again."""
    import threading

    from flowc_runtime import bulk
    from flowc_runtime.sql import Database

    base, schema, url = pg_schema()
    try:
        first, second = Database(url), Database(url)
        first.begin()
        made = bulk.Target(first, "o", ("id",), key_later=True)
        assert made.ensure([{"id": "k1", "n": 1}])
        failed: list[BaseException] = []

        def upsert() -> None:
            try:
                second.begin()
                target = bulk.Target(second, "o", ("id",), key_later=True)
                assert target.ensure([{"id": "k1", "n": 2}])
                stage = bulk.Stage(second, "o", ("id", "n"), keyed=False)
                stage.add([("k1", 2, 1), ("k2", 2, 2)])
                bulk.merge_upsert(second, stage, "o", ("id",), None, empty=target.created)
                target.finish()
                second.commit()
            except BaseException as err:  # noqa: BLE001 - reported by the test below
                second.rollback()
                failed.append(err)

        pid = second.query("SELECT pg_backend_pid()")[0][0]
        thread = threading.Thread(target=upsert)
        thread.start()
        wait_until_blocked(base, pid, "the second writer never waited")
        first.execute("INSERT INTO o VALUES ('k1', 1), ('k3', 1)")
        made.finish()
        first.commit()
        thread.join(30)
        assert not failed, failed
        assert first.query("SELECT id, n FROM o ORDER BY id") == [("k1", 2), ("k2", 2), ("k3", 1)]
        assert first.query("SELECT count(*) FROM pg_index WHERE indrelid = 'o'::regclass AND indisprimary") == [(1,)]
        first.close()
        second.close()
    finally:
        pg_drop(base, schema)


@pytest.mark.parametrize("kind", ["sqlite_table", "duckdb_table", pytest.param("postgres_table", marks=PG),
                                  "delta_table", "iceberg_table"])
def test_a_replace_partition_replaces_the_rows_without_a_partition_value_too(tmp_path: Path, kind: str) -> None:
    """Rows whose partition field is null are a partition of their own, replaced by a re-run
    like any other: the SQL kinds deleted `WHERE day = NULL` (no row) and a re-run wrote them
    again; Delta's predicate named the text 'None' and its write failed every attempt (quoting
    the row in the log); Iceberg's filter could not hold None (exit 70). The text `None` is
    another partition."""
    rows: list[dict[str, Any]] = [{"id": "a", "day": None, "n": 1}, {"id": "b", "day": "d1", "n": 2},
                                  {"id": "c", "day": "None", "n": 3}]
    seed(tmp_path, "a.jsonl", rows)
    base = schema = ""
    if kind == "postgres_table":
        base, schema, url = pg_schema()
    elif kind in ("sqlite_table", "duckdb_table"):
        url = f"{kind.split('_')[0]}://{tmp_path}/db.{kind.split('_')[0]}"
    elif kind == "delta_table":
        url = f"file://{tmp_path}/files"
    else:
        pytest.importorskip("pyiceberg")
        url = f"file://{tmp_path}/lake"
    params: dict[str, Any] = ({"location": "parts"} if kind == "delta_table"
                              else {"table": "ns.parts" if kind == "iceberg_table" else "p"})
    write = Write(Endpoint("out", kind, params), "replace_partition", partition=Term("input_field", "day", column="day"))
    try:
        for attempt, changed in ((1, 1), (2, 10)):  # the second run: the same partitions, new values
            env = env_for(tmp_path, attempt=attempt, out=url)
            again = [{**r, "n": r["n"] * changed} for r in rows]

            def transform(ctx: Context, again: list[dict[str, Any]] = again) -> dict[str, Any]:
                return {"out": again}

            assert run(make_task((write,)), transform, env) == 0
        if kind == "delta_table":
            import deltalake

            got = deltalake.DeltaTable(str(tmp_path / "files" / "parts")).to_pyarrow_table().to_pylist()
        elif kind == "iceberg_table":
            from flowc_runtime import iceberg

            table = iceberg.load(iceberg.catalog(iceberg.locate(url, "out")), ("ns", "parts"))
            assert table is not None
            got = table.scan().to_arrow().to_pylist()
        else:
            from flowc_runtime.sql import Database

            db = Database(url)
            got = [dict(zip(("id", "day", "n"), r, strict=True)) for r in db.query("SELECT id, day, n FROM p")]
            db.close()
        assert sorted((r["id"], r["day"], r["n"]) for r in got) == [("a", None, 10), ("b", "d1", 20), ("c", "None", 30)]
    finally:
        if kind == "postgres_table":
            pg_drop(base, schema)


def test_a_lake_partition_predicate_names_the_rows_without_a_value_by_is_null() -> None:
    """Delta's predicate (and a Spark task's `replaceWhere`): a null partition value is
    `IS NULL`, the text 'None' a value like any other; no null, no `IS NULL`."""
    from flowc_runtime.delta import partition_predicate, sql_literal

    literals = [sql_literal(v) for v in (None, "None", "it's", 3, True)]
    assert literals == ["NULL", "'None'", "'it''s'", "3", "true"]
    assert partition_predicate("`day`", literals) == "`day` IN ('None', 'it''s', 3, true) OR `day` IS NULL"
    assert partition_predicate("day", ["NULL"]) == "day IS NULL"
    assert partition_predicate("day", ["'d1'"]) == "day IN ('d1')"


@pytest.mark.parametrize("kind", ["sqlite_table", pytest.param("postgres_table", marks=PG)])
def test_bulk_modes_match_row_by_row_semantics(tmp_path: Path, kind: str) -> None:
    """replace partition deletes each partition once (not per batch); overwrite empties the
    table once; a column that appears in a later batch is added to a table the write created."""
    rows = [{"id": f"r{i}", "day": "d1" if i < 5 else "d2", "amount": i} for i in range(9)]
    rows[7]["note"] = "late column"
    seed(tmp_path, "a.jsonl", rows)
    if kind == "postgres_table":
        base, schema, url = pg_schema()
    else:
        url = f"sqlite://{tmp_path}/db.sqlite"
    part = Write(Endpoint("out", kind, {"table": "p"}), "replace_partition", partition=Term("input_field", "day"))
    over = Write(Endpoint("facts", kind, {"table": "w"}), "overwrite")
    task = make_task((part, over))
    try:
        for attempt in (1, 2):
            env = env_for(tmp_path, attempt=attempt, out=url, facts=url)
            env["FLOWC_BATCH_ROWS"] = "2"
            env["FLOWC_STATE"] = url if kind == "postgres_table" else env["FLOWC_STATE"]
            assert run(task, lambda ctx: {"out": ctx.inputs["raw"], "facts": ctx.inputs["raw"]}, env) == 0
        expected = sorted((r["id"], r["day"], r["amount"], r.get("note")) for r in rows)
        for table in ("p", "w"):
            sql = f"SELECT id, day, amount, note FROM {table} ORDER BY id"
            if kind == "postgres_table":
                import psycopg

                with psycopg.connect(url, autocommit=True) as c:
                    got = c.execute(sql).fetchall()
            else:
                got = sqlite_rows(tmp_path, sql)
            assert sorted(got) == expected, table
    finally:
        if kind == "postgres_table":
            pg_drop(base, schema)


def test_bulk_runs_build_the_value_tuples_of_row_by_row_writes() -> None:
    """bulk.runs: rows with the same fields in one run (in any key order); a row with other
    fields, fewer or more, starts a new run; a constant column replaces a row's own value;
    the extra values and the positions follow the rows across runs; nested values become
    JSON text unless the connection adapts them."""
    from flowc_runtime.bulk import ColumnValues, runs

    rows: list[dict[str, Any]] = [{"id": "a", "n": 1}, {"n": 2, "id": "b"}, {"id": "c", "n": 3, "x": {"k": [1]}},
                                  {"id": "d", "m": 4}, {"id": "e", "n": 5, "f": "own"}]
    got = list(runs(rows, extra=["ka", "kb", "kc", "kd", "ke"], const={"f": "end"}, seq=10))
    assert got == [
        (("id", "n", "f"), [("a", 1, "end", "ka", 10), ("b", 2, "end", "kb", 11)]),
        (("id", "n", "x", "f"), [("c", 3, '{"k": [1]}', "end", "kc", 12)]),
        (("id", "m", "f"), [("d", 4, "end", "kd", 13)]),
        (("id", "n", "f"), [("e", 5, "end", "ke", 14)]),
    ]
    same: list[dict[str, Any]] = [{"id": "a", "v": [1]}, {"id": "b", "v": None}]
    assert list(runs(same)) == [(("id", "v"), [("a", "[1]"), ("b", None)])]
    assert list(runs(same, convert=False)) == [(("id", "v"), [("a", [1]), ("b", None)])]
    assert list(runs([{}, {}], const={"f": 1}, seq=1)) == [(("f",), [(1, 1), (1, 2)])]
    assert list(runs([])) == []
    # kept as columns (PostgreSQL's COPY): the same runs, the same tuples
    for options in ({"extra": ["ka", "kb", "kc", "kd", "ke"], "const": {"f": "end"}, "seq": 10}, {}, {"convert": False}):
        made = list(runs(rows, **options, columnar=True))
        assert [(names, list(values)) for names, values in made] == list(runs(rows, **options)), options
        assert all(isinstance(values, ColumnValues) for _, values in made)
    assert [(n, list(v)) for n, v in runs([{}, {}], const={"f": 1}, seq=1, columnar=True)] == [(("f",), [(1, 1), (1, 2)])]
    assert [(n, list(v)) for n, v in runs([{}, {}], columnar=True)] == [((), [(), ()])]


def test_the_columns_of_a_batch_are_what_its_records_would_write() -> None:
    """BatchRows.columns (an Arrow batch's columns, or the output records read field by field)
    gives bulk.runs the same value tuples as the rows made record by record, for every fill
    (none, the key column, a new column from an input field, a field filled from another, the
    interval's values replacing a field or adding one), with nulls and nested values; records
    of differing fields, or a missing input field, go through the records themselves."""
    from flowc_runtime.batches import ArrowItems, BatchRows
    from flowc_runtime.bulk import runs

    records = [{"id": "a", "n": 1, "tags": [1, 2], "s": {"k": "v"}, "note": None},
               {"id": "b", "n": None, "tags": None, "s": {"k": None}, "note": "x"},
               {"id": None, "n": 3, "tags": [], "s": None, "note": None}]
    batch = pa.RecordBatch.from_pylist(records)
    listed = [(r, dict(r)) for r in batch.to_pylist()]
    differing = [({"id": "a", "n": 1}, {"id": "a", "n": 1}), ({"id": "b", "n": 2}, {"id": "b", "m": 2})]
    shapes: list[tuple[str | None, str | None, dict[str, Any]]] = [
        (None, None, {}), ("id", "id", {}), ("key", "id", {}), ("id", "n", {}),
        (None, None, {"day": "2026-01-01"}), ("id", "id", {"n": 0, "day": "d"})]

    def maker(column: str | None, field: str | None, values: dict[str, Any]) -> Any:
        def rows(items: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
            if column is None or field is None:
                return [{**o, **values} for _, o in items]
            return [{**o, column: s[field], **values} for s, o in items]
        return rows

    for column, field, values in shapes:
        make = maker(column, field, values)
        for items, columnar in ((ArrowItems(batch), True), (listed, True), (differing, False)):
            expected = make(list(items))
            assert (BatchRows(items, column, field, values, make).columns() is not None) == columnar
            for options in ({}, {"convert": False},
                            {"const": {"_f": "end", "n": 9}, "seq": 5, "extra": [f"k{i}" for i in range(len(expected))]}):
                assert list(runs(BatchRows(items, column, field, values, make), **options)) == \
                    list(runs(expected, **options)), (column, field, values, options)
                # kept as columns (PostgreSQL's COPY): the same tuples
                assert [(names, list(made)) for names, made in
                        runs(BatchRows(items, column, field, values, make), **options, columnar=True)] == \
                    list(runs(expected, **options)), (column, field, values, options, "columnar")
            assert list(BatchRows(items, column, field, values, make)) == expected
    sample = BatchRows(ArrowItems(batch), "key", "id", {"day": "d"}, maker("key", "id", {"day": "d"})).sample()
    assert sample == [{"id": "a", "n": 1, "tags": [1, 2], "s": {"k": "v"}, "note": "x", "key": "a", "day": "d"}]
    missing = BatchRows(ArrowItems(batch), "key", "absent", {}, maker("key", "absent", {}))
    assert missing.columns() is None
    with pytest.raises(KeyError):
        list(runs(missing))
    # an Arrow batch pickles (the spill file) as its RecordBatch; its records are made on demand
    import pickle

    again = pickle.loads(pickle.dumps(ArrowItems(batch)))  # noqa: S301 - our own bytes
    assert isinstance(again, ArrowItems) and len(again) == 3 and list(again) == [(r, r) for r in batch.to_pylist()]


def wait_until_blocked(base: str, pid: int, failure: str) -> None:
    """Until the PostgreSQL backend `pid` waits on a lock (30 s at most)."""
    import time

    import psycopg

    with psycopg.connect(base, autocommit=True) as watch:
        deadline = time.monotonic() + 30
        while watch.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s",
                            (pid,)).fetchone() != ("Lock",):
            assert time.monotonic() < deadline, failure
            time.sleep(0.05)


@PG
def test_two_writers_of_one_ledger_at_once_write_each_key_once() -> None:
    """Two attempts that no fence orders (two intervals of a backfill) append at once to one
    ledger with a key in common. The second waits for the first (the ledger's lock) and then
    finds the key taken: each key once. Before the lock, both found `k2` absent (neither had
    committed) and both wrote it; the ledger's `ON CONFLICT DO NOTHING` only kept its key once."""
    import threading

    from flowc_runtime import bulk
    from flowc_runtime.sql import Database

    base, schema, url = pg_schema()
    try:
        first, second = Database(url), Database(url)
        first.create_bookkeeping()
        first.execute("CREATE TABLE o (id TEXT, n BIGINT)")

        def append(db: Database, rows: list[tuple[str, int]]) -> None:
            stage = bulk.Stage(db, "o", ("id", "n"), keyed=True)
            stage.add([(k, n, json.dumps([k]), i) for i, (k, n) in enumerate(rows, 1)])
            bulk.merge_ledger(db, stage, "o", "led")

        first.begin()
        append(first, [("k1", 1), ("k2", 1)])
        pid = second.query("SELECT pg_backend_pid()")[0][0]
        failed: list[BaseException] = []

        def run_second() -> None:
            try:
                second.begin()
                append(second, [("k2", 2), ("k3", 2)])
                second.commit()
            except BaseException as err:  # noqa: BLE001 - reported by the test below
                failed.append(err)

        thread = threading.Thread(target=run_second)
        thread.start()
        # the second writer is waiting on a lock (the ledger's, or before it the first's key)
        wait_until_blocked(base, pid, "the second writer never waited for the first")
        first.commit()
        thread.join(30)
        assert not failed, failed
        assert sorted(first.query("SELECT id, n FROM o")) == [("k1", 1), ("k2", 1), ("k3", 2)]
        assert sorted(first.query("SELECT key FROM flowc_ledger WHERE sink = 'led'")) == [
            ('["k1"]',), ('["k2"]',), ('["k3"]',)]
        first.close()
        second.close()
    finally:
        pg_drop(base, schema)


@PG
@pytest.mark.parametrize("made", ["by this runtime", "before, in the database's collation"])
def test_a_postgres_ledger_takes_each_new_key_once_in_key_order(made: str) -> None:
    """One statement de-duplicates the staged rows, checks them against the ledger and feeds both
    inserts, in the order of the ledger's key. A ledger this runtime makes compares its keys byte
    by byte (`C`); one made before (the database's collation) keeps working: a key it holds is
    not written again."""
    from flowc_runtime import bulk
    from flowc_runtime.sql import Database

    base, schema, url = pg_schema()
    db = Database(url)
    try:
        if made == "by this runtime":
            db.create_bookkeeping()
        else:
            db.execute("CREATE TABLE flowc_ledger (sink TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (sink, key))")
        collation = db.query("SELECT c.collname FROM pg_attribute AS a JOIN pg_collation AS c ON c.oid = a.attcollation "
                             "WHERE a.attrelid = 'flowc_ledger'::regclass AND a.attname = 'key'")[0][0]
        assert collation == ("C" if made == "by this runtime" else "default")
        db.execute("CREATE TABLE o (id TEXT, n BIGINT)")
        db.execute("INSERT INTO flowc_ledger VALUES ('led', %s), ('other', %s)", (json.dumps(["held"]), json.dumps(["z"])))
        rows = [("z", 1), ("é", 2), ("held", 3), ("a", 4), ("z", 5), ("B", 6), ("é", 7)]
        db.begin()
        stage = bulk.Stage(db, "o", ("id", "n"), keyed=True)
        stage.add([(k, n, json.dumps([k]), i) for i, (k, n) in enumerate(rows, 1)])
        bulk.merge_ledger(db, stage, "o", "led")
        db.commit()
        # the first row of each new key, in the order of the ledger's key (`ctid`: the order of
        # insertion), which is its column's collation
        firsts = {"z": 1, "é": 2, "a": 4, "B": 6}
        order = db.query(f"SELECT k FROM unnest(%s::text[]) AS k ORDER BY k COLLATE \"{collation}\"",
                         ([json.dumps([k]) for k in firsts],))
        assert db.query("SELECT id, n FROM o ORDER BY ctid") == [(k, firsts[k]) for k in (json.loads(t)[0] for (t,) in order)]
        assert sorted(k for (k,) in db.query("SELECT key FROM flowc_ledger WHERE sink = 'led'")) == sorted(
            json.dumps([k]) for k in ("held", "z", "é", "a", "B"))
    finally:
        db.close()
        pg_drop(base, schema)


@PG
@pytest.mark.parametrize("case", ["empty", "rolled back", "holds as many keys", "holds one key more", "locked by another",
                                  "small", "a foreign key depends on it"])
def test_a_large_write_into_a_small_postgres_ledger_builds_its_key_at_the_end(
        case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large write into a ledger that holds no more keys (of any sink) than the write stages
    rows drops the ledger's primary key, fills the bare table and builds the key again, same
    name and definition, before the commit (a new index: its oid changes); a rollback brings the
    old one back. The key stays (same index) when the ledger holds more keys, when another
    transaction holds a lock on it (not waited for), when another table's foreign key depends
    on it, and for a small write. In every case the ledger ends with its key, which refuses a
    duplicate, and the keys of other sinks are kept."""
    import psycopg

    from flowc_runtime import bulk
    from flowc_runtime.sql import Database

    monkeypatch.setattr(bulk, "REBUILD_LEDGER_KEY_FROM", 3)
    base, schema, url = pg_schema()
    other = None
    db = Database(url)
    try:
        db.create_bookkeeping()
        db.execute("CREATE TABLE o (id TEXT, n BIGINT)")

        def key() -> tuple[Any, ...]:
            return tuple(db.query("SELECT conname, pg_get_constraintdef(oid), conindid FROM pg_constraint "
                                  "WHERE conrelid = 'flowc_ledger'::regclass AND contype = 'p'")[0])

        held = {"holds as many keys": 4, "holds one key more": 5}.get(case, 0)  # the write stages 4 rows
        for n in range(held):
            db.execute("INSERT INTO flowc_ledger VALUES ('another sink', %s)", (json.dumps([f"k{n}"]),))
        if case == "a foreign key depends on it":
            db.execute("CREATE TABLE refs (sink TEXT, key TEXT, FOREIGN KEY (sink, key) REFERENCES flowc_ledger)")
        if case == "locked by another":
            other = psycopg.connect(url)
            other.execute("SELECT count(*) FROM flowc_ledger")  # its transaction holds a lock, open
        before = key()
        rows = [("k1", 1), ("k2", 2), ("k1", 3), ("k3", 4)][:2 if case == "small" else 4]
        db.begin()
        stage = bulk.Stage(db, "o", ("id", "n"), keyed=True)
        stage.add([(k, n, json.dumps([k]), i) for i, (k, n) in enumerate(rows, 1)])
        bulk.merge_ledger(db, stage, "o", "led")
        during = key()
        assert during[:2] == before[:2] == ("flowc_ledger_pkey", "PRIMARY KEY (sink, key)")
        assert (during[2] != before[2]) == (case in ("empty", "rolled back", "holds as many keys")), (before, during)
        if case == "rolled back":
            db.rollback()
            assert key() == before
            assert db.query("SELECT count(*) FROM flowc_ledger WHERE sink = 'led'")[0][0] == 0
        else:
            db.commit()
            firsts = {k: n for k, n in reversed(rows)}
            assert sorted(db.query("SELECT id, n FROM o")) == sorted(firsts.items())
            assert sorted(db.query("SELECT key FROM flowc_ledger WHERE sink = 'led'")) == sorted(
                (json.dumps([k]),) for k in firsts)
            assert db.query("SELECT count(*) FROM flowc_ledger WHERE sink = 'another sink'")[0][0] == held
        with pytest.raises(psycopg.errors.UniqueViolation):
            db.execute("INSERT INTO flowc_ledger VALUES ('led', %s), ('led', %s)", (json.dumps(["k9"]),) * 2)
    finally:
        db.close()  # before the schema is dropped: a failed check leaves its transaction open
        if other is not None:
            other.close()
        pg_drop(base, schema)


@PG
@pytest.mark.parametrize("columns", [("id", "n", "fence"), ("id",)])
def test_a_postgres_upsert_keeps_the_last_row_of_a_key_and_a_later_fence(columns: tuple[str, ...]) -> None:
    """The staged upsert (`MERGE` on PostgreSQL 15+): of a key's rows the last; a stored row
    whose fence is later stays, an earlier or NULL one is replaced; a key alone (no other
    column) inserts what is new and leaves the rest."""
    from flowc_runtime import bulk
    from flowc_runtime.sql import Database

    base, schema, url = pg_schema()
    db = Database(url)
    try:
        db.execute("CREATE TABLE o (id TEXT PRIMARY KEY, n BIGINT, fence TEXT)")
        db.execute("INSERT INTO o VALUES ('k1', 0, '2026-01-01'), ('k2', 0, NULL), ('k4', 0, '2026-01-09')")
        rows = [("k3", 1), ("k1", 1), ("k2", 1), ("k1", 2), ("k4", 1), ("k3", 3)]
        db.begin()
        stage = bulk.Stage(db, "o", columns, keyed=False)
        stage.add([(k, n, "2026-01-02", i)[:len(columns)] + (i,) for i, (k, n) in enumerate(rows, 1)])
        bulk.merge_upsert(db, stage, "o", ("id",), "fence" if len(columns) > 1 else None)
        db.commit()
        expected = ([("k1", 2, "2026-01-02"), ("k2", 1, "2026-01-02"), ("k3", 3, "2026-01-02"), ("k4", 0, "2026-01-09")]
                    if len(columns) > 1 else
                    [("k1", 0, "2026-01-01"), ("k2", 0, None), ("k3", None, None), ("k4", 0, "2026-01-09")])
        assert db.query("SELECT id, n, fence FROM o ORDER BY id") == expected
    finally:
        db.close()
        pg_drop(base, schema)


@PG
def test_a_postgres_upsert_whose_key_another_writer_inserts_meanwhile_still_upserts() -> None:
    """PostgreSQL 15+: the staged upsert is one `MERGE` (flowc's writers of a table one at a
    time). A writer going around flowc inserts one of its keys after the `MERGE` looked and before
    it inserted: `MERGE` fails on the key, and the statement runs again as `INSERT … ON CONFLICT`
    from a savepoint; the row is upserted, the transaction goes on. Fenced: a row of a later
    interval stays, whether it was there before or came meanwhile."""
    import threading

    import psycopg

    from flowc_runtime import bulk
    from flowc_runtime.sql import Database

    base, schema, url = pg_schema()
    try:
        db = Database(url)
        db.execute("CREATE TABLE o (id TEXT PRIMARY KEY, n BIGINT, fence TEXT)")
        db.execute("INSERT INTO o VALUES ('k1', 0, '2026-01-01'), ('k4', 0, '2026-01-09')")
        other = psycopg.connect(url)  # not autocommit: its insert stays uncommitted
        other.execute("INSERT INTO o VALUES ('k2', 0, NULL), ('k5', 0, '2026-01-09')")
        pid = db.query("SELECT pg_backend_pid()")[0][0]
        failed: list[BaseException] = []

        def upsert() -> None:
            try:
                db.begin()
                stage = bulk.Stage(db, "o", ("id", "n", "fence"), keyed=False)
                rows = [("k1", 1), ("k2", 1), ("k3", 1), ("k2", 2), ("k4", 1), ("k5", 1)]
                stage.add([(k, n, "2026-01-02", i) for i, (k, n) in enumerate(rows, 1)])
                bulk.merge_upsert(db, stage, "o", ("id",), "fence")
                db.commit()
            except BaseException as err:  # noqa: BLE001 - reported by the test below
                db.rollback()
                failed.append(err)

        thread = threading.Thread(target=upsert)
        thread.start()
        wait_until_blocked(base, pid, "the upsert never waited for the other writer's key")
        other.commit()
        other.close()
        thread.join(30)
        assert not failed, failed
        assert db.query("SELECT id, n, fence FROM o ORDER BY id") == [
            ("k1", 1, "2026-01-02"), ("k2", 2, "2026-01-02"), ("k3", 1, "2026-01-02"),
            ("k4", 0, "2026-01-09"), ("k5", 0, "2026-01-09")]
        db.close()
    finally:
        pg_drop(base, schema)


TRICKY_ROWS = [
    ("plain", 1, 1.5, True, None),
    ("tab\there", -7, -0.0, False, "x"),
    ("new\nline\r\n", 2**70, 1e-300, None, "back\\slash"),
    ("\\N", 0, 1e16, True, "\b\v\f"),
    ("", None, None, False, "é ✓ 🙂"),
    (None, 3, 0.1, True, None),
]


@PG
def test_an_open_copy_ends_at_the_next_statement_and_a_rollback_abandons_it() -> None:
    """Database.copy_stream: one COPY for the rows of one table and columns, open across calls;
    any other statement ends it first (its rows then visible to the transaction, a bad row's
    error raised there); a rollback abandons it."""
    import psycopg

    from flowc_runtime.sql import Database

    base, schema, url = pg_schema()
    db = Database(url)
    try:
        db.execute("CREATE TABLE t (n INT)")
        db.begin()
        copy = db.copy_stream("t", ["n"])
        copy.write("1\n")
        assert db.copy_stream("t", ["n"]) is copy  # still open: the same COPY
        copy.write("2\n")
        assert db.query("SELECT count(*) FROM t") == [(2,)]  # the statement ended it first
        assert db.copy_stream("t", ["n"]) is not copy
        db.copy_stream("t", ["n"]).write("3\n")
        db.rollback()
        assert db.query("SELECT count(*) FROM t") == [(0,)]
        db.begin()
        db.copy_stream("t", ["n"]).write("not a number\n")
        with pytest.raises(psycopg.errors.InvalidTextRepresentation):
            db.query("SELECT 1")
        db.rollback()
        db.begin()
        db.copy_stream("t", ["n"]).write("4\n")
        db.commit()
        assert db.query("SELECT n FROM t") == [(4,)]
    finally:
        db.close()
        pg_drop(base, schema)


def test_arrow_records_are_what_to_pylist_makes() -> None:
    """A batch's records made by the per-schema comprehension equal pyarrow's own `to_pylist`,
    for field names that are code, quotes or newlines, one field, a repeated name, many
    fields, nested and temporal values, nulls, and no rows."""
    from flowc_runtime.batches import arrow_records

    odd = ["}] + __import__('os').getcwd() #", 'q"\'\n\\', "é", "v0", "zip"]
    rows = [{name: i for i, name in enumerate(odd)}, {name: None for name in odd}]
    batches = [
        pa.RecordBatch.from_pylist(rows),
        pa.RecordBatch.from_pylist([{"only": "x"}, {"only": None}]),
        pa.RecordBatch.from_arrays([pa.array([1, 2]), pa.array(["a", "b"])], names=["same", "same"]),
        pa.RecordBatch.from_pylist([{f"f{i}": i for i in range(260)}]),
        pa.RecordBatch.from_pylist([{"s": {"k": [1, 2]}, "t": datetime(2026, 1, 1, tzinfo=UTC), "d": date(2026, 1, 2),
                                     "m": Decimal("1.5"), "l": [None, "x"]}, {"s": None, "t": None, "d": None,
                                                                              "m": None, "l": []}]),
        pa.RecordBatch.from_pylist([{"id": "a"}]).slice(1),
    ]
    for batch in batches:
        assert arrow_records(batch) == batch.to_pylist(), batch.schema
    assert arrow_records(batches[0])[0]["}] + __import__('os').getcwd() #"] == 0


def test_copy_text_is_copy_s_text_format_a_column_at_a_time() -> None:
    from flowc_runtime.bulk import copy_text

    def text(rows: list[tuple[Any, ...]]) -> str | None:  # copy_text takes the rows' columns
        return copy_text(list(zip(*rows, strict=True)))

    assert text([("a\tb", 1, None, True, 1.5), ("c\\", -2, "x", False, 0.25)]) == (
        "a\\tb\t1\t\\N\tt\t1.5\nc\\\\\t-2\tx\tf\t0.25\n")
    assert text([(None, None)]) == "\\N\t\\N\n"
    assert copy_text([range(3, 5), ["x"] * 2]) == "3\tx\n4\tx\n"  # a run's positions, a constant column
    # what psycopg adapts itself: a row at a time
    class Tag(str):
        pass

    for odd in (date(2026, 1, 1), Decimal("1.5"), float("nan"), float("inf"), "nul\x00inside", Tag("t"), b"\x00"):
        assert text([("a",), (odd,)]) is None, odd
    assert text([(1,), ("1",)]) is None  # one column, two types
    assert text([(True,), (1,)]) is None
    assert copy_text([]) is None and copy_text([[]]) is None


@PG
def test_copy_text_stores_what_psycopg_s_write_row_stores() -> None:
    """The same rows COPYed both ways into PostgreSQL: the same values back, and the same text
    out of `COPY … TO STDOUT`."""
    import psycopg

    from flowc_runtime.bulk import copy_text

    base, schema, url = pg_schema()
    try:
        with psycopg.connect(url, autocommit=True) as c:
            got = {}
            for name in ("by_rows", "by_columns"):
                c.execute(f"CREATE TABLE {name} (s TEXT, i NUMERIC, f DOUBLE PRECISION, b BOOLEAN, t TEXT)")
                with c.cursor().copy(f"COPY {name} FROM STDIN") as copy:
                    if name == "by_rows":
                        for row in TRICKY_ROWS:
                            copy.write_row(row)
                    else:
                        text = copy_text(list(zip(*TRICKY_ROWS, strict=True)))
                        assert text is not None
                        copy.write(text)
                rows = c.execute(f"SELECT * FROM {name}").fetchall()
                with c.cursor().copy(f"COPY {name} TO STDOUT") as copy:
                    dumped = b"".join(bytes(chunk) for chunk in copy)
                got[name] = (rows, dumped)
            assert got["by_rows"] == got["by_columns"]
            assert got["by_columns"][0][2][0] == "new\nline\r\n" and got["by_columns"][0][3][0] == "\\N"
    finally:
        pg_drop(base, schema)


def test_single_text_keys_are_the_canonical_json_of_each_value() -> None:
    """Each escape JSON makes (quote, backslash, each control character) takes the per-value
    path; the values near them (DEL, separators, non-ASCII) the joined one: both give
    `canonical([value])`."""
    from flowc_runtime.keys import canonical, single_text_keys

    near = ["", "a", "\x7f", "\u2028", "é", "🙂", "[", "]", ",", "'", "/", "\ud800"]
    assert single_text_keys(near) == [canonical([v]) for v in near]
    assert single_text_keys([]) == []
    for odd in ['"', "\\", *map(chr, range(0x20))]:
        values = [*near, f"x{odd}y"]
        assert single_text_keys(values) == [canonical([v]) for v in values], repr(odd)


def test_ledger_keys_of_a_batch_are_the_one_by_one_dedup_keys(tmp_path: Path) -> None:
    """The ledger's keys, made a batch at a time for `key input.F`, equal `dedup_key`'s;
    a record without the field fails as it does one by one."""
    from flowc_runtime.connectors.sql_table import SqlTable
    from flowc_runtime.run import Attempt

    mixed = [({"id": i, "g": "é\"x"}, {"id": i}) for i in ("a", 1, 2.5, None, "ü")]
    texts = [({"id": i, "g": 1}, {"id": i}) for i in ("a", "é\"x\\", "\n\t\u0001", "ü\u2028", "")]  # all text: in C
    # all text and nothing JSON escapes: one join and one split (keys.single_text_keys)
    plain = [({"id": i, "g": 1}, {"id": i}) for i in ("a", "b c", "ü\u2028🙂", "", "[1]", "'x'", "\x7f")]
    for items in (mixed, texts, plain):
        for terms in ((Term("input_field", "id"),), (Term("input_field", "id"), Term("input_field", "g"))):
            write = Write(Endpoint("led", "sqlite_table", {"table": "l"}), "append_ledger", key=terms)
            attempt = Attempt(make_task((write,)), lambda ctx: {}, env_for(tmp_path))
            made = SqlTable.key_function(attempt, write)(items)
            assert made == [attempt.dedup_key(write, s, o) for s, o in items]
    write = Write(Endpoint("led", "sqlite_table", {"table": "l"}), "append_ledger", key=(Term("input_field", "id"),))
    attempt = Attempt(make_task((write,)), lambda ctx: {}, env_for(tmp_path))
    keys = SqlTable.key_function(attempt, write)
    with pytest.raises(FlowError, match="no field `id`"):
        keys([({"other": 1}, {"other": 1})])
    # the batch API's batches: the key column read from Arrow, the same keys
    from flowc_runtime.batches import ArrowItems

    for values in (["a", "é\"x\\", "\n\t\u0001", "ü\u2028", ""], [1, 2, None, 4, 5], [1.5, None, 2.0, 0.0, -1.0]):
        arrow = ArrowItems(pa.RecordBatch.from_pylist([{"id": v, "g": 1} for v in values]))
        assert keys(arrow) == [attempt.dedup_key(write, s, o) for s, o in arrow.items()]
    with pytest.raises(FlowError, match="no field `id`"):
        keys(ArrowItems(pa.RecordBatch.from_pylist([{"other": 1}])))


# --- files --------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv", "parquet"])
def test_a_files_sink_is_written_batch_by_batch_with_the_same_content(tmp_path: Path, fmt: str) -> None:
    from flowc_runtime import formats

    rows = [{"id": f"r{i}", "amount": i} for i in range(7)]
    streamed = b"".join(formats.encode_batches([rows[:3], rows[3:6], rows[6:]], fmt))
    if fmt == "parquet":
        import pyarrow.parquet as pq

        assert pq.read_table(pa.BufferReader(streamed)).to_pylist() == rows
    else:
        assert streamed == formats.encode(rows, fmt)
    assert b"".join(formats.encode_batches([], fmt)) == formats.encode([], fmt)


def test_a_parquet_file_gathers_its_batches_into_row_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row group per batch made files of thousands of small groups: batches are gathered until
    a group has ROW_GROUP_ROWS rows or ROW_GROUP_BYTES bytes, and the rest is the last group."""
    import pyarrow.parquet as pq

    from flowc_runtime import formats

    rows = [{"id": f"r{i}", "amount": i} for i in range(7)]
    batches = [rows[:3], rows[3:6], rows[6:]]

    def groups() -> list[int]:
        data = b"".join(formats.encode_batches(batches, "parquet"))
        meta = pq.ParquetFile(pa.BufferReader(data)).metadata
        assert pq.read_table(pa.BufferReader(data)).to_pylist() == rows
        return [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]

    assert groups() == [7]
    monkeypatch.setattr(formats, "ROW_GROUP_ROWS", 4)
    assert groups() == [6, 1]
    monkeypatch.setattr(formats, "ROW_GROUP_BYTES", 1)
    assert groups() == [3, 3, 1]


def test_a_columnar_file_takes_the_batch_api_s_columns_as_they_are(tmp_path: Path) -> None:
    """Parquet and CSV are written from a batch's columns: the batch API's Arrow batch with its
    own types (an int32 stays int32), the key column and the interval's values set; a later
    batch of records or of other columns is conformed to the first batch's schema, or converted
    from its records as before."""
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    from flowc_runtime import formats
    from flowc_runtime.batches import ArrowItems, BatchRows

    def records(items: list[Any]) -> list[dict[str, Any]]:
        return [{**output, "k": source["id"], "day": "d1"} for source, output in items]

    def arrow_rows(batch: Any) -> BatchRows:
        return BatchRows(ArrowItems(batch), "k", "id", {"day": "d1"}, records)

    first = pa.record_batch({"id": ["a", "b"], "n": pa.array([1, 2], pa.int32()), "day": ["x", "y"]})
    dicts = [({"id": "c", "n": 3, "day": "z"}, {"id": "c", "n": 3, "day": "z"})]
    nulls = pa.record_batch({"id": ["d"], "n": pa.array([None], pa.null()), "day": ["w"]})
    other = pa.record_batch({"id": ["e"], "day": ["v"]})  # no `n`: converted from its records, `n` null
    batches = [arrow_rows(first), BatchRows(dicts, "k", "id", {"day": "d1"}, records), arrow_rows(nulls),
               arrow_rows(other)]
    expected = [{"id": "a", "n": 1, "day": "d1", "k": "a"}, {"id": "b", "n": 2, "day": "d1", "k": "b"},
                {"id": "c", "n": 3, "day": "d1", "k": "c"}, {"id": "d", "n": None, "day": "d1", "k": "d"},
                {"id": "e", "n": None, "day": "d1", "k": "e"}]
    table = pq.read_table(pa.BufferReader(b"".join(formats.encode_batches(batches, "parquet"))))
    assert table.schema.field("n").type == pa.int32()
    assert table.to_pylist() == expected
    assert [b.records() for b in batches[1:2]] == [[expected[2]]]
    csv = pa_csv.read_csv(pa.BufferReader(b"".join(formats.encode_batches(batches, "csv"))))
    assert csv.to_pylist() == expected
    # a batch whose column has a type no Parquet column shares with the first's: an error naming
    # the field (Invalid: the same records fail at every attempt), not Arrow's
    text = pa.record_batch({"id": ["f"], "n": ["many"], "day": ["u"]})
    with pytest.raises(Invalid, match="output field `n`.* int32 and string"):
        b"".join(formats.encode_batches([arrow_rows(first), arrow_rows(text)], "parquet"))


def parquet_rows(data: bytes) -> tuple[Any, list[dict[str, Any]]]:
    import pyarrow.parquet as pq

    table = pq.read_table(pa.BufferReader(data))
    return table.schema, table.to_pylist()


def test_a_columnar_file_holds_every_field_and_every_value_of_its_first_rows() -> None:
    """Parquet and CSV: the file's columns are made of every batch of its first rows (the first
    row group): a field null in the first batch and text later is a text column, a field first
    seen in a later batch is a column (null in the rows before), an int column with a float later
    is a float column. Before, the first batch's schema was the file's: the text failed with
    Arrow's error, the new field was dropped, and the float was truncated (1.5 written as 1)."""
    import pyarrow.csv as pa_csv

    from flowc_runtime import formats

    batches: list[list[dict[str, Any]]] = [[{"id": "a", "note": None, "n": 1}],
                                           [{"id": "b", "note": "x", "n": 1.5, "extra": True}]]
    expected = [{"id": "a", "note": None, "n": 1.0, "extra": None},
                {"id": "b", "note": "x", "n": 1.5, "extra": True}]
    schema, rows = parquet_rows(b"".join(formats.encode_batches(batches, "parquet")))
    assert rows == expected
    assert (schema.field("note").type, schema.field("n").type) == (pa.string(), pa.float64())
    csv = pa_csv.read_csv(pa.BufferReader(b"".join(formats.encode_batches(batches, "csv"))))
    assert csv.column_names == ["id", "note", "n", "extra"]
    assert csv.column("n").to_pylist() == [1, 1.5] and csv.column("extra").to_pylist() == [None, True]
    # one batch of records with different fields: every field (the first record's alone, before)
    assert parquet_rows(formats.encode([{"a": 1}, {"a": 2, "b": "y"}], "parquet"))[1] == [
        {"a": 1, "b": None}, {"a": 2, "b": "y"}]


def test_a_columnar_file_of_one_schema_keeps_it_as_it_is() -> None:
    """Batches that all have one schema (the batch API's usual output) make the file's schema
    as it is: a field declared not nullable stays so, its metadata kept."""
    import pyarrow.parquet as pq

    from flowc_runtime import formats
    from flowc_runtime.batches import ArrowItems, BatchRows

    schema = pa.schema([pa.field("id", pa.string(), nullable=False, metadata={"doc": "the key"}),
                        pa.field("n", pa.int32())])
    batches = [BatchRows(ArrowItems(pa.record_batch({"id": [f"a{i}"], "n": [i]}, schema=schema)), None, None, {},
                         lambda items: [output for _, output in items]) for i in range(3)]
    written = pq.read_table(pa.BufferReader(b"".join(formats.encode_batches(batches, "parquet")))).schema
    assert written.field("id").nullable is False and written.field("id").metadata == {b"doc": b"the key"}
    assert written.field("n").type == pa.int32()


def test_a_columnar_file_refuses_what_its_first_rows_cannot_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the first row group is written, its columns are the file's: a field first seen later,
    or values its column's type cannot hold without a change (a float in an int column, text in
    a column null so far) are an error naming the field (Invalid, exit 65), never dropped or
    truncated. Values that fit are converted (an int in a float column). CSV has no types: only
    its columns are fixed. Values no column holds together are named by their kinds, never by a
    value (a value may be a secret)."""
    from flowc_runtime import formats

    monkeypatch.setattr(formats, "ROW_GROUP_ROWS", 2)

    def write(batches: list[list[dict[str, Any]]], fmt: str = "parquet") -> bytes:
        return b"".join(formats.encode_batches(batches, fmt))

    first = [{"id": "a", "n": 1, "f": 0.5, "note": None}, {"id": "b", "n": 2, "f": 1.5, "note": None}]
    assert parquet_rows(write([first, [{"id": "c", "n": 3, "f": 7, "note": None}]]))[1][-1] == {
        "id": "c", "n": 3, "f": 7.0, "note": None}
    with pytest.raises(Invalid, match="output field `late` first appears after the file's first 2 rows"):
        write([first, [{"id": "c", "n": 3, "f": 1.0, "note": None, "late": 1}]])
    with pytest.raises(Invalid, match="output field `late` first appears"):
        write([first, [{"id": "c", "n": 3, "f": 1.0, "note": None, "late": 1}]], "csv")
    with pytest.raises(Invalid, match="output field `n`: values of type double do not fit the Parquet column of type int64"):
        write([first, [{"id": "c", "n": 3.5, "f": 1.0, "note": None}]])
    with pytest.raises(Invalid, match="output field `note`: values of type string do not fit the Parquet column of type null"):
        write([first, [{"id": "c", "n": 3, "f": 1.0, "note": "x"}]])
    assert write([first, [{"id": "c", "n": 3.5, "f": 1.0, "note": "x"}]], "csv").endswith(b'"c",3.5,1,"x"\n')
    # text is not parsed as a number, nor a record cast to one of other fields
    with pytest.raises(Invalid, match="output field `n`: values of type string"):
        write([first, [{"id": "c", "n": "3", "f": 1.0, "note": None}]])
    records = [{"id": "a", "r": {"x": 1}}, {"id": "b", "r": {"x": 2}}]
    with pytest.raises(Invalid, match="output field `r`"):
        write([records, [{"id": "c", "r": {"y": 3}}]])
    with pytest.raises(Invalid, match="output field `secret` holds values a parquet column cannot hold: int, str") as err:
        write([[{"secret": 1}, {"secret": "hunter2"}]])
    assert "hunter2" not in str(err.value)
    with pytest.raises(Invalid, match="output field `big` holds values a csv column cannot hold: int .*64 bits"):
        write([[{"big": 2 ** 70}]], "csv")
    with pytest.raises(Invalid, match="an output of format csv cannot hold these records"):
        write([[{"nested": {"x": 1}}]], "csv")


def test_a_files_write_of_records_its_file_cannot_hold_exits_65(tmp_path: Path) -> None:
    """Through the runtime: a Parquet sink whose transform gives a field after the file's first
    rows fails the attempt with exit 65 (no retry can help), naming the field; nothing is
    published."""
    seed(tmp_path, "a.jsonl", [{"id": f"r{i}"} for i in range(5)])
    out = Write(Endpoint("out", "files", {"path": "out/", "format": "parquet"}), "overwrite")
    env = env_for(tmp_path, out=f"file://{tmp_path}/files")
    env["FLOWC_BATCH_ROWS"] = "2"

    def late_field(ctx: Context) -> dict[str, Any]:
        return {"out": [{"id": r["id"], **({"late": 1} if r["id"] == "r4" else {})} for r in ctx.inputs["raw"]]}

    from flowc_runtime import formats

    before = formats.ROW_GROUP_ROWS
    formats.ROW_GROUP_ROWS = 2
    try:
        assert run(make_task((out,)), late_field, env) == 65
    finally:
        formats.ROW_GROUP_ROWS = before
    assert not (tmp_path / "files" / "out").exists() or not any((tmp_path / "files" / "out").iterdir())


def test_a_delta_write_streams_its_batches_into_one_commit(tmp_path: Path) -> None:
    """Delta: the batches are gathered to a temporary file, then committed once from it, a batch
    at a time: the table is what one write of all the records makes (every record's fields;
    a column int in one batch and float in a later one is float; a field missing from a batch is
    null), a `replace partition` by a record field deletes the partitions of every batch, and a
    conditional commit's `txn` must take one value across the batches."""
    deltalake = pytest.importorskip("deltalake")
    rows = [{"id": f"r{i}", "day": f"d{i % 3}", "amount": i if i < 4 else i + 0.5} for i in range(7)]
    rows[5] = {"id": "r5", "day": "d2"}  # no amount
    rows[6] = {"id": "r6", "day": "d0", "extra": 1}  # a batch of its own: no amount, a field the first lacks
    seed(tmp_path, "a.jsonl", rows)
    conn = f"file://{tmp_path}/files"
    append = Write(Endpoint("facts", "delta_table", {"location": "appended"}), "append")
    env = env_for(tmp_path, facts=conn)
    env["FLOWC_BATCH_ROWS"] = "2"
    real, given = deltalake.write_deltalake, []

    def spy(where: Any, data: Any, **kwargs: Any) -> Any:
        given.append(type(data).__name__)
        return real(where, data, **kwargs)

    deltalake.write_deltalake = spy
    try:
        assert run(make_task((append,)), lambda ctx: {"facts": ctx.inputs["raw"]}, env) == 0
    finally:
        deltalake.write_deltalake = real
    assert given == ["RecordBatchReader"]  # streamed, not one table
    table = deltalake.DeltaTable(str(tmp_path / "files" / "appended")).to_pyarrow_table()
    # every record's fields (`extra`, first seen in the last batch, is a column, null before it)
    everything = [{"id": r["id"], "day": r["day"], "amount": r.get("amount"), "extra": r.get("extra")} for r in rows]
    assert table.schema.names == ["id", "day", "amount", "extra"]
    assert table.schema.field("amount").type == pa.float64()
    assert sorted(table.to_pylist(), key=repr) == sorted(pa.Table.from_pylist(everything).to_pylist(), key=repr)
    assert len(deltalake.DeltaTable(str(tmp_path / "files" / "appended")).history()) == 1  # one commit

    replace = Write(Endpoint("facts", "delta_table", {"location": "parts"}), "replace_partition",
                    partition=Term("input_field", "day", column="day"))
    assert run(make_task((replace,)), lambda ctx: {"facts": ctx.inputs["raw"]}, env) == 0
    env2 = env_for(tmp_path, attempt=2, facts=conn)
    env2["FLOWC_BATCH_ROWS"] = "2"
    # a second run writes d0 and d2 only (from the first and last batches): d1 stays, d0 and d2 replaced
    again = [{"id": "n0", "day": "d0", "amount": 1.0}, {"id": "x", "day": "d1", "amount": 2.0},
             {"id": "n2", "day": "d2", "amount": 3.0}]
    assert run(make_task((replace,)), lambda ctx: {"facts": [again[0], again[2]]}, env2) == 0
    parts = deltalake.DeltaTable(str(tmp_path / "files" / "parts")).to_pyarrow_table().to_pylist()
    assert sorted((r["id"], r["day"]) for r in parts) == [("n0", "d0"), ("n2", "d2"), ("r1", "d1"), ("r4", "d1")]

    def by_day(ctx: Context) -> dict[str, Any]:
        return {"facts": ctx.inputs["raw"]}

    txn = Write(Endpoint("facts", "delta_table", {"location": "txn"}), "conditional_commit",
                txn=(Term("input_field", "day"),))
    env3 = env_for(tmp_path, facts=conn)
    env3["FLOWC_BATCH_ROWS"] = "2"
    assert run(make_task((txn,)), by_day, env3) == 65  # d0, d1 in the first batch: one batch, two ids
    env3["FLOWC_BATCH_ROWS"] = "1"
    assert run(make_task((txn,)), by_day, env3) == 65  # d0 then d1: two batches, two ids
    assert not (tmp_path / "files" / "txn" / "_delta_log").exists()


def test_a_delta_table_made_outside_flowc_takes_the_rows_in_its_own_column_types(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A Delta table another tool made, with a `decimal(10,2)` and an `int` column: the record
    API's decimals (38 digits wide) and integers are cast to them exactly (deltalake refused to
    merge the decimal: every attempt exit 70); a value the column cannot hold exactly (1.5 into
    the integer column, which deltalake truncated to 1; an amount beyond its 8 integer digits) is
    refused before the commit, exit 65, named by the column and its type, never by the value,
    and the table is left as it was. Also through a conditional commit."""
    deltalake = pytest.importorskip("deltalake")
    from decimal import Decimal

    schema = pa.schema([("id", pa.string()), ("amount", pa.decimal128(10, 2)), ("n", pa.int32())])
    made = tmp_path / "files" / "facts"
    deltalake.write_deltalake(str(made), pa.Table.from_pylist([], schema=schema))
    seed(tmp_path, "a.jsonl", [{"id": "a"}, {"id": "b"}])
    env = env_for(tmp_path, facts=f"file://{tmp_path}/files")
    append = Write(Endpoint("facts", "delta_table", {"location": "facts"}), "append")

    def rows(amount: Any, n: Any) -> Any:
        return lambda ctx: {"facts": [{"id": r["id"], "amount": amount, "n": n} for r in ctx.inputs["raw"]]}

    assert run(make_task((append,)), rows(Decimal("12.50"), 3), env) == 0
    table = deltalake.DeltaTable(str(made))
    assert sorted(table.to_pyarrow_table().to_pylist(), key=lambda r: r["id"]) == [
        {"id": "a", "amount": Decimal("12.50"), "n": 3}, {"id": "b", "amount": Decimal("12.50"), "n": 3}]
    assert pa.schema(table.schema().to_arrow()) == schema
    version = table.version()
    for amount, n, column in ((Decimal("12.50"), 1.5, "`n` (int32)"),
                              (Decimal("987654321.00"), 3, "`amount` (decimal128(10, 2))"),
                              (Decimal("1.005"), 3, "`amount` (decimal128(10, 2))")):
        capfd.readouterr()
        assert run(make_task((append,)), rows(amount, n), env) == 65
        err = capfd.readouterr().err
        assert f"column {column} cannot hold" in err and "nothing was committed" in err
        assert "987654" not in err and "1.005" not in err
        assert deltalake.DeltaTable(str(made)).version() == version
    txn = Write(Endpoint("facts", "delta_table", {"location": "facts"}), "conditional_commit")
    assert run(make_task((txn,)), rows(Decimal("0.25"), 7), env_for(tmp_path, attempt=2,
                                                                      facts=f"file://{tmp_path}/files")) == 0
    assert {(r["amount"], r["n"]) for r in deltalake.DeltaTable(str(made)).to_pyarrow_table().to_pylist()} == {
        (Decimal("12.50"), 3), (Decimal("0.25"), 7)}


def test_an_iceberg_write_streams_its_batches_into_one_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Iceberg: the batches are gathered to a temporary file, then committed once from it
    through a RecordBatchReader; a new table's schema holds every batch's types (a field null
    in the first batch and numbers later is a number column), a `replace partition` by a record
    field deletes the partitions of every batch, and a conditional commit's `txn` must take one
    value across the batches."""
    pytest.importorskip("pyiceberg")
    from pyiceberg.table import Transaction

    from flowc_runtime import iceberg

    rows = [{"id": f"r{i}", "day": f"d{i % 3}", "amount": None if i < 2 else i} for i in range(7)]
    seed(tmp_path, "a.jsonl", rows)
    lake = f"file://{tmp_path}/lake"
    given: list[str] = []
    real_append, real_overwrite = Transaction.append, Transaction.overwrite

    def append(self: Any, df: Any, *args: Any, **kwargs: Any) -> Any:
        given.append(type(df).__name__)
        return real_append(self, df, *args, **kwargs)

    def overwrite(self: Any, df: Any, *args: Any, **kwargs: Any) -> Any:
        given.append(type(df).__name__)
        return real_overwrite(self, df, *args, **kwargs)

    monkeypatch.setattr(Transaction, "append", append)
    monkeypatch.setattr(Transaction, "overwrite", overwrite)
    env = env_for(tmp_path, facts=lake)
    env["FLOWC_BATCH_ROWS"] = "2"
    appended = Write(Endpoint("facts", "iceberg_table", {"table": "ns.appended"}), "append")
    assert run(make_task((appended,)), lambda ctx: {"facts": ctx.inputs["raw"]}, env) == 0
    cat = iceberg.catalog(iceberg.locate(lake, "facts"))
    table = iceberg.load(cat, ("ns", "appended"))
    assert table is not None and len(table.snapshots()) == 1
    assert str(table.schema().find_field("amount").field_type) == "long"
    assert sorted(iceberg.read(table, None), key=lambda r: r["id"]) == rows
    assert given == ["RecordBatchReader"]

    # into the existing table, a field it has no column for: refused before the commit (exit 65),
    # not dropped (flowc does not change an Iceberg table's schema)
    extra = [{**r, "late": 1} if r["id"] == "r5" else r for r in rows]
    again_env = env_for(tmp_path, attempt=3, facts=lake)
    again_env["FLOWC_BATCH_ROWS"] = "2"
    assert run(make_task((appended,)), lambda ctx: {"facts": extra}, again_env) == 65
    kept = iceberg.load(cat, ("ns", "appended"))
    assert kept is not None and len(kept.snapshots()) == 1

    replace = Write(Endpoint("facts", "iceberg_table", {"table": "ns.parts"}), "replace_partition",
                    partition=Term("input_field", "day", column="day"))
    assert run(make_task((replace,)), lambda ctx: {"facts": ctx.inputs["raw"]}, env) == 0
    env2 = env_for(tmp_path, attempt=2, facts=lake)
    env2["FLOWC_BATCH_ROWS"] = "1"
    again = [{"id": "n0", "day": "d0", "amount": 1}, {"id": "n2", "day": "d2", "amount": 3}]
    assert run(make_task((replace,)), lambda ctx: {"facts": again}, env2) == 0
    parts = iceberg.read(iceberg.load(cat, ("ns", "parts")), None)
    assert sorted((r["id"], r["day"]) for r in parts) == [("n0", "d0"), ("n2", "d2"), ("r1", "d1"), ("r4", "d1")]

    txn = Write(Endpoint("facts", "iceberg_table", {"table": "ns.txn"}), "conditional_commit",
                txn=(Term("input_field", "day"),))
    env3 = env_for(tmp_path, facts=lake)
    env3["FLOWC_BATCH_ROWS"] = "1"
    assert run(make_task((txn,)), lambda ctx: {"facts": ctx.inputs["raw"]}, env3) == 65  # d0, then d1
    assert iceberg.load(cat, ("ns", "txn")) is None


def test_an_iceberg_table_made_outside_flowc_refuses_what_its_columns_cannot_hold_exactly(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """An Iceberg table another tool made with an `int` and a `decimal(10,2)` column: a value
    the column cannot hold exactly (1.5 into the integer column, which Arrow truncated to 1; an
    amount with three decimals) is refused before the commit, exit 65 (it was 70: the refusal
    came after the attempt had marked a commit as possibly made), named by column and type; the
    table keeps its one snapshot. Also through a conditional commit."""
    pytest.importorskip("pyiceberg")
    from decimal import Decimal

    from flowc_runtime import iceberg

    lake = f"file://{tmp_path}/lake"
    cat = iceberg.catalog(iceberg.locate(lake, "facts"))
    iceberg.ensure_table(cat, ("ns", "made"), [],
                         pa.schema([("id", pa.string()), ("price", pa.decimal128(10, 2)), ("n", pa.int32())]))
    seed(tmp_path, "a.jsonl", [{"id": "a"}])
    env = env_for(tmp_path, facts=lake)

    def rows(price: Any, n: Any) -> Any:
        return lambda ctx: {"facts": [{"id": r["id"], "price": price, "n": n} for r in ctx.inputs["raw"]]}

    for mode in ("append", "conditional_commit"):
        write = Write(Endpoint("facts", "iceberg_table", {"table": "ns.made"}), mode)
        for price, n, column in ((Decimal("2.50"), 1.5, "`n` (int32)"), (Decimal("1.005"), 2, "`price` (decimal128(10, 2))")):
            capfd.readouterr()
            assert run(make_task((write,)), rows(price, n), env) == 65
            err = capfd.readouterr().err
            assert f"column {column} cannot hold" in err and "nothing was committed" in err
            assert "1.005" not in err
        table = iceberg.load(cat, ("ns", "made"))
        assert table is not None and not table.snapshots() and not iceberg.read(table, None)
    append = Write(Endpoint("facts", "iceberg_table", {"table": "ns.made"}), "append")
    assert run(make_task((append,)), rows(Decimal("2.5"), 2.0), env) == 0
    assert iceberg.read(iceberg.load(cat, ("ns", "made")), None) == [{"id": "a", "price": Decimal("2.50"), "n": 2}]


@pytest.mark.parametrize("kind", ["delta_table", "iceberg_table"])
def test_a_delta_or_iceberg_source_is_read_batch_by_batch_at_its_pin(
        tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Delta or Iceberg source is read a batch at a time, as files and SQL tables are: the
    table was read whole into a list of dicts (200,000 rows: tens of MB of Python objects
    before the transform ran). The batch API sees batches of at most FLOWC_BATCH_ROWS rows; the
    record API every row; both at the pinned version (a commit after the pin is not read), and a
    second pass over the input reads the same rows."""
    import tracemalloc

    n = 200_000
    table = pa.table({"id": pa.array(range(n), pa.int64()), "name": pa.array([f"n{i}" for i in range(n)])})
    later = pa.table({"id": pa.array([-1], pa.int64()), "name": pa.array(["after the pin"])})
    if kind == "delta_table":
        deltalake = pytest.importorskip("deltalake")
        where = str(tmp_path / "lake" / "src")
        deltalake.write_deltalake(where, table)
        source = Endpoint("src", kind, {"location": "src"})

        def commit_later() -> None:
            deltalake.write_deltalake(where, later, mode="append")
    else:
        pytest.importorskip("pyiceberg")
        from flowc_runtime import iceberg

        cat = iceberg.catalog(iceberg.locate(f"file://{tmp_path}/lake", "src"))
        made = iceberg.ensure_table(cat, ("ns", "src"), [], table.schema)
        made.append(table)
        source = Endpoint("src", kind, {"table": "ns.src"})

        def commit_later() -> None:
            found = iceberg.load(cat, ("ns", "src"))
            assert found is not None
            found.append(later)
    seen: dict[str, Any] = {}

    def transform(ctx: Context) -> dict[str, Any]:
        commit_later()  # after the pin: not read
        sizes = [b.num_rows for b in ctx.inputs["src"].batches()]  # type: ignore[attr-defined]
        total, ids = 0, 0
        for record in ctx.inputs["src"]:
            total, ids = total + 1, ids + record["id"]
        seen.update(sizes=sizes, total=total, ids=ids)
        return {}

    env = env_for(tmp_path, src=f"file://{tmp_path}/lake")
    env["FLOWC_BATCH_ROWS"] = "5000"
    reads = (Read(source, immutable=False, pin="version" if kind == "delta_table" else "snapshot"),)
    tracemalloc.start()
    try:
        assert run(make_task((), reads), transform, env) == 0
        seen["peak"] = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sum(seen["sizes"]) == n and max(seen["sizes"]) <= 5000 and len(seen["sizes"]) >= n // 5000
    assert (seen["total"], seen["ids"]) == (n, n * (n - 1) // 2)
    # a batch of records at a time: far below the 200,000 records' dicts (about 60 MB of
    # Python objects when the table was read whole; 2 to 7 MB batch by batch, imports included)
    assert seen["peak"] < 20 * 2**20, seen["peak"]

    # unpinned: the version current when the attempt reads; the commit the transform makes
    # meanwhile is not seen by its second pass either
    seen.clear()
    unpinned = (Read(source, immutable=False, pin=None),)
    assert run(make_task((), unpinned), transform, env_for(tmp_path, 2, src=f"file://{tmp_path}/lake")) == 0
    assert seen["total"] == sum(seen["sizes"]) == n + 1  # the first commit_later's row, not the second's


# --- the progress line --------------------------------------------------------------------------


def test_the_progress_line_comes_every_few_seconds_not_every_batch() -> None:
    now = {"t": 0.0}
    lines: list[str] = []
    progress = Progress(5.0, lines.append, clock=lambda: now["t"])
    for _ in range(100):  # 100 batches within 4 seconds: no line
        now["t"] += 0.04
        progress.rows_read(10)
        progress.batch_written(10)
    assert lines == []
    now["t"] = 5.5
    progress.batch_written(10)
    progress.batch_written(10)  # at the same instant: still one line
    assert len(lines) == 1
    assert lines[0].startswith("progress: 1000 row(s) read, 1010 row(s) written, 101 batch(es) in 5.5 s")


def test_the_progress_line_reaches_the_task_log(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    seed(tmp_path, "a.jsonl", [{"id": f"r{i}", "amount": i} for i in range(5)])
    env = env_for(tmp_path, out=f"sqlite://{tmp_path}/db.sqlite")
    env["FLOWC_BATCH_ROWS"] = "2"
    env["FLOWC_PROGRESS_SECONDS"] = "0"
    assert run(make_task((upsert(),)), lambda ctx: {"out": ctx.inputs["raw"]}, env) == 0
    err = capfd.readouterr().err
    assert "flowc: progress: 5 row(s) read, 4 row(s) written, 2 batch(es)" in err
    del env["FLOWC_PROGRESS_SECONDS"]
    assert run(make_task((upsert(),)), lambda ctx: {"out": ctx.inputs["raw"]}, env) == 0
    assert "progress:" not in capfd.readouterr().err


# --- correctness at volume: a crash after some batches, then a retry ----------------------------

CRASHING_TASK = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {runtime!r})
    import flowc_runtime.hooks as hooks
    from flowc_runtime import Endpoint, Read, Task, Term, Write, main

    staged = {{"n": 0}}

    def step(name):
        if name == "mid_batch" and os.environ.get("CRASH_AT_BATCH"):
            staged["n"] += 1
            if staged["n"] == int(os.environ["CRASH_AT_BATCH"]):
                os.kill(os.getpid(), signal.SIGKILL)

    hooks.step = step
    read = Read(Endpoint("raw", "files", {{"path": "in/"}}), immutable=True, pin="listing", identity=("id",))
    write = Write(Endpoint("out", {kind!r}, {{"table": "o"}}), "upsert", key=(Term("input_field", "id"),),
                  primary_key=("id",))
    # the crash comes inside the commit phase: `retry` lets attempt 2 go on
    task = Task("p", "t", "@daily", "UTC", False, (read,), (write,), (), on_ambiguous="retry")

    def transform(ctx):
        return {{"out": ({{"id": r["id"], "amount": r["amount"], "name": r["name"]}} for r in ctx.inputs["raw"])}}

    main(task, transform)
""")


def volume(tmp: Path, kind: str, url: str) -> list[tuple[Any, ...]]:
    """Load FLOWC_VOLUME_ROWS rows (a key in 10 appearing twice, the later one wins), crash
    after half the batches, retry; return the input's expected final rows."""
    total = int(os.environ.get("FLOWC_VOLUME_ROWS") or "1000000")
    folder = tmp / "files" / "in"
    folder.mkdir(parents=True)
    expected: dict[str, tuple[str, int, str]] = {}
    with (folder / "a.jsonl").open("w") as out:
        for i in range(total):
            key = f"k{i // 2}" if i % 10 in (0, 1) else f"k{i}"
            name = f"n{i % 97}"
            out.write(json.dumps({"id": key, "amount": i, "name": name}) + "\n")
            expected[key] = (key, i, name)
    script = tmp / "volume_task.py"
    script.write_text(CRASHING_TASK.format(runtime=str(RUNTIME), kind=kind))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_"))}
    env.update(env_for(tmp, out=url))
    env["FLOW_CONN_RAW"] = f"file://{tmp}/files"
    if kind == "postgres_table":
        env["FLOWC_STATE"] = url
    batches = max(1, total // DEFAULT_BATCH_ROWS)
    first = subprocess.run([sys.executable, str(script)], env={**env, "CRASH_AT_BATCH": str(max(1, batches // 2))},
                           cwd=tmp, capture_output=True, text=True, check=False)
    assert first.returncode == -signal.SIGKILL, first.stderr
    retry = subprocess.run([sys.executable, str(script)], env={**env, "FLOW_ATTEMPT": "2"}, cwd=tmp,
                           capture_output=True, text=True, check=False)
    assert retry.returncode == 0, retry.stderr
    return sorted(expected.values())


def test_a_million_rows_crash_midway_then_retry_sqlite(tmp_path: Path) -> None:
    url = f"sqlite://{tmp_path}/db.sqlite"
    expected = volume(tmp_path, "sqlite_table", url)
    assert sqlite_rows(tmp_path, "SELECT id, amount, name FROM o ORDER BY id") == expected


@PG
def test_a_million_rows_crash_midway_then_retry_postgres(tmp_path: Path) -> None:
    import psycopg

    base, schema, url = pg_schema()
    try:
        expected = volume(tmp_path, "postgres_table", url)
        with psycopg.connect(url, autocommit=True) as c:
            got = c.execute("SELECT id, amount, name FROM o ORDER BY id COLLATE \"C\"").fetchall()
        assert got == expected
    finally:
        pg_drop(base, schema)


# an integer column that gets a float, then text; a boolean column that gets a number
WIDENED: list[dict[str, Any]] = [
    {"id": "r0", "amount": 0, "flag": True}, {"id": "r1", "amount": 1, "flag": False},
    {"id": "r2", "amount": 2.5, "flag": True}, {"id": "r3", "amount": 3, "flag": 3},
    {"id": "r4", "amount": "n/a", "flag": None}, {"id": "r5", "amount": None, "flag": False},
]


@pytest.mark.parametrize("kind", ["sqlite_table", pytest.param("postgres_table", marks=PG)])
@pytest.mark.parametrize("mode", ["upsert", "append", "append_ledger", "replace_partition"])
def test_a_table_this_write_makes_keeps_every_later_value(tmp_path: Path, kind: str, mode: Any) -> None:
    """PostgreSQL: a table the write creates is typed from its first rows (`amount` BIGINT,
    `flag` BOOLEAN); a later float widens the column to DOUBLE PRECISION, later text to TEXT,
    inside the write's transaction, the staging table's column with it: every value kept
    (before, the write failed with exit 75 at every attempt). SQLite keeps any value as it is."""
    seed(tmp_path, "a.jsonl", WIDENED)
    if kind == "postgres_table":
        base, schema, url = pg_schema()
    else:
        url = f"sqlite://{tmp_path}/db.sqlite"
    try:
        write = Write(Endpoint("out", kind, {"table": "o"}), mode, key=(Term("input_field", "id"),),
                      primary_key=("id",) if mode == "upsert" else None,
                      partition=Term("input_field", "id") if mode == "replace_partition" else None)
        env = env_for(tmp_path, 1, out=url)
        env["FLOWC_STATE"] = url
        env["FLOWC_BATCH_ROWS"] = "2"
        assert run(make_task((write,)), lambda ctx: {"out": ctx.inputs["raw"]}, env) == 0
        from flowc_runtime.sql import Database

        db = Database(url)
        try:
            got = {row[0]: row[1:] for row in db.query('SELECT "id", "amount", "flag" FROM o')}
        finally:
            db.close()
    finally:
        if kind == "postgres_table":
            pg_drop(base, schema)
    assert set(got) == {r["id"] for r in WIDENED}
    for record in WIDENED:
        amount, flag = got[record["id"]]
        want = record["amount"]
        assert (amount is None) == (want is None)
        if want is not None:
            assert amount == want if isinstance(want, str) else float(amount) == want  # nothing rounded
        assert (flag is None) == (record["flag"] is None)
        if record["flag"] is not None:  # a boolean, or its text (PostgreSQL's `true` or `t`), or the number
            texts = {True: {"true", "t", "1"}, False: {"false", "f", "0"}}
            assert str(flag).lower() in texts.get(record["flag"], {str(record["flag"])})


@PG
def test_a_value_an_existing_postgresql_table_refuses_exits_65(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A value the user's column cannot hold (text in a BIGINT column, a null in a NOT NULL one)
    fails every attempt alike: exit 65, naming the column, never the value (it was exit 75 with
    PostgreSQL's message, the value in it, retried)."""
    import psycopg

    base, schema, url = pg_schema()
    try:
        with psycopg.connect(url, autocommit=True) as c:
            c.execute("CREATE TABLE o (id TEXT PRIMARY KEY, amount BIGINT NOT NULL)")
        for amount in ("hunter2", None):
            seed(tmp_path, "a.jsonl", [{"id": "r0", "amount": 1}, {"id": "r1", "amount": amount}])
            env = env_for(tmp_path, 1, out=url)
            env["FLOWC_STATE"] = url
            assert run(make_task((upsert("postgres_table"),)), lambda ctx: {"out": ctx.inputs["raw"]}, env) == 65
            err = capfd.readouterr().err
            assert "the database refused a value of column `amount`" in err and "hunter2" not in err, err
            with psycopg.connect(url) as c:
                assert c.execute("SELECT COUNT(*) FROM o").fetchone() == (0,)
    finally:
        pg_drop(base, schema)


@PG
@pytest.mark.parametrize("mode", ["upsert", "insert_if_absent", "append", "append_ledger", "replace_partition"])
def test_an_existing_postgresql_array_column_takes_a_list_as_its_array(tmp_path: Path, mode: str) -> None:
    """A user's `text[]` and `integer[]` columns take a record's lists as arrays (they were sent
    as JSON text, which the array column refused: exit 65 at every attempt); a `jsonb` column
    beside them still takes a list as JSON, and a table flowc creates holds a list as JSON text."""
    import psycopg

    base, schema, url = pg_schema()
    try:
        with psycopg.connect(url, autocommit=True) as c:
            c.execute("CREATE TABLE o (id TEXT PRIMARY KEY, day TEXT, tags TEXT[], n INTEGER[], doc JSONB)")
        seed(tmp_path, "a.jsonl", [{"id": "a", "day": "d1", "tags": ["x", "y,z", 'q"'], "n": [1, 2], "doc": [1, "a"]},
                                   {"id": "b", "day": "d1", "tags": [], "n": None, "doc": {"k": [None]}}])
        kwargs: dict[str, Any] = {"key": (Term("input_field", "id"),), "primary_key": ("id",)}
        if mode == "replace_partition":
            kwargs = {"partition": Term("input_field", "day", column="day")}
        elif mode == "append":
            kwargs = {}
        write = Write(Endpoint("out", "postgres_table", {"table": "o"}), mode, **kwargs)  # type: ignore[arg-type]
        env = env_for(tmp_path, 1, out=url)
        env["FLOWC_BATCH_ROWS"] = "1"
        assert run(make_task((write,)), lambda ctx: {"out": ctx.inputs["raw"]}, env) == 0
        with psycopg.connect(url) as c:
            assert c.execute("SELECT id, tags, n, doc FROM o ORDER BY id").fetchall() == [
                ("a", ["x", "y,z", 'q"'], [1, 2], [1, "a"]), ("b", [], None, {"k": [None]})]
    finally:
        pg_drop(base, schema)


@PG
def test_a_field_an_existing_postgresql_table_has_no_column_for_is_exit_65(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """PostgreSQL too (whose quoted names keep their case: `V` is not the column `v`): exit 65
    naming the fields, where `COPY` failed with the database's error at every attempt (exit 75)."""
    import psycopg

    base, schema, url = pg_schema()
    try:
        with psycopg.connect(url, autocommit=True) as c:
            c.execute("CREATE TABLE o (id TEXT PRIMARY KEY, v INTEGER)")
        seed(tmp_path, "a.jsonl", [{"id": "a", "V": 1, "extra": "x"}])
        env = env_for(tmp_path, 1, out=url)
        assert run(make_task((upsert("postgres_table"),)), lambda ctx: {"out": ctx.inputs["raw"]}, env) == 65
        err = capfd.readouterr().err
        assert "output fields `V`, `extra` are not columns of `o`" in err and "Traceback" not in err, err
    finally:
        pg_drop(base, schema)


@PG
@pytest.mark.parametrize("mode", ["append", "upsert"])
def test_a_nul_character_postgresql_text_cannot_hold_is_exit_65(tmp_path: Path, mode: str,
                                                                capfd: pytest.CaptureFixture[str]) -> None:
    """A text value holding a NUL character (`\\x00`, as a binary field decoded as text carries):
    PostgreSQL's text cannot store it and psycopg refuses to send it, the same at every attempt:
    exit 65 saying so (it was exit 75 with a traceback, retried forever)."""
    base, schema, url = pg_schema()
    try:
        seed(tmp_path, "a.jsonl", [{"id": "a", "v": "nul\u0000byte"}])
        env = env_for(tmp_path, 1, out=url)
        write = upsert("postgres_table") if mode == "upsert" else Write(
            Endpoint("out", "postgres_table", {"table": "o"}), "append")
        assert run(make_task((write,)), lambda ctx: {"out": ctx.inputs["raw"]}, env) == 65
        err = capfd.readouterr().err
        assert "cannot store a text value that holds a NUL character" in err and "Traceback" not in err, err
    finally:
        pg_drop(base, schema)


@PG
@pytest.mark.parametrize("mode", ["upsert", "insert_if_absent", "append"])
@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
def test_a_zoned_datetime_into_a_postgresql_timestamp_column_is_its_session_wall_time(
        tmp_path: Path, mode: str, zone: str) -> None:
    """A user's `timestamp` column (without time zone) and a zoned datetime (10:00+02:00, a
    Parquet `timestamp[us, tz=...]`): every mode stores what an `INSERT` stores, the instant's
    wall time in the session's zone (08:00 in UTC, 03:00 in New York); `COPY` dropped the
    offset and stored 10:00, two hours off in a UTC session. A `timestamptz` column keeps the
    instant either way."""
    import datetime as dt

    import psycopg

    base, schema, url = pg_schema()
    url += f"%20-ctimezone%3D{zone.replace('/', '%2F')}"
    try:
        with psycopg.connect(url, autocommit=True) as c:
            c.execute("CREATE TABLE o (id TEXT PRIMARY KEY, at TIMESTAMP, zoned TIMESTAMPTZ)")
        when = dt.datetime(2026, 1, 1, 10, tzinfo=dt.timezone(dt.timedelta(hours=2)))
        seed(tmp_path, "a.jsonl", [{"id": "x"}])
        kwargs: dict[str, Any] = {"key": (Term("input_field", "id"),), "primary_key": ("id",)} if mode != "append" else {}
        write = Write(Endpoint("out", "postgres_table", {"table": "o"}), mode, **kwargs)  # type: ignore[arg-type]
        rows = [{"id": "a", "at": when, "zoned": when}, {"id": "b", "at": dt.datetime(2026, 1, 1, 10), "zoned": None}]
        assert run(make_task((write,)), lambda ctx: {"out": rows}, env_for(tmp_path, 1, out=url)) == 0
        wall = "2026-01-01 08:00:00" if zone == "UTC" else "2026-01-01 03:00:00"
        with psycopg.connect(url) as c:
            assert c.execute("SELECT id, at::text, zoned = %s FROM o ORDER BY id", (when,)).fetchall() == [
                ("a", wall, True), ("b", "2026-01-01 10:00:00", None)]
    finally:
        pg_drop(base, schema)


@PG
@pytest.mark.parametrize("mode", ["upsert", "insert_if_absent", "append", "append_ledger"])
def test_an_existing_postgresql_integer_column_takes_whole_floats_and_refuses_fractions(
        tmp_path: Path, mode: str, capfd: pytest.CaptureFixture[str]) -> None:
    """A user's INTEGER column and floats in the output (a JSON `2.0`, a pandas column with
    nulls, a decimal `2.00`): a whole number is stored as its integer, by `COPY` as by `INSERT`
    (`COPY` refused the text `2.0`: every attempt exit 65); a fraction is refused alike, exit 65,
    nothing written (the `INSERT` of `insert_if_absent` rounded 1.5 to 2)."""
    import psycopg

    base, schema, url = pg_schema()
    try:
        with psycopg.connect(url, autocommit=True) as c:
            c.execute("CREATE TABLE o (id TEXT PRIMARY KEY, n INTEGER, m BIGINT)")
        kwargs: dict[str, Any] = {"key": (Term("input_field", "id"),), "primary_key": ("id",)}
        write = Write(Endpoint("out", "postgres_table", {"table": "o"}), mode,  # type: ignore[arg-type]
                      **(kwargs if mode != "append" else {}))
        rows = [{"id": "a", "n": 2.0, "m": Decimal("3.00")}, {"id": "b", "n": None, "m": 4}]
        seed(tmp_path, "a.jsonl", [{"id": "x"}])  # (the transform's rows are its own)
        env = env_for(tmp_path, 1, out=url)
        assert run(make_task((write,)), lambda ctx: {"out": rows}, env) == 0
        with psycopg.connect(url) as c:
            assert c.execute("SELECT id, n, m FROM o ORDER BY id").fetchall() == [("a", 2, 3), ("b", None, 4)]
        capfd.readouterr()
        late = [{"id": "c", "n": 7, "m": 1.5}]
        assert run(make_task((write,)), lambda ctx: {"out": late}, {**env, "FLOW_RUN_ID": "r2"}) == 65
        err = capfd.readouterr().err
        assert "column `m` of `o` is an integer column: the output holds a number with a fraction" in err, err
        with psycopg.connect(url) as c:
            assert c.execute("SELECT COUNT(*) FROM o").fetchone() == (2,)
    finally:
        pg_drop(base, schema)


@PG
@pytest.mark.parametrize("mode", ["append", "overwrite", "replace_partition", "transactional", "upsert"])
def test_a_postgresql_write_of_many_batches_is_one_copy(tmp_path: Path, mode: Any,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The write's batches go through one `COPY`, open from batch to batch: no statement between
    two batches ends it (a `replace partition` of the interval's one partition checked, for
    every batch, whether the table existed: a `COPY` per batch, 1M rows in 3.9 s against 2.0)."""
    from flowc_runtime.sql import Database

    seed(tmp_path, "a.jsonl", [{"id": f"r{i}", "amount": i} for i in range(50)])
    opened: list[Any] = []  # (held, so that no two streams share an id)
    real = Database.copy_stream

    def spy(self: Database, *args: Any, **kwargs: Any) -> Any:
        stream = real(self, *args, **kwargs)
        if not any(stream is seen for seen in opened):
            opened.append(stream)
        return stream

    monkeypatch.setattr(Database, "copy_stream", spy)
    base, schema, url = pg_schema()
    try:
        part = Term("interval_start", column="day") if mode == "replace_partition" else None
        write = Write(Endpoint("out", "postgres_table", {"table": "o"}), mode, key=(Term("input_field", "id"),),
                      primary_key=("id",) if mode == "upsert" else None, partition=part)
        env = env_for(tmp_path, 1, out=url)
        env["FLOWC_STATE"] = url
        env["FLOWC_BATCH_ROWS"] = "5"
        assert run(make_task((write,)), lambda ctx: {"out": ctx.inputs["raw"]}, env) == 0
    finally:
        pg_drop(base, schema)
    assert len(opened) == 1, f"{len(opened)} COPY statements for ten batches"


@pytest.mark.parametrize("kind", ["delta_table", "iceberg_table", "files"])
def test_a_later_day_s_larger_decimals_fit_the_table_the_first_day_made(tmp_path: Path, kind: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The record API's decimals (a Parquet decimal column, a database's numeric) were typed by
    their batch's digits (1.25: `decimal128(3, 2)`), so the table the first day made could not
    take a later day's 123456789.25: Delta refused to merge the schemas and Iceberg to convert
    the value, at every attempt (exit 70); a Parquet file refused a later row group's. Now each
    decimal column is 38 digits wide, its scale kept."""
    import datetime as dt
    from decimal import Decimal

    import pyarrow.parquet as pq

    if kind == "iceberg_table":
        pytest.importorskip("pyiceberg")
    from flowc_runtime import formats

    monkeypatch.setattr(formats, "ROW_GROUP_ROWS", 2)
    days = [["1.25", "2.50"], ["123456789.25", "3.10", "7.00", "99999999999999.99"]]
    for k, values in enumerate(days):
        start = dt.datetime(2026, 1, 1 + k, tzinfo=dt.UTC)
        folder = tmp_path / "files" / "in" / start.strftime("%Y-%m-%dT%H:%M:%SZ")
        folder.mkdir(parents=True)
        pq.write_table(pa.table({"id": [f"k{k}{i}" for i in range(len(values))],
                                 "price": pa.array([Decimal(v) for v in values], pa.decimal128(16, 2))}),
                       folder / "a.parquet")
    if kind == "files":  # one file of both days' rows, in row groups of two
        write = Write(Endpoint("out", "files", {"path": "o/", "format": "parquet"}), "overwrite")
        url = f"file://{tmp_path}/out"
        folders = [tmp_path / "files" / "in" / "2026-01-01T00:00:00Z", tmp_path / "files" / "in" / "2026-01-02T00:00:00Z"]
        read = Read(Endpoint("raw", "files", {"path": "in/"}), immutable=True, pin="listing", identity=("id",))
        env = env_for(tmp_path, out=url)
        env["FLOWC_BATCH_ROWS"] = "1"
        assert all(f.exists() for f in folders)
        assert run(make_task((write,), reads=(read,)), lambda ctx: {"out": ctx.inputs["raw"]}, env) == 0
        table = pq.read_table(next((tmp_path / "out" / "o").glob("*.parquet")))
        assert table.schema.field("price").type == pa.decimal128(38, 2)
        assert sorted(map(str, table.column("price").to_pylist())) == sorted(days[0] + days[1])
        return
    if kind == "delta_table":
        write = Write(Endpoint("out", kind, {"location": "d"}), "append")
        url = f"file://{tmp_path}/files"
    else:
        write = Write(Endpoint("out", kind, {"table": "ns.t"}), "append")
        url = f"file://{tmp_path}/lake"
    for k in range(2):
        env = env_for(tmp_path, out=url)
        env.update({"FLOW_INTERVAL_START": f"2026-01-0{k + 1}T00:00:00Z", "FLOW_INTERVAL_END": f"2026-01-0{k + 2}T00:00:00Z",
                    "FLOW_RUN_ID": f"r{k}", "FLOWC_BATCH_ROWS": "1"})
        assert run(make_task((write,)), lambda ctx: {"out": ctx.inputs["raw"]}, env) == 0, k
    if kind == "delta_table":
        import deltalake

        got = deltalake.DeltaTable(str(tmp_path / "files" / "d")).to_pyarrow_table()
    else:
        from flowc_runtime import iceberg

        table = iceberg.load(iceberg.catalog(iceberg.locate(url, "out")), ("ns", "t"))
        assert table is not None
        got = table.scan().to_arrow()
    assert got.schema.field("price").type == pa.decimal128(38, 2)
    assert sorted(map(str, got.column("price").to_pylist())) == sorted(days[0] + days[1])


def test_a_value_an_iceberg_table_s_column_cannot_hold_is_exit_65_naming_the_column(tmp_path: Path) -> None:
    """An existing Iceberg table's column too narrow for a value (a decimal of more digits) is
    the same at every attempt: `Invalid` (exit 65) naming the column and its type, never the
    value (it was pyarrow's error, exit 70). The near miss: a value that fits."""
    pytest.importorskip("pyiceberg")
    from decimal import Decimal

    from flowc_runtime import iceberg
    from flowc_runtime.context import Invalid

    cat = iceberg.catalog(iceberg.locate(f"file://{tmp_path}/lake", "out"))
    made = iceberg.ensure_table(cat, ("ns", "t"), [], pa.schema([("id", pa.string()), ("price", pa.decimal128(5, 2))]))
    assert iceberg.arrow([{"id": "a", "price": Decimal("123.45")}], made).column("price").to_pylist() == [
        Decimal("123.45")]
    with pytest.raises(Invalid, match=r"column `price` \(decimal128\(5, 2\)\) cannot hold") as caught:
        iceberg.arrow([{"id": "a", "price": Decimal("987654.31")}], made)
    assert "987654" not in str(caught.value)


def test_a_json_output_writes_bytes_as_base64() -> None:
    """JSON has no bytes: a binary value (a Parquet binary column) is its base64 text, as Spark
    and BigQuery write it, not Python's `b'...'`; a datetime and a decimal stay their text."""
    import datetime as dt
    from decimal import Decimal

    from flowc_runtime.formats import encode, encode_batches

    rows: list[dict[str, Any]] = [{"b": b"\x00\x01\xff", "d": Decimal("1.50"), "t": dt.datetime(2026, 1, 1, 9, 30)},
                                  {"b": None}]
    want = '{"b": "AAH/", "d": "1.50", "t": "2026-01-01 09:30:00"}\n{"b": null}\n'
    assert encode(rows, "jsonl").decode() == want
    assert b"".join(encode_batches([rows[:1], rows[1:]], "jsonl")).decode() == want
    assert json.loads(encode(rows, "json"))[0]["b"] == "AAH/"
