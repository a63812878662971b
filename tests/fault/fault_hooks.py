"""Fault injection for flowc's fault matrix: replaces the runtime's no-op hooks
(flowc_runtime.hooks) with versions driven by `FLOWC_FAULT`. Never shipped: the matrix puts
tests/fault/inject (whose sitecustomize calls `install()`) on the PYTHONPATH of the task
processes it starts, and only there.

`FLOWC_FAULT` is a comma-separated list of:
  crash_after_pin, crash_after_read, crash_mid_batch, crash_before_commit, crash_after_commit,
  crash_during_relay   hard crash (SIGKILL of the process itself) at that protocol step
                       (`mid_batch`: a write has staged its first batch of rows, not committed);
  zombie               pause before the commit until `$FLOWC_FAULT_DIR/resume` exists,
                       after creating `$FLOWC_FAULT_DIR/paused`;
  late_zombie          the same pause, inside the write (its rows computed, its interval and
                       paths fixed), for a zombie resumed after a newer interval committed;
  crash_between_produce_and_commit
                       hard crash at the `after_produce` step of a Kafka write: every message
                       acknowledged (inside the open transaction of a `transactional` write),
                       the transaction's commit or the read's offsets commit not run;
  zombie_at_commit     the same place (`after_produce`), a pause until `$FLOWC_FAULT_DIR/resume`
                       exists, after creating `$FLOWC_FAULT_DIR/paused`: a zombie that resumes
                       into its commit once a newer attempt committed the interval;
  slow_transaction     the same place (`after_produce`), a sleep of `$FLOWC_SLOW_SECONDS` (default
                       20): a `transactional` write's transaction held open past a short
                       `transaction_timeout`, as a long attempt's would be;
  two_live             pause at the `before_commit` step (inside the write transaction) until
                       `$FLOWC_FAULT_DIR/resume` exists, after creating
                       `$FLOWC_FAULT_DIR/live-<pid>`: two attempts held there are released together;
  write_error          the first database commit of the process raises before it commits (a
                       transient error, for `internal_retries`);
  nondeterministic     every output record gets a `nondet` field that depends on the
                       run and the attempt, as a nondeterministic transform would;
  relay_crash          hard crash in the relay between a send and its mark (step
                       `after_send`), at the send numbered `$FLOWC_RELAY_CRASH_AT` (default 1);
  zombie_in_commit     Iceberg: pause inside the catalog's commit (pyiceberg's
                       `SqlCatalog.commit_table`, the table already loaded and its new
                       metadata written) until `$FLOWC_FAULT_DIR/resume` exists, after
                       creating `$FLOWC_FAULT_DIR/paused`; the commit then goes on;
  zombie_past_fence    pause right after the attempt register's fencing check passed (the
                       `assert_latest` call numbered `$FLOWC_PAST_FENCE_AT`, default 1) until
                       `$FLOWC_FAULT_DIR/resume` exists, after creating `$FLOWC_FAULT_DIR/paused`:
                       a zombie that newer attempts can no longer fence, whose late commit only
                       the table itself can refuse (the Spark cells, tests/spark/cells.py);
  no_fencing           Kafka's fencing switched off: each attempt gets a `transactional.id` of
                       its own (the interval's plus the attempt number), so no attempt fences
                       another (tests/fault/test_kafka_iceberg.py shows the zombie cell failing).
"""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import time
from pathlib import Path

import flowc_runtime.hooks as hooks

_raised: set[str] = set()


def active() -> set[str]:
    raw = os.environ.get("FLOWC_FAULT", "")
    return {part.strip() for part in raw.split(",") if part.strip()}


def crash(name: str) -> None:
    """Crash here if `FLOWC_FAULT` asks for it."""
    if name in active():
        sys.stderr.write(f"flowc fault: {name}\n")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(5)
        os._exit(137)


