"""Verdicts at the edges (issue 28; issue 27 items 5, 7, 15), black-box: each test writes a
`.flow` file, scaffolds it with the real `flowc` binary, and runs the generated task as a process
with the environment a target gives it. The fault comes from outside: a process stalled inside
its commit and resumed later, an SMTP server refusing one recipient, an attempt killed while it
holds an outbox row, a transform that breaks a contract.

Needs `target/debug/flowc` (or `FLOWC_BIN`); the PostgreSQL test needs `FLOWC_TEST_PG`.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
INJECT = ROOT / "tests" / "fault" / "inject"
DAY = ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")
ROWS = [{"id": f"r{i}", "amount": i} for i in range(5)]


def flowc() -> Path:
    binary = Path(os.environ.get("FLOWC_BIN") or ROOT / "target" / "debug" / "flowc")
    if not binary.exists():
        pytest.fail(f"no flowc binary at {binary}: run `cargo build --bin flowc` (or set FLOWC_BIN)")
    return binary


def scaffold(tmp: Path, flow: str) -> Path:
    (tmp / "p.flow").write_text(flow, encoding="utf-8")
    done = subprocess.run([str(flowc()), "scaffold", "--lang", "python", "--out", "py", "p.flow"],
                          cwd=tmp, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return tmp / "py"


def seed(tmp: Path, rows: list[dict[str, Any]], day: str = DAY[0]) -> None:
    folder = tmp / "files" / "in" / day
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def env_for(tmp: Path, attempt: int = 1, **extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "FLOW_INTERVAL_START": DAY[0],
        "FLOW_INTERVAL_END": DAY[1],
        "FLOW_RUN_ID": "run-1",
        "FLOW_ATTEMPT": str(attempt),
        "FLOW_CONN_EVENTS": f"file://{tmp}/files",
        "PYTHONPATH": str(tmp / "py"),
    }
    env.update(extra)
    return env


def start(py: Path, module: str, env: dict[str, str], faults: str = "") -> subprocess.Popen[str]:
    if faults:
        env = {**env, "FLOWC_FAULT": faults, "PYTHONPATH": f"{INJECT}{os.pathsep}{INJECT.parent}{os.pathsep}{py}"}
    return subprocess.Popen([sys.executable, "-m", module], cwd=py, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def run_task(py: Path, module: str, env: dict[str, str], faults: str = "", timeout: float = 120) -> tuple[int, str]:
    proc = start(py, module, env, faults)
    _, err = proc.communicate(timeout=timeout)
    return proc.returncode, err


def wait_for(path: Path, proc: subprocess.Popen[str] | None = None, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if proc is not None and proc.poll() is not None:
            err = proc.stderr.read() if proc.stderr else ""
            raise AssertionError(f"the process ended ({proc.returncode}) before {path.name}: {err}")
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def set_transform(py: Path, pipeline: str, task: str, body: str) -> None:
    """Replace a scaffolded transform's body (the file the user edits)."""
    path = py / pipeline / f"{task}_transform.py"
    text = path.read_text(encoding="utf-8")
    head = text[: text.index("def transform(")]
    path.write_text(head + "def transform(ctx: Context) -> dict[str, Iterable[Any]]:\n" + body, encoding="utf-8")


SOURCE = """
source events: files {
  path "in/{interval.start}/"
  immutable
  pin listing
  identity id
  fields [id, amount]
}
"""

PIPELINE = """
pipeline p {{
  schedule "@daily"
  start 2026-01-01
  timezone "UTC"
  retries 2
  retry_delay 1s
  timeout 10m
  require none

  task t {{
{body}
    run command ["python", "-m", "p.t"]
  }}
}}
"""


def flow(decls: str, body: str) -> str:
    return SOURCE + decls + PIPELINE.format(body=body)


# --- issue 28 item 1: an Iceberg conditional commit is conditional -------------------------------------


