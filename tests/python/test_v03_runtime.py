"""flowc 0.3 in the runtime: `insert_if_absent` keeps the first committed row of a key, and
`upsert newest by COLUMN` replaces a row only with a greater version (a tie or a NULL incoming
version keeps it, a NULL stored version is replaced). In-process, on SQLite.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "templates" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from flowc_runtime import Endpoint, Term, Write, run  # noqa: E402
from test_runtime import DAY1, env_for, identity, make_task, seed  # noqa: E402

DAY2 = ("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z")


def rows(tmp: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(tmp / "db.sqlite")
    try:
        cursor = conn.execute('SELECT * FROM "o"')
        names = [d[0] for d in cursor.description]
        keep = [i for i, n in enumerate(names) if n != "_flow_interval_end"]
        return sorted((tuple(r[i] for i in keep) for r in cursor.fetchall()), key=repr)
    finally:
        conn.close()


def task(mode: str, newest_by: str | None = None) -> Any:
    return make_task((Write(Endpoint("out", "sqlite_table", {"table": "o"}), mode,  # type: ignore[arg-type]
                            key=(Term("input_field", "id"),), primary_key=("id",), newest_by=newest_by),))


def test_insert_if_absent_keeps_the_first_row(tmp_path: Path) -> None:
    conn = f"sqlite://{tmp_path}/db.sqlite"
    seed(tmp_path, "a.jsonl", [{"id": "a", "v": 1}], start=DAY1[0])
    seed(tmp_path, "a.jsonl", [{"id": "a", "v": 2}, {"id": "b", "v": 20}], start=DAY2[0])
    assert run(task("insert_if_absent"), identity, env_for(tmp_path, interval=DAY1, out=conn)) == 0
    assert run(task("insert_if_absent"), identity, env_for(tmp_path, interval=DAY2, run_id="r2", out=conn)) == 0
    assert rows(tmp_path) == [("a", 1), ("b", 20)]
    # a re-run of day 2 inserts nothing again
    assert run(task("insert_if_absent"), identity, env_for(tmp_path, interval=DAY2, run_id="r3", out=conn)) == 0
    assert rows(tmp_path) == [("a", 1), ("b", 20)]


def test_newest_by_keeps_the_greater_version_whoever_writes_last(tmp_path: Path) -> None:
    conn = f"sqlite://{tmp_path}/db.sqlite"
    # day 2's run carries the newer version of `a`; day 1 is re-run after it, with an older one
    seed(tmp_path, "a.jsonl", [{"id": "a", "version": 1, "v": "old"}, {"id": "b", "version": None, "v": "x"}],
         start=DAY1[0])
    seed(tmp_path, "a.jsonl", [{"id": "a", "version": 5, "v": "new"}, {"id": "b", "version": 2, "v": "y"}],
         start=DAY2[0])
    upsert = task("upsert", newest_by="version")
    assert run(upsert, identity, env_for(tmp_path, interval=DAY2, out=conn)) == 0
    assert run(upsert, identity, env_for(tmp_path, interval=DAY1, run_id="rerun", out=conn)) == 0
    # the older version does not replace the newer; a NULL incoming version keeps the row
    assert rows(tmp_path) == [("a", 5, "new"), ("b", 2, "y")]
    # a greater version replaces, also from an older interval (the version wins over the fence)
    seed(tmp_path, "a.jsonl", [{"id": "a", "version": 9, "v": "newest"}], start=DAY1[0])
    assert run(upsert, identity, env_for(tmp_path, interval=DAY1, run_id="rerun2", out=conn)) == 0
    assert rows(tmp_path) == [("a", 9, "newest"), ("b", 2, "y")]
    # a tie keeps the stored row
    seed(tmp_path, "a.jsonl", [{"id": "a", "version": 9, "v": "tie"}], start=DAY1[0])
    assert run(upsert, identity, env_for(tmp_path, interval=DAY1, run_id="rerun3", out=conn)) == 0
    assert rows(tmp_path) == [("a", 9, "newest"), ("b", 2, "y")]


def test_a_null_stored_version_is_replaced(tmp_path: Path) -> None:
    conn = f"sqlite://{tmp_path}/db.sqlite"
    seed(tmp_path, "a.jsonl", [{"id": "a", "version": None, "v": "unversioned"}], start=DAY1[0])
    seed(tmp_path, "a.jsonl", [{"id": "a", "version": 1, "v": "versioned"}], start=DAY2[0])
    upsert = task("upsert", newest_by="version")
    assert run(upsert, identity, env_for(tmp_path, interval=DAY1, out=conn)) == 0
    assert run(upsert, identity, env_for(tmp_path, interval=DAY2, run_id="r2", out=conn)) == 0
    assert rows(tmp_path) == [("a", 1, "versioned")]
