"""Checks for scripts/e2e/airflow, run with the Airflow virtualenv's Python.

    e2e.py load DAG_FOLDER DAG_ID...     load the folder as Airflow's DAG processor does
    e2e.py attempts DAG_FOLDER DIR       compare attempts recorded in DIR with the protocol
    e2e.py argv DUMP.json IR.json DATE   compare a task's argv and environment with the spec
    e2e.py big-ir N OUT.json             write the IR of a pipeline of N chained tasks
    e2e.py big-load DAG_FOLDER SECONDS   the folder's one big DAG loads, its time reported against SECONDS
    e2e.py pods DAG_FOLDER IR_DIR        build every FlowPodOperator's pod offline and compare
                                         it with the pipeline's IR (and the example's .flow file)
    e2e.py secret-free SECRET DIR...     no file under the folders holds SECRET
    e2e.py connection PG_URL START       the local task wrote its interval START to PostgreSQL

Each prints what it checked and exits non-zero on the first mismatch.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

PROTOCOL_DAG = "flowc_e2e_protocol"


class Mismatch(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Mismatch(message)


def load_bag(folder):
    from airflow.dag_processing.dagbag import BundleDagBag

    folder = Path(folder).resolve()
    return BundleDagBag(dag_folder=folder, bundle_path=folder, bundle_name="flowc-e2e")


def cmd_load(folder, *required):
    bag = load_bag(folder)
    missing = sorted(set(required) - set(bag.dags))
    expect(not missing, f"DAGs missing from the folder: {missing}")
    expect(not bag.import_errors, f"import errors: {json.dumps(bag.import_errors, indent=2)}")
    dag_files = sorted(p.stem for p in Path(folder).glob("*.py") if p.stem != "_flowc_airflow")
    expect(sorted(bag.dags) == dag_files, f"DAGs {sorted(bag.dags)} != DAG files {dag_files}")
    for dag in bag.dags.values():
        expect(dag.max_active_runs == 1, f"{dag.dag_id}: max_active_runs {dag.max_active_runs}")
        timetable = type(dag.timetable).__name__
        expect(
            timetable in ("CronDataIntervalTimetable", "NullTimetable"),
            f"{dag.dag_id}: timetable {timetable} (a cron schedule needs data intervals)",
        )
    print(f"loaded {len(bag.dags)} DAGs with zero import errors: {', '.join(sorted(bag.dags))}")


def promised_attempts(behaviour, retries, on_ambiguous):
    """How many attempts the exit-code protocol promises (docs/reference/language.md)."""
    if behaviour == "ok":
        return 1
    if behaviour == "exit 75 once":
        return min(2, retries + 1)
    # Any other exit code, or an attempt stopped by its timeout: ambiguous.
    return 1 if on_ambiguous == "fail" else retries + 1


BEHAVIOUR = {
    "succeeds": "ok",
    "exits_75_once": "exit 75 once",
    "ambiguous_fail": "ambiguous",
    "ambiguous_retry": "ambiguous",
    "timeout_fail": "timeout",
    "timeout_retry": "timeout",
}


def cmd_attempts(folder, record_dir):
    record_dir = Path(record_dir)
    dag = load_bag(folder).dags[PROTOCOL_DAG]
    expect(sorted(t.task_id for t in dag.tasks) == sorted(BEHAVIOUR), "unexpected tasks in the protocol DAG")
    for task in sorted(dag.tasks, key=lambda t: t.task_id):
        behaviour = BEHAVIOUR[task.task_id]
        promised = promised_attempts(behaviour, task.retries, task.on_ambiguous)
        record = record_dir / task.task_id
        attempts = record.read_text().split() if record.exists() else []
        expect(
            attempts == [str(n) for n in range(1, promised + 1)],
            f"{task.task_id} ({behaviour}, retries {task.retries}, on_ambiguous {task.on_ambiguous}):"
            f" Airflow made attempts {attempts}, the protocol promises {promised}",
        )
        if behaviour == "timeout":
            expect(
                not (record_dir / f"{task.task_id}.finished").exists(),
                f"{task.task_id}: the process ran to the end despite its timeout",
            )
        print(
            f"{task.task_id}: {behaviour}, retries {task.retries}, on_ambiguous {task.on_ambiguous}:"
            f" {promised} attempt(s), as promised"
        )
    leftovers = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().decode(errors="replace")
        except OSError:
            continue
        if ".finished" in text and "FLOWC_E2E_DIR" in text:
            leftovers.append(cmdline.parent.name)
    expect(not leftovers, f"processes of timed-out attempts still running: {leftovers}")


def cmd_argv(dump_path, ir_path, logical_date):
    dump = json.loads(Path(dump_path).read_text(encoding="utf-8"))
    pipeline = json.loads(Path(ir_path).read_text(encoding="utf-8"))
    (task,) = pipeline["tasks"]
    # The command is python3 -c CODE ARGS...; the task dumps ARGS.
    expect(task["command"][:2] == ["python3", "-c"], "the argv task must be `python3 -c CODE ARGS...`")
    expected_args = task["command"][3:]
    expect(dump["argv"] == expected_args, f"argv\n  got      {dump['argv']!r}\n  expected {expected_args!r}")
    env = dump["env"]
    for var in task["env"]:
        expect(env.get(var["name"]) == var["value"], f"env {var['name']}: got {env.get(var['name'])!r}, expected {var['value']!r}")
    expect(env.get("FLOW_PIPELINE") == pipeline["name"], f"FLOW_PIPELINE {env.get('FLOW_PIPELINE')!r}")
    expect(env.get("FLOW_TASK") == task["name"], f"FLOW_TASK {env.get('FLOW_TASK')!r}")
    expect(env.get("FLOW_ATTEMPT") == "1", f"FLOW_ATTEMPT {env.get('FLOW_ATTEMPT')!r}")
    expect(bool(env.get("FLOW_RUN_ID")), "FLOW_RUN_ID is empty")

    # The data interval of a run of a daily cron at HH:MM in the pipeline's zone,
    # triggered for a logical date: the last whole interval ending at or before it.
    minute, hour, *rest = pipeline["schedule"]["cron"].split()
    expect(rest == ["*", "*", "*"], "the argv pipeline must run daily at a fixed time")
    zone = ZoneInfo(pipeline["timezone"])
    local = datetime.fromisoformat(logical_date).astimezone(zone)
    end = local.replace(hour=int(hour), minute=int(minute), second=0, microsecond=0)
    if end > local:
        end = (end - timedelta(days=1)).replace(hour=int(hour))
    start = (end.replace(tzinfo=None) - timedelta(days=1)).replace(tzinfo=zone)

    def z(moment):
        return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    expect(env.get("FLOW_INTERVAL_START") == z(start), f"FLOW_INTERVAL_START {env.get('FLOW_INTERVAL_START')!r}, expected {z(start)}")
    expect(env.get("FLOW_INTERVAL_END") == z(end), f"FLOW_INTERVAL_END {env.get('FLOW_INTERVAL_END')!r}, expected {z(end)}")
    print(f"argv ({len(expected_args)} arguments) and env ({len(task['env'])} entries) reached the process exactly;")
    print(f"interval {env['FLOW_INTERVAL_START']} .. {env['FLOW_INTERVAL_END']}, attempt 1, run {env['FLOW_RUN_ID']}")


def cmd_big_ir(count, out):
    count = int(count)
    tasks = []
    for i in range(count):
        upstream = [] if i == 0 else [f"t{i - 1}"]
        if i >= 50 and i % 50 == 0:
            upstream.insert(0, f"t{i - 50}")
        tasks.append({
            "name": f"t{i}", "upstream": upstream, "retries": 2, "internal_retries": 0,
            "retry_delay_seconds": 60, "timeout_seconds": 600, "on_ambiguous": "fail",
            "image": None, "command": ["run", "--part", str(i)], "env": [{"name": "PART", "value": str(i)}],
            "nondeterministic": False, "reads": [], "writes": [], "emits": [],
        })
    pipeline = {
        "name": "flowc_e2e_big", "source_file": "big.flow",
        "schedule": {"text": "@hourly", "cron": "0 * * * *"}, "start": "2026-01-01",
        "timezone": "UTC", "catchup": False, "image": None, "tasks": tasks,
    }
    Path(out).write_text(json.dumps(pipeline), encoding="utf-8")


def cmd_big_load(folder, seconds):
    import time

    import _flowc_airflow  # noqa: F401 - pay the provider imports before timing the DAG file

    started = time.monotonic()
    bag = load_bag(folder)
    elapsed = time.monotonic() - started
    expect(not bag.import_errors, f"import errors: {bag.import_errors}")
    (dag,) = bag.dags.values()
    edges = sum(len(t.upstream_task_ids) for t in dag.tasks)
    # A goal, reported and not enforced: a shared CI machine is no stopwatch
    # (scripts/bench-dagbag measures the parse cost properly).
    verdict = "met" if elapsed < float(seconds) else "missed (reported, not enforced)"
    print(f"{dag.dag_id}: {len(dag.tasks)} tasks, {edges} edges, loaded in {elapsed:.2f} s; goal under {seconds} s {verdict}")


# What examples/invoices_deploy.flow declares, written out by hand so that a
# mistake in the IR cannot hide a mistake in the pod.
INVOICES_PODS = {
    "copy_invoices": {
        "resources": {"cpu": "500m", "memory": "512Mi"},
        "labels": {"team": "billing", "app.kubernetes.io/part-of": "invoicing"},
        "secrets": {"FLOW_CONN_BILLING_INVOICES": "billing-db", "FLOW_CONN_WH_INVOICES": "warehouse-db"},
    },
    "total_by_customer": {
        "resources": {"cpu": "2", "memory": "2Gi"},
        "labels": {"team": "billing", "app.kubernetes.io/part-of": "invoicing", "tier": "batch"},
        "secrets": {
            "FLOW_CONN_WH_INVOICES": "warehouse-db",
            "FLOW_CONN_WH_INVOICE_TOTALS": "warehouse-db",
            "FLOW_CONN_INVOICES_READY": "invoices-hook",
            # An effect's secret also carries its bearer token (key `token`, optional).
            "FLOW_TOKEN_INVOICES_READY": "invoices-hook",
        },
    },
}


def offline_context(task_id):
    """The parts of an Airflow context that ``FlowPodOperator.pod_operator`` reads."""
    from types import SimpleNamespace

    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return {
        "data_interval_start": start,
        "data_interval_end": start + timedelta(days=1),
        "run_id": f"manual__{task_id}",
        "ti": SimpleNamespace(try_number=1),
        "dag_run": None,
        "logical_date": start,
    }


def built_pod(task):
    """The pod the task's next attempt would create, built with no cluster."""
    operator = task.pod_operator(offline_context(task.task_id))
    return operator.build_pod_request_obj(None, dry_run=True)