def step(name: hooks.Step) -> None:
    relay_crash(name)
    crash("crash_" + name)
    if name == "after_produce":
        crash("crash_between_produce_and_commit")
        if "zombie_at_commit" in active():
            pause("paused")
            sys.stderr.write("flowc fault: zombie resumes into its commit\n")
        if "slow_transaction" in active():
            # an attempt whose transaction stays open long (a production day's volume)
            sys.stderr.write("flowc fault: slow_transaction\n")
            time.sleep(float(os.environ.get("FLOWC_SLOW_SECONDS", "20")))
    if name == "before_commit" and "two_live" in active():
        pause(f"live-{os.getpid()}")


def pause(marker: str) -> None:
    """Create `$FLOWC_FAULT_DIR/<marker>`, then wait until `$FLOWC_FAULT_DIR/resume` exists."""
    folder = Path(os.environ.get("FLOWC_FAULT_DIR", "."))
    (folder / marker).write_text(str(os.getpid()))
    deadline = time.monotonic() + float(os.environ.get("FLOWC_ZOMBIE_MAX_SECONDS", "300"))
    while not (folder / "resume").exists():
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)


_sends = {"n": 0}


def relay_crash(name: str) -> None:
    """`relay_crash`: SIGKILL after the N-th send of the relay, before the relay marks it sent."""
    if name != "after_send" or "relay_crash" not in active():
        return
    _sends["n"] += 1
    if _sends["n"] == int(os.environ.get("FLOWC_RELAY_CRASH_AT") or "1"):
        sys.stderr.write("flowc fault: relay_crash\n")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(5)
        os._exit(137)


def fail_once(name: str) -> None:
    """Raise once per process at this step if `FLOWC_FAULT` asks for it."""
    if name in active() and name not in _raised:
        _raised.add(name)
        raise RuntimeError(f"flowc fault: {name}")


def before_transaction_commit() -> None:
    fail_once("write_error")


def before_publish() -> None:
    """Pause past the lease while another attempt runs, then go on as if nothing happened."""
    if not active() & {"zombie", "late_zombie"}:
        return
    pause("paused")
    sys.stderr.write("flowc fault: zombie resumes\n")


def output_extra(run_id: str, attempt: int) -> dict[str, str]:
    if "nondeterministic" not in active():
        return {}
    return {"nondet": hashlib.sha256(f"{run_id}/{attempt}".encode()).hexdigest()[:8]}


def install() -> None:
    """Replace the runtime's no-op hooks with the injecting ones above."""
    if "no_fencing" in active():
        import flowc_runtime.kafka as kafka

        fenced = kafka.transactional_id
        attempt = os.environ.get("FLOW_ATTEMPT", "1")

        def per_attempt(pipeline: str, task: str, interval: str) -> str:
            return f"{fenced(pipeline, task, interval)}.attempt-{attempt}"

        kafka.transactional_id = per_attempt
    if "zombie_in_commit" in active():
        from pyiceberg.catalog.sql import SqlCatalog

        commit = SqlCatalog.commit_table
        paused: list[bool] = []

        def stalled_commit(self: object, *args: object, **kwargs: object) -> object:
            if not paused:
                paused.append(True)
                pause("paused")
                sys.stderr.write("flowc fault: zombie resumes inside its commit\n")
            return commit(self, *args, **kwargs)  # type: ignore[arg-type]

        SqlCatalog.commit_table = stalled_commit  # type: ignore[method-assign, assignment]
    if "zombie_past_fence" in active():
        import flowc_runtime.attempts as attempts

        checked = attempts.assert_latest
        calls = {"n": 0}
        at = int(os.environ.get("FLOWC_PAST_FENCE_AT") or "1")

        def then_pause(attempt: object, db: object) -> None:
            checked(attempt, db)  # type: ignore[arg-type]
            calls["n"] += 1
            if calls["n"] == at:
                pause("paused")
                sys.stderr.write("flowc fault: zombie resumes past the fence\n")

        attempts.assert_latest = then_pause
    hooks.step = step
    hooks.before_transaction_commit = before_transaction_commit
    hooks.before_publish = before_publish
    hooks.output_extra = output_extra
