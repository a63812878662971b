"""The timing half of scripts/bench-dagbag (which documents the method): parses flowc's DAG file
and a hand-written equivalent with Airflow's BundleDagBag, one forked child per parse.

Usage (from scripts/bench-dagbag): bench_dagbag.py WORK ROUNDS MAX_RATIO
"""

from __future__ import annotations

import ast
import gc
import importlib
import json
import os
import platform
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

work, rounds, max_ratio = Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])

# The limit applies to the steady state the method describes: the DAG processor re-parses an
# unchanged file whose bytecode Python cached beside it (`__pycache__`). A machine that sets
# PYTHONDONTWRITEBYTECODE (this one did) would otherwise compile both files from source on every
# parse; that regime is measured too, and printed, in its own rows (`from source`).
sys.dont_write_bytecode = False
FLOWC = work / "flowc" / "bench.py"
HAND = work / "hand" / "bench.py"


def in_child(job: Callable[[], Any]) -> Any:
    """Run job() in a forked child (a fresh copy of this process, as the DAG
    processor forks one per parse) and return what it returns, through a pipe."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            result = {"ok": job()}
        except BaseException as exc:  # noqa: BLE001 - reported by the parent
            result = {"error": f"{type(exc).__name__}: {exc}"}
        with os.fdopen(write, "w") as pipe:
            json.dump(result, pipe)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    result = json.loads(text) if text else {"error": "the child died"}
    if "error" in result:
        sys.exit(f"bench-dagbag: {result['error']}")
    return result["ok"]


def load(path: Path) -> Any:
    from airflow.dag_processing.dagbag import BundleDagBag

    bag = BundleDagBag(
        dag_folder=str(path), bundle_path=path.parent, bundle_name="bench", load_op_links=False
    )
    if bag.import_errors:
        raise RuntimeError(f"import errors in {path}: {bag.import_errors}")
    (dag,) = bag.dags.values()
    return dag


def timed_parse(path: Path, from_source: bool = False) -> float:
    def job() -> float:
        if from_source:
            # An empty bytecode folder that is never written: the file is compiled, as on a
            # machine with PYTHONDONTWRITEBYTECODE or a read-only DAG folder.
            sys.pycache_prefix = tempfile.mkdtemp()
            sys.dont_write_bytecode = True
        started = time.perf_counter()
        load(path)
        return time.perf_counter() - started
    return float(in_child(job))


def summary(path: Path) -> dict[str, Any]:
    """What the two files must agree on."""

    def job() -> dict[str, Any]:
        dag = load(path)
        return {
            "dag_id": dag.dag_id,
            "timetable": [type(dag.timetable).__name__, dag.timetable.expression, str(dag.timetable.timezone)],
            "start_date": dag.start_date.isoformat(),
            "catchup": dag.catchup,
            "max_active_runs": dag.max_active_runs,
            "tasks": sorted(
                [t.task_id, sorted(t.upstream_task_ids), t.retries, t.retry_delay.total_seconds(),
                 t.execution_timeout.total_seconds() if t.execution_timeout else None]
                for t in dag.tasks
            ),
        }
    result: dict[str, Any] = in_child(job)
    return result


def write_hand_written() -> int:
    """The hand-written equivalent of flowc's DAG file: its DAG arguments as
    written there, and from the loaded DAG each task's id, command and edges."""

    def job() -> int:
        source = FLOWC.read_text(encoding="utf-8")
        (with_node,) = [n for n in ast.parse(source).body if isinstance(n, ast.With)]
        call = with_node.items[0].context_expr
        assert isinstance(call, ast.Call), "the DAG is opened with `with DAG(...)`"
        dag_args = [f"    {k.arg}={ast.get_source_segment(source, k.value)},\n" for k in call.keywords]
        dag = load(FLOWC)
        tasks = sorted(dag.tasks, key=lambda t: (len(t.task_id), t.task_id))
        policy = {(t.retries, t.retry_delay, t.execution_timeout) for t in tasks}
        assert len(policy) == 1, "the hand-written DAG sets one retry policy for every task"
        ((retries, retry_delay, timeout),) = policy
        out = [
            "import datetime\n\nimport pendulum\n",
            "from airflow.providers.standard.operators.bash import BashOperator\n",
            "from airflow.sdk import DAG, CronDataIntervalTimetable\n\n",
            "with DAG(\n", *dag_args,
            "    default_args={\n",
            f"        \"retries\": {retries},\n",
            f"        \"retry_delay\": datetime.timedelta(seconds={retry_delay.total_seconds():.0f}),\n",
            f"        \"execution_timeout\": datetime.timedelta(seconds={timeout.total_seconds():.0f}),\n",
            "    },\n):\n",
        ]
        for t in tasks:
            command = shlex.join(t.command)
            out.append(f"    {t.task_id} = BashOperator(task_id={t.task_id!r}, bash_command={command!r})\n")
        for t in tasks:
            for upstream in sorted(t.upstream_task_ids, key=lambda u: (len(u), u)):
                out.append(f"    {upstream} >> {t.task_id}\n")
        HAND.write_text("".join(out), encoding="utf-8")
        return len(tasks)
    return int(in_child(job))