def check_pod(dag_id, task, ir_task):
    pod = built_pod(task)
    where = f"{dag_id}.{task.task_id}"
    want = ir_task.get("pod", {})
    (container,) = [c for c in pod.spec.containers if c.name == "base"]
    expect(container.image == ir_task["image"], f"{where}: image {container.image!r}")
    if "namespace" in want:
        expect(pod.metadata.namespace == want["namespace"], f"{where}: namespace {pod.metadata.namespace!r}")
    expect(
        pod.spec.service_account_name == want.get("service_account"),
        f"{where}: service account {pod.spec.service_account_name!r}, expected {want.get('service_account')!r}",
    )
    quantities = {k: want[k] for k in ("cpu", "memory") if k in want}
    resources = container.resources
    got_requests = dict(resources.requests or {}) if resources else {}
    got_limits = dict(resources.limits or {}) if resources else {}
    expect(got_requests == quantities, f"{where}: requests {got_requests}, expected {quantities}")
    expect(got_limits == quantities, f"{where}: limits {got_limits}, expected {quantities}")
    labels = pod.metadata.labels or {}
    for key, value in want.get("labels", {}).items():
        expect(labels.get(key) == value, f"{where}: label {key} = {labels.get(key)!r}, expected {value!r}")
    annotations = pod.metadata.annotations or {}
    expect(
        all(annotations.get(k) == v for k, v in want.get("annotations", {}).items()),
        f"{where}: annotations {annotations}, expected {want.get('annotations')}",
    )
    expect(
        container.image_pull_policy == want.get("image_pull_policy"),
        f"{where}: image pull policy {container.image_pull_policy!r}",
    )
    env = {e.name: e for e in container.env or []}
    secrets = {s["name"]: s["secret"] for s in ir_task.get("secrets", [])}
    for name, secret in secrets.items():
        var = env.get(name)
        expect(var is not None, f"{where}: no {name} in the container's env")
        ref = var.value_from.secret_key_ref if var.value_from else None
        expect(var.value is None and ref is not None, f"{where}: {name} is not from a Secret: {var}")
        # A connection's URL is the Secret's key `url`; an effect's bearer token its key `token`,
        # optional (an effect may post without one).
        key = "token" if name.startswith("FLOW_TOKEN_") else "url"
        expect((ref.name, ref.key) == (secret, key), f"{where}: {name} from {ref.name}/{ref.key}")
        expect(bool(ref.optional) == (key == "token"), f"{where}: {name} optional={ref.optional}")
    from_secrets = {n: e.value_from.secret_key_ref.name for n, e in env.items() if e.value_from}
    expect(from_secrets == secrets, f"{where}: env from Secrets {from_secrets}, expected {secrets}")
    return pod, from_secrets


