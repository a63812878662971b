"""The `files` runtime on an object store (a real S3-protocol server, s3s-fs, started here on a
free 127.0.0.1 port) and its file formats (Parquet, CSV, JSON Lines, JSON) there and in local
folders.

The server: FLOWC_S3_SERVER names the s3s-fs binary (scripts/install-s3-server prints it);
without it the object-store tests skip, unless FLOWC_REQUIRE_S3 is set (scripts/e2e/objectstore
sets both), when they fail.
"""

from __future__ import annotations

import io
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "templates" / "python"))

from flowc_runtime import Endpoint, Read, Task, Term, Write, run  # noqa: E402
from flowc_runtime.context import Context  # noqa: E402
from flowc_runtime.spec import Ready  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DAY = ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")
KEY, SECRET, BUCKET = "flowc-test-key", "flowc-test-secret", "lake"
ROWS = [{"id": "a", "amount": 1}, {"id": "b", "amount": 2}]


@dataclass
class S3:
    endpoint: str
    data: Path  # the server's root folder: one folder per bucket

    def conn(self, prefix: str = "") -> str:
        """A connection URL that carries the store's settings (the declaration's connection)."""
        return (f"s3://{BUCKET}/{prefix}?endpoint={self.endpoint}&region=us-east-1"
                f"&access_key_id={KEY}&secret_access_key={SECRET}")

    def store(self) -> Any:
        from obstore.store import S3Store

        return S3Store(BUCKET, endpoint=self.endpoint, region="us-east-1", access_key_id=KEY,
                       secret_access_key=SECRET, client_options={"allow_http": True})

    def put(self, key: str, data: bytes) -> None:
        import obstore

        obstore.put(self.store(), key, data)

    def keys(self, prefix: str) -> list[str]:
        import obstore

        return sorted(str(m["path"]) for chunk in obstore.list(self.store(), prefix) for m in chunk)

    def get(self, key: str) -> bytes:
        import obstore

        return bytes(obstore.get(self.store(), key).bytes())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3]:
    binary = os.environ.get("FLOWC_S3_SERVER")
    if not binary:
        if os.environ.get("FLOWC_REQUIRE_S3"):
            pytest.fail("FLOWC_REQUIRE_S3 is set but FLOWC_S3_SERVER names no s3s-fs binary")
        pytest.skip("FLOWC_S3_SERVER is not set (scripts/install-s3-server installs s3s-fs)")
    data = tmp_path_factory.mktemp("s3data")
    (data / BUCKET).mkdir()
    port = free_port()
    log = (data.parent / "s3s-fs.log").open("wb")
    server = subprocess.Popen(
        [binary, "--host", "127.0.0.1", "--port", str(port), "--access-key", KEY, "--secret-key", SECRET,
         str(data)], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"s3s-fs did not start on 127.0.0.1:{port} (see {log.name})")
                time.sleep(0.05)
        yield S3(f"http://127.0.0.1:{port}", data)
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()


def env_for(tmp: Path, attempt: int = 1, **conns: str) -> dict[str, str]:
    env = {
        "FLOW_PIPELINE": "p",
        "FLOW_TASK": "t",
        "FLOW_INTERVAL_START": DAY[0],
        "FLOW_INTERVAL_END": DAY[1],
        "FLOW_RUN_ID": "run-1",
        "FLOW_ATTEMPT": str(attempt),
        "FLOWC_STATE": f"sqlite://{tmp}/state.sqlite",
        "FLOW_CONN_OUT": f"sqlite://{tmp}/db.sqlite",
    }
    env.update({f"FLOW_CONN_{k.upper()}": v for k, v in conns.items()})
    return env


def source(path: str = "in/{interval.date}/", fmt: str | None = None, fields: tuple[str, ...] | None = None,
           ready: Ready | None = None, marker: str | None = None) -> Read:
    params: dict[str, Any] = {"path": path}
    if fmt is not None:
        params["format"] = fmt
    return Read(Endpoint("raw", "files", params, fields=fields), immutable=True, pin="listing",
                identity=("id",), ready=ready, ready_marker=marker)


def to_sqlite(*reads: Read) -> Task:
    write = Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert", key=(Term("input_field", "id"),),
                  primary_key=("id",))
    return Task("p", "t", "@daily", "UTC", False, reads or (source(),), (write,), ())


