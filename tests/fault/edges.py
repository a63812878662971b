"""Fault cells at the new edges (issue 28): each cell renders `edges.flow.in` to `edges.flow`,
scaffolds it with the real flowc binary, runs the generated task as processes with the fault
driven from outside, and compares what the systems hold with the verdict `flowc report` (or
`flowc build`) states.

Kinds (one cell each, per database pass):
  zombie_in_commit       Iceberg `conditional_commit` (predicted exactly_once): attempt 1 stalls
                         inside the catalog's commit, attempt 2 commits the interval, attempt 1
                         resumes. As predicted: the table holds each record once.
  partial_refusal        `email` via outbox: the SMTP server answers 451 to one of two recipients
                         on the first attempt. As predicted: that attempt does not exit 0, the
                         row stays unsent, the retry delivers to both (no recipient without it).
  holder_dies            the PostgreSQL relay (PostgreSQL pass only): attempt 1 holds the
                         interval's outbox row in a hanging receiver, attempt 2 starts, attempt 1
                         is killed. As predicted: attempt 2 exits 0 only with the row sent.
  pod_state              a pipeline whose state store is its Kafka sink, tasks in containers:
                         `flowc build --target argo` says FL806 (no durable state) and the
                         runtime keeps that task's state in the local file: they agree. Naming a
                         durable store (`state`) makes both say so.
  many_messages_one_key  `emit E via outbox S key interval.start` with one message per record:
                         refused (exit 65, nothing committed, nothing sent); the scaffold's stub
                         sends one message.

The database pass (`--db sqlite|postgres`) chooses where the sinks, the Iceberg catalog and the
state live. Rows are printed at the end (`edge cells (...): X/Y as predicted`).
"""

from __future__ import annotations

import http.server
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matrix

HERE = Path(__file__).resolve().parent
INJECT = HERE / "inject"
# A template (`SQL_KIND` is replaced per database), so not a `.flow` file that globs pick up.
FLOW = HERE / "edges.flow.in"
DAY = ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")
RECORDS = [{"id": f"r{i}", "amount": i} for i in range(5)]
KINDS = ("zombie_in_commit", "partial_refusal", "holder_dies", "pod_state", "many_messages_one_key")
ROWS: list[str] = []


@dataclass
class Outcome:
    predicted: str
    shows: str
    good: bool
    log: list[str] = field(default_factory=list)


