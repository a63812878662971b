"""The scheduler cells of scripts/e2e/airflow-scheduler, run with the Airflow virtualenv's Python.

    scheduler.py WORK PG_URL

WORK holds the generated DAGs (WORK/dags), the scaffold (WORK/py), the input folder
(WORK/files/in) and the Airflow home. PG_URL is a PostgreSQL server: this creates the databases
`flowc_airflow` (Airflow's metadata) and `flowc_sink` (the cells' sinks and their state store),
starts `airflow api-server`, `airflow scheduler` and `airflow dag-processor` (LocalExecutor),
triggers every DAG at once, injects each cell's hard death, and checks each cell. Prints one line
per cell and `airflow scheduler: X/Y cells as promised`; exits non-zero unless all are.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from e2e import promised_attempts  # noqa: E402

PROTOCOL_DAG = "flowc_e2e_protocol"
# task: (behaviour, retries, on_ambiguous, final state), as tests/airflow/protocol.flow declares
PROTOCOL = {
    "succeeds": ("ok", 2, "retry", "success"),
    "exits_75_once": ("exit 75 once", 2, "fail", "success"),
    "ambiguous_fail": ("ambiguous", 2, "fail", "failed"),
    "ambiguous_retry": ("ambiguous", 1, "retry", "failed"),
    "timeout_fail": ("timeout", 2, "fail", "failed"),
    "timeout_retry": ("timeout", 1, "retry", "failed"),
}
RETRY_DELAY = 1.0
FAULTS = ("runner_killed", "supervisor_killed", "scheduler_restart")
HARD = [f"{fault}_{mode}" for fault in FAULTS for mode in ("fail", "retry")]
ROWS = [{"id": f"r{n}", "amount": n} for n in range(1, 6)]
DEADLINE = 900.0
HEALTH_CHECK_THRESHOLD = 20


def log(message: str) -> None:
    print(message, flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def with_db(url: str, name: str) -> str:
    return url.rsplit("/", 1)[0] + "/" + name


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def ppid(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def wait_for(what: str, predicate: Callable[[], Any], seconds: float, every: float = 0.5) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(every)


class Airflow:
    """The three Airflow processes, started and stopped here."""

    def __init__(self, work: Path, pg: str) -> None:
        self.work = work
        self.home = work / "airflow-home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.meta = with_db(pg, "flowc_airflow")
        self.sink = with_db(pg, "flowc_sink")
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.old: list[subprocess.Popen[bytes]] = []
        port = free_port()
        self.env = dict(os.environ)
        venv_bin = str(Path(sys.executable).parent)
        self.env.update({
            "PATH": venv_bin + os.pathsep + self.env.get("PATH", ""),
            "AIRFLOW_HOME": str(self.home),
            "AIRFLOW__CORE__DAGS_FOLDER": str(work / "dags"),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__UNIT_TEST_MODE": "False",
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            "AIRFLOW__CORE__PARALLELISM": "16",
            "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "False",
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"http://127.0.0.1:{port}/execution/",
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": "postgresql+psycopg://" + self.meta.split("://", 1)[1],
            "AIRFLOW__API__PORT": str(port),
            "AIRFLOW__API__HOST": "127.0.0.1",
            "AIRFLOW__API__WORKERS": "1",
            "AIRFLOW__API_AUTH__JWT_SECRET": "flowc-e2e-only-" + os.urandom(8).hex(),
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
            # A dead supervisor is noticed after 10 s without heartbeat; a dead scheduler's
            # tasks are reset once its job has been silent for HEALTH_CHECK_THRESHOLD seconds
            # (less, and a scheduler slowed down by a busy machine resets its own tasks).
            "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT": "10",
            "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT_DETECTION_INTERVAL": "2",
            "AIRFLOW__SCHEDULER__SCHEDULER_HEALTH_CHECK_THRESHOLD": str(HEALTH_CHECK_THRESHOLD),
            "AIRFLOW__SCHEDULER__ORPHANED_TASKS_CHECK_INTERVAL": "3",
            "AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC": "1",
            "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "5",
            # The tasks' world: the scaffold and the stall hook on PYTHONPATH, their connections.
            "PYTHONPATH": os.pathsep.join([str(HERE / "inject"), str(work / "py")]),
            # The scaffold's folder is the commands' working folder (the operator's default, the
            # DAG folder, holds a module named like each pipeline, which would shadow its package).
            "FLOWC_WORKDIR": str(work / "py"),
            "FLOWC_E2E_DIR": str(work / "attempts"),
            "FLOW_CONN_SCHED_IN": f"file://{work / 'files'}",
            "FLOWC_STATE": self.sink,
        })
        for name in ["reference", *HARD]:
            self.env[f"FLOW_CONN_SCHED_{name.upper()}"] = self.sink

    def airflow(self, *args: str) -> list[str]:
        return [str(Path(sys.executable).parent / "airflow"), *args]

    def start(self, name: str, *args: str) -> None:
        logfile = open(self.work / f"{name}.log", "ab")  # noqa: SIM115 - kept open for the process
        self.procs[name] = subprocess.Popen(
            self.airflow(*args), env=self.env, stdout=logfile, stderr=subprocess.STDOUT, start_new_session=True,
        )

    def stop(self) -> None:
        # A command that survived its cell (reported there as an orphan) is ended here.
        for marker in (self.work / "attempts").glob("*.stalled"):
            pid = int(marker.read_text().split()[0])
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        for proc in [*self.procs.values(), *self.old]:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        time.sleep(3)
        for proc in [*self.procs.values(), *self.old]:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()

    def meta_query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.meta, autocommit=True) as conn:
            return list(conn.execute(sql, params).fetchall())  # type: ignore[arg-type]

    def sink_query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.sink, autocommit=True) as conn:
            try:
                return list(conn.execute(sql, params).fetchall())  # type: ignore[arg-type]
            except psycopg.errors.UndefinedTable:
                return []


def setup(work: Path, pg: str) -> Airflow:
    with psycopg.connect(pg, autocommit=True) as conn:
        for name in ("flowc_airflow", "flowc_sink"):
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]
            conn.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
    (work / "attempts").mkdir(parents=True, exist_ok=True)
    folder = work / "files" / "in"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "part-0.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return Airflow(work, pg)


def trigger(af: Airflow, dags: list[str]) -> None:
    """Trigger every DAG at once, in one process (one CLI call each would cost seconds each)."""
    code = (
        "import sys\n"
        "from airflow.api.common.trigger_dag import trigger_dag\n"
        "from airflow.utils.types import DagRunTriggeredByType\n"
        "for dag_id in sys.argv[1:]:\n"
        "    trigger_dag(dag_id, triggered_by=DagRunTriggeredByType.CLI, run_id='flowc-e2e')\n"
    )
    subprocess.run([sys.executable, "-c", code, *dags], env=af.env, check=True, capture_output=True)


def run_state(af: Airflow, dag_id: str) -> str | None:
    rows = af.meta_query("SELECT state FROM dag_run WHERE dag_id = %s", (dag_id,))
    return str(rows[0][0]) if rows else None


def stalled_pid(af: Airflow, cell: str) -> int | None:
    marker = af.work / "attempts" / f"flowc_sched_{cell}.stalled"
    try:
        return int(marker.read_text().split()[0])
    except (FileNotFoundError, IndexError, ValueError):
        return None


def inject(af: Airflow, cells: list[str], fault: str) -> dict[str, int]:
    """Wait until each cell's first attempt stalls in its commit phase, then kill what `fault` names."""
    pids = {c: wait_for(f"{c} to stall", lambda c=c: stalled_pid(af, c), DEADLINE / 3) for c in cells}  # type: ignore[misc]
    if fault == "scheduler_restart":
        old = af.procs.pop("scheduler")
        log(f"  kill -9 the scheduler (pid {old.pid}) and start it again")
        os.kill(old.pid, signal.SIGKILL)
        old.wait()
        af.old.append(old)
        af.start("scheduler", "scheduler")
        return pids
    for cell, command in pids.items():
        runner = ppid(command)
        target = runner if fault == "runner_killed" else ppid(runner)
        log(f"  {cell}: kill -9 the {'runner' if fault == 'runner_killed' else 'supervisor'} (pid {target}) of command {command}")
        os.kill(target, signal.SIGKILL)
    return pids


