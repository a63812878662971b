"""Tests of the attempt register and fencing (templates/python/flowc_runtime/attempts.py), run
in-process against real SQLite files (and PostgreSQL when FLOWC_TEST_PG names a server).

A late attempt (a zombie) is simulated exactly where a real one is dangerous: inside its commit
phase, after it entered it and before its commit, the `before_publish` hook runs a whole newer
attempt of the same interval, then lets the old one go on. A hard death is an attempt whose
outcome is never recorded: the hook raises `Died` (no `Exception`, so the runtime's own failure
handling does not see it) and the test's switch keeps `finish` from recording anything, as a
SIGKILL would.

The switch `fencing=False` of `zombie_cell` turns the fencing check off (test-only, like
tests/fault/fault_hooks.py replaces the runtime's hooks; nothing of it ships): the same cell
then shows the late attempt's commit landing, so the check is what keeps it out.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "templates" / "python"))

import flowc_runtime.attempts as attempts  # noqa: E402
import flowc_runtime.hooks as hooks  # noqa: E402
from flowc_runtime import Endpoint, Read, Task, Write, run  # noqa: E402
from flowc_runtime.context import Context  # noqa: E402
from flowc_runtime.spec import Mode  # noqa: E402

DAY1 = ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")
ROWS = [{"id": "a", "amount": 1}, {"id": "b", "amount": 2}]
OnAmbiguous = Literal["fail", "retry"]


class Died(BaseException):
    """A hard death in the middle of an attempt: no failure handling runs."""


def make_task(on_ambiguous: OnAmbiguous, mode: Mode = "append", kind: str = "sqlite_table") -> Task:
    source = Read(Endpoint("raw", "files", {"path": "in/{interval.start}/"}), immutable=True, pin="listing",
                  identity=("id",))
    sink = Write(Endpoint("out", kind, {"table": "out"}), mode, primary_key=("id",) if mode == "upsert" else None)
    return Task("p", "t", "@daily", "UTC", False, (source,), (sink,), (), on_ambiguous=on_ambiguous)


def transform(ctx: Context) -> dict[str, Any]:
    return {"out": list(ctx.inputs["raw"])}


class Place:
    """Where one test's data lives: the input folder, the sink and the state store."""

    def __init__(self, tmp: Path, shared_state: bool, pg: str | None = None) -> None:
        self.tmp = tmp
        # The input of day 1 and of day 2 (a files source is read once its folder holds data).
        for start in (DAY1[0], DAY1[1]):
            folder = tmp / "files" / "in" / start
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "part-0.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
        if pg:
            schema = "att_" + os.urandom(6).hex()
            import psycopg

            with psycopg.connect(pg, autocommit=True) as conn:
                conn.execute(f'CREATE SCHEMA "{schema}"')
            sep = "&" if "?" in pg else "?"
            self.sink = f"{pg}{sep}options={quote('-csearch_path=' + schema)}"
        else:
            self.sink = f"sqlite://{tmp}/db.sqlite"
        self.state = self.sink if shared_state else f"sqlite://{tmp}/state.sqlite"

    def env(self, attempt: int, run_id: str = "run-1") -> dict[str, str]:
        return {
            "FLOW_PIPELINE": "p",
            "FLOW_TASK": "t",
            "FLOW_INTERVAL_START": DAY1[0],
            "FLOW_INTERVAL_END": DAY1[1],
            "FLOW_RUN_ID": run_id,
            "FLOW_ATTEMPT": str(attempt),
            "FLOWC_STATE": self.state,
            "FLOW_CONN_RAW": f"file://{self.tmp}/files",
            "FLOW_CONN_OUT": self.sink,
        }

    def query(self, url: str, sql: str) -> list[tuple[Any, ...]]:
        if url.startswith("sqlite://"):
            conn = sqlite3.connect(url[len("sqlite://"):])
            try:
                return list(conn.execute(sql).fetchall())
            finally:
                conn.close()
        import psycopg

        with psycopg.connect(url, autocommit=True) as pg:
            return list(pg.execute(sql).fetchall())

    def rows(self) -> list[tuple[Any, ...]]:
        return sorted(self.query(self.sink, 'SELECT id, amount FROM "out"'))

    def register(self) -> list[tuple[Any, ...]]:
        return self.query(self.state, "SELECT token, attempt, committing_at IS NOT NULL, outcome "
                                      "FROM flowc_attempts ORDER BY token")