def identity(ctx: Context) -> dict[str, Any]:
    rows = [r for name in ("raw", "other") for r in ctx.inputs.get(name, [])]
    return {"out": [(r, dict(r)) for r in rows], "lake_out": [(r, dict(r)) for r in rows]}


def rows_of(tmp: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(tmp / "db.sqlite")
    try:
        return sorted(conn.execute('SELECT id, amount FROM "o"').fetchall())
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def pins_of(tmp: Path) -> list[Any]:
    conn = sqlite3.connect(tmp / "state.sqlite")
    try:
        return [json.loads(v) for (v,) in conn.execute("SELECT value FROM flowc_pins").fetchall()]
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def encoded(rows: list[dict[str, Any]], fmt: str) -> bytes:
    """`rows` as a file of `fmt`, made here without the runtime (pyarrow or json)."""
    if fmt == "parquet":
        sink = io.BytesIO()
        pq.write_table(pa.Table.from_pylist(rows), sink)
        return sink.getvalue()
    if fmt == "csv":
        head = ",".join(rows[0])
        return (head + "\n" + "".join(",".join(str(v) for v in r.values()) + "\n" for r in rows)).encode()
    if fmt == "json":
        return json.dumps(rows).encode()
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def prefix() -> str:
    """A fresh prefix per test: the tests share one server."""
    return f"t-{uuid.uuid4().hex[:8]}/"


# --- reading ------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl", "json"])
def test_every_format_is_read_from_the_store_by_its_extension(s3: S3, tmp_path: Path, fmt: str) -> None:
    base = prefix()
    s3.put(f"{base}in/2026-01-01/part-1.{fmt}", encoded(ROWS, fmt))
    assert run(to_sqlite(source(fields=("id", "amount"))), identity, env_for(tmp_path, raw=s3.conn(base))) == 0
    assert rows_of(tmp_path) == [("a", 1), ("b", 2)]


def test_the_declared_format_wins_over_the_extension(s3: S3, tmp_path: Path) -> None:
    base = prefix()
    s3.put(f"{base}in/2026-01-01/dump.dat", encoded(ROWS, "jsonl"))
    assert run(to_sqlite(source(fmt="jsonl")), identity, env_for(tmp_path, raw=s3.conn(base))) == 0
    assert rows_of(tmp_path) == [("a", 1), ("b", 2)]


def test_credentials_from_the_usual_environment_and_an_absolute_path(
    s3: S3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = prefix()
    s3.put(f"{base}in/2026-01-01/a.jsonl", encoded(ROWS, "jsonl"))
    for name, value in {"AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_REGION": "us-east-1",
                        "AWS_ENDPOINT_URL": s3.endpoint}.items():
        monkeypatch.setenv(name, value)
    task = to_sqlite(source(path=f"s3://{BUCKET}/{base}in/{{interval.date}}/"))
    assert run(task, identity, env_for(tmp_path)) == 0
    assert rows_of(tmp_path) == [("a", 1), ("b", 2)]
    # Wrong credentials are an error, never an empty listing.
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wrong")
    other = tmp_path / "again"
    other.mkdir()
    assert run(task, identity, env_for(other)) == 75
    assert pins_of(other) == [] and rows_of(other) == []


def test_the_pinned_listing_holds_each_objects_etag(s3: S3, tmp_path: Path) -> None:
    base = prefix()
    s3.put(f"{base}in/2026-01-01/a.jsonl", encoded(ROWS, "jsonl"))
    s3.put(f"{base}in/2026-01-01/_SUCCESS", b"")
    task = to_sqlite()
    assert run(task, identity, env_for(tmp_path, raw=s3.conn(base))) == 0
    [pin] = pins_of(tmp_path)
    assert [e["name"] for e in pin] == ["a.jsonl"]  # `_` and `.` files are not data
    assert pin[0]["etag"], pin
    # A late object is not read by the next attempt of the interval: the pin holds.
    s3.put(f"{base}in/2026-01-01/late.jsonl", encoded([{"id": "c", "amount": 3}], "jsonl"))
    assert run(task, identity, env_for(tmp_path, attempt=2, raw=s3.conn(base))) == 0
    assert rows_of(tmp_path) == [("a", 1), ("b", 2)]


def test_a_changed_object_is_detected_on_re_read(s3: S3, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    base = prefix()
    key = f"{base}in/2026-01-01/a.jsonl"
    s3.put(key, encoded(ROWS, "jsonl"))
    task = to_sqlite()
    assert run(task, identity, env_for(tmp_path, raw=s3.conn(base))) == 0
    s3.put(key, encoded([{"id": "a", "amount": 100}], "jsonl"))
    assert run(task, identity, env_for(tmp_path, attempt=2, raw=s3.conn(base))) != 0
    err = capfd.readouterr().err
    assert "changed since its listing was pinned" in err and "a.jsonl" in err, err
    assert rows_of(tmp_path) == [("a", 1), ("b", 2)]  # the second attempt committed nothing


@pytest.mark.parametrize(("ready", "marker"), [(None, None), ("nonempty", None), ("marker", "_SUCCESS")])
def test_a_missing_prefix_is_not_an_empty_success(
    s3: S3, tmp_path: Path, ready: Ready | None, marker: str | None, capfd: pytest.CaptureFixture[str]
) -> None:
    base = prefix()
    task = to_sqlite(source(ready=ready, marker=marker))
    assert run(task, identity, env_for(tmp_path, raw=s3.conn(base))) == 75
    assert "does not exist" in capfd.readouterr().err
    assert pins_of(tmp_path) == []
    if marker is not None:
        # The data without the marker is still not ready; with it, it is.
        s3.put(f"{base}in/2026-01-01/a.jsonl", encoded(ROWS, "jsonl"))
        assert run(task, identity, env_for(tmp_path, raw=s3.conn(base))) == 75
        assert "marker" in capfd.readouterr().err
        s3.put(f"{base}in/2026-01-01/{marker}", b"")
        assert run(task, identity, env_for(tmp_path, raw=s3.conn(base))) == 0
        assert rows_of(tmp_path) == [("a", 1), ("b", 2)]


def test_ready_always_takes_a_missing_prefix_as_empty(s3: S3, tmp_path: Path) -> None:
    task = to_sqlite(source(ready="always"))
    assert run(task, identity, env_for(tmp_path, raw=s3.conn(prefix()))) == 0
    assert pins_of(tmp_path) == [[]]


def test_a_missing_bucket_is_an_error(s3: S3, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    conn = s3.conn().replace(f"s3://{BUCKET}/", "s3://no-such-bucket/")
    assert run(to_sqlite(source(ready="always")), identity, env_for(tmp_path, raw=conn)) == 75
    assert "no-such-bucket" in capfd.readouterr().err
    assert pins_of(tmp_path) == []


def test_a_parquet_column_that_fields_lacks_names_the_file_and_the_column(
    s3: S3, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    base = prefix()
    wide = [{"id": "a", "amount": 1, "secret": "x"}]
    s3.put(f"{base}in/2026-01-01/part-7.parquet", encoded(wide, "parquet"))
    task = to_sqlite(source(fields=("id", "amount")))
    assert run(task, identity, env_for(tmp_path, raw=s3.conn(base))) == 75
    err = capfd.readouterr().err
    assert "part-7.parquet" in err and "`secret`" in err and "`fields` does not list" in err, err
    assert rows_of(tmp_path) == []
    # The near miss: the same file with `fields` naming every column is read.
    assert run(to_sqlite(source(fields=("id", "amount", "secret"))), identity,
               env_for(tmp_path, attempt=2, raw=s3.conn(base))) == 0
    assert rows_of(tmp_path) == [("a", 1)]


def test_a_column_that_fields_lists_and_the_file_lacks_is_named(tmp_path: Path,
                                                                capfd: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "files" / "in" / "2026-01-01"
    folder.mkdir(parents=True)
    (folder / "a.csv").write_bytes(encoded(ROWS, "csv"))
    task = to_sqlite(source(fields=("id", "amount", "region")))
    assert run(task, identity, env_for(tmp_path, raw=f"file://{tmp_path}/files")) == 75
    err = capfd.readouterr().err
    assert "a.csv" in err and "no column `region`" in err, err
    # A JSON record may leave a key out (it reads as absent): the same rows as JSON Lines pass.
    json_day = tmp_path / "json"
    (json_day / "files" / "in" / "2026-01-01").mkdir(parents=True)
    (json_day / "files" / "in" / "2026-01-01" / "a.jsonl").write_bytes(encoded(ROWS, "jsonl"))
    assert run(task, identity, env_for(json_day, raw=f"file://{json_day}/files")) == 0
    assert rows_of(json_day) == [("a", 1), ("b", 2)]


@pytest.mark.parametrize("where", ["store", "local"])
def test_an_unknown_extension_is_an_error_before_anything_is_written(
    s3: S3, tmp_path: Path, where: str, capfd: pytest.CaptureFixture[str]
) -> None:
    base = prefix()
    if where == "store":
        s3.put(f"{base}in/2026-01-01/a.jsonl", encoded(ROWS, "jsonl"))
        s3.put(f"{base}in/2026-01-01/b.xml", b"<rows/>")
        conn = s3.conn(base)
    else:
        folder = tmp_path / "files" / "in" / "2026-01-01"
        folder.mkdir(parents=True)
        (folder / "a.jsonl").write_bytes(encoded(ROWS, "jsonl"))
        (folder / "b.xml").write_bytes(b"<rows/>")
        conn = f"file://{tmp_path}/files"
    assert run(to_sqlite(), identity, env_for(tmp_path, raw=conn)) == 75
    err = capfd.readouterr().err
    assert "b.xml" in err and "'.xml'" in err and "set `format`" in err, err
    assert pins_of(tmp_path) == [] and rows_of(tmp_path) == []
    assert not (tmp_path / "db.sqlite").exists() or rows_of(tmp_path) == []


# --- writing ------------------------------------------------------------------------------------


def lake_task(mode: str, fmt: str | None, path: str = "out/{interval.date}/") -> Task:
    params: dict[str, Any] = {"path": path}
    if fmt is not None:
        params["format"] = fmt
    write = Write(Endpoint("lake_out", "files", params), mode)  # type: ignore[arg-type]
    return Task("p", "t", "@daily", "UTC", False, (source(),), (write,), ())


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl", "json"])
def test_every_format_is_written_to_the_store_and_read_back(s3: S3, tmp_path: Path, fmt: str) -> None:
    base = prefix()
    s3.put(f"{base}in/2026-01-01/a.jsonl", encoded(ROWS, "jsonl"))
    env = env_for(tmp_path, raw=s3.conn(base), lake_out=s3.conn(base))
    assert run(lake_task("append", fmt), identity, env) == 0
    [key] = s3.keys(f"{base}out/2026-01-01/")
    assert key.startswith(f"{base}out/2026-01-01/part-") and key.endswith(f".{fmt}")
    # The object is a real file of its format, as the server keeps it on disk.
    on_disk = (s3.data / BUCKET / key).read_bytes()
    assert on_disk == s3.get(key)
    if fmt == "parquet":
        assert pq.read_table(io.BytesIO(on_disk)).to_pylist() == ROWS
    # And the runtime reads it back (by its extension) into a SQLite table.
    back = tmp_path / "back"
    back.mkdir()
    task = to_sqlite(source(path="out/{interval.date}/", fields=("id", "amount")))
    assert run(task, identity, env_for(back, raw=s3.conn(base))) == 0
    assert rows_of(back) == [("a", 1), ("b", 2)]


def test_overwrite_leaves_exactly_the_last_attempts_object(s3: S3, tmp_path: Path) -> None:
    base = prefix()
    s3.put(f"{base}in/2026-01-01/a.jsonl", encoded(ROWS, "jsonl"))
    s3.put(f"{base}latest/old-1.jsonl", b'{"id": "z"}\n')
    env = env_for(tmp_path, raw=s3.conn(base), lake_out=s3.conn(base))
    assert run(lake_task("overwrite", "parquet", "latest/"), identity, env) == 0
    assert s3.keys(f"{base}latest/") == [f"{base}latest/data.parquet"]
    assert pq.read_table(io.BytesIO(s3.get(f"{base}latest/data.parquet"))).to_pylist() == ROWS


def test_local_folders_read_and_write_every_format(tmp_path: Path) -> None:
    folder = tmp_path / "files" / "in" / "2026-01-01"
    folder.mkdir(parents=True)
    (folder / "a.parquet").write_bytes(encoded(ROWS[:1], "parquet"))
    (folder / "b.csv").write_bytes(encoded(ROWS[1:], "csv"))
    conn = f"file://{tmp_path}/files"
    assert run(lake_task("append", "parquet"), identity, env_for(tmp_path, raw=conn, lake_out=conn)) == 0
    [written] = list((tmp_path / "files" / "out" / "2026-01-01").iterdir())
    assert written.suffix == ".parquet"
    assert sorted(pq.read_table(written).to_pylist(), key=lambda r: str(r["id"])) == ROWS


# --- what a generated project installs ---------------------------------------------------------


def test_the_runtime_requirements_pin_the_locks_versions() -> None:
    """flowc_runtime/requirements.txt (written by every scaffold) pins what the runtime imports at
    the versions of requirements-dev.lock, which the tests run with."""
    def pins(path: Path) -> dict[str, str]:
        found = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            # a pin's `--hash=` lines (indented, in the hashed lock) are not pins
            if line.strip() and not line.startswith(("#", " ", "\t")):
                name, _, version = line.partition("==")
                found[name.split("[")[0].lower()] = version.rstrip("\\").strip()
        return found

    wanted = pins(ROOT / "templates" / "python" / "flowc_runtime" / "requirements.txt")
    lock = pins(ROOT / "requirements-dev.lock")
    assert {"pyarrow", "obstore", "croniter", "psycopg", "deltalake", "confluent-kafka", "pyiceberg"} <= set(wanted)
    for name, version in wanted.items():
        assert version and lock.get(name) == version, (name, version, lock.get(name))


# --- the scaffold, end to end: parquet on the S3 server into a local SQLite --------------------


FLOW = """source events: files {
  path      "events/{interval.date}/"
  format    "parquet"
  immutable
  identity  id
  fields    [id, amount]
}

sink totals: sqlite_table {
  table        "totals"
  primary_key  id
}

pipeline lake_daily {
  schedule  "@daily"
  start     2026-01-01
  timezone  "UTC"
  retries   2
  timeout   10m

  task load {
    read   events pinned listing
    key    input.id
    write  totals upsert
    run    command ["python", "-m", "lake_daily.load"]
  }
}
"""


def scaffolded(tmp_path: Path, name: str, text: str) -> Path:
    """`text` written to `tmp_path/name` and scaffolded into `tmp_path/py` by the flowc binary
    (FLOWC_BIN, else target/debug/flowc), whose path is returned."""
    binary = Path(os.environ.get("FLOWC_BIN") or ROOT / "target" / "debug" / "flowc")
    if not binary.exists():
        pytest.fail(f"no flowc binary at {binary}: run `cargo build --bin flowc` (or set FLOWC_BIN)")
    (tmp_path / name).write_text(text, encoding="utf-8")
    done = subprocess.run([str(binary), "scaffold", "--lang", "python", "--out", "py", name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return binary


def test_a_scaffolded_task_reads_parquet_from_the_store_into_sqlite(s3: S3, tmp_path: Path) -> None:
    scaffolded(tmp_path, "lake.flow", FLOW)
    assert "obstore==" in (tmp_path / "py" / "flowc_runtime" / "requirements.txt").read_text(encoding="utf-8")
    base = prefix()
    s3.put(f"{base}events/2026-01-01/part-0.parquet", encoded(ROWS, "parquet"))
    env = {
        **os.environ,
        "FLOW_CONN_EVENTS": s3.conn(base),
        "FLOW_CONN_TOTALS": f"sqlite://{tmp_path}/lake.sqlite",
        "FLOW_INTERVAL_END": DAY[1],
        "FLOW_SCHEDULE": "@daily",
        "FLOW_TIMEZONE": "UTC",
        "FLOW_RUN_ID": "manual",
        "FLOW_ATTEMPT": "1",
    }
    run_task = [sys.executable, "-m", "lake_daily.load"]
    done = subprocess.run(run_task, cwd=tmp_path / "py", env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = sqlite3.connect(tmp_path / "lake.sqlite").execute("SELECT id, amount FROM totals ORDER BY id").fetchall()
    assert rows == [("a", 1), ("b", 2)]
    # The next day has not landed: exit 75, nothing committed.
    env["FLOW_INTERVAL_END"] = "2026-01-03T00:00:00Z"
    done = subprocess.run(run_task, cwd=tmp_path / "py", env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 75, done.stderr
    assert "does not exist" in done.stderr


AUDIT_FLOW = """source orders_in: files {
  path      "in/{interval.date}/"
  immutable
  pin       listing
  identity  id
  fields    [id, amount]
}

sink daily: files {
  path "out/{interval.date}/"
}

pipeline store_week {
  schedule  "@daily"
  start     2026-03-01
  timezone  "UTC"
  require   none

  task log {
    read   orders_in
    write  daily append
    allow  FL202 because "the audit's fixture: a re-run appends the interval again"
    run    command ["python", "-m", "store_week.log"]
  }
}
"""


def test_the_audit_reads_a_files_sink_and_a_pinned_listing_on_the_store(s3: S3, tmp_path: Path) -> None:
    """`flowc audit` on a deployment whose input and output are both on the store: the sink's
    objects are copied (streamed) and compared per interval's prefix, a re-run's copy of one
    day found as `identical-rows` there (the examples name the store's prefix, never the copy's
    folder); the pinned listing's objects are asked for their metadata, an object whose ETag
    changed and one that is gone found as `pin-changed`. No credential of the connection shows."""
    import obstore

    binary = scaffolded(tmp_path, "store_week.flow", AUDIT_FLOW)
    base = prefix()
    days = ["2026-03-01", "2026-03-02"]
    for day in days:
        rows = [{"id": f"{day}-{j}", "amount": j} for j in (1, 2)]
        s3.put(f"{base}in/{day}/part-0.jsonl", encoded(rows, "jsonl"))
    conns = {"orders_in": s3.conn(base), "daily": s3.conn(base)}
    state = f"sqlite://{tmp_path}/state.sqlite"

    def run_day(day: str, run_id: str) -> None:
        end = f"2026-03-0{int(day[-1]) + 1}T00:00:00Z"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_"))}
        env.update({"FLOW_PIPELINE": "store_week", "FLOW_TASK": "log", "FLOW_INTERVAL_START": f"{day}T00:00:00Z",
                    "FLOW_INTERVAL_END": end, "FLOW_RUN_ID": run_id, "FLOW_ATTEMPT": "1", "FLOWC_STATE": state})
        env.update({f"FLOW_CONN_{k.upper()}": v for k, v in conns.items()})
        proc = subprocess.run([sys.executable, "-m", "store_week.log"], cwd=tmp_path / "py", env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr

    def audit() -> dict[str, Any]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_"))}
        env["FLOWC_PYTHON"] = sys.executable
        proc = subprocess.run([str(binary), "audit", "--since", days[0], "--until", days[-1], "--at",
                               "2026-03-09T00:00:00Z", "--format", "json", "--state", state,
                               *(f"--conn={k}={v}" for k, v in conns.items()), "store_week.flow"],
                              cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode in (0, 1), proc.stdout + proc.stderr
        assert SECRET not in proc.stdout + proc.stderr
        report: dict[str, Any] = json.loads(proc.stdout)
        assert report["could_not_run"] == [] and report["not_observable"] == [], report
        return report

    def found(report: dict[str, Any], check: str) -> list[dict[str, Any]]:
        return [f for f in report["findings"] if f["check"] == check]

    for day in days:
        run_day(day, f"scheduled__{day}")
    report = audit()
    assert found(report, "identical-rows") == [] and found(report, "pin-changed") == [], report

    run_day(days[1], f"manual__{days[1]}")  # the second day appended again
    report = audit()
    (repeated,) = found(report, "identical-rows")
    assert (repeated["output"], repeated["count"], repeated["severity"]) == ("daily", 2, "note"), repeated
    folders = {e["values"]["_flowc_folder"] for e in repeated["examples"]}
    assert folders == {f"s3://{BUCKET}/{base}out/{days[1]}"}, repeated

    s3.put(f"{base}in/{days[0]}/part-0.jsonl", encoded([{"id": "x", "amount": 9}], "jsonl"))  # a new ETag
    obstore.delete(s3.store(), f"{base}in/{days[1]}/part-0.jsonl")
    report = audit()
    (pins,) = found(report, "pin-changed")
    assert (pins["input"], pins["count"], pins["severity"]) == ("orders_in", 2, "warning"), pins
    changes = sorted((e["interval_start"][:10], e["change"], e["object"]) for e in pins["examples"])
    assert changes == [(days[0], "changed", f"s3://{BUCKET}/{base}in/{days[0]}/part-0.jsonl"),
                       (days[1], "gone", f"s3://{BUCKET}/{base}in/{days[1]}/part-0.jsonl")], pins


DELTA_FLOW = """source orders_in: files {
  path      "in/{interval.date}/"
  immutable
  pin       listing
  identity  id
  fields    [id, amount]
}

sink log: delta_table {
  location "log"
}

pipeline store_delta {
  schedule  "@daily"
  start     2026-03-01
  timezone  "UTC"
  require   none

  task copy {
    read   orders_in
    write  log append
    allow  FL202 because "the audit's fixture: a re-run appends the interval again"
    run    command ["python", "-m", "store_delta.copy"]
  }
}
"""


def test_the_audit_reads_a_delta_table_on_the_store(s3: S3, tmp_path: Path) -> None:
    """A Delta table on the store (`deltalake` with the usual AWS_* settings, in the task and
    in the audit alike), written without a key: the audit reads its log there, and a re-run of
    one day is `commit-repeated` (a note: the output is `none`); before it, nothing, and the
    table is not listed as not observable."""
    pytest.importorskip("deltalake")
    binary = scaffolded(tmp_path, "store_delta.flow", DELTA_FLOW)
    base = prefix()
    days = ["2026-03-01", "2026-03-02"]
    for day in days:
        rows = [{"id": f"{day}-{j}", "amount": j} for j in (1, 2)]
        s3.put(f"{base}in/{day}/part-0.jsonl", encoded(rows, "jsonl"))
    store_env = {"AWS_ENDPOINT_URL": s3.endpoint, "AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": SECRET,
                 "AWS_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true"}
    conns = {"orders_in": s3.conn(base), "log": f"s3://{BUCKET}/{base.rstrip('/')}"}
    state = f"sqlite://{tmp_path}/state.sqlite"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_", "AWS_"))}

    def run_day(day: str, run_id: str) -> None:
        env = {**clean, **store_env, "FLOW_PIPELINE": "store_delta", "FLOW_TASK": "copy",
               "FLOW_INTERVAL_START": f"{day}T00:00:00Z", "FLOW_INTERVAL_END": f"2026-03-0{int(day[-1]) + 1}T00:00:00Z",
               "FLOW_RUN_ID": run_id, "FLOW_ATTEMPT": "1", "FLOWC_STATE": state}
        env.update({f"FLOW_CONN_{k.upper()}": v for k, v in conns.items()})
        proc = subprocess.run([sys.executable, "-m", "store_delta.copy"], cwd=tmp_path / "py", env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr

    def audit() -> dict[str, Any]:
        proc = subprocess.run([str(binary), "audit", "--since", days[0], "--until", days[-1], "--at",
                               "2026-03-09T00:00:00Z", "--format", "json", "--state", state,
                               *(f"--conn={k}={v}" for k, v in conns.items()), "store_delta.flow"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              env={**clean, **store_env, "FLOWC_PYTHON": sys.executable})
        assert proc.returncode in (0, 1), proc.stdout + proc.stderr
        assert SECRET not in proc.stdout + proc.stderr
        report: dict[str, Any] = json.loads(proc.stdout)
        assert report["could_not_run"] == [] and report["not_observable"] == [], report
        return report

    for day in days:
        run_day(day, f"scheduled__{day}")
    assert [f for f in audit()["findings"] if f["check"] == "commit-repeated"] == []
    assert s3.keys(f"{base}log/_delta_log/"), "the task wrote its Delta table on the store"
    run_day(days[0], f"manual__{days[0]}")
    (again,) = [f for f in audit()["findings"] if f["check"] == "commit-repeated"]
    assert (again["output"], again["count"], again["severity"]) == ("log", 1, "note"), again
    assert again["examples"][0]["interval_start"] == f"{days[0]}T00:00:00Z", again
