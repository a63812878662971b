"""`flowc audit` on a deployment that really ran: the tasks of tests/audit/orders_week.flow,
scaffolded and run by the real binary (`target/debug/flowc`, or FLOWC_BIN) for a week of daily
intervals, against SQLite and DuckDB (and PostgreSQL when FLOWC_TEST_PG names a server, MySQL or
MariaDB when FLOWC_TEST_MYSQL does: `scripts/ci-mariadb`), with anomalies made
the way they happen: an interval the scheduler skipped, an interval of the append task re-run.
Planted anomalies (an outbox row left unsent, a duplicated key in an upserted table that has no
key constraint, a pinned file deleted) are written straight into the systems afterwards.

Each test also runs a near miss: the same deployment without the anomaly audits clean (exit 0).
"""

from __future__ import annotations

import http.server
import json
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "audit" / "orders_week.flow"
WEEK = [date(2026, 3, 1) + timedelta(days=k) for k in range(7)]
PG = os.environ.get("FLOWC_TEST_PG")
MYSQL = os.environ.get("FLOWC_TEST_MYSQL")


def flowc() -> Path:
    binary = Path(os.environ.get("FLOWC_BIN") or ROOT / "target" / "debug" / "flowc")
    if not binary.exists():
        pytest.fail(f"no flowc binary at {binary}: run `cargo build --bin flowc` (or set FLOWC_BIN)")
    return binary


def stamp(day: date) -> str:
    return f"{day.isoformat()}T00:00:00Z"


class Receiver:
    """A webhook receiver that accepts every call."""

    def __init__(self) -> None:
        self.calls = 0
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.calls += 1
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def close(self) -> None:
        self.server.shutdown()