def cmd_pods(folder, ir_dir):
    bag = load_bag(folder)
    expect(not bag.import_errors, f"import errors: {bag.import_errors}")
    checked = 0
    for path in sorted(Path(ir_dir).glob("*.ir.json")):
        pipeline = json.loads(path.read_text(encoding="utf-8"))
        dag = bag.dags.get(pipeline["name"])
        expect(dag is not None, f"no DAG {pipeline['name']}")
        for ir_task in pipeline["tasks"]:
            task = dag.get_task(ir_task["name"])
            in_pod = ir_task.get("image") is not None and ir_task.get("airflow_executor") != "local"
            kind = type(task).__name__
            expect(kind == ("FlowPodOperator" if in_pod else "FlowSubprocessOperator"), f"{dag.dag_id}.{task.task_id} is a {kind}")
            if not in_pod:
                conns = {s["name"]: s["secret"] for s in ir_task.get("secrets", [])}
                expect(task.connections == conns, f"{dag.dag_id}.{task.task_id}: connections {task.connections}")
                continue
            pod, from_secrets = check_pod(dag.dag_id, task, ir_task)
            if dag.dag_id == "invoices_deploy":
                want = INVOICES_PODS[task.task_id]
                (container,) = [c for c in pod.spec.containers if c.name == "base"]
                expect(pod.metadata.namespace == "billing-jobs", f"namespace {pod.metadata.namespace!r}")
                expect(pod.spec.service_account_name == "flowc-invoices", "service account")
                expect(container.image_pull_policy == "IfNotPresent", "image pull policy")
                expect(dict(container.resources.requests) == want["resources"], f"requests {container.resources.requests}")
                expect(dict(container.resources.limits) == want["resources"], f"limits {container.resources.limits}")
                expect(all(pod.metadata.labels.get(k) == v for k, v in want["labels"].items()), f"labels {pod.metadata.labels}")
                expect(pod.metadata.annotations.get("acme.io/owner") == "billing-platform@acme.example", "annotation")
                expect(from_secrets == want["secrets"], f"secrets {from_secrets}")
            checked += 1
    expect(checked >= 2, f"only {checked} pods built")
    print(f"built {checked} pods offline: namespace, service account, resources, labels, annotations, pull policy and Secret-backed env as declared")