def test_iceberg_a_zombie_inside_its_commit_never_commits_on_top(tmp_path: Path) -> None:
    """Attempt 1 stalls inside the catalog commit; attempt 2 commits the interval; attempt 1
    resumes: its commit is refused (pyiceberg's own retries, which rebase an append onto the
    new snapshot, are off) and it exits 0 seeing its transaction committed. 5 rows, not 10."""
    pytest.importorskip("pyiceberg")
    py = scaffold(tmp_path, flow("""
sink lake: iceberg_table {
  table "fm.facts"
}
""", "    read events\n    write lake conditional_commit"))
    seed(tmp_path, ROWS)
    faults = tmp_path / "faults"
    faults.mkdir()
    env = env_for(tmp_path, FLOW_CONN_LAKE=f"file://{tmp_path}/lake", FLOWC_FAULT_DIR=str(faults))
    zombie = start(py, "p.t", env, "zombie_in_commit")
    try:
        wait_for(faults / "paused", zombie)
        code, err = run_task(py, "p.t", {**env, "FLOW_ATTEMPT": "2"})
        assert code == 0, err
    finally:
        (faults / "resume").write_text("")
    _, err1 = zombie.communicate(timeout=120)
    assert zombie.returncode in (0, 75), err1
    assert "retrying" not in err1  # pyiceberg never retried the commit by itself
    sys.path.insert(0, str(py))
    try:
        from flowc_runtime import iceberg

        cat = iceberg.catalog(iceberg.locate(f"file://{tmp_path}/lake", "lake"))
        rows = iceberg.read(iceberg.load(cat, ("fm", "facts")), None)
    finally:
        sys.path.remove(str(py))
    assert sorted(r["id"] for r in rows) == [r["id"] for r in ROWS]


# --- issue 28 item 2: an email partly refused is not sent ------------------------------------------------


class PickyMailbox:
    """An SMTP server (aiosmtpd) that answers 451 to RCPT for the addresses in `refuse`."""

    def __init__(self) -> None:
        import socket

        from aiosmtpd.controller import Controller

        self.refuse: set[str] = set()
        self.envelopes: list[Any] = []
        box = self

        class Handler:
            async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,  # noqa: N802
                                  options: Any) -> str:
                if address in box.refuse:
                    return "451 4.3.0 try again later"
                envelope.rcpt_tos.append(address)
                return "250 OK"

            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
                box.envelopes.append(envelope)
                return "250 OK"

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self.controller.start()


@pytest.fixture
def picky() -> Any:
    box = PickyMailbox()
    yield box
    box.controller.stop()


def outbox(db: Path) -> list[tuple[Any, ...]]:
    return sqlite3.connect(db).execute("SELECT effect, sent FROM flowc_outbox ORDER BY seq").fetchall()


def test_email_refused_for_one_recipient_stays_unsent(tmp_path: Path, picky: PickyMailbox) -> None:
    py = scaffold(tmp_path, flow("""
sink out: sqlite_table {
  table "orders"
  primary_key id
}

effect mail: email {
  to "ops@example.com, sales@example.com"
}
""", "    read events\n    key input.id\n    write out upsert\n    emit mail via outbox out key interval.start"))
    seed(tmp_path, ROWS)
    set_transform(py, "p", "t", '    rows = ctx.inputs["events"]\n'
                                '    return {"out": [(r, dict(r)) for r in rows], "mail": [{"subject": "s", "text": "t"}]}\n')
    env = env_for(tmp_path, FLOW_CONN_OUT=f"sqlite://{tmp_path}/db.sqlite",
                  FLOW_CONN_MAIL=f"smtp://127.0.0.1:{picky.port}?from=flowc%40example.com")
    picky.refuse = {"sales@example.com"}
    code, err = run_task(py, "p.t", env)
    assert code == 75, err
    assert "refused 1 of 2 recipient(s)" in err and "sales@example.com: 451" in err
    assert outbox(tmp_path / "db.sqlite") == [("mail", 0)]
    # the next attempt, the server taking both: sent, marked
    picky.refuse = set()
    code, err = run_task(py, "p.t", {**env, "FLOW_ATTEMPT": "2"})
    assert code == 0, err
    assert outbox(tmp_path / "db.sqlite") == [("mail", 1)]
    assert picky.envelopes[-1].rcpt_tos == ["ops@example.com", "sales@example.com"]


