"""The generated modules read back exactly what was declared, whatever the strings hold, and a
generated task runs as its `run command` would run it.

Uses the scaffold example (`cargo run --example scaffold_from_ir`), which renders through the
same `codegen::python::generate` the CLI calls.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = 'q"uote \\back\\slash\nnew line {{interval.start}} & : # \u00e9\u00e8 \U0001f600 \u2028 \x7f \'single\''


def scaffold(ir: list[dict[str, Any]], out: Path) -> subprocess.CompletedProcess[str]:
    source = out.parent / "ir.json"
    source.write_text(json.dumps(ir))
    return subprocess.run(
        ["cargo", "run", "--quiet", "--example", "scaffold_from_ir", "--", "--out", str(out), str(source)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )


def pipeline(table: str, url: str) -> list[dict[str, Any]]:
    ir: list[dict[str, Any]] = json.loads((ROOT / "tests" / "fault" / "ir" / "sqlite_modes.json").read_text())
    p = ir[0]
    p["source_file"] = "tests/" + HOSTILE + ".flow"
    task = next(t for t in p["tasks"] if t["name"] == "upsert_input")
    task["writes"][0]["sink"]["params"]["table"] = table
    task["emits"][0]["effect"]["params"]["url"] = url
    p["tasks"] = [task]
    return ir


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
    code = (
        "import json, sq_modes.upsert_input as m; t = m.TASK; "
        "print(json.dumps([t.writes[0].sink.params['table'], t.emits[0].effect.params['url'], t.pipeline]))"
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
    generated.write_text("# stale\n")
    assert scaffold(pipeline("orders_up", "http://127.0.0.1:9/x"), out).returncode == 0
    assert transform.read_text().startswith("# mine\n")
    assert not generated.read_text().startswith("# stale")


def test_a_generated_task_runs_as_its_command_would(tmp_path: Path) -> None:
    out = tmp_path / "py"
    ir = pipeline("orders_up", "http://127.0.0.1:9/x")
    ir[0]["tasks"][0]["emits"] = []
    assert scaffold(ir, out).returncode == 0
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
    command = ir[0]["tasks"][0]["command"]
    argv = [sys.executable, *command[1:]]
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
