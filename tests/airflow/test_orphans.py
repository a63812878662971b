"""The local operator's command never outlives its attempt (templates/airflow/_flowc_airflow.py),
and exit 76 is never retried.

A "runner" here is a Python process that runs `FlowSubprocessOperator.execute` as Airflow's task
runner does; a "supervisor" is its parent. Each test kills one of them with SIGKILL, as the
scheduler cells of scripts/e2e/airflow-scheduler do, and looks at whether the command survived.

Run: pytest tests/airflow/test_orphans.py (with Airflow 3 installed).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "airflow"
sys.path.insert(0, str(TEMPLATES))

import _flowc_airflow as flowc  # noqa: E402
from airflow.sdk import DAG  # noqa: E402
from airflow.sdk.exceptions import AirflowFailException  # noqa: E402

RUNNER = textwrap.dedent(
    """
    import os, sys
    from types import SimpleNamespace
    import pendulum
    sys.path.insert(0, {templates!r})
    import _flowc_airflow as flowc
    from airflow.sdk import DAG
    if os.environ.get("NO_PDEATHSIG"):
        flowc.die_with_parent = lambda: None
    if os.environ.get("NO_WATCHDOG"):
        flowc.FlowSubprocessOperator._watchdog = lambda self, stop: None
    start = pendulum.datetime(2026, 1, 1, tz="UTC")
    ctx = {{"data_interval_start": start, "data_interval_end": start, "run_id": "r",
           "ti": SimpleNamespace(try_number=1), "dag_run": SimpleNamespace(run_after=start)}}
    with DAG("orphans", schedule=None):
        op = flowc.FlowSubprocessOperator(task_id="t", command=sys.argv[1:], on_ambiguous="fail")
    op.execute(ctx)
    """
).format(templates=str(TEMPLATES))

SUPERVISOR = textwrap.dedent(
    """
    import subprocess, sys, time
    subprocess.Popen([sys.executable, "-c", sys.argv[1], *sys.argv[2:]])
    time.sleep(600)
    """
)


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for(predicate: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def command(tmp_path: Path) -> tuple[Path, list[str]]:
    pid_file = tmp_path / "pid"
    return pid_file, ["sh", "-c", f"echo $$ > {pid_file}.tmp && mv {pid_file}.tmp {pid_file} && exec sleep 60"]


def start(tmp_path: Path, supervised: bool, **env: str) -> tuple[subprocess.Popen[bytes], int]:
    pid_file, argv = command(tmp_path)
    args = [sys.executable, "-c", SUPERVISOR, RUNNER, *argv] if supervised else [sys.executable, "-c", RUNNER, *argv]
    proc = subprocess.Popen(args, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert wait_for(pid_file.exists, 60), "the command never started"
    return proc, int(pid_file.read_text())


def killed(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()


@pytest.fixture
def leftovers() -> list[int]:
    pids: list[int] = []
    yield pids
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_the_command_dies_with_its_runner(tmp_path: Path, leftovers: list[int]) -> None:
    runner, pid = start(tmp_path, supervised=False)
    leftovers.append(pid)
    killed(runner)
    assert wait_for(lambda: not alive(pid), 5)


def test_without_pdeathsig_the_command_would_outlive_its_runner(tmp_path: Path, leftovers: list[int]) -> None:
    """The control: the same kill with the tie switched off leaves an orphan."""
    runner, pid = start(tmp_path, supervised=False, NO_PDEATHSIG="1")
    leftovers.append(pid)
    killed(runner)
    assert not wait_for(lambda: not alive(pid), 2)


def test_the_command_dies_with_its_supervisor(tmp_path: Path, leftovers: list[int]) -> None:
    supervisor, pid = start(tmp_path, supervised=True)
    leftovers.append(pid)
    killed(supervisor)
    assert wait_for(lambda: not alive(pid), 5)


def test_without_the_watchdog_the_command_would_outlive_its_supervisor(tmp_path: Path, leftovers: list[int]) -> None:
    supervisor, pid = start(tmp_path, supervised=True, NO_WATCHDOG="1")
    leftovers.append(pid)
    killed(supervisor)
    assert not wait_for(lambda: not alive(pid), 2)


@pytest.mark.parametrize("on_ambiguous", ["retry", "fail"])
def test_exit_76_is_never_retried(on_ambiguous: str) -> None:
    with pytest.raises(AirflowFailException, match="exited 76"):
        flowc.check_exit(76, on_ambiguous)
    with DAG("refused", schedule=None):
        op = flowc.FlowSubprocessOperator(task_id="t", command=["sh", "-c", "exit 76"], on_ambiguous=on_ambiguous)
    start = flowc.datetime(2026, 1, 1, tzinfo=flowc.timezone.utc)
    ctx = {"data_interval_start": start, "data_interval_end": start, "run_id": "r",
           "ti": type("TI", (), {"try_number": 2})()}
    with pytest.raises(AirflowFailException, match="refused"):
        op.execute(ctx)