def attempts_of(af: Airflow, cell: str) -> list[tuple[Any, ...]]:
    return af.sink_query(
        "SELECT token, attempt, committing_at IS NOT NULL, outcome FROM flowc_attempts "
        "WHERE pipeline = %s ORDER BY token", (f"flowc_sched_{cell}",),
    )


def ti(af: Airflow, dag_id: str, task_id: str) -> tuple[str | None, int]:
    rows = af.meta_query("SELECT state, try_number FROM task_instance WHERE dag_id = %s AND task_id = %s", (dag_id, task_id))
    return (rows[0][0], int(rows[0][1])) if rows else (None, 0)


def sink_rows(af: Airflow, cell: str) -> list[tuple[Any, ...]]:
    return af.sink_query(f'SELECT id, amount FROM "{cell}" ORDER BY id')


def leftovers(marker: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().decode(errors="replace")
        except OSError:
            continue
        if marker in text and alive(int(cmdline.parent.name)):
            found.append(cmdline.parent.name)
    return found


def check_protocol(af: Airflow, results: list[bool]) -> None:
    record_dir = af.work / "attempts"
    for task, (behaviour, retries, on_ambiguous, final) in PROTOCOL.items():
        promised = promised_attempts(behaviour, retries, on_ambiguous)
        record = record_dir / task
        made = record.read_text().split() if record.exists() else []
        state, _ = ti(af, PROTOCOL_DAG, task)
        orphan = behaviour == "timeout" and (bool(leftovers(f"{task}.finished")) or (record_dir / f"{task}.finished").exists())
        ok = made == [str(n) for n in range(1, promised + 1)] and state == final and not orphan
        results.append(ok)
        log(f"{'ok  ' if ok else 'FAIL'} {task:<26} attempts {len(made)} (promised {promised}), final {state} "
            f"(promised {final}), orphan {'yes' if orphan else 'no'}")
    # retry_delay: the second attempt of exits_75_once starts at least retry_delay after the first ended
    rows = af.meta_query(
        "SELECT h.end_date, t.start_date FROM task_instance_history h JOIN task_instance t "
        "ON h.dag_id = t.dag_id AND h.task_id = t.task_id AND h.run_id = t.run_id "
        "WHERE t.dag_id = %s AND t.task_id = 'exits_75_once' AND h.try_number = 1", (PROTOCOL_DAG,),
    )
    gap = (rows[0][1] - rows[0][0]).total_seconds() if rows and rows[0][0] and rows[0][1] else None
    ok = gap is not None and gap >= RETRY_DELAY
    results.append(ok)
    log(f"{'ok  ' if ok else 'FAIL'} {'retry_delay':<26} second attempt of exits_75_once "
        f"{'%.1f s' % gap if gap is not None else 'never'} after the first (retry_delay {RETRY_DELAY:.0f} s)")


def check_hard(af: Airflow, cell: str, command: int, reference: list[tuple[Any, ...]], results: list[bool]) -> None:
    mode = cell.rsplit("_", 1)[1]
    state, tries = ti(af, f"flowc_sched_{cell}", "work")
    register = attempts_of(af, cell)
    rows = sink_rows(af, cell)
    orphan = not wait_for_dead(command)
    outcomes = [r[3] for r in register]
    if mode == "fail":
        # the successor refuses; nothing of a second attempt lands (attempt 1 died before its commit)
        ok = state == "failed" and "refused" in outcomes and "ok" not in outcomes and rows == []
        promise = "refused (76), failed, nothing committed by a second attempt"
    else:
        ok = state == "success" and rows == reference
        promise = "success, the sink equal to the fault-free run"
    ok = ok and not orphan and len(register) >= 2
    results.append(ok)
    sink = "= fault-free" if rows == reference else ("empty" if not rows else f"{len(rows)} rows, differs")
    log(f"{'ok  ' if ok else 'FAIL'} {cell:<26} attempts {len(register)} (Airflow tries {tries}; outcomes {outcomes}), "
        f"final {state}, orphan {'yes' if orphan else 'no'}, sink {sink} (promised: {promise})")


def wait_for_dead(pid: int) -> bool:
    try:
        wait_for(f"pid {pid} to end", lambda: not alive(pid), 15)
        return True
    except TimeoutError:
        return False


def main(work: Path, pg: str) -> int:
    af = setup(work, pg)
    started = time.monotonic()
    results: list[bool] = []
    try:
        log("== airflow db migrate")
        migrate = subprocess.run(af.airflow("db", "migrate"), env=af.env, capture_output=True, text=True)
        if migrate.returncode != 0:
            log(migrate.stdout[-3000:] + migrate.stderr[-3000:])
            return 1
        log("== start api-server, scheduler, dag-processor (LocalExecutor, PostgreSQL metadata)")
        af.start("api-server", "api-server")
        af.start("dag-processor", "dag-processor")
        af.start("scheduler", "scheduler")
        dags = [PROTOCOL_DAG, "flowc_sched_reference", *(f"flowc_sched_{c}" for c in HARD)]
        wait_for("the DAGs to be parsed", lambda: len(af.meta_query(
            "SELECT dag_id FROM dag WHERE dag_id = ANY(%s) AND NOT is_paused", (dags,))) == len(dags), 300, every=2)
        pids: dict[str, int] = {}
        # Two rounds: a scheduler restart resets every task the dead scheduler had started, so
        # it gets a round of its own, after every other run has ended.
        restart = [f"flowc_sched_{c}" for c in HARD if c.startswith("scheduler_restart")]
        for round_dags, faults in (([d for d in dags if d not in restart], FAULTS[:2]), (restart, FAULTS[2:])):
            log(f"== trigger {len(round_dags)} DAG runs at once ({time.monotonic() - started:.0f} s)")
            trigger(af, round_dags)
            for fault in faults:
                cells = [c for c in HARD if c.startswith(fault)]
                log(f"== {fault}: {', '.join(cells)}")
                pids |= inject(af, cells, fault)
            log("== wait for these runs to end")
            wait_for("the DAG runs to end", lambda round_dags=round_dags: all(  # type: ignore[misc]
                run_state(af, d) in ("success", "failed") for d in round_dags), DEADLINE, every=2)
        log(f"== cells ({time.monotonic() - started:.0f} s)")
        check_protocol(af, results)
        reference = sink_rows(af, "reference")
        expected = sorted((r["id"], r["amount"]) for r in ROWS)
        ok = reference == expected and ti(af, "flowc_sched_reference", "work")[0] == "success"
        log(f"{'ok  ' if ok else 'FAIL'} {'fault-free run':<26} {len(reference)} rows (the input has {len(expected)})")
        if not ok:
            results.append(False)
        for cell in HARD:
            check_hard(af, cell, pids[cell], reference, results)
    except Exception as err:  # noqa: BLE001 - reported as a failed run, with the logs' tails
        log(f"error: {err}")
        for name in ("scheduler", "api-server", "dag-processor"):
            path = work / f"{name}.log"
            if path.exists():
                log(f"--- tail of {name}.log\n" + "\n".join(path.read_text(errors="replace").splitlines()[-25:]))
        # The tasks' own logs say why an attempt failed (the servers' logs only that it did).
        for path in sorted((af.home / "logs").rglob("*.log"))[-4:]:
            log(f"--- tail of task log {path.relative_to(af.home)}\n"
                + "\n".join(path.read_text(errors="replace").splitlines()[-15:]))
        results.append(False)
    finally:
        af.stop()
    passed = sum(results)
    total = max(len(results), len(PROTOCOL) + 1 + len(HARD))
    log(f"airflow scheduler: {passed}/{total} cells as promised ({time.monotonic() - started:.0f} s)")
    return 0 if passed == total and all(results) else 1


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2]))
