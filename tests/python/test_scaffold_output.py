"""The generated modules read back exactly what was declared, whatever the strings hold, and a
generated task runs as its `run command` would run it.

Goes through the real binary (`target/debug/flowc`, or FLOWC_BIN: `cargo build --bin flowc`),
from a `.flow` file whose name and strings are hostile; fails when the binary is missing.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = 'q"uote \\back\\slash\nnew line {{interval.start}} & : # \u00e9\u00e8 \U0001f600 \u2028 \x7f \'single\''
COMMAND = ["python", "-m", "sq_modes.upsert_input"]


def flowc() -> Path:
    binary = Path(os.environ.get("FLOWC_BIN") or ROOT / "target" / "debug" / "flowc")
    if not binary.exists():
        pytest.fail(f"no flowc binary at {binary}: run `cargo build --bin flowc` (or set FLOWC_BIN)")
    return binary


def flow_str(text: str) -> str:
    """`text` as a .flow string literal (escapes: \\" \\\\ \\n \\t \\{ \\} \\u{...}): braces as text."""
    out = []
    for c in text:
        if c in '"\\{}':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20 or ord(c) == 0x7F or c in "\u2028\u2029":
            out.append(f"\\u{{{ord(c):X}}}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def pipeline(table: str, url: str | None) -> str:
    """The fault fixture's task `sq_modes.upsert_input` alone, writing to `table`, with an outbox
    effect sent to `url` (none when `url` is None)."""
    effect = f"effect sq_hook: webhook {{\n  url {flow_str(url)}\n}}\n" if url is not None else ""
    emit = "    emit sq_hook via outbox sq_orders_up\n" if url is not None else ""
    return (
        'source sq_orders_in: files {\n  path "in/{interval.start}/"\n  immutable\n  pin listing\n'
        "  identity id\n  fields [id, rec, amount]\n}\n\n"
        f"sink sq_orders_up: sqlite_table {{\n  table {flow_str(table)}\n  primary_key id\n}}\n\n{effect}\n"
        'pipeline sq_modes {\n  schedule "@daily"\n  start 2026-01-01\n  timezone "UTC"\n  retries 2\n'
        "  retry_delay 1s\n  timeout 10m\n  require none\n\n"
        f"  task upsert_input {{\n    read sq_orders_in\n    key input.id\n    write sq_orders_up upsert\n{emit}"
        f"    run command {json.dumps(COMMAND)}\n  }}\n}}\n"
    )


def scaffold(flow: str, out: Path) -> subprocess.CompletedProcess[str]:
    source = out.parent / (HOSTILE + ".flow")
    source.write_text(flow, encoding="utf-8")
    return subprocess.run(
        [str(flowc()), "scaffold", "--lang", "python", "--out", str(out), str(source)],
        cwd=out.parent, capture_output=True, text=True, timeout=300,
    )


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "py"
    result = scaffold(pipeline(HOSTILE, HOSTILE), out)
    assert result.returncode == 0, result.stderr
    return out


def test_every_rendered_file_parses(generated: Path) -> None:
    files = sorted(generated.rglob("*.py"))
    assert any(f.name == "upsert_input.py" for f in files)
    for path in files:
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_strings_read_back_exactly(generated: Path) -> None:
    # A string parameter reaches the runtime in its template form (literal braces doubled), and
    # reads back exactly once rendered.
    code = (
        "import json, datetime, sq_modes.upsert_input as m; t = m.TASK; "
        "from flowc_runtime.context import Context; "
        "utc = datetime.UTC; c = Context('p', 't', datetime.datetime(2026, 1, 1, tzinfo=utc), "
        "datetime.datetime(2026, 1, 2, tzinfo=utc), 'r', 1); "
        "print(json.dumps([c.render(t.writes[0].sink.params['table']), "
        "c.render(t.emits[0].effect.params['url']), t.pipeline]))"
    )
    env = {**os.environ, "PYTHONPATH": str(generated)}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == [HOSTILE, HOSTILE, "sq_modes"]


def test_transforms_are_never_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "py"
    assert scaffold(pipeline("orders_up", "http://127.0.0.1:9/x"), out).returncode == 0
    transform = out / "sq_modes" / "upsert_input_transform.py"
    transform.write_text("# mine\n" + transform.read_text())
    generated = out / "sq_modes" / "upsert_input.py"
    # An old generated module (it keeps flowc's header) is rewritten; a file without the
    # header would be refused instead (FL804), which the Rust tests cover.
    header = "".join(generated.read_text().splitlines(keepends=True)[:2])
    generated.write_text(header + "# stale\n")
    assert scaffold(pipeline("orders_up", "http://127.0.0.1:9/x"), out).returncode == 0
    assert transform.read_text().startswith("# mine\n")
    assert "# stale" not in generated.read_text()


def test_a_generated_task_runs_as_its_command_would(tmp_path: Path) -> None:
    out = tmp_path / "py"
    assert scaffold(pipeline("orders_up", None), out).returncode == 0
    folder = out / "in" / "2026-01-01T00:00:00Z"
    folder.mkdir(parents=True)
    (folder / "a.jsonl").write_text('{"id": "a", "rec": "a", "amount": 1}\n{"id": "b", "rec": "b", "amount": 2}\n')
    env = {
        **os.environ,
        "FLOW_CONN_SQ_ORDERS_UP": f"sqlite://{tmp_path}/db.sqlite",
        "FLOW_INTERVAL_END": "2026-01-02T00:00:00Z",
        "FLOW_SCHEDULE": "@daily",
        "FLOW_TIMEZONE": "UTC",
        "FLOW_RUN_ID": "manual",
        "FLOW_ATTEMPT": "1",
    }
    argv = [sys.executable, *COMMAND[1:]]
    for _ in range(2):
        done = subprocess.run(argv, cwd=out, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    import sqlite3

    rows = sqlite3.connect(tmp_path / "db.sqlite").execute("SELECT id, amount FROM orders_up ORDER BY id").fetchall()
    assert rows == [("a", 1), ("b", 2)]


def test_fault_fixtures_are_current() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "fault" / "fixtures.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