# --- issue 28 item 3: the PostgreSQL relay waits for a row its holder dies with --------------------------


class StallingReceiver:
    """An HTTP receiver that holds the first request open (the sender waits for its answer)
    until `release` is set; every later one is answered 200 at once."""

    def __init__(self) -> None:
        import http.server

        self.calls: list[bytes] = []
        self.release = threading.Event()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.calls.append(body)
                if len(receiver.calls) == 1:
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


PG = os.environ.get("FLOWC_TEST_PG")


@pytest.mark.skipif(not PG, reason="FLOWC_TEST_PG names no PostgreSQL server")
def test_postgres_relay_sends_the_row_its_holder_died_with(tmp_path: Path) -> None:
    """Attempt 1 claims the interval's outbox row and hangs in the receiver; attempt 2 skips the
    locked row; attempt 1 is killed. Attempt 2 must not exit 0 with the row unsent: it waits
    for the lock, sends the row and exits 0 with it marked."""
    import uuid

    import psycopg

    assert PG is not None
    schema = f"relay_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    receiver = StallingReceiver()
    try:
        py = scaffold(tmp_path, flow("""
sink out: postgres_table {
  table "orders"
  primary_key id
}

effect hook: webhook {
  url "http://127.0.0.1:9/unused"
}
""", "    read events\n    key input.id\n    write out upsert\n    emit hook via outbox out key interval.start"))
        seed(tmp_path, ROWS)
        set_transform(py, "p", "t", '    rows = ctx.inputs["events"]\n'
                                    '    return {"out": [(r, dict(r)) for r in rows], "hook": [{"records": len(rows)}]}\n')
        sep = "&" if "?" in PG else "?"
        conn_url = f"{PG}{sep}options=-csearch_path%3D{schema}"
        env = env_for(tmp_path, FLOW_CONN_OUT=conn_url, FLOW_CONN_HOOK=receiver.url)
        holder = start(py, "p.t", env)
        deadline = time.monotonic() + 60
        while not receiver.calls:
            assert holder.poll() is None, holder.communicate()[1]
            assert time.monotonic() < deadline, "attempt 1 never reached the receiver"
            time.sleep(0.05)
        second = start(py, "p.t", {**env, "FLOW_ATTEMPT": "2"})
        time.sleep(3)  # attempt 2 reaches the relay and finds the row locked
        holder.send_signal(signal.SIGKILL)
        holder.communicate(timeout=30)
        _, err = second.communicate(timeout=120)
        assert second.returncode == 0, err
        with psycopg.connect(PG, autocommit=True) as conn:
            sent = conn.execute(f'SELECT sent FROM "{schema}".flowc_outbox').fetchall()
        assert sent == [(1,)], err
        assert len(receiver.calls) == 2  # once by the dead holder, once by attempt 2
    finally:
        receiver.close()
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


# --- issue 28 item 6: one message per key --------------------------------------------------------------------


class Receiver:
    def __init__(self) -> None:
        import http.server

        self.calls: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.calls.append((dict(self.headers.items()), body))
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
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Any:
    r = Receiver()
    yield r
    r.close()


KEYED = """
sink out: sqlite_table {
  table "orders"
  primary_key id
}

effect hook: webhook {
  url "http://127.0.0.1:9/unused"
}
"""


