"""The wire format of each stdlib effect kind, as a real receiver on 127.0.0.1 sees it: an HTTP
server (stdlib `http.server` in a thread) recording method, path, headers and body, and an SMTP
server (aiosmtpd). The formats are the ones docs/scaffold.md documents ("Effect messages").

Run with `.venv/bin/python -m pytest tests/python` (scripts/python-venv creates .venv).
"""

from __future__ import annotations

import http.server
import json
import sys
import threading
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "templates" / "python"))

from flowc_runtime import Emit, Endpoint, Read, Task, Term, Write, run  # noqa: E402
from flowc_runtime.context import Context  # noqa: E402

DAY1 = ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")
ROWS = [{"id": "a", "amount": 1}, {"id": "b", "amount": 2}]


class Call:
    def __init__(self, method: str, path: str, headers: dict[str, str], body: bytes) -> None:
        self.method, self.path, self.headers, self.body = method, path, headers, body

    def json(self) -> Any:
        return json.loads(self.body)


class Receiver:
    """A real HTTP receiver recording every call; `reply` is the body it answers with."""

    def __init__(self, reply: bytes = b"ok", status: int = 200) -> None:
        self.calls: list[Call] = []
        self.reply, self.status = reply, status
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def record(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                receiver.calls.append(Call(self.command, self.path, dict(self.headers.items()), body))
                self.send_response(receiver.status)
                self.send_header("Content-Length", str(len(receiver.reply)))
                self.end_headers()
                self.wfile.write(receiver.reply)

            do_POST = do_PUT = do_GET = do_DELETE = record  # noqa: N815

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Any:
    r = Receiver()
    yield r
    r.close()


def seed(tmp: Path, rows: list[dict[str, Any]]) -> None:
    folder = tmp / "files" / "in" / DAY1[0]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def env_for(tmp: Path, attempt: int = 1, **extra: str) -> dict[str, str]:
    env = {
        "FLOW_PIPELINE": "p",
        "FLOW_TASK": "t",
        "FLOW_INTERVAL_START": DAY1[0],
        "FLOW_INTERVAL_END": DAY1[1],
        "FLOW_RUN_ID": "run-1",
        "FLOW_ATTEMPT": str(attempt),
        "FLOWC_STATE": f"sqlite://{tmp}/state.sqlite",
        "FLOW_CONN_RAW": f"file://{tmp}/files",
        "FLOW_CONN_OUT": f"sqlite://{tmp}/db.sqlite",
    }
    env.update(extra)
    return env


def task_with(emit: Emit, writes: tuple[Write, ...] = ()) -> Task:
    read = Read(Endpoint("raw", "files", {"path": "in/{interval.start}/"}), immutable=True, pin="listing",
                identity=("id",))
    return Task("p", "t", "@daily", "UTC", False, (read,), writes, (emit,))


def messages(make: Any) -> Any:
    """A transform that sends `make(row)` for each input row to the effect `hook`."""

    def transform(ctx: Context) -> dict[str, Any]:
        rows = ctx.inputs["raw"]
        return {"hook": [(r, make(r)) for r in rows], "out": [(r, dict(r)) for r in rows]}

    return transform


OUT = Write(Endpoint("out", "sqlite_table", {"table": "o"}), "upsert", key=(Term("input_field", "id"),),
            primary_key=("id",))


def test_webhook_posts_flowcs_envelope_with_the_key_in_an_idempotency_key_header(
        tmp_path: Path, receiver: Receiver) -> None:
    seed(tmp_path, ROWS)
    emit = Emit(Endpoint("hook", "webhook", {"url": receiver.base + "/hooks/orders"}), "idempotency_key",
                key=(Term("input_field", "id"),), idempotency_key=True)
    assert run(task_with(emit), messages(dict), env_for(tmp_path)) == 0
    assert [(c.method, c.path) for c in receiver.calls] == [("POST", "/hooks/orders")] * 2
    first = receiver.calls[0]
    assert first.headers["Content-Type"] == "application/json"
    assert first.headers["Idempotency-Key"] == '["a"]'
    assert first.headers["Flowc-Interval-Start"] == DAY1[0]
    assert first.json() == {"effect": "hook", "pipeline": "p", "task": "t", "interval_start": DAY1[0],
                            "record": {"id": "a", "amount": 1}}


def test_http_request_sends_the_record_as_the_body_with_its_method(tmp_path: Path, receiver: Receiver) -> None:
    seed(tmp_path, ROWS)
    emit = Emit(Endpoint("hook", "http_request", {"url": receiver.base + "/api/orders", "method": "put"}),
                "idempotency_key", key=(Term("input_field", "id"),), idempotency_key=True)
    assert run(task_with(emit), messages(dict), env_for(tmp_path)) == 0
    assert [(c.method, c.path, c.json()) for c in receiver.calls] == [
        ("PUT", "/api/orders", {"id": "a", "amount": 1}), ("PUT", "/api/orders", {"id": "b", "amount": 2})]
    assert [c.headers["Idempotency-Key"] for c in receiver.calls] == ['["a"]', '["b"]']
    assert receiver.calls[0].headers["Content-Type"] == "application/json"


def test_http_request_get_puts_the_record_in_the_query_string(tmp_path: Path, receiver: Receiver) -> None:
    seed(tmp_path, ROWS[:1])
    emit = Emit(Endpoint("hook", "http_request", {"url": receiver.base + "/api?v=1", "method": "GET"}),
                "idempotency_key", key=(Term("input_field", "id"),), idempotency_key=True)
    assert run(task_with(emit), messages(lambda r: {"id": r["id"], "tags": ["x", "y"]}), env_for(tmp_path)) == 0
    (call,) = receiver.calls
    assert (call.method, call.path, call.body) == ("GET", "/api?v=1&id=a&tags=%5B%22x%22%2C+%22y%22%5D", b"")
    assert call.headers["Idempotency-Key"] == '["a"]'


def test_slack_message_posts_text_and_channel_at_the_top_level(tmp_path: Path, receiver: Receiver) -> None:
    seed(tmp_path, ROWS)
    emit = Emit(Endpoint("hook", "slack_message", {"channel": "#orders"}), "untracked")
    transform = messages(lambda r: {"text": f"order {r['id']}", "unfurl_links": False})
    env = env_for(tmp_path, FLOW_CONN_HOOK=receiver.base + "/services/T0/B0/x")
    assert run(task_with(emit), transform, env) == 0
    assert [c.json() for c in receiver.calls] == [
        {"channel": "#orders", "text": "order a", "unfurl_links": False},
        {"channel": "#orders", "text": "order b", "unfurl_links": False}]
    call = receiver.calls[0]
    assert (call.method, call.path) == ("POST", "/services/T0/B0/x")
    assert call.headers["Content-Type"] == "application/json; charset=utf-8"
    assert "Authorization" not in call.headers and "Idempotency-Key" not in call.headers


def test_slack_web_api_gets_the_token_and_its_refusal_fails_the_attempt(tmp_path: Path) -> None:
    seed(tmp_path, ROWS[:1])
    api = Receiver(reply=b'{"ok": false, "error": "channel_not_found"}')
    try:
        emit = Emit(Endpoint("hook", "slack_message", {"channel": "C123"}), "outbox", outbox="out")
        env = env_for(tmp_path, FLOW_CONN_HOOK=api.base + "/api/chat.postMessage", FLOW_TOKEN_HOOK="xoxb-1")
        transform = messages(lambda r: {"text": "hi"})
        assert run(task_with(emit, (OUT,)), transform, env) == 75  # the relay's receiver failed: retry
        assert api.calls[0].headers["Authorization"] == "Bearer xoxb-1"
        assert api.calls[0].json() == {"channel": "C123", "text": "hi"}
        api.reply = b'{"ok": true}'
        assert run(task_with(emit, (OUT,)), transform, env_for(
            tmp_path, attempt=2, FLOW_CONN_HOOK=api.base + "/api/chat.postMessage", FLOW_TOKEN_HOOK="xoxb-1")) == 0
        assert len(api.calls) == 2
    finally:
        api.close()


@pytest.mark.parametrize("message", [{"id": "a"}, {"text": ""}, {"text": "x", "channel": "#other"}, ["text"]])
def test_a_slack_message_slack_would_refuse_fails_before_anything_commits(
        tmp_path: Path, receiver: Receiver, message: Any) -> None:
    seed(tmp_path, ROWS[:1])
    emit = Emit(Endpoint("hook", "slack_message", {"channel": "#orders"}), "outbox", outbox="out")
    env = env_for(tmp_path, FLOW_CONN_HOOK=receiver.base + "/hook")
    # a deterministic error of the transform (MODEL C0): exit 65, which no target retries
    assert run(task_with(emit, (OUT,)), messages(lambda r: message), env) == 65
    assert receiver.calls == []
    assert not (tmp_path / "db.sqlite").exists() or "o" not in tables(tmp_path / "db.sqlite")


def tables(db: Path) -> set[str]:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()


def test_the_outbox_relay_sends_slacks_format_too(tmp_path: Path, receiver: Receiver) -> None:
    seed(tmp_path, ROWS)
    emit = Emit(Endpoint("hook", "slack_message", {"channel": "#orders"}), "outbox", outbox="out")
    env = env_for(tmp_path, FLOW_CONN_HOOK=receiver.base + "/hook")
    transform = messages(lambda r: {"text": f"order {r['id']}"})
    assert run(task_with(emit, (OUT,)), transform, env) == 0
    assert run(task_with(emit, (OUT,)), transform, env_for(tmp_path, attempt=2,
                                                           FLOW_CONN_HOOK=receiver.base + "/hook")) == 0
    assert sorted(c.body for c in receiver.calls) == [
        b'{"channel": "#orders", "text": "order a"}', b'{"channel": "#orders", "text": "order b"}']


def test_bytes_in_a_message_are_base64_directly_and_through_the_outbox(tmp_path: Path, receiver: Receiver) -> None:
    """JSON has no bytes: a binary value in a message (a Parquet binary column passed on) is its
    base64 text, as in a JSON output file, not Python's `b'...'`; sent at once or by the relay."""
    seed(tmp_path, ROWS[:1])
    transform = messages(lambda r: {"id": r["id"], "blob": b"\x00\x01\xff"})
    direct = Emit(Endpoint("hook", "http_request", {"url": receiver.base + "/api"}), "idempotency_key",
                  key=(Term("input_field", "id"),), idempotency_key=True)
    assert run(task_with(direct), transform, env_for(tmp_path)) == 0
    relayed = Emit(Endpoint("hook", "webhook", {}), "outbox", outbox="out")
    seed(tmp_path / "relay", ROWS[:1])
    assert run(task_with(relayed, (OUT,)), transform, env_for(tmp_path / "relay", FLOW_CONN_HOOK=receiver.base)) == 0
    assert [c.json().get("record", c.json()) for c in receiver.calls] == [{"id": "a", "blob": "AAH/"}] * 2


class Mailbox:
    """A real SMTP server (aiosmtpd) on 127.0.0.1 keeping every envelope it accepts."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        self.envelopes: list[Any] = []
        box = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
                box.envelopes.append(envelope)
                return "250 OK"

        import socket

        with socket.socket() as probe:  # a free port (aiosmtpd's start connects to the port it is given)
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self.controller.start()


@pytest.fixture
def mailbox() -> Any:
    box = Mailbox()
    yield box
    box.controller.stop()


def test_email_is_a_mime_message_over_smtp_to_the_declared_recipients(tmp_path: Path, mailbox: Mailbox) -> None:
    seed(tmp_path, ROWS[:1])
    emit = Emit(Endpoint("hook", "email", {"to": "ops@example.com, Sales <sales@example.com>"}), "untracked")
    transform = messages(lambda r: {"subject": f"order {r['id']}", "text": "amount 1", "html": "<b>amount 1</b>",
                                    "cc": "audit@example.com"})
    env = env_for(tmp_path, FLOW_CONN_HOOK=f"smtp://127.0.0.1:{mailbox.port}?from=flowc%40example.com")
    assert run(task_with(emit), transform, env) == 0
    (envelope,) = mailbox.envelopes
    assert envelope.mail_from == "flowc@example.com"
    assert envelope.rcpt_tos == ["ops@example.com", "sales@example.com", "audit@example.com"]
    mail = message_from_bytes(envelope.original_content, policy=policy.default)
    assert (mail["From"], mail["To"], mail["Cc"], mail["Subject"]) == (
        "flowc@example.com", "ops@example.com, Sales <sales@example.com>", "audit@example.com", "order a")
    assert mail["Message-ID"] and mail["Date"]
    assert mail.get_content_type() == "multipart/alternative"
    body = mail.get_body(("plain",))
    html = mail.get_body(("html",))
    assert body is not None and html is not None
    assert body.get_content().strip() == "amount 1"
    assert html.get_content().strip() == "<b>amount 1</b>"


def test_an_email_without_a_sender_or_subject_is_refused(tmp_path: Path, mailbox: Mailbox) -> None:
    seed(tmp_path, ROWS[:1])
    emit = Emit(Endpoint("hook", "email", {"to": "ops@example.com"}), "untracked")
    conn = f"smtp://127.0.0.1:{mailbox.port}"
    assert run(task_with(emit), messages(lambda r: {"subject": "s", "text": "t"}),
               env_for(tmp_path, FLOW_CONN_HOOK=conn)) != 0  # no `from` anywhere
    assert run(task_with(emit), messages(lambda r: {"text": "t", "from": "a@example.com"}),
               env_for(tmp_path, attempt=2, FLOW_CONN_HOOK=conn)) == 65  # no subject: refused before a send
    assert mailbox.envelopes == []
    # the near miss: with a sender it goes through
    assert run(task_with(emit), messages(lambda r: {"subject": "s", "text": "t", "from": "a@example.com"}),
               env_for(tmp_path, attempt=3, FLOW_CONN_HOOK=conn)) == 0
    assert len(mailbox.envelopes) == 1


def test_the_outbox_relay_sends_email_over_smtp_too(tmp_path: Path, mailbox: Mailbox) -> None:
    seed(tmp_path, ROWS)
    emit = Emit(Endpoint("hook", "email", {"to": "ops@example.com"}), "outbox", outbox="out")
    conn = f"smtp://127.0.0.1:{mailbox.port}?from=flowc%40example.com"
    transform = messages(lambda r: {"subject": f"order {r['id']}", "text": f"amount {r['amount']}"})
    assert run(task_with(emit, (OUT,)), transform, env_for(tmp_path, FLOW_CONN_HOOK=conn)) == 0
    assert run(task_with(emit, (OUT,)), transform, env_for(tmp_path, attempt=2, FLOW_CONN_HOOK=conn)) == 0
    subjects = sorted(message_from_bytes(e.original_content, policy=policy.default)["Subject"]
                      for e in mailbox.envelopes)
    assert subjects == ["order a", "order b"]  # relayed once each, the retry sent nothing again
    assert all(e.rcpt_tos == ["ops@example.com"] for e in mailbox.envelopes)
