"""The one fault of the scheduler cells (scripts/e2e/airflow-scheduler): the first attempt of a
`flowc_sched_*` pipeline (other than the reference) that reaches its commit phase writes its pid
to `$FLOWC_E2E_DIR/<pipeline>.stalled` and waits there, before its transaction, for the script
to kill its runner, its supervisor or the scheduler. Later attempts go on. Never shipped: the
runtime's own hooks (flowc_runtime/hooks.py) do nothing."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import flowc_runtime.hooks as hooks

STALL_SECONDS = 600.0


def before_publish() -> None:
    pipeline = os.environ.get("FLOW_PIPELINE", "")
    folder = os.environ.get("FLOWC_E2E_DIR")
    if not folder or not pipeline.startswith("flowc_sched_") or pipeline == "flowc_sched_reference":
        return
    marker = Path(folder) / f"{pipeline}.stalled"
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.write(fd, f"{os.getpid()}\n".encode())
    os.close(fd)
    sys.stderr.write(f"flowc e2e: attempt {os.environ.get('FLOW_ATTEMPT')} stalls in its commit phase\n")
    sys.stderr.flush()
    deadline = time.monotonic() + STALL_SECONDS
    while time.monotonic() < deadline:
        time.sleep(0.2)


def install() -> None:
    hooks.before_publish = before_publish