def test_many_messages_for_one_key_are_refused_and_the_stub_sends_one(tmp_path: Path, receiver: Receiver) -> None:
    py = scaffold(tmp_path, flow(KEYED, "    read events\n    key input.id\n    write out upsert\n"
                                        "    emit hook via outbox out key interval.start"))
    seed(tmp_path, ROWS)
    env = env_for(tmp_path, FLOW_CONN_OUT=f"sqlite://{tmp_path}/db.sqlite", FLOW_CONN_HOOK=receiver.url)
    # the scaffold's stub: one summary message for the interval
    code, err = run_task(py, "p.t", env)
    assert code == 0, err
    assert len(receiver.calls) == 1
    assert json.loads(receiver.calls[0][1])["record"] == {"interval_start": DAY[0], "records": 5}
    # a transform returning one message per record under that key: refused, nothing committed
    set_transform(py, "p", "t", '    rows = ctx.inputs["events"]\n'
                                '    return {"out": [(r, dict(r)) for r in rows], "hook": [(r, dict(r)) for r in rows]}\n')
    (tmp_path / "db.sqlite").unlink()
    code, err = run_task(py, "p.t", {**env, "FLOW_RUN_ID": "run-2"})
    assert code == 65, err
    assert "different messages for one key" in err and "interval.start" in err
    assert not sqlite3.connect(tmp_path / "db.sqlite").execute(
        "SELECT name FROM sqlite_master WHERE name IN ('orders', 'flowc_outbox')").fetchall()
    assert len(receiver.calls) == 1
    # the near miss: equal messages for one key are one message
    set_transform(py, "p", "t", '    rows = ctx.inputs["events"]\n'
                                '    return {"out": [(r, dict(r)) for r in rows], "hook": [{"n": 1} for r in rows]}\n')
    code, err = run_task(py, "p.t", {**env, "FLOW_RUN_ID": "run-3"})
    assert code == 0, err
    assert len(receiver.calls) == 2


# --- issue 28 item 9: an invalid message is a deterministic error ---------------------------------------


def test_a_message_its_kind_refuses_exits_65_naming_the_field(tmp_path: Path, receiver: Receiver) -> None:
    py = scaffold(tmp_path, flow("""
sink out: sqlite_table {
  table "orders"
  primary_key id
}

effect chat: slack_message {
  channel "#orders"
}
""", "    read events\n    key input.id\n    write out upsert\n    emit chat via outbox out"))
    seed(tmp_path, ROWS[:1])
    env = env_for(tmp_path, FLOW_CONN_OUT=f"sqlite://{tmp_path}/db.sqlite", FLOW_CONN_CHAT=receiver.url)
    set_transform(py, "p", "t", '    rows = ctx.inputs["events"]\n'
                                '    return {"out": [(r, dict(r)) for r in rows],\n'
                                '            "chat": [(r, {"text": "x", "colour": "red"}) for r in rows]}\n')
    for attempt in (1, 2):  # the same on every attempt
        code, err = run_task(py, "p.t", {**env, "FLOW_ATTEMPT": str(attempt)})
        assert code == 65, err
        assert "unknown message field(s) `colour`" in err
    assert receiver.calls == []
    # the near miss: a message Slack takes
    set_transform(py, "p", "t", '    rows = ctx.inputs["events"]\n'
                                '    return {"out": [(r, dict(r)) for r in rows], "chat": [(r, {"text": "x"}) for r in rows]}\n')
    code, err = run_task(py, "p.t", {**env, "FLOW_ATTEMPT": "3"})
    assert code == 0, err
    assert len(receiver.calls) == 1


# --- issue 28 item 11: a pin records its source -----------------------------------------------------------


PINNED = """
sink out: sqlite_table {
  table "orders"
  primary_key id
}
"""


def test_a_pin_taken_from_another_source_is_refused(tmp_path: Path) -> None:
    py = scaffold(tmp_path, flow(PINNED, "    read events\n    key input.id\n    write out upsert"))
    seed(tmp_path, ROWS)
    state = f"sqlite://{tmp_path}/state.sqlite"
    env = env_for(tmp_path, FLOW_CONN_OUT=f"sqlite://{tmp_path}/db.sqlite", FLOWC_STATE=state)
    code, err = run_task(py, "p.t", env)
    assert code == 0, err
    # the same interval against another location (the S3 walkthrough after the local one)
    other = tmp_path / "elsewhere"
    (other / "in" / DAY[0]).mkdir(parents=True)
    (other / "in" / DAY[0] / "b.jsonl").write_text(json.dumps({"id": "x", "amount": 9}) + "\n")
    moved = {**env, "FLOW_CONN_EVENTS": f"file://{other}", "FLOW_RUN_ID": "run-2"}
    for attempt in ("1", "2"):
        code, err = run_task(py, "p.t", {**moved, "FLOW_ATTEMPT": attempt})
        assert code == 65, err
        assert "was taken from another source" in err and str(other) in err
    # the near miss: the same source again, a later attempt: the pin is reused
    code, err = run_task(py, "p.t", {**env, "FLOW_ATTEMPT": "3"})
    assert code == 0, err
    rows = sqlite3.connect(tmp_path / "db.sqlite").execute("SELECT id FROM orders ORDER BY id").fetchall()
    assert [r[0] for r in rows] == [r["id"] for r in ROWS]