@contextmanager
def in_commit_phase(monkeypatch: pytest.MonkeyPatch, action: Callable[[], None]) -> Iterator[None]:
    """Run `action` once, inside the next attempt's commit phase (before its transaction)."""
    done: list[bool] = []

    def before_publish() -> None:
        if not done:
            done.append(True)
            action()

    monkeypatch.setattr(hooks, "before_publish", before_publish)
    yield
    assert done, "the attempt never reached its commit phase"


def zombie_cell(tmp: Path, monkeypatch: pytest.MonkeyPatch, on_ambiguous: OnAmbiguous, shared_state: bool,
                fencing: bool = True, pg: str | None = None) -> tuple[Place, int, list[int]]:
    """Attempt 1 is overtaken in its commit phase by attempt 2 (then, under `fail`, by the
    operator's attempt 3), then goes on. Returns attempt 1's exit code and the others'."""
    place = Place(tmp, shared_state, pg)
    task = make_task(on_ambiguous)
    if not fencing:
        monkeypatch.setattr(attempts, "assert_latest", lambda attempt, db: None)
    later: list[int] = []

    def successors() -> None:
        later.append(run(task, transform, place.env(2)))
        if later[-1] != 0:
            later.append(run(task, transform, place.env(3)))

    with in_commit_phase(monkeypatch, successors):
        first = run(task, transform, place.env(1))
    return place, first, later


@pytest.mark.parametrize("shared_state", [True, False], ids=["state-in-sink-db", "state-elsewhere"])
def test_a_late_attempt_is_fenced_and_commits_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       shared_state: bool) -> None:
    place, first, later = zombie_cell(tmp_path, monkeypatch, "retry", shared_state)
    assert later == [0]
    assert first == 75
    assert place.rows() == [("a", 1), ("b", 2)]
    assert place.register() == [(1, 1, 1, "nothing_committed"), (2, 2, 1, "ok")]