# The manager: Airflow, the DAG bag, and the airflow.* imports of both files.
import airflow  # noqa: E402
import airflow.dag_processing.dagbag  # noqa: E402 - pre-imported, as the DAG processor has it
from airflow.utils.file import iter_airflow_imports  # noqa: E402

write_hand_written()
for path in (FLOWC, HAND):
    for module in iter_airflow_imports(str(path)):
        importlib.import_module(module)
flowc_summary, hand_summary = summary(FLOWC), summary(HAND)
if flowc_summary != hand_summary:
    sys.exit("bench-dagbag: the hand-written DAG is not equivalent to flowc's")
gc.collect()
gc.freeze()

variants = {"flowc": FLOWC, "hand-written": HAND}
regimes = {"cached": False, "from source": True}
times: dict[tuple[str, str], list[float]] = {(n, r): [] for n in variants for r in regimes}
for path in variants.values():
    timed_parse(path)  # warm-up: bytecode cache, page cache
for r in range(rounds):
    order = list(variants) if r % 2 == 0 else list(reversed(variants))
    for regime, from_source in regimes.items():
        for name in order:
            times[name, regime].append(timed_parse(variants[name], from_source))

tasks = flowc_summary["tasks"]
edges = sum(len(t[1]) for t in tasks)
print(f"apache-airflow {airflow.__version__}, Python {platform.python_version()}, {os.cpu_count()} cores")
print(f"{len(tasks)} tasks, {edges} edges; {rounds} parses each, alternating, one forked child per parse")
print()
print(f"{'DAG file':<14} {'bytecode':<12} {'size':>9} {'median':>9} {'min':>9} {'max':>9}")
medians: dict[tuple[str, str], float] = {}
for regime in regimes:
    for name, path in variants.items():
        ts = times[name, regime]
        medians[name, regime] = statistics.median(ts)
        print(
            f"{name:<14} {regime:<12} {path.stat().st_size / 1024:>7.0f} KB {medians[name, regime]:>8.3f}s"
            f" {min(ts):>8.3f}s {max(ts):>8.3f}s"
        )
ratio = medians["flowc", "cached"] / medians["hand-written", "cached"]
source_ratio = medians["flowc", "from source"] / medians["hand-written", "from source"]
verdict = "ok" if ratio <= max_ratio else "TOO SLOW"
print()
print(f"ratio flowc / hand-written, from source (reported, no limit): {source_ratio:.2f}")
print(f"ratio flowc / hand-written, cached bytecode: {ratio:.2f} (limit {max_ratio}): {verdict}")
sys.exit(0 if ratio <= max_ratio else 1)