def test_a_pin_stored_before_identities_is_accepted_once(tmp_path: Path) -> None:
    py = scaffold(tmp_path, flow(PINNED, "    read events\n    key input.id\n    write out upsert"))
    seed(tmp_path, ROWS)
    db = sqlite3.connect(tmp_path / "state.sqlite")
    # the state store as the previous runtime left it: pins without a source, no schema version
    db.execute("CREATE TABLE flowc_pins (pipeline TEXT NOT NULL, task TEXT NOT NULL, interval_start TEXT NOT NULL, "
               "name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (pipeline, task, interval_start, name))")
    listing = json.dumps(["a.jsonl"])
    db.execute("INSERT INTO flowc_pins VALUES ('p', 't', ?, 'read:events', ?)", (DAY[0], listing))
    db.commit()
    db.close()
    env = env_for(tmp_path, FLOW_CONN_OUT=f"sqlite://{tmp_path}/db.sqlite", FLOWC_STATE=f"sqlite://{tmp_path}/state.sqlite")
    code, err = run_task(py, "p.t", env)
    assert code == 0, err
    assert "stored by an older runtime" in err
    db = sqlite3.connect(tmp_path / "state.sqlite")
    assert db.execute("SELECT version FROM flowc_schema WHERE name = 'state'").fetchall() == [(2,)]
    (source,) = db.execute("SELECT source FROM flowc_pins").fetchone()
    assert source is not None and "files" in source
    # accepted once: the next attempt reads the pin with its identity, no note
    code, err = run_task(py, "p.t", {**env, "FLOW_ATTEMPT": "2"})
    assert code == 0, err
    assert "older runtime" not in err


# --- issue 27 item 5: credentials never reach the log ------------------------------------------------------


def test_runtime_messages_redact_url_credentials(tmp_path: Path) -> None:
    # A scheme no runtime reads (MySQL has one since flowc 0.3).
    py = scaffold(tmp_path, flow(PINNED, "    read events\n    key input.id\n    write out upsert"))
    seed(tmp_path, ROWS)
    for url in ("oracle://admin:hunter2@db.example.com:3306/shop",
                "oracle://db.example.com/shop?user=admin&password=hunter2&sslmode=require",
                "oracle://db.example.com/shop?api_key=hunter2", "oracle://db.example.com/shop?token=hunter2"):
        code, err = run_task(py, "p.t", env_for(tmp_path, FLOW_CONN_OUT=url))
        assert code != 0
        assert "no runtime for connection URL" in err
        assert "hunter2" not in err, err
        assert "db.example.com" in err  # the location stays readable
    # the near miss: a URL without credentials is printed whole
    code, err = run_task(py, "p.t", env_for(tmp_path, FLOW_CONN_OUT="oracle://db.example.com/shop?sslmode=require"))
    assert "oracle://db.example.com/shop?sslmode=require" in err


# --- issue 27 item 7: idempotency keys that are not Latin-1 ------------------------------------------------


def test_a_non_latin1_idempotency_key_is_encoded_the_same_on_every_attempt(tmp_path: Path, receiver: Receiver) -> None:
    py = scaffold(tmp_path, flow("""
effect api: http_request {
  url "http://127.0.0.1:9/unused"
}
""", "    read events\n    emit api via idempotency_key input.id\n    on_ambiguous retry"))
    seed(tmp_path, [{"id": "注文-2", "amount": 1}, {"id": "plain-1", "amount": 2}])
    env = env_for(tmp_path, FLOW_CONN_API=receiver.url)
    for attempt in (1, 2):
        code, err = run_task(py, "p.t", {**env, "FLOW_ATTEMPT": str(attempt)})
        assert code == 0, err
    keys = [headers["Idempotency-Key"] for headers, _ in receiver.calls]
    assert len(keys) == 4 and keys[0:2] == keys[2:4]
    encoded = [k for k in keys[:2] if "%" in k]
    (one,) = encoded
    assert urllib.parse.unquote(one) == '["注文-2"]'
    assert '["plain-1"]' in keys  # printable ASCII goes as it is