def cmd_secret_free(secret, *folders):
    files = 0
    for folder in folders:
        for path in Path(folder).rglob("*"):
            if path.is_file():
                files += 1
                expect(secret.encode() not in path.read_bytes(), f"{path} holds the secret")
    expect(files > 0, "no files to look at")
    print(f"the secret is in none of {files} generated files")


def cmd_connection(pg_url, expected_start):
    import subprocess

    rows = subprocess.run(
        ["psql", pg_url, "-Atc", "SELECT interval_start, scheme FROM flowc_e2e_connection ORDER BY 1"],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    expect(rows == [f"{expected_start}|postgres"], f"rows {rows}, expected the interval {expected_start} through a postgres:// URL")
    print(f"the local task reached PostgreSQL through the Airflow Connection and wrote interval {expected_start}")


def main(argv):
    commands = {
        "pods": cmd_pods,
        "secret-free": cmd_secret_free,
        "connection": cmd_connection,
        "load": cmd_load,
        "attempts": cmd_attempts,
        "argv": cmd_argv,
        "big-ir": cmd_big_ir,
        "big-load": cmd_big_load,
    }
    if not argv or argv[0] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        commands[argv[0]](*argv[1:])
    except Mismatch as mismatch:
        print(f"MISMATCH: {mismatch}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
