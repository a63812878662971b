"""MODEL C1 at run time, black-box: a sink's rendered path that leaves its declared prefix is
refused with exit 65, naming the path, before anything is deleted or written. `flowc check`
refuses the cases it can see (FL002); the runtime holds for every value it renders, including a
generated module whose path the analysis never saw (one written by hand, or by an older flowc).

Each test scaffolds a `.flow` file with the real `flowc` binary and runs the generated task as a
process with the environment a target gives it. Needs `target/debug/flowc` (or `FLOWC_BIN`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DAY = ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")

FLOW = """source raw: files {
  path      "in/{interval.date}/"
  immutable
  identity  id
}

sink out: %(kind)s {
  %(param)s  "%(path)s"
}

pipeline p {
  schedule  "@daily"
  start     2026-01-01
  timeout   10m
  require   none

  task t {
    read   raw pinned listing
    write  out %(mode)s
    run    command ["python", "-m", "p.t"]
  }
}
"""


def flowc() -> Path:
    binary = Path(os.environ.get("FLOWC_BIN") or ROOT / "target" / "debug" / "flowc")
    if not binary.exists():
        pytest.fail(f"no flowc binary at {binary}: run `cargo build --bin flowc` (or set FLOWC_BIN)")
    return binary


def scaffold(tmp: Path, path: str, kind: str = "files", mode: str = "overwrite") -> Path:
    param = "path" if kind == "files" else "location"
    (tmp / "p.flow").write_text(FLOW % {"kind": kind, "param": param, "path": path, "mode": mode}, encoding="utf-8")
    done = subprocess.run([str(flowc()), "scaffold", "--lang", "python", "--out", "py", "p.flow"],
                          cwd=tmp, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return tmp / "py"


def edit_path(py: Path, old: str, new: str) -> None:
    """Put `new` where the generated module has the sink's `old` path (what the analysis
    would refuse, as a hand-edited or older module may hold)."""
    module = py / "p" / "t.py"
    text = module.read_text(encoding="utf-8")
    assert json.dumps(old) in text
    module.write_text(text.replace(json.dumps(old), json.dumps(new)), encoding="utf-8")


def run_task(tmp: Path, py: Path) -> tuple[int, str]:
    folder = tmp / "files" / "in" / DAY[0][:10]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.jsonl").write_text("".join(json.dumps({"id": f"r{i}"}) + "\n" for i in range(3)), encoding="utf-8")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "FLOW_INTERVAL_START": DAY[0],
        "FLOW_INTERVAL_END": DAY[1],
        "FLOW_RUN_ID": "run-1",
        "FLOW_ATTEMPT": "1",
        "FLOW_CONN_RAW": f"file://{tmp}/files",
        "FLOW_CONN_OUT": f"file://{tmp}/files",
        "FLOWC_STATE": f"sqlite://{tmp}/state.sqlite",
        "PYTHONPATH": str(py),
    }
    done = subprocess.run([sys.executable, "-m", "p.t"], cwd=tmp, env=env, capture_output=True, text=True,
                          timeout=300)
    return done.returncode, done.stderr


def victim(tmp: Path) -> Path:
    """A folder beside the sink's, with a file an escaping overwrite would delete."""
    folder = tmp / "files" / "out" / "victim"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "keep.jsonl").write_text('{"id": "keep"}\n', encoding="utf-8")
    return folder / "keep.jsonl"


def test_an_overwrite_whose_path_climbs_out_is_refused_before_deleting(tmp_path: Path) -> None:
    py = scaffold(tmp_path, "out/{interval.date}/")
    edit_path(py, "out/{interval.date}/", "out/{interval.date}/../victim")
    keep = victim(tmp_path)
    code, err = run_task(tmp_path, py)
    assert code == 65, err
    assert "'out/2026-01-01/../victim'" in err and "leaves its declared prefix" in err, err
    assert keep.exists(), "the overwrite deleted a file outside its folder"
    assert not (tmp_path / "files" / "out" / "2026-01-01").exists()


def test_an_append_whose_path_climbs_out_is_refused(tmp_path: Path) -> None:
    py = scaffold(tmp_path, "out/{interval.date}/", mode="append")
    edit_path(py, "out/{interval.date}/", "out/{interval.date}/../victim")
    keep = victim(tmp_path)
    code, err = run_task(tmp_path, py)
    assert code == 65, err
    assert sorted(p.name for p in keep.parent.iterdir()) == ["keep.jsonl"], "the append wrote outside its folder"


def test_a_format_that_renders_an_absolute_path_is_refused(tmp_path: Path) -> None:
    """`{interval.start:/%Y/%m/%d}` from an empty prefix renders `/2026/01/01/`: outside the
    connection's folder altogether. (The module is edited to a folder under the test's own
    directory, absolute like the rendering, so that a runtime without the check writes there.)"""
    py = scaffold(tmp_path, "out/{interval.date}/")
    escape = f"{{interval.start:{tmp_path}/escaped/%Y}}/"
    edit_path(py, "out/{interval.date}/", escape)
    code, err = run_task(tmp_path, py)
    assert code == 65, err
    assert f"'{tmp_path}/escaped/2026/'" in err and "absolute" in err, err
    assert not (tmp_path / "escaped").exists()


def test_a_delta_location_that_climbs_out_is_refused(tmp_path: Path) -> None:
    py = scaffold(tmp_path, "lake/{interval.date}", kind="delta_table", mode="overwrite")
    edit_path(py, "lake/{interval.date}", "lake/{interval.date}/../../victim")
    code, err = run_task(tmp_path, py)
    assert code == 65, err
    assert "'lake/2026-01-01/../../victim'" in err, err
    assert not (tmp_path / "files" / "victim").exists()


def test_a_path_inside_its_prefix_is_written(tmp_path: Path) -> None:
    """The near miss: the same task with its own path overwrites its interval's folder."""
    py = scaffold(tmp_path, "out/{interval.date}/")
    keep = victim(tmp_path)
    code, err = run_task(tmp_path, py)
    assert code == 0, err
    assert keep.exists()
    assert [p.suffix for p in (tmp_path / "files" / "out" / "2026-01-01").iterdir()] != []