def test_fencing_switched_off_lets_the_late_commit_land(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same cell with the check off fails: the late attempt's rows land a second time."""
    place, first, later = zombie_cell(tmp_path, monkeypatch, "retry", shared_state=True, fencing=False)
    assert later == [0]
    assert first == 0
    assert place.rows() == [("a", 1), ("a", 1), ("b", 2), ("b", 2)]


def test_under_fail_the_successor_refuses_and_the_zombie_is_fenced(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Attempt 2 finds attempt 1 in its commit phase with no outcome: 76. The refusal took a
    token, so attempt 1 cannot commit either; the operator's attempt 3 goes on."""
    place, first, later = zombie_cell(tmp_path, monkeypatch, "fail", shared_state=True)
    assert later == [76, 0]
    assert first == 75
    assert place.rows() == [("a", 1), ("b", 2)]
    assert [r[3] for r in place.register()] == ["nothing_committed", "refused", "ok"]


def die_in(monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    """The next attempt dies at protocol step `step`, leaving no outcome (its `finish` is off)."""

    def hook(name: str) -> None:
        if name == step:
            raise Died(step)

    monkeypatch.setattr(hooks, "step", hook)
    monkeypatch.setattr(attempts, "finish", lambda attempt, code: None)


def died_then(tmp: Path, monkeypatch: pytest.MonkeyPatch, step: str, on_ambiguous: OnAmbiguous,
              mode: Mode = "append") -> tuple[Place, list[int]]:
    place = Place(tmp, shared_state=True)
    task = make_task(on_ambiguous, mode)
    with monkeypatch.context() as patch:
        die_in(patch, step)
        with pytest.raises(Died):
            run(task, transform, place.env(1))
    codes = [run(task, transform, place.env(2))]
    if codes[0] != 0:
        codes.append(run(task, transform, place.env(3)))
    return place, codes


def test_a_death_after_the_commit_is_refused_under_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    place, codes = died_then(tmp_path, monkeypatch, "after_commit", "fail")
    assert codes == [76, 0]
    # attempt 1 committed; attempt 2 added nothing; the operator's attempt 3 is an ordinary re-run
    assert place.rows() == [("a", 1), ("a", 1), ("b", 2), ("b", 2)]
    assert place.register() == [(1, 1, 1, None), (2, 2, 0, "refused"), (3, 3, 1, "ok")]


def test_a_death_after_the_commit_goes_on_under_retry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    place, codes = died_then(tmp_path, monkeypatch, "after_commit", "retry", mode="upsert")
    assert codes == [0]
    assert place.rows() == [("a", 1), ("b", 2)]


def test_a_death_before_the_commit_phase_is_no_ambiguity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Near miss: attempt 1 died before its commit phase, so it committed nothing: no refusal."""
    place, codes = died_then(tmp_path, monkeypatch, "after_pin", "fail")
    assert codes == [0]
    assert place.rows() == [("a", 1), ("b", 2)]
    assert place.register() == [(1, 1, 0, None), (2, 2, 1, "ok")]


def test_a_clean_failure_in_the_commit_phase_is_no_ambiguity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Near miss: attempt 1 failed in its commit phase and recorded its outcome (75)."""
    place = Place(tmp_path, shared_state=True)
    task = make_task("fail")

    def broken() -> None:
        raise RuntimeError("the database went away")

    with monkeypatch.context() as patch:
        patch.setattr(hooks, "before_transaction_commit", broken)
        assert run(task, transform, place.env(1)) == 75
    assert run(task, transform, place.env(2)) == 0
    assert place.rows() == [("a", 1), ("b", 2)]
    assert place.register() == [(1, 1, 1, "nothing_committed"), (2, 2, 1, "ok")]


def test_tokens_are_per_interval(tmp_path: Path) -> None:
    place = Place(tmp_path, shared_state=False)
    task = make_task("fail", mode="upsert")
    assert run(task, transform, place.env(1)) == 0
    assert run(task, transform, place.env(1, run_id="rerun")) == 0
    other = dict(place.env(1), FLOW_INTERVAL_START=DAY1[1], FLOW_INTERVAL_END="2026-01-03T00:00:00Z")
    assert run(task, transform, other) == 0
    rows = place.query(place.state, "SELECT interval_start, token, run_id FROM flowc_attempts ORDER BY interval_start, token")
    assert rows == [(DAY1[0], 1, "run-1"), (DAY1[0], 2, "rerun"), (DAY1[1], 1, "run-1")]


def test_files_sinks_are_fenced_before_their_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    place = Place(tmp_path, shared_state=False)
    task = make_task("retry", kind="files")
    sink_env = {"FLOW_CONN_OUT": f"file://{tmp_path}/files"}
    task = Task(task.pipeline, task.task, task.schedule, task.timezone, False, task.reads,
                (Write(Endpoint("out", "files", {"path": "out/"}), "append"),), (), on_ambiguous="retry")
    later: list[int] = []
    with in_commit_phase(monkeypatch, lambda: later.append(run(task, transform, place.env(2) | sink_env))):
        first = run(task, transform, place.env(1) | sink_env)
    assert (first, later) == (75, [0])
    published = [p for p in (tmp_path / "files" / "out").rglob("*") if p.is_file() and not p.name.startswith(".")]
    assert len(published) == 1


PG = os.environ.get("FLOWC_TEST_PG")


@pytest.mark.skipif(not PG, reason="FLOWC_TEST_PG names no PostgreSQL server")
def test_postgres_fences_inside_the_write_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[str] = []
    real = attempts.latest

    def spy(db: Any, attempt: Any, lock: bool = False) -> int | None:
        raw = getattr(db, "db", db)  # the state store (a State) wraps the Database it runs on
        if lock and raw is not attempt.state().db:
            checked.append("other connection")
        elif lock and raw.conn.info.transaction_status != 0:
            checked.append("in transaction")
        return real(db, attempt, lock)

    monkeypatch.setattr(attempts, "latest", spy)
    place, first, later = zombie_cell(tmp_path, monkeypatch, "retry", shared_state=True, pg=PG)
    assert (first, later) == (75, [0])
    assert place.rows() == [("a", 1), ("b", 2)]
    assert "in transaction" in checked and "other connection" not in checked