class Sandbox:
    """One cell's folder, its scaffolded project and its databases."""

    def __init__(self, base: Path, binary: Path, pg: str | None, text: str) -> None:
        self.dir = base
        self.binary = binary
        self.pg = pg
        self.schema = f"edge_{uuid.uuid4().hex[:10]}"
        self.log: list[str] = []
        (base / "edges.flow").write_text(text, encoding="utf-8")
        matrix.scaffold(binary, "py", ["edges.flow"], cwd=base)
        self.py = base / "py"
        folder = base / "files" / "in" / DAY[0]
        folder.mkdir(parents=True)
        (folder / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
        if pg:
            import psycopg

            with psycopg.connect(pg, autocommit=True) as conn:
                conn.execute(f'CREATE SCHEMA "{self.schema}"')

    def close(self) -> None:
        if self.pg:
            import psycopg

            with psycopg.connect(self.pg, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')

    def sql_url(self) -> str:
        """The sinks' database: a SQLite file, or this cell's schema on the PostgreSQL server."""
        if self.pg:
            sep = "&" if "?" in self.pg else "?"
            return f"{self.pg}{sep}options=-csearch_path%3D{self.schema}"
        return f"sqlite://{self.dir}/db.sqlite"

    def catalog_url(self) -> str:
        if self.pg:
            return f"{self.sql_url()}&warehouse={(self.dir / 'warehouse').as_uri()}"
        return f"file://{self.dir}/lake"

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        if self.pg:
            import psycopg

            with psycopg.connect(self.sql_url(), autocommit=True) as conn:
                return list(conn.execute(sql).fetchall())
        db = self.dir / "db.sqlite"
        if not db.exists():
            return []
        with sqlite3.connect(db) as conn:
            return list(conn.execute(sql).fetchall())

    def tables(self) -> set[str]:
        if self.pg:
            rows = self.query(f"SELECT table_name FROM information_schema.tables WHERE table_schema = '{self.schema}'")
        else:
            rows = self.query("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {str(r[0]) for r in rows}

    def env(self, attempt: int = 1, **extra: str) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "FLOW_INTERVAL_START": DAY[0],
            "FLOW_INTERVAL_END": DAY[1],
            "FLOW_RUN_ID": "run-1",
            "FLOW_ATTEMPT": str(attempt),
            "FLOW_CONN_EVENTS": f"file://{self.dir}/files",
            "FLOW_CONN_OUT": self.sql_url(),
            "PYTHONPATH": str(self.py),
            "FLOWC_FAULT_DIR": str(self.dir),
        }
        env.update(extra)
        return env

    def start(self, module: str, env: dict[str, str], faults: str = "") -> subprocess.Popen[str]:
        if faults:
            env = {**env, "FLOWC_FAULT": faults, "PYTHONPATH": os.pathsep.join([str(INJECT), str(HERE), str(self.py)])}
        return subprocess.Popen([sys.executable, "-m", module], cwd=self.py, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def run(self, module: str, env: dict[str, str], faults: str = "") -> int:
        proc = self.start(module, env, faults)
        _, err = proc.communicate(timeout=180)
        self.log.append(f"$ {module} attempt {env.get('FLOW_ATTEMPT')} -> {proc.returncode}\n{err}")
        return proc.returncode

    def transform(self, pipeline: str, task: str, body: str) -> None:
        path = self.py / pipeline / f"{task}_transform.py"
        text = path.read_text(encoding="utf-8")
        head = text[: text.index("def transform(")]
        path.write_text(head + "def transform(ctx: Context) -> dict[str, Iterable[Any]]:\n" + body, encoding="utf-8")
        # the scaffold was compiled (matrix.scaffold): a rewrite in the same second at the same
        # size would pass Python's staleness check, so the old bytecode goes
        for stale in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
            stale.unlink()


class Receiver:
    """An HTTP receiver recording each call's idempotency key; `hold_first` keeps the first
    request unanswered until `release` is set."""

    def __init__(self, hold_first: bool = False) -> None:
        self.keys: list[str] = []
        self.release = threading.Event()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.keys.append(self.headers.get("Idempotency-Key") or "")
                if hold_first and len(receiver.keys) == 1:
                    receiver.release.wait(120)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


class Mailbox:
    """An SMTP server (aiosmtpd) answering 451 to RCPT for the addresses in `refuse`."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        self.refuse: set[str] = set()
        self.delivered: list[str] = []
        box = self

        class Handler:
            async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,  # noqa: N802
                                  options: Any) -> str:
                if address in box.refuse:
                    return "451 4.3.0 try again later"
                envelope.rcpt_tos.append(address)
                return "250 OK"

            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
                box.delivered.extend(envelope.rcpt_tos)
                return "250 OK"

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def close(self) -> None:
        self.controller.stop()


def predicted(box: Sandbox, pipeline: str, task: str, output: str) -> str:
    done = subprocess.run([str(box.binary), "report", "--format", "json", "edges.flow"], cwd=box.dir,
                          capture_output=True, text=True, timeout=120)
    report = json.loads(done.stdout)
    for p in report.get("pipelines", []):
        if p.get("name") != pipeline:
            continue
        for t in p.get("tasks", []):
            if t.get("name") != task:
                continue
            for o in t.get("outputs", []):
                if o.get("name") == output or o.get("target") == output:
                    return str(o.get("guarantee") or o.get("achieved"))
    return "unknown"


# --- the cells -----------------------------------------------------------------------------------------


def zombie_in_commit(box: Sandbox) -> Outcome:
    env = box.env(FLOW_CONN_LAKE=box.catalog_url())
    guarantee = predicted(box, "edge_iceberg", "commit", "lake")
    zombie = box.start("edge_iceberg.commit", env, "zombie_in_commit")
    try:
        deadline = time.monotonic() + 120
        while not (box.dir / "paused").exists():
            if zombie.poll() is not None or time.monotonic() > deadline:
                return Outcome(guarantee, "the zombie never reached its commit", False, box.log)
            time.sleep(0.05)
        second = box.run("edge_iceberg.commit", {**env, "FLOW_ATTEMPT": "2"})
    finally:
        (box.dir / "resume").write_text("")
    _, err = zombie.communicate(timeout=180)
    box.log.append(f"$ zombie -> {zombie.returncode}\n{err}")
    # the table as the generated runtime reads it, in a process of its own (its flowc_runtime)
    reader = ("import json, sys; from flowc_runtime import iceberg\n"
              "cat = iceberg.catalog(iceberg.locate(sys.argv[1], 'lake'))\n"
              "print(json.dumps([str(r['id']) for r in iceberg.read(iceberg.load(cat, ('edges', 'facts')), None)]))\n")
    done = subprocess.run([sys.executable, "-c", reader, box.catalog_url()], cwd=box.py, capture_output=True,
                          text=True, timeout=120, env=box.env())
    if done.returncode != 0:
        return Outcome(guarantee, f"the table could not be read: {done.stderr[-500:]}", False, box.log)
    ids = sorted(json.loads(done.stdout))
    expected = sorted(str(r["id"]) for r in RECORDS)
    shows = "clean" if ids == expected else ("dup" if len(ids) > len(expected) else "loss")
    good = shows == "clean" and second == 0 and zombie.returncode in (0, 75)
    return Outcome(guarantee, f"{shows} (attempt 2 exit {second}, zombie exit {zombie.returncode})", good, box.log)


def partial_refusal(box: Sandbox) -> Outcome:
    mailbox = Mailbox()
    try:
        env = box.env(FLOW_CONN_MAIL=f"smtp://127.0.0.1:{mailbox.port}?from=flowc%40example.com")
        guarantee = predicted(box, "edge_mail", "notify", "mail")
        mailbox.refuse = {"sales@example.com"}
        first = box.run("edge_mail.notify", env)
        unsent = box.query("SELECT sent FROM flowc_outbox")
        mailbox.refuse = set()
        second = box.run("edge_mail.notify", {**env, "FLOW_ATTEMPT": "2"})
        missing = {"ops@example.com", "sales@example.com"} - set(mailbox.delivered)
        shows = "loss" if missing or first == 0 else "clean"
        if shows == "clean" and len(mailbox.delivered) > 2:
            shows = "dup (a recipient that accepted the refused attempt's message)"
        good = first != 0 and unsent == [(0,)] and second == 0 and not missing
        return Outcome(guarantee, f"{shows} (attempt 1 exit {first}, attempt 2 exit {second})", good, box.log)
    finally:
        mailbox.close()


def holder_dies(box: Sandbox) -> Outcome:
    receiver = Receiver(hold_first=True)
    try:
        env = box.env(FLOW_CONN_HOOK=receiver.url)
        guarantee = predicted(box, "edge_relay", "notify", "hook")
        holder = box.start("edge_relay.notify", env)
        deadline = time.monotonic() + 60
        while not receiver.keys:
            if holder.poll() is not None or time.monotonic() > deadline:
                return Outcome(guarantee, "attempt 1 never reached the receiver", False, box.log)
            time.sleep(0.05)
        second = box.start("edge_relay.notify", {**env, "FLOW_ATTEMPT": "2"})
        time.sleep(3)
        holder.send_signal(signal.SIGKILL)
        holder.communicate(timeout=30)
        _, err = second.communicate(timeout=180)
        box.log.append(f"$ attempt 2 -> {second.returncode}\n{err}")
        sent = box.query("SELECT sent FROM flowc_outbox")
        shows = "loss" if second.returncode == 0 and sent != [(1,)] else "clean"
        good = second.returncode == 0 and sent == [(1,)] and len(set(receiver.keys)) == 1
        return Outcome(guarantee, f"{shows} (attempt 2 exit {second.returncode}, rows {sent})", good, box.log)
    finally:
        receiver.close()


def pod_state(box: Sandbox) -> Outcome:
    """`build --target argo` and the runtime agree on whether the state is durable in a pod."""
    out = box.dir / "argo"
    built = subprocess.run([str(box.binary), "build", "--target", "argo", "--out", str(out), "edges.flow"],
                           cwd=box.dir, capture_output=True, text=True, timeout=120)
    # the pipelines FL806 names: each finding starts with a `FLxxx(name)` line
    blocks = re.split(r"^(?=FL\d{3}\()", built.stdout, flags=re.M)
    fl806 = {m.group(1) for b in blocks if b.startswith("FL806") for m in [re.search(r"pipeline `(\w+)`", b)] if m}
    probe = ("import sys, json; from flowc_runtime import state; from flowc_runtime.context import context_from_env\n"
             "import importlib; out = {}\n"
             "for name in ('edge_kafka.load', 'edge_kafka_named.load'):\n"
             "    task = importlib.import_module(name).TASK\n"
             "    ctx = context_from_env(task)\n"
             "    out[name] = state.locate(task.state, dict(__import__('os').environ), ctx).url == state.LOCAL_STATE\n"
             "print(json.dumps(out))\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=box.py, capture_output=True, text=True, timeout=60,
                          env={**box.env(), "FLOW_PIPELINE": "", "FLOW_TASK": "",
                               "FLOW_CONN_KEPT": "postgresql://flowc@127.0.0.1:1/state"})
    box.log.append(f"$ build --target argo -> {built.returncode}\n{built.stdout}{built.stderr}")
    box.log.append(f"$ probe\n{done.stdout}{done.stderr}")
    if done.returncode != 0:
        return Outcome("no durable state (FL806)", "the runtime probe failed", False, box.log)
    local = json.loads(done.stdout)
    refused = fl806 == {"edge_kafka"}
    good = refused and local == {"edge_kafka.load": True, "edge_kafka_named.load": False}
    shows = f"build FL806 {'yes' if refused else 'no'}; runtime local file {local}"
    return Outcome("edge_kafka: no durable state (FL806); edge_kafka_named: durable", shows, good, box.log)


def many_messages_one_key(box: Sandbox) -> Outcome:
    receiver = Receiver()
    try:
        env = box.env(FLOW_CONN_HOOK=receiver.url)
        stub = box.run("edge_key.notify", env)
        after_stub = len(receiver.keys)
        box.transform("edge_key", "notify", '    rows = ctx.inputs["events"]\n'
                                            '    return {"out": [(r, dict(r)) for r in rows], '
                                            '"hook": [(r, dict(r)) for r in rows]}\n')
        refused = box.run("edge_key.notify", {**env, "FLOW_INTERVAL_START": "2026-01-02T00:00:00Z",
                                               "FLOW_INTERVAL_END": "2026-01-03T00:00:00Z", "FLOW_RUN_ID": "run-2",
                                               "FLOW_CONN_EVENTS": f"file://{box.dir}/files2"})
        rows = box.query("SELECT interval_start FROM flowc_outbox")
        good = stub == 0 and after_stub == 1 and refused == 65 and len(receiver.keys) == 1 and len(rows) == 1
        shows = f"stub exit {stub} sent {after_stub}; per-record exit {refused}, sent {len(receiver.keys) - after_stub}"
        return Outcome("one message per key (others refused, exit 65)", shows, good, box.log)
    finally:
        receiver.close()


CELLS: dict[str, Callable[[Sandbox], Outcome]] = {
    "zombie_in_commit": zombie_in_commit,
    "partial_refusal": partial_refusal,
    "holder_dies": holder_dies,
    "pod_state": pod_state,
    "many_messages_one_key": many_messages_one_key,
}


def applies(kind: str, db: str) -> bool:
    """`holder_dies` concerns PostgreSQL's `SKIP LOCKED` relay: the PostgreSQL pass only. The
    edges run in the SQLite and PostgreSQL passes (the DuckDB and MySQL passes run the matrix's
    fixtures and the v0.3 cells)."""
    if db not in ("sqlite", "postgres"):
        return False
    return kind != "holder_dies" or db == "postgres"


def run_cell(kind: str, base: Path, binary: Path, pg: str | None) -> Outcome:
    base.mkdir(parents=True, exist_ok=True)
    if kind == "pod_state":
        text = (HERE / "edges_pods.flow").read_text(encoding="utf-8")
    else:
        text = FLOW.read_text(encoding="utf-8").replace("SQL_KIND", "postgres_table" if pg else "sqlite_table")
    box = Sandbox(base, binary, pg, text)
    if kind == "many_messages_one_key":
        (base / "files2" / "in" / "2026-01-02T00:00:00Z").mkdir(parents=True)
        (base / "files2" / "in" / "2026-01-02T00:00:00Z" / "a.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    try:
        return CELLS[kind](box)
    finally:
        box.close()