@dataclass
class Deployment:
    """The week's deployment: scaffolded code, input files, the sinks' database, the state."""

    tmp: Path
    db: str
    receiver: Receiver
    flow: Path = field(init=False)
    sink: str = field(init=False)
    state: str = field(init=False)

    def __post_init__(self) -> None:
        self.flow = self.tmp / "orders_week.flow"
        text = FIXTURE.read_text()
        if self.db == "postgres":
            assert PG
            text = text.replace("sqlite_table", "postgres_table")
            schema = "audit_" + os.urandom(6).hex()
            import psycopg

            with psycopg.connect(PG, autocommit=True) as conn:
                conn.execute(f'CREATE SCHEMA "{schema}"')
            sep = "&" if "?" in PG else "?"
            self.sink = f"{PG}{sep}options={quote('-csearch_path=' + schema)}"
            self.state = self.sink
        elif self.db == "duckdb":
            text = text.replace("sqlite_table", "duckdb_table")
            self.sink = f"duckdb://{self.tmp}/warehouse.duckdb"
            self.state = self.sink
        elif self.db == "mysql":
            assert MYSQL
            text = text.replace("sqlite_table", "mysql_table")
            name = "audit_" + os.urandom(6).hex()
            with mysql_admin() as conn, conn.cursor() as cur:
                cur.execute(f"CREATE DATABASE `{name}`")
            self.sink = MYSQL.rpartition("/")[0] + "/" + name
            self.state = self.sink
        else:
            self.sink = f"sqlite://{self.tmp}/warehouse.sqlite"
            self.state = f"sqlite://{self.tmp}/state.sqlite"
        self.flow.write_text(text)
        out = subprocess.run([str(flowc()), "scaffold", "--lang", "python", "--out", str(self.tmp / "code"),
                              str(self.flow)], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        for day in WEEK:
            folder = self.tmp / "files" / "in" / stamp(day)
            folder.mkdir(parents=True)
            rows = [{"id": f"{day:%m%d}-{j}", "amount": j} for j in (1, 2, 3)]
            (folder / "part-0.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    def conns(self) -> dict[str, str]:
        return {"ORDERS": self.sink, "ORDER_LOG": self.sink, "ORDERS_IN": f"file://{self.tmp}/files",
                "NOTIFY": self.receiver.url}

    def run(self, task: str, day: date, run_id: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_"))}
        env.update({
            "PYTHONPATH": str(self.tmp / "code"),
            "FLOW_PIPELINE": "orders_week",
            "FLOW_TASK": task,
            "FLOW_INTERVAL_START": stamp(day),
            "FLOW_INTERVAL_END": stamp(day + timedelta(days=1)),
            "FLOW_RUN_ID": run_id,
            "FLOW_ATTEMPT": "1",
        })
        if self.db == "sqlite":
            env["FLOWC_STATE"] = self.state
        env.update({"FLOW_CONN_" + k: v for k, v in self.conns().items()})
        proc = subprocess.run([sys.executable, "-m", f"orders_week.{task}"], env=env, cwd=self.tmp,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr

    def week(self, skip: date | None = None, rerun: date | None = None) -> None:
        for day in WEEK:
            if day == skip:
                continue
            self.run("load", day, f"scheduled__{day}")
            self.run("log", day, f"scheduled__{day}")
        if rerun is not None:
            self.run("log", rerun, f"manual__{rerun}")

    def audit(self, *extra: str, until: str = "2026-03-07",
              at: str = "2026-03-09T00:00:00Z") -> tuple[int, dict[str, Any], str]:
        args = [str(flowc()), "audit", "--since", "2026-03-01", "--until", until, "--at", at, "--format", "json"]
        for name, url in self.conns().items():
            args += ["--conn", f"{name.lower()}={url}"]
        if self.db == "sqlite":
            args += ["--state", self.state]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_"))}
        env["FLOWC_PYTHON"] = sys.executable
        proc = subprocess.run([*args, *extra, str(self.flow)], capture_output=True, text=True, env=env,
                              cwd=self.tmp, timeout=120)
        try:
            report = json.loads(proc.stdout) if proc.stdout.strip() else {}
        except json.JSONDecodeError:
            report = {}
        return proc.returncode, report, proc.stderr

    def execute(self, sql: str) -> None:
        if self.db == "sqlite":
            conn = sqlite3.connect(self.sink[len("sqlite://"):], isolation_level=None)
            try:
                conn.execute(sql)
            finally:
                conn.close()
        elif self.db == "duckdb":
            import duckdb

            duck = duckdb.connect(self.sink[len("duckdb://"):])
            try:
                duck.execute(sql)
            finally:
                duck.close()
        elif self.db == "mysql":
            with mysql_admin(self.sink) as my, my.cursor() as cur:
                cur.execute(sql)
        else:
            import psycopg

            with psycopg.connect(self.sink, autocommit=True) as pg:
                pg.execute(sql)


def mysql_admin(url: str | None = None) -> Any:
    """A connection to the MySQL server of FLOWC_TEST_MYSQL (to the database of `url`)."""
    from urllib.parse import urlparse

    import pymysql

    parsed = urlparse(url or MYSQL or "")
    return pymysql.connect(host=parsed.hostname, port=parsed.port or 3306, user=parsed.username or "root",
                           password=parsed.password or "", database=parsed.path.lstrip("/") or None,
                           autocommit=True)


ON_PG = pytest.mark.skipif(not PG, reason="FLOWC_TEST_PG is not set")
ON_MYSQL = pytest.mark.skipif(not MYSQL, reason="FLOWC_TEST_MYSQL is not set")
DBS = ["sqlite", pytest.param("postgres", marks=ON_PG), "duckdb", pytest.param("mysql", marks=ON_MYSQL)]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def found(report: dict[str, Any]) -> list[tuple[str, str, str | None, str, int]]:
    return sorted((f["check"], f["task"], f["output"], f["severity"], f["count"]) for f in report["findings"])


@pytest.mark.parametrize("db", DBS)
def test_a_skipped_interval_and_a_rerun_are_found(tmp_path: Path, receiver: Receiver, db: str) -> None:
    d = Deployment(tmp_path, db, receiver)
    d.week(skip=WEEK[3], rerun=WEEK[4])
    code, report, err = d.audit()
    assert code == 1, err
    assert report["verdict"] == "broken"
    # an upsert into a kind without `fenced` (DuckDB, MySQL) can regress: `at_most_once`, whose
    # guarantee allows a lost interval
    fenced = "error" if db in ("sqlite", "postgres") else "note"
    assert found(report) == sorted([
        # the skipped interval: every output of both tasks misses its data
        ("interval-missing", "load", "notify", "error", 1),
        ("interval-missing", "load", "orders", fenced, 1),
        ("interval-missing", "log", "order_log", "error", 1),
        # the re-run: an append committed twice, its three keys held twice; at_least_once allows it
        ("interval-repeated", "log", "order_log", "note", 1),
        ("duplicate-key", "log", "order_log", "note", 3),
        # ... after the newer intervals had committed (an append cannot regress a row: a note)
        ("late-commit", "log", "order_log", "note", 1),
    ])
    missing = next(f for f in report["findings"] if f["check"] == "interval-missing")
    assert missing["examples"][0]["interval_start"] == "2026-03-04T00:00:00Z"
    dup = next(f for f in report["findings"] if f["check"] == "duplicate-key")
    assert dup["examples"][0]["rows"] == 2
    assert dup["examples"][0]["values"]["id"].startswith("0305-")
    assert report["summary"]["could_not_run"] == 0
    # nothing of the connections' credentials or paths of the state leaks into what is not asked for
    assert "password" not in json.dumps(report)


@pytest.mark.parametrize("db", DBS)
def test_a_clean_week_audits_clean(tmp_path: Path, receiver: Receiver, db: str) -> None:
    d = Deployment(tmp_path, db, receiver)
    d.week()
    code, report, err = d.audit()
    assert code == 0, err
    assert report["verdict"] == "within_guarantee"
    assert report["findings"] == []
    # intervals that have not ended at the time of the audit are not expected yet
    code, report, err = d.audit(until="2026-03-12", at="2026-03-08T00:00:00Z")
    assert code == 0, err
    assert report["pipelines"][0]["intervals"] == 7
    # the near miss: one day later, the interval of 03-08 has ended and never ran
    code, report, err = d.audit(until="2026-03-12", at="2026-03-09T00:00:00Z")
    assert code == 1, err
    fenced = "error" if db in ("sqlite", "postgres") else "note"
    assert found(report) == [("interval-missing", t, o, fenced if o == "orders" else "error", 1)
                             for t, o in (("load", "notify"), ("load", "orders"), ("log", "order_log"))]


@pytest.mark.parametrize("db", DBS)
def test_planted_anomalies_are_found(tmp_path: Path, receiver: Receiver, db: str) -> None:
    d = Deployment(tmp_path, db, receiver)
    d.week()
    # an outbox row its relay never sent (the receiver was down, and no attempt ran since)
    d.execute("INSERT INTO flowc_outbox (id, pipeline, task, effect, interval_start, idempotency_key, payload, "
              "sent, seq) VALUES ('planted', 'orders_week', 'load', 'notify', '2026-03-02T00:00:00Z', 'planted', "
              "'{\"x\": 1}', 0, 999)")
    code, report, err = d.audit()
    assert code == 1, err
    assert found(report) == [("outbox-unsent", "load", "notify", "error", 1)]
    # within the grace period it is not late yet
    code, report, err = d.audit("--grace", str(7 * 86400))
    assert code == 0, err
    assert found(report) == []


@pytest.mark.parametrize("db", DBS)
def test_outbox_rows_without_their_idempotency_key(tmp_path: Path, receiver: Receiver, db: str) -> None:
    d = Deployment(tmp_path, db, receiver)
    d.week()
    # the near miss: a sent row keyed like the runtime keys it (its id) is consistent
    d.execute("INSERT INTO flowc_outbox (id, pipeline, task, effect, interval_start, idempotency_key, payload, "
              "sent, seq) VALUES ('keyed', 'orders_week', 'load', 'notify', '2026-03-02T00:00:00Z', 'keyed', "
              "'{\"x\": 2}', 1, 998)")
    code, report, err = d.audit()
    assert code == 0, err
    assert found(report) == []
    # a row written without the key the webhook deduplicates on (around flowc): a resend of it
    # is a second message at the receiver
    d.execute("INSERT INTO flowc_outbox (id, pipeline, task, effect, interval_start, idempotency_key, payload, "
              "sent, seq) VALUES ('unkeyed', 'orders_week', 'load', 'notify', '2026-03-03T00:00:00Z', NULL, "
              "'{\"x\": 3}', 1, 999)")
    code, report, err = d.audit()
    assert code == 0, err
    assert found(report) == [("outbox-unkeyed", "load", "notify", "warning", 1)]
    assert report["findings"][0]["examples"] == [
        {"id": "unkeyed", "interval_start": "2026-03-03T00:00:00Z", "idempotency_key": None}]


def rewrite(d: Deployment, old: str, new: str) -> None:
    """The deployment's `.flow` file with `old` replaced by `new`, scaffolded again."""
    text = d.flow.read_text()
    assert old in text
    d.flow.write_text(text.replace(old, new))
    out = subprocess.run([str(flowc()), "scaffold", "--lang", "python", "--out", str(d.tmp / "code"),
                          str(d.flow)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def drop_primary_key(d: Deployment, table: str) -> None:
    """The table recreated without its primary key (a migration gone wrong)."""
    d.execute(f"CREATE TABLE {table}_copy AS SELECT * FROM {table}")
    d.execute(f"DROP TABLE {table}")
    d.execute(f"ALTER TABLE {table}_copy RENAME TO {table}")


@pytest.mark.parametrize("db", DBS)
def test_a_row_older_than_its_newer_version_is_a_regression(tmp_path: Path, receiver: Receiver, db: str) -> None:
    d = Deployment(tmp_path, db, receiver)
    # `orders` upserted `newest by amount`: a version column (every kind here has `conditional_upsert`)
    rewrite(d, "write  orders upsert", "write  orders upsert newest by amount")
    d.week()
    code, report, err = d.audit()
    assert code == 0, err
    assert found(report) == []
    drop_primary_key(d, "orders")
    # the near miss: the same version twice is a duplicate, not a regression
    d.execute("INSERT INTO orders (id, amount) VALUES ('0302-1', 1)")
    code, report, err = d.audit()
    assert code == 1, err
    assert found(report) == [("duplicate-key", "load", "orders", "error", 1)]
    # an older version of 0302-2 (amount 2) that the newer one should have replaced
    d.execute("INSERT INTO orders (id, amount) VALUES ('0302-2', 0)")
    code, report, err = d.audit()
    assert code == 1, err
    assert found(report) == [("duplicate-key", "load", "orders", "error", 2),
                             ("regressed-row", "load", "orders", "error", 1)]
    regressed = next(f for f in report["findings"] if f["check"] == "regressed-row")
    assert regressed["examples"] == [{"values": {"id": "0302-2"}, "amount": 0, "newer": 2}]
    assert "version `amount`" in regressed["message"]
    assert regressed["why"] == "`effectively_once` keeps the newest write of every key"


@pytest.mark.parametrize("db", DBS[:2])
def test_a_row_older_than_its_interval_fence_is_a_regression(tmp_path: Path, receiver: Receiver, db: str) -> None:
    d = Deployment(tmp_path, db, receiver)
    d.week()
    drop_primary_key(d, "orders")
    # the near miss: a copy of 0302-1 written by the same interval (same fence)
    d.execute("INSERT INTO orders SELECT * FROM orders WHERE id = '0302-1'")
    code, report, err = d.audit()
    assert code == 1, err
    assert found(report) == [("duplicate-key", "load", "orders", "error", 1)]
    # 0303-1 as an older interval (03-01, ending 03-02) wrote it: the fence of 03-03 should have won
    d.execute("INSERT INTO orders (id, amount, _flow_interval_end) VALUES ('0303-1', 7, '2026-03-02T00:00:00Z')")
    code, report, err = d.audit()
    assert code == 1, err
    assert found(report) == [("duplicate-key", "load", "orders", "error", 2),
                             ("regressed-row", "load", "orders", "error", 1)]
    regressed = next(f for f in report["findings"] if f["check"] == "regressed-row")
    assert regressed["examples"] == [{"values": {"id": "0303-1"}, "_flow_interval_end": "2026-03-02T00:00:00Z",
                                      "newer": "2026-03-04T00:00:00Z"}]


@pytest.mark.parametrize("db", ["duckdb", pytest.param("mysql", marks=ON_MYSQL)])
def test_an_unfenced_upsert_leaves_no_trace_of_a_regression(tmp_path: Path, receiver: Receiver, db: str) -> None:
    d = Deployment(tmp_path, db, receiver)
    d.week()
    code, report, err = d.audit()
    assert code == 0, err
    assert any(u["output"] == "orders" and u["what"].startswith("regressions in `orders`")
               for u in report["not_observable"])


@pytest.mark.parametrize("db", DBS[:2])
def test_an_append_ledger_out_of_step_with_its_table(tmp_path: Path, receiver: Receiver, db: str) -> None:
    d = Deployment(tmp_path, db, receiver)
    rewrite(d, "write  order_log append", "write  order_log append ledger")
    d.week(rerun=WEEK[4])
    # the near miss: the re-run appended nothing again (the ledger held its keys)
    code, report, err = d.audit()
    assert code == 0, err
    assert found(report) == [("interval-repeated", "log", "order_log", "note", 1),
                             ("late-commit", "log", "order_log", "note", 1)]
    # a row appended around flowc: the ledger does not know its key, a re-run would append it again
    d.execute("INSERT INTO order_log (id, amount) VALUES ('9999-1', 5)")
    code, report, err = d.audit()
    assert code == 0, err
    mismatch = [f for f in report["findings"] if f["check"] == "ledger-mismatch"]
    assert [(f["severity"], f["count"]) for f in mismatch] == [("warning", 1)]
    assert "outside the ledger" in mismatch[0]["message"]
    # ... and two appended rows deleted: the ledger holds keys with no row
    d.execute("DELETE FROM order_log WHERE id IN ('9999-1', '0301-1', '0301-2')")
    code, report, err = d.audit()
    mismatch = [f for f in report["findings"] if f["check"] == "ledger-mismatch"]
    assert [(f["severity"], f["count"]) for f in mismatch] == [("warning", 2)]
    assert "does not restore" in mismatch[0]["message"]


def test_a_duplicate_in_a_table_without_constraint_breaks_effectively_once(tmp_path: Path,
                                                                          receiver: Receiver) -> None:
    d = Deployment(tmp_path, "sqlite", receiver)
    d.week()
    # the table recreated without its primary key (a migration gone wrong), one key written twice
    d.execute("CREATE TABLE orders_copy AS SELECT * FROM orders")
    d.execute("DROP TABLE orders")
    d.execute("ALTER TABLE orders_copy RENAME TO orders")
    d.execute("INSERT INTO orders SELECT * FROM orders WHERE id = '0302-1'")
    code, report, err = d.audit()
    assert code == 1, err
    assert found(report) == [("duplicate-key", "load", "orders", "error", 1)]
    assert report["findings"][0]["why"] == "`effectively_once` allows no duplicate"


def test_a_deleted_pinned_file_is_a_warning(tmp_path: Path, receiver: Receiver) -> None:
    d = Deployment(tmp_path, "sqlite", receiver)
    d.week()
    (tmp_path / "files" / "in" / stamp(WEEK[2]) / "part-0.jsonl").unlink()
    code, report, err = d.audit()
    assert code == 0, err
    assert sorted((f["check"], f["input"], f["severity"]) for f in report["findings"]) == [
        ("pin-changed", "orders_in", "warning"), ("pin-changed", "orders_in", "warning")]


def test_the_audit_writes_nothing(tmp_path: Path, receiver: Receiver) -> None:
    d = Deployment(tmp_path, "sqlite", receiver)
    d.week(skip=WEEK[3])
    files = {p: p.stat().st_mtime_ns for p in tmp_path.glob("*.sqlite")}
    before = {p: p.read_bytes() for p in files}
    d.audit()
    assert {p: p.read_bytes() for p in files} == before
    assert not (tmp_path / ".flowc").exists()


def test_unreachable_and_missing_are_exit_2(tmp_path: Path, receiver: Receiver) -> None:
    d = Deployment(tmp_path, "sqlite", receiver)
    d.week()
    d.execute("DROP TABLE order_log")
    code, report, err = d.audit()
    assert code == 2, err
    assert report["verdict"] == "could_not_run"
    assert any("order_log" in e["message"] and "does not exist" in e["message"] for e in report["could_not_run"])
    code, report, _ = d.audit("--conn", "orders=postgresql://auditor:s3cret@127.0.0.1:9/none")
    assert code == 2
    text = json.dumps(report)
    assert "s3cret" not in text and "cannot reach" in text


# --- `files` sinks: read through DuckDB's file readers, compared within each interval's folder ----

# The input and the pipeline settings both lake fixtures share (a daily pipeline over files).
INPUT = """source orders_in: files {
  path      "in/{interval.start}/"
  immutable
  pin       listing
  identity  id
  fields    [id, amount]
}
"""
HEAD = """  schedule  "@daily"
  start     2026-03-01
  timezone  "UTC"
  require   none
"""

FILES_FLOW = """
{INPUT}
sink daily: files {
  path "out/daily/{interval.start}/"
}

sink latest: files {
  path   "out/latest/"
  format "csv"
}

pipeline files_week {
{HEAD}
  task log {
    read   orders_in
    write  daily append
    allow  FL202 because "the audit's fixture: a re-run appends the interval again"
    run    command ["python", "-m", "files_week.log"]
  }

  task snap {
    read   orders_in
    write  latest overwrite
    run    command ["python", "-m", "files_week.snap"]
  }
}
""".replace("{INPUT}", INPUT).replace("{HEAD}", HEAD)


@dataclass
class Lake:
    """A one-file deployment for the sinks the audit reads without SQL: the `.flow` scaffolded,
    input files of `days` (three records each), its tasks run and audited by the binary."""

    tmp: Path
    name: str
    text: str
    conns: dict[str, str]

    def __post_init__(self) -> None:
        self.flow = self.tmp / f"{self.name}.flow"
        self.flow.write_text(self.text)
        self.state = f"sqlite://{self.tmp}/state.sqlite"
        out = subprocess.run([str(flowc()), "scaffold", "--lang", "python", "--out", str(self.tmp / "code"),
                              str(self.flow)], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr

    def inputs(self, days: list[date], same: bool) -> None:
        """Each day's three records: the same every day (`same`), else the day's own ids."""
        for day in days:
            folder = self.tmp / "files" / "in" / stamp(day)
            folder.mkdir(parents=True)
            rows = [{"id": j if same else f"{day:%m%d}-{j}", "amount": j} for j in (1, 2, 3)]
            (folder / "part-0.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    def run(self, task: str, day: date, run_id: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_"))}
        env.update({"PYTHONPATH": str(self.tmp / "code"), "FLOW_PIPELINE": self.name, "FLOW_TASK": task,
                    "FLOW_INTERVAL_START": stamp(day), "FLOW_INTERVAL_END": stamp(day + timedelta(days=1)),
                    "FLOW_RUN_ID": run_id, "FLOW_ATTEMPT": "1", "FLOWC_STATE": self.state})
        env.update({f"FLOW_CONN_{k.upper()}": v for k, v in self.conns.items()})
        proc = subprocess.run([sys.executable, "-m", f"{self.name}.{task}"], env=env, cwd=self.tmp,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr

    def audit(self, until: str) -> tuple[int, dict[str, Any]]:
        args = [str(flowc()), "audit", "--since", "2026-03-01", "--until", until,
                "--at", "2026-03-09T00:00:00Z", "--format", "json", "--state", self.state]
        args += [f"--conn={k}={v}" for k, v in self.conns.items()]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_"))}
        env["FLOWC_PYTHON"] = sys.executable
        proc = subprocess.run([*args, str(self.flow)], capture_output=True, text=True, env=env, cwd=self.tmp,
                              timeout=120)
        assert proc.returncode in (0, 1), proc.stdout + proc.stderr
        report: dict[str, Any] = json.loads(proc.stdout)
        return proc.returncode, report


def test_a_files_sink_shows_a_rerun_append_and_no_recurring_record(tmp_path: Path) -> None:
    """A re-run of one day's `append` leaves that day's rows twice in its folder: `identical-rows`
    there, once (a note, the output being `none`). The same records in every day's folder
    (a recurring record, not a repeat) are not duplicates, since each interval's folder is
    compared on its own; the `overwrite` sink holds one attempt's rows and shows nothing."""
    lake = Lake(tmp_path, "files_week", FILES_FLOW, {"orders_in": f"file://{tmp_path}/files",
                                                     "daily": f"file://{tmp_path}", "latest": f"file://{tmp_path}"})
    days = WEEK[:3]
    lake.inputs(days, same=True)
    for day in days:
        lake.run("log", day, f"scheduled__{day}")
        lake.run("snap", day, f"scheduled__{day}")
    code, report = lake.audit("2026-03-03")
    assert [f for f in found(report) if f[0] == "identical-rows"] == [], report
    # both sinks were read: neither is listed as not observable (it was: "SQL tables only")
    assert not [u for u in report["not_observable"] if "daily" in json.dumps(u) or "latest" in json.dumps(u)], \
        report

    lake.run("log", days[1], f"manual__{days[1]}")  # the second day appended again
    code, report = lake.audit("2026-03-03")
    repeated = [f for f in report["findings"] if f["check"] == "identical-rows"]
    assert [(f["output"], f["count"]) for f in repeated] == [("daily", 3)], report
    assert code == 0, report  # `require none`: a note, not a broken guarantee
    assert stamp(days[1]) in json.dumps(repeated), repeated


DELTA_FLOW = """
{INPUT}
sink facts: delta_table {
  location "facts"
}

sink copies: delta_table {
  location "copies"
}

pipeline delta_week {
{HEAD}
  task log {
    read   orders_in
    key    input.id
    write  facts append
    allow  FL202 because "the audit's fixture: a re-run appends the interval again"
    run    command ["python", "-m", "delta_week.log"]
  }

  task copy {
    read   orders_in
    write  copies append
    allow  FL202 because "the audit's fixture: an append without a key"
    run    command ["python", "-m", "delta_week.copy"]
  }
}
""".replace("{INPUT}", INPUT).replace("{HEAD}", HEAD)


def lake_findings(report: dict[str, Any], *checks: str) -> list[tuple[str, str | None, str, int]]:
    return [(f[0], f[2], f[3], f[4]) for f in found(report) if f[0] in checks]


def rerun_and_find_commits(lake: Lake, days: list[date], until: str) -> dict[str, Any]:
    """Day 1 of `log` (keyed) and day 2 of `copy` (no key) run again by hand, then audited: the
    keyed sink shows its day's keys twice and both show the day's commits by two attempts.
    Returns the unkeyed sink's `commit-repeated` finding."""
    lake.run("log", days[0], f"manual__{days[0]}")
    lake.run("copy", days[1], f"manual__{days[1]}")
    _, report = lake.audit(until)
    assert lake_findings(report, "duplicate-key", "identical-rows", "commit-repeated") == [
        ("commit-repeated", "copies", "note", 1), ("commit-repeated", "facts", "note", 1),
        ("duplicate-key", "facts", "note", 3)], report
    again: dict[str, Any] = next(f for f in report["findings"]
                                 if f["check"] == "commit-repeated" and f["output"] == "copies")
    assert again["examples"][0]["interval_start"] == stamp(days[1]), again
    return again


def test_a_delta_sink_shows_a_rerun_append(tmp_path: Path) -> None:
    """A local Delta table is read at its current version: a re-run of one day's `append` holds
    that day's keys twice (`duplicate-key`, a note for a `none` output); before it, nothing.
    Its log shows the re-run too, keyed or not: the day's rows appended by two attempts
    (`commit-repeated`), where a copy of the same records every day (no key: a row names no
    interval) is no repeat."""
    pytest.importorskip("deltalake")
    lake = Lake(tmp_path, "delta_week", DELTA_FLOW, {"orders_in": f"file://{tmp_path}/files",
                                                     "facts": f"file://{tmp_path}/lake",
                                                     "copies": f"file://{tmp_path}/lake"})
    days = WEEK[:3]
    lake.inputs(days, same=False)
    for day in days:
        lake.run("log", day, f"scheduled__{day}")
        lake.run("copy", day, f"scheduled__{day}")
    code, report = lake.audit("2026-03-03")
    assert code == 0 and lake_findings(report, "duplicate-key", "identical-rows", "commit-repeated") == [], report
    assert not [u for u in report["not_observable"] if "facts" in json.dumps(u) or "copies" in json.dumps(u)], report
    again = rerun_and_find_commits(lake, days, "2026-03-03")
    assert again["examples"][0]["rows"] == "3,3", again
    assert f"appended again to the Delta table `copies` by another attempt (3 more rows; interval {stamp(days[1])}" \
        in again["message"], again


DELTA_TXN_FLOW = """
{INPUT}
sink facts: delta_table {
  location "facts"
}

pipeline delta_txn {
{HEAD}
  task load {
    read   orders_in
    write  facts conditional_commit
    run    command ["python", "-m", "delta_txn.load"]
  }
}
""".replace("{INPUT}", INPUT).replace("{HEAD}", HEAD)


def test_a_transaction_committed_twice_breaks_an_effectively_once_delta_output(tmp_path: Path) -> None:
    """A `conditional_commit` re-run commits nothing (its transaction is in the log): the audit
    finds nothing. A second commit of the same transaction id (planted: a writer around the
    protocol) is a repeat that `effectively_once` rules out: an error, exit 1."""
    pytest.importorskip("deltalake")
    import pyarrow as pa
    from deltalake import CommitProperties, DeltaTable, write_deltalake

    lake = Lake(tmp_path, "delta_txn", DELTA_TXN_FLOW, {"orders_in": f"file://{tmp_path}/files",
                                                        "facts": f"file://{tmp_path}/lake"})
    days = WEEK[:2]
    lake.inputs(days, same=False)
    for day in days:
        lake.run("load", day, f"scheduled__{day}")
    lake.run("load", days[0], f"manual__{days[0]}")  # skipped: the transaction is in the log
    code, report = lake.audit("2026-03-02")
    assert code == 0 and lake_findings(report, "commit-repeated", "identical-rows") == [], report
    uri = str(tmp_path / "lake" / "facts")
    first = DeltaTable(uri).history()[-1]
    marks = {k: v for k, v in first.items() if str(k).startswith("flowc.")}
    assert set(marks) == {"flowc.task", "flowc.interval", "flowc.attempt", "flowc.txn"}, first
    assert marks["flowc.task"] == "delta_txn.load" and marks["flowc.interval"] == stamp(days[0]), marks
    write_deltalake(uri, pa.table({"id": ["x"], "amount": [1]}), mode="append",
                    commit_properties=CommitProperties(custom_metadata={**marks, "flowc.attempt": "99"}))
    code, report = lake.audit("2026-03-02")
    assert lake_findings(report, "commit-repeated") == [("commit-repeated", "facts", "error", 1)], report
    assert code == 1, report
    again = next(f for f in report["findings"] if f["check"] == "commit-repeated")
    assert f"transaction {marks['flowc.txn']}: attempts " in again["message"], again


PIN_FLOW = """
source dfeed: delta_table {
  location  "feed"
  mutable
  pin       version
  identity  id
  fields    [id, amount]
}

source ifeed: iceberg_table {
  table     "lake.feed"
  mutable
  pin       snapshot
  identity  id
  fields    [id, amount]
}

sink dcopy: delta_table {
  location "copy"
}

sink icopy: iceberg_table {
  table "lake.copy"
}

pipeline lake_pins {
{HEAD}
  task dcopy {
    read   dfeed
    write  dcopy conditional_commit
    run    command ["python", "-m", "lake_pins.dcopy"]
  }

  task icopy {
    read   ifeed
    write  icopy conditional_commit
    run    command ["python", "-m", "lake_pins.icopy"]
  }
}
""".replace("{HEAD}", HEAD)


def test_a_vacuumed_delta_version_and_an_expired_iceberg_snapshot_are_pins_gone(tmp_path: Path) -> None:
    """Each day's task pins the source's version (Delta) or snapshot (Iceberg) it read. While
    the source keeps them, nothing; after a Delta overwrite and a `VACUUM`, both pinned versions'
    data files are gone, and after an expiry of the first Iceberg snapshot it is gone:
    `pin-gone` warnings, with the version or snapshot named (re-running those days fails)."""
    pytest.importorskip("deltalake")
    pytest.importorskip("pyiceberg")
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    from flowc_runtime import iceberg

    lake_url = f"file://{tmp_path}/lake"
    lake = Lake(tmp_path, "lake_pins", PIN_FLOW, {"dfeed": lake_url, "ifeed": lake_url, "dcopy": lake_url,
                                                  "icopy": lake_url})
    feed = str(tmp_path / "lake" / "feed")
    cat = iceberg.catalog(iceberg.locate(lake_url, "ifeed"))
    snapshots = []
    for day in WEEK[:2]:
        rows = [{"id": f"{day:%m%d}-{j}", "amount": j} for j in (1, 2)]
        write_deltalake(feed, pa.Table.from_pylist(rows), mode="append")
        iceberg.write(cat, ("lake", "feed"), rows, "append")
        snapshots.append(iceberg.snapshot_id(iceberg.load(cat, ("lake", "feed"))))
        lake.run("dcopy", day, f"scheduled__{day}")
        lake.run("icopy", day, f"scheduled__{day}")
    code, report = lake.audit("2026-03-02")
    assert code == 0 and lake_findings(report, "pin-gone") == [], report
    assert not [u for u in report["not_observable"] if "feed" in json.dumps(u)], report

    write_deltalake(feed, pa.Table.from_pylist([{"id": "new", "amount": 0}]), mode="overwrite")
    DeltaTable(feed).vacuum(retention_hours=0, enforce_retention_duration=False, dry_run=False)
    table = iceberg.load(cat, ("lake", "feed"))
    assert table is not None
    table.maintenance.expire_snapshots().by_id(snapshots[0]).commit()
    code, report = lake.audit("2026-03-02")
    assert code == 0, report  # warnings: the copies are whole, only a re-run of those days fails
    assert [(f[0], f[1], f[3], f[4]) for f in found(report) if f[0] == "pin-gone"] == [
        ("pin-gone", "dcopy", "warning", 2), ("pin-gone", "icopy", "warning", 1)], report
    by_input = {f["input"]: f for f in report["findings"] if f["check"] == "pin-gone"}
    assert "pinned versions of `dfeed` no longer exist" in by_input["dfeed"]["message"], by_input
    assert "data files are gone (vacuumed)" in by_input["dfeed"]["message"], by_input
    assert by_input["ifeed"]["examples"] == [{"interval_start": stamp(WEEK[0]), "pinned": f"snapshot {snapshots[0]}",
                                              "why": "the table no longer holds it (expired)"}], by_input


def test_delta_commits_read_the_marks_of_either_runtime_and_see_unmarked_ones_as_such(tmp_path: Path) -> None:
    """The Python runtime's marks are keys of a commit's metadata, Spark's a JSON object in its
    `userMetadata`: both are read. A table whose commits carry no marks (another writer's) gives
    nothing to compare; a transaction id committed twice is a repeat even from one attempt."""
    pytest.importorskip("deltalake")
    import pyarrow as pa
    from deltalake import CommitProperties, write_deltalake

    from flowc_runtime import audit

    uri = str(tmp_path / "t")
    rows = pa.table({"id": [1, 2]})
    mark = {"flowc.task": "p.t", "flowc.interval": "2026-03-01T00:00:00Z"}
    write_deltalake(uri, rows, mode="append")  # another writer's
    write_deltalake(uri, rows, mode="append", commit_properties=CommitProperties(
        custom_metadata={**mark, "flowc.attempt": "1"}))
    write_deltalake(uri, rows, mode="append", commit_properties=CommitProperties(
        custom_metadata={"userMetadata": json.dumps({**mark, "flowc.attempt": "2"})}))
    write_deltalake(uri, rows, mode="overwrite", commit_properties=CommitProperties(
        custom_metadata={**mark, "flowc.attempt": "3"}))
    commits = audit.delta_commits(uri, "t")
    assert [(c.id, c.task, c.attempt, c.appends, c.rows) for c in commits] == [
        ("0", "", "", True, 2), ("1", "p.t", "1", True, 2), ("2", "p.t", "2", True, 2), ("3", "p.t", "3", False, 2)]
    plan: dict[str, Any] = {"now": "2026-03-09T00:00:00Z", "pipelines": []}
    at = {"pipeline": "p", "task": "t", "output": "t"}
    check = audit.Audit(plan, {})
    assert check.commit_repeats(at, {"name": "t", "kind": "delta_table"}, commits) is True
    assert [(o["check"], o["count"], o["detail"]["rows_again"], o["examples"][0]["attempts"])
            for o in check.observations] == [("commit-repeated", 1, 2, "1,2")]
    other = audit.Audit(plan, {})
    assert other.commit_repeats({**at, "task": "u"}, {"name": "t", "kind": "delta_table"}, commits) is False
    assert other.observations == [] and other.checked == []
    txn = [audit.commit_of(str(k), {**mark, "flowc.attempt": "1", "flowc.txn": "x"}, True, 2) for k in (1, 2)]
    twice = audit.Audit(plan, {})
    twice.commit_repeats(at, {"name": "t", "kind": "delta_table"}, txn)
    assert [(o["count"], o["examples"][0]["txn"]) for o in twice.observations] == [(1, "x")]
    once = audit.Audit(plan, {})
    once.commit_repeats(at, {"name": "t", "kind": "delta_table"}, txn[:1] + [
        audit.commit_of("3", {**mark, "flowc.attempt": "2", "flowc.txn": "y"}, True, 2)])
    assert once.observations == []  # two transactions of one interval (two batches' ids): no repeat
    runs = audit.Audit(plan, {})  # `txn run.id`: ids new at every run, compared by interval
    runs.commit_repeats(at, {"name": "t", "kind": "delta_table"}, txn[:1] + [
        audit.commit_of("3", {**mark, "flowc.attempt": "2", "flowc.txn": "y"}, True, 2)], txns=False)
    assert [(o["count"], o["examples"][0]["attempts"], "txn" in o["examples"][0]) for o in runs.observations] == \
        [(1, "1,2", False)]
    assert audit.by_txn({"txn": [{"term": "run_id"}]}) is False and audit.by_txn({"txn": None}) is True


ICEBERG_FLOW = """
{INPUT}
sink facts: iceberg_table {
  table "lake.facts"
}

sink copies: iceberg_table {
  table "lake.copies"
}

pipeline ice_week {
{HEAD}
  task log {
    read   orders_in
    key    input.id
    write  facts append
    allow  FL202 because "the audit's fixture: a re-run appends the interval again"
    run    command ["python", "-m", "ice_week.log"]
  }

  task copy {
    read   orders_in
    write  copies append
    allow  FL202 because "the audit's fixture: an append without a key"
    run    command ["python", "-m", "ice_week.copy"]
  }
}
""".replace("{INPUT}", INPUT).replace("{HEAD}", HEAD)


def test_an_iceberg_sink_shows_a_rerun_append_read_only(tmp_path: Path) -> None:
    """An Iceberg table (pyiceberg's SQL catalog on SQLite, a local warehouse) is read at its
    current snapshot by its key columns: a re-run of one day's `append` holds that day's keys
    twice (`duplicate-key`, a note for a `none` output); before it, nothing. The catalog is
    opened read-only (its file is the same byte for byte after the audit). A write without key
    columns is compared by its snapshots: a day that two attempts both appended
    (`commit-repeated`)."""
    pytest.importorskip("pyiceberg")
    lake = Lake(tmp_path, "ice_week", ICEBERG_FLOW, {"orders_in": f"file://{tmp_path}/files",
                                                     "facts": f"file://{tmp_path}/lake",
                                                     "copies": f"file://{tmp_path}/lake"})
    days = WEEK[:2]
    lake.inputs(days, same=False)
    for day in days:
        lake.run("log", day, f"scheduled__{day}")
        lake.run("copy", day, f"scheduled__{day}")
    catalog = tmp_path / "lake" / "catalog.sqlite"
    before = catalog.read_bytes()
    code, report = lake.audit("2026-03-02")
    assert code == 0 and [f for f in found(report) if f[0] == "duplicate-key"] == [], report
    assert catalog.read_bytes() == before
    assert not [u for u in report["not_observable"] if "`facts`" in json.dumps(u) or "`copies`" in json.dumps(u)], \
        report
    assert lake_findings(report, "duplicate-key", "commit-repeated") == [], report
    again = rerun_and_find_commits(lake, days, "2026-03-02")
    assert "(3 more rows;" in again["message"], again
    assert catalog.read_bytes() != before  # the re-run committed a snapshot; the audit only read it


@ON_PG
def test_an_iceberg_catalog_on_postgresql_is_read_in_read_only_sessions(tmp_path: Path) -> None:
    """The audit's reader of an Iceberg table whose SQL catalog is a PostgreSQL schema: the table
    is read, and the catalog's sessions refuse a write (`default_transaction_read_only`)."""
    pytest.importorskip("pyiceberg")
    import uuid

    import psycopg
    from sqlalchemy import create_engine, text

    from flowc_runtime import audit, iceberg

    assert PG is not None
    schema = f"ice_audit_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        sep = "&" if "?" in PG else "?"
        where = iceberg.locate(f"{PG}{sep}options=-csearch_path%3D{schema}&warehouse={(tmp_path / 'wh').as_uri()}",
                               "facts")
        cat = iceberg.catalog(where)
        iceberg.conditional_commit(cat, ("lake", "facts"), [{"id": "a", "amount": 1}, {"id": "a", "amount": 2}],
                                   iceberg.NO_SNAPSHOT, "txn-1")
        db = audit.ReadOnly.over_iceberg(audit.open_iceberg(where, ("lake", "facts"), "facts"), where.catalog_uri)
        assert db is not None
        assert db.query(f"SELECT id, COUNT(*) FROM {audit.ICEBERG_VIEW} GROUP BY id") == [("a", 2)]
        db.close()
        engine = create_engine(audit.read_only_pg(where.catalog_uri))
        with engine.connect() as conn, pytest.raises(Exception, match="read-only transaction"):
            conn.execute(text("CREATE TABLE audit_wrote (x int)"))
        engine.dispose()
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_a_path_template_as_a_pattern_matches_what_it_renders_and_no_deeper_folder() -> None:
    """The prefixes of a `files` sink on an object store are found by its path as a pattern: a
    placeholder is one folder name (never a `/`), an escape `{{` is the brace itself."""
    from flowc_runtime.context import pattern

    within = pattern("t/out/{interval.date}/x{{y}}/")
    assert within.match("t/out/2026-03-01/x{y}/part-1.jsonl")
    assert not within.match("t/out/2026/03/x{y}/part-1.jsonl")  # a placeholder spans no `/`
    assert not within.match("t/out/2026-03-01/xy/part-1.jsonl")
    assert not within.match("t/other/2026-03-01/x{y}/part-1.jsonl")
    assert pattern("a.b/").match("a.b/c") and not pattern("a.b/").match("axb/c")  # literal text is literal