# --- issue 27 item 15: one definition of the interval ------------------------------------------------------


def backfill_intervals(tmp: Path, zone: str, day_from: str, day_to: str) -> list[tuple[str, str]]:
    (tmp / "dst.flow").write_text(f"""
source events: files {{
  path "in/{{interval.start}}/"
  immutable
  pin listing
  identity id
  fields [id, amount]
}}

sink out: sqlite_table {{
  table "orders"
  primary_key id
}}

pipeline dst {{
  schedule "30 2 * * *"
  start 2026-01-01
  timezone "{zone}"
  retries 1
  timeout 10m
  require none
  image "python:3.12"

  task t {{
    read events
    key input.id
    write out upsert
    run command ["python", "-m", "dst.t"]
  }}
}}
""", encoding="utf-8")
    done = subprocess.run([str(flowc()), "backfill", "--target", "argo", "--from", day_from, "--to", day_to, "dst.flow"],
                          cwd=tmp, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # the header lists the intervals, as the Workflows' `interval_start`/`interval_end` hold them
    intervals = re.findall(r"^#   (\S+) \.\. (\S+)$", done.stdout, flags=re.M)
    assert intervals, done.stdout[:2000]
    for begin, end in intervals:
        assert f'value: "{begin}"' in done.stdout and f'value: "{end}"' in done.stdout
    return intervals


@pytest.mark.parametrize(("zone", "days"), [
    ("Europe/Paris", ("2026-03-27", "2026-03-31")),
    ("Europe/Paris", ("2026-10-23", "2026-10-27")),
    ("America/New_York", ("2026-03-06", "2026-03-10")),
    ("America/New_York", ("2026-10-30", "2026-11-03")),
])
def test_a_pod_given_only_the_end_runs_backfills_interval(tmp_path: Path, zone: str, days: tuple[str, str]) -> None:
    """A CronWorkflow's pod gets only the tick (FLOW_INTERVAL_END) and the schedule: the generated
    task derives the start with backfill's definition, on the DST days of two zones
    (`30 2 * * *` falls in Paris's spring-forward gap and in its autumn fold)."""
    intervals = backfill_intervals(tmp_path, zone, *days)
    (tmp_path / "p").mkdir()
    scaffold_dir = tmp_path / "p"
    done = subprocess.run([str(flowc()), "scaffold", "--lang", "python", "--out", "py", "../dst.flow"],
                          cwd=scaffold_dir, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    py = scaffold_dir / "py"
    set_transform(py, "dst", "t", "    return {\"out\": [{\"id\": \"x\", \"start\": ctx.interval_key, "
                                  "\"end\": ctx.interval_end.strftime('%Y-%m-%dT%H:%M:%SZ')}]}\n")
    lengths = set()
    for n, (begin, end) in enumerate(intervals):
        seed(tmp_path, [], begin)
        env = env_for(tmp_path, FLOW_INTERVAL_END=end, FLOW_SCHEDULE="30 2 * * *", FLOW_TIMEZONE=zone,
                      FLOW_RUN_ID=f"tick-{n}", FLOW_CONN_OUT=f"sqlite://{tmp_path}/out.sqlite", PYTHONPATH=str(py))
        env.pop("FLOW_INTERVAL_START")
        code, err = run_task(py, "dst.t", env)
        assert code == 0, err
        row = sqlite3.connect(tmp_path / "out.sqlite").execute("SELECT start, \"end\" FROM orders").fetchone()
        assert row == (begin, end), (zone, begin, end, row)
        from datetime import datetime

        lengths.add(datetime.fromisoformat(end) - datetime.fromisoformat(begin))
    assert len(lengths) == 2  # the DST day is 23 or 25 hours long, the others 24
