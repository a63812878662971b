"""The fault matrix: runs flowc's generated Python tasks under injected faults, against a real
database, with the retry policy flowc derived, and checks each output against its predicted
delivery guarantee. Driven by pytest (tests/fault/test_matrix.py, one case per cell) through
`scripts/fault-matrix`.

For every fixture task in tests/fault/ and every fault kind that applies to it, one scenario runs
two consecutive daily intervals as a scheduler would (retries, `on_ambiguous`, exit 75), re-runs
a failed interval until it succeeds as an operator would, and compares every sink and every
effect endpoint (a local HTTP server counting deliveries per record) with a fault-free run.
Each (output, fault) pair is one cell:

* an output predicted `exactly_once` or `effectively_once` is as predicted when the cell shows
  no anomaly at all;
* a weaker output must show its predicted anomaly (duplicates, changed or extra rows, extra
  calls) in at least one cell of a fault kind that exercises its failing clause; its other
  cells carry no prediction beyond that.

Predictions and code come from the real binary only: `flowc report --format json` and `flowc
scaffold --lang python` (target/debug/flowc, or FLOWC_BIN). The task declarations the scenarios
need (sources to seed, sinks to observe) come from the IR fixtures in tests/fault/ir, which
tests/fault/fixtures.py keeps equal to the .flow files. The faults themselves are injected by
tests/fault/fault_hooks.py, installed in every task process through tests/fault/inject.

The fault kinds of flowc 0.2's state, outbox and relay (`V02_FAULTS`, their scenarios in
`V02Scenario`):

* `fresh_workdir`: every attempt runs in a new empty working folder, as a retried pod does, with
  no `FLOWC_STATE` override, so the task's own state store decides where its pins are; attempt
  1 pins and fails before its commit, then new input lands (as `input_change`). Only tasks whose
  state store is durable (a `postgres_table` or `delta_table` sink of the pipeline) get it: a
  pipeline whose state is the local file cannot run in containers (FL806 at build time);
* `receiver_failing`: the effect endpoint refuses (HTTP 500) two calls of the scenario after
  the first one it accepts (a receiver failing mid-batch; one that fails the very first call
  shows nothing a retry could repeat);
* `relay_crash`: the attempt is killed between a send of the relay and its mark (at the first
  row of the first outbox effect without an idempotency key, else at the first row);
* `manual_rerun`: a manual pipeline (tests/fault/*_manual.flow) run twice on the same input,
  with the environment Argo sets for it (no FLOW_INTERVAL_START: the interval is the trigger
  time); its reference runs once.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[2]
FAULT_DIR = ROOT / "tests" / "fault"
# A declaration of the IR fixtures (pipeline, task, read, write, emit, endpoint): JSON objects.
Decl = dict[str, Any]
Key = tuple[str, str, str]


class MissingBinary(Exception):
    """The flowc binary the matrix needs is absent or has no `scaffold --lang`."""


STRONG = ("exactly_once", "effectively_once")
BASE_FAULTS = [
    "crash_after_pin",
    "crash_after_read",
    "crash_mid_batch",
    "crash_before_commit",
    "crash_after_commit",
    "zombie",
    "rerun",
    "input_change",
]
VOLATILE_TERMS = {"run_id", "attempt_id", "attempt_number", "now", "uuid", "random"}
INTERVALS = [("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"), ("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z")]
SQL_KINDS = ("sqlite_table", "postgres_table", "duckdb_table", "mysql_table")
# The database passes (`--db`): each runs its own fixtures (tests/fault/<prefix>_*.json), with
# the sinks, and the state when the kind holds it, in that database. The Delta fixtures run in
# the SQLite and PostgreSQL passes.
DB_FIXTURES = {"sqlite": "sqlite", "postgres": "postgres", "duckdb": "duckdb", "mysql": "mysql"}
# Where a pass keeps the state: its own database (the kind holds it, so a write and its state
# commit together), except SQLite, whose kind has no `state` (a file of its own, FLOWC_STATE).
SHARED_STATE = ("postgres", "duckdb", "mysql")


# --- the local effect endpoint ------------------------------------------------------------------


class Endpoint:
    """Counts deliveries per (scenario, effect, record, interval). Like a real API with
    idempotency keys, a call whose `Idempotency-Key` it has seen is acknowledged, not delivered."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.deliveries: dict[tuple[str, str], Counter[Any]] = defaultdict(Counter)
        self.seen_keys: set[tuple[str, str, str]] = set()
        self.calls: Counter[Any] = Counter()
        endpoint = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                _, scenario, effect = self.path.split("/", 2)
                key = self.headers.get("Idempotency-Key")
                # each kind's wire format (flowc_runtime/effects.py): webhook's envelope holds the
                # record, http_request's body is it, a Slack message's `text` is its JSON (the scaffold's
                # first transform); the interval comes in a header
                record = body.get("record", body)
                if "text" in body and "channel" in body:
                    record = json.loads(body["text"])
                interval = body.get("interval_start", self.headers.get("Flowc-Interval-Start"))
                with endpoint.lock:
                    if endpoint.refuses(scenario):
                        self.send_response(500)
                        self.end_headers()
                        return
                    endpoint.calls[(scenario, effect)] += 1
                    if key is None or (scenario, effect, key) not in endpoint.seen_keys:
                        if key is not None:
                            endpoint.seen_keys.add((scenario, effect, key))
                        endpoint.deliveries[(scenario, effect)][(record.get("rec"), interval)] += 1
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.failing: dict[str, list[int]] = {}
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def fail(self, scenario: str, count: int, after: int = 1) -> None:
        """`receiver_failing`: refuse `count` calls of `scenario` once `after` calls succeeded."""
        self.failing[scenario] = [after, count]

    def refuses(self, scenario: str) -> bool:
        """Whether this call of `scenario` fails (called under the lock)."""
        plan = self.failing.get(scenario)
        if plan is None:
            return False
        if plan[0] > 0:
            plan[0] -= 1
            return False
        if plan[1] > 0:
            plan[1] -= 1
            return True
        return False

    def url(self, scenario: str, effect: str) -> str:
        return f"http://127.0.0.1:{self.port}/{scenario}/{effect}"

    def observed(self, scenario: str, effect: str) -> Counter[Any]:
        with self.lock:
            return Counter(self.deliveries[(scenario, effect)])


# --- fixtures, predictions, code -----------------------------------------------------------------


def load_fixtures(db: str) -> list[Decl]:
    prefix = DB_FIXTURES[db]
    names = [f"{prefix}_modes", f"{prefix}_inputs"]
    if db in ("sqlite", "postgres"):
        names += ["delta_lease", "delta_no_lease"]
    names += [f"{prefix}_manual"]
    pipelines = []
    for name in names:
        for p in json.loads((ROOT / "tests" / "fault" / "ir" / f"{name}.json").read_text()):
            p["_file"] = name
            pipelines.append(p)
    return pipelines


def flowc_bin() -> Path:
    """The flowc binary; raises `MissingBinary` (the matrix has no other oracle)."""
    flowc = Path(os.environ.get("FLOWC_BIN") or ROOT / "target" / "debug" / "flowc")
    if not flowc.exists():
        raise MissingBinary(f"no flowc binary at {flowc}: run `cargo build --bin flowc` (or set FLOWC_BIN)")
    try:
        helped = subprocess.run([str(flowc), "scaffold", "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise MissingBinary(f"{flowc} does not run: {err}") from err
    if helped.returncode != 0 or "--lang" not in helped.stdout + helped.stderr:
        raise MissingBinary(f"{flowc} has no `scaffold --lang`: rebuild it with `cargo build --bin flowc`")
    return flowc


def scaffold(flowc: Path, out: Path | str, flow_files: list[str], cwd: Path | None = None) -> None:
    """`flowc scaffold --lang python` into `out`, then the code compiled once, as a deployed task's
    is (docs/targets/deploying.md): every attempt is a new interpreter, and a machine that sets
    PYTHONDONTWRITEBYTECODE would otherwise compile the runtime from source on each one."""
    gen = subprocess.run([str(flowc), "scaffold", "--lang", "python", "--out", str(out), *flow_files],
                         capture_output=True, text=True, cwd=cwd or ROOT, timeout=300)
    if gen.returncode != 0:
        raise RuntimeError(f"flowc scaffold failed:\n{gen.stdout}{gen.stderr}")
    compiled = subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(cwd or ROOT, out))],
                              capture_output=True, text=True, timeout=300)
    if compiled.returncode != 0:
        raise RuntimeError(f"compileall of the scaffolded code failed:\n{compiled.stdout}{compiled.stderr}")


def predictions_and_code(pipelines: list[Decl], out: Path) -> dict[Key, Decl]:
    """Map (pipeline, task, output) -> (guarantee, on_ambiguous, retries); write the scaffold to `out`."""
    flow_files = sorted({str(ROOT / "tests" / "fault" / f"{p['_file']}.flow") for p in pipelines})
    flowc = flowc_bin()
    predicted: dict[Key, Decl] = {}
    report = subprocess.run(
        [str(flowc), "report", "--format", "json", *flow_files], capture_output=True, text=True, cwd=ROOT
    )
    try:
        data = json.loads(report.stdout)
    except json.JSONDecodeError as err:
        raise RuntimeError(f"flowc report gave no JSON (exit {report.returncode}):\n{report.stdout}{report.stderr}") from err
    for p in data["pipelines"]:
        for t in p["tasks"]:
            for o in t["outputs"]:
                predicted[(p["name"], t["name"], o["target"])] = {
                    "guarantee": o["guarantee"],
                    "on_ambiguous": t["on_ambiguous"],
                    "attempts": t.get("attempts_per_write"),
                    "clauses": o.get("clauses") or {},
                }
    scaffold(flowc, out, flow_files)
    return predicted


# --- which fault kinds exercise an output's failing clause (from the declarations) --------------


def causes_of_write(task: Decl, write: Decl) -> set[str]:
    kinds: set[str] = set()
    mode = write["mode"]
    if mode not in ("upsert", "replace_partition", "append_ledger", "conditional_commit", "transactional"):
        kinds |= {"crash_after_commit", "zombie", "rerun"}
    if mode == "check_then_append":
        # the check runs before the write's transaction: a writer of another interval slips between
        kinds.add("two_intervals_live")
    terms = []
    if mode == "replace_partition" and write.get("partition"):
        terms = [write["partition"]["term"]]
    elif mode in ("upsert", "append_ledger"):
        terms = [k["term"] for k in write.get("key") or []]
    if "run_id" in terms:
        kinds.add("rerun")
    if any(t in ("attempt_id", "attempt_number", "now", "uuid", "random") for t in terms):
        kinds |= {"crash_after_commit", "zombie"}
    if mode in ("upsert", "append_ledger"):
        for read in task["reads"]:
            if not read.get("identity"):
                kinds.add("dup_identity")
    for read in task["reads"]:
        if not read["immutable"] and read["pin"] is None:
            kinds.add("input_change")
    if task["nondeterministic"]:
        kinds.add("nondeterministic")
    kinds |= causes_v02_write(task, write, kinds)
    return kinds


def causes_of_emit(task: Decl, emit: Decl) -> set[str]:
    kinds: set[str] = set()
    if emit["tracking"] == "untracked":
        kinds |= {"crash_during_relay", "rerun", "zombie"}
    elif emit["tracking"] == "idempotency_key":
        if any(k["term"] in VOLATILE_TERMS for k in emit.get("key") or []):
            kinds.add("rerun")
        for read in task["reads"]:
            if not read["immutable"] and read["pin"] is None:
                kinds.add("input_change")
    else:
        if not emit["kind_has_idempotency_key"]:
            kinds.add("crash_during_relay")
        holder = next(w for w in task["writes"] if w["sink"]["name"] == emit["outbox"])
        kinds |= causes_of_write(task, holder)
    if task["nondeterministic"]:
        kinds.add("nondeterministic")
    kinds |= causes_v02_emit(task, emit, kinds)
    return kinds


def faults_for(task: Decl) -> list[str]:
    faults = list(BASE_FAULTS)
    if task["emits"]:
        faults.append("crash_during_relay")
    if any(not r.get("identity") for r in task["reads"]):
        faults.append("dup_identity")
    if task["nondeterministic"]:
        faults.append("nondeterministic")
    faults += regression_faults(task)
    faults = faults_v02(task, faults)
    return faults



# --- flowc 0.2 fault kinds: regression (A1-A3), serialization (A3), readiness (A8) --------------

# On data whose records recur in both intervals (records_overlap), so that an older interval's
# write can land over a newer one's: a zombie resumed after interval 2 committed, a re-run of
# interval 1 after interval 2, two live attempts of interval 2 held inside their writes at once.
# `two_intervals_live`: intervals 1 and 2 at once (as a scheduler running several intervals in
# parallel, e.g. catching up), each held inside its write until both are there: what a check
# made outside the write's transaction (`check_then_append`) cannot see. Only the end is compared.
REGRESSION_FAULTS = ["late_zombie", "rerun_older", "two_live", "two_intervals_live"]
# Interval 1's input lands between attempt 1 and attempt 2 (files sources).
LATE_FAULTS = ["late_input"]
REFERENCE_OF = {fault: "fault-free-overlap" for fault in REGRESSION_FAULTS}
DAYS = ["2026-01-01", "2026-01-02"]
FENCED_KINDS = SQL_KINDS


def records_overlap(k: int) -> list[Decl]:
    """Interval k's records: the same ids every interval, new amounts, and in interval 2 a late
    record of interval 1's day (what `replace partition input.F` mishandles)."""
    rows = [{"id": f"r{j}", "rec": f"r{j}", "amount": 10 * k + j, "event_day": DAYS[k - 1]} for j in (1, 2, 3)]
    if k == 2:
        rows.append({"id": "late-1", "rec": "late-1", "amount": 99, "event_day": DAYS[0]})
    return rows


def without_day(row: Decl) -> Decl:
    """A record for a Delta source, whose table has the three original fields only."""
    return {c: v for c, v in row.items() if c != "event_day"}


def regression_faults(task: Decl) -> list[str]:
    """The flowc 0.2 fault kinds that concern `task`: for tasks that read only files (whose
    seeds can recur across intervals), the regression kinds by write mode, and late input."""
    if not task["reads"] or any(r["source"]["kind"] != "files" for r in task["reads"]):
        return []
    modes = {w["mode"] for w in task["writes"]}
    faults = []
    if modes & {"upsert", "replace_partition", "overwrite", "conditional_commit"}:
        faults += ["late_zombie", "rerun_older"]
    if modes & {"upsert", "replace_partition", "overwrite"}:
        faults.append("two_live")
    if "check_then_append" in modes:
        # (an upsert's rows are fenced by interval, but which interval's payload an outbox row
        # keyed by record carries depends on the commit order of two live intervals)
        faults.append("two_intervals_live")
    return faults + LATE_FAULTS


def regresses(write: Decl) -> bool:
    """The declarations' view of `no_regression` failing (A1-A3), for a report without the clause."""
    mode, sink = write["mode"], write["sink"]
    if mode == "overwrite":
        return not any("{interval" in str(v) for v in sink["params"].values())
    if mode == "replace_partition":
        return (write.get("partition") or {}).get("term") in ("input_field", "output_field")
    return mode == "upsert" and sink["kind"] not in FENCED_KINDS


def clause_causes(task: Decl, decl: Decl, role: str, pred: Decl | None) -> set[str]:
    """The fault kinds that exercise the flowc 0.2 clauses of an output, read from the report's
    clauses (`no_regression`, `every_interval_runs`) when present, else from the declarations."""
    clauses = (pred or {}).get("clauses") or {}
    kinds: set[str] = set()
    no_regression = clauses.get("no_regression")
    if no_regression is None and role == "write":
        no_regression = not regresses(decl)
    if no_regression is False:
        kinds |= {"late_zombie", "rerun_older", "zombie", "rerun"}
    # `every_interval_runs` fails only for skipped intervals (`catchup false`): no fault kind
    # here skips an interval, so a weak output whose only failing clause it is has no cell to show it.
    return kinds

# --- one scenario ---------------------------------------------------------------------------------


def records(k: int) -> list[Decl]:
    return [{"id": f"d{k}-r{j}", "rec": f"d{k}-r{j}", "amount": 10 * k + j, "event_day": DAYS[k - 1]} for j in (1, 2, 3)]


class Scenario:
    def __init__(self, ctx: Matrix, pipeline: Decl, task: Decl, fault: str, reference: bool) -> None:
        self.ctx = ctx
        self.pipeline = pipeline
        self.task = task
        self.fault = fault
        self.reference = reference
        self.name = f"{pipeline['name']}.{task['name']}.{fault}" + (".reference" if reference else "")
        self.slug = hashlib.sha256(self.name.encode()).hexdigest()[:12]
        self.dir = ctx.work / self.slug
        self.schema = f"fm_{self.slug}"
        pred = next((v for (pn, tn, _), v in ctx.predicted.items() if pn == pipeline["name"] and tn == task["name"]), {})
        self.on_ambiguous = pred.get("on_ambiguous") or task["on_ambiguous"]
        attempts = pred.get("attempts")
        self.retries = (attempts - 1) if attempts else task["retries"]
        self.log: list[str] = []

    # -- state
    def pg_url(self) -> str:
        base = self.ctx.pg_url
        sep = "&" if "?" in base else "?"
        return f"{base}{sep}options={quote('-csearch_path=' + self.schema)}"

    def mysql_database(self) -> str:
        return f"fm_{self.slug}"

    def sql_url(self) -> str:
        if self.ctx.db == "postgres":
            return self.pg_url()
        if self.ctx.db == "mysql":
            return mysql_url(self.ctx.mysql_url, self.mysql_database())
        if self.ctx.db == "duckdb":
            return f"duckdb://{self.dir}/data.duckdb"
        return f"sqlite://{self.dir}/data.sqlite"

    def reset(self) -> None:
        if self.dir.exists():
            shutil.rmtree(self.dir)
        (self.dir / "files").mkdir(parents=True)
        (self.dir / "fault").mkdir()
        if self.ctx.db == "postgres":
            import psycopg

            with psycopg.connect(self.ctx.pg_url, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
                conn.execute(f'CREATE SCHEMA "{self.schema}"')
        if self.ctx.db == "mysql":
            with mysql_connect(self.ctx.mysql_url) as conn, conn.cursor() as cur:
                cur.execute(f"DROP DATABASE IF EXISTS `{self.mysql_database()}`")
                cur.execute(f"CREATE DATABASE `{self.mysql_database()}`")

    def env(self, interval: tuple[str, str], run_id: str, attempt: int, faults: list[str]) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_"))}
        env.update({
            # tests/fault/inject's sitecustomize installs the fault-injecting hooks (fault_hooks.py)
            "PYTHONPATH": os.pathsep.join([str(FAULT_DIR / "inject"), str(FAULT_DIR), str(self.ctx.code)]),
            "FLOW_PIPELINE": self.pipeline["name"],
            "FLOW_TASK": self.task["name"],
            "FLOW_INTERVAL_START": interval[0],
            "FLOW_INTERVAL_END": interval[1],
            "FLOW_RUN_ID": run_id,
            "FLOW_ATTEMPT": str(attempt),
            "FLOWC_STATE": self.sql_url() if self.ctx.db in SHARED_STATE else f"sqlite://{self.dir}/state.sqlite",
            "FLOWC_FAULT_DIR": str(self.dir / "fault"),
            # one row per batch: every write stages several batches, so that `crash_mid_batch`
            # kills the attempt after its first batch of rows is staged and before its commit
            "FLOWC_BATCH_ROWS": "1",
        })
        if faults:
            env["FLOWC_FAULT"] = ",".join(faults)
        for ep in self.endpoints():
            env["FLOW_CONN_" + ep["name"].upper()] = self.conn_url(ep)
        return env

    def endpoints(self) -> list[Decl]:
        eps = [r["source"] for r in self.task["reads"]]
        eps += [w["sink"] for w in self.task["writes"]]
        eps += [e["effect"] for e in self.task["emits"]]
        return eps

    def conn_url(self, ep: Decl) -> str:
        if ep["kind"] in SQL_KINDS:
            return self.sql_url()
        if ep["kind"] in ("files", "delta_table"):
            return f"file://{self.dir}/files"
        return self.ctx.endpoint.url(self.slug, ep["name"])

    # -- data
    def seed(self, k: int, extra_dup: bool = False) -> None:
        start = INTERVALS[k - 1][0]
        rows = records_overlap(k) if self.overlap() else records(k)
        for read in self.task["reads"]:
            src = read["source"]
            if src["kind"] == "files":
                folder = self.dir / "files" / src["params"]["path"].replace("{interval.start}", start)
                folder.mkdir(parents=True, exist_ok=True)
                write_jsonl(folder / "part-0.jsonl", declared_only(src, rows))
                if extra_dup:
                    # the same logical event again, under a new identifier
                    write_jsonl(folder / "part-dup.jsonl", [{"id": f"d{k}-r1-again", "rec": f"d{k}-r1", "amount": 10 * k + 1}])
            elif src["kind"] == "delta_table":
                append_delta(self.dir / "files" / src["params"]["location"], [without_day(r) for r in rows])
            elif src["kind"] in SQL_KINDS:
                with self.sql() as db:
                    text = "VARCHAR(64)" if self.ctx.db == "mysql" else "TEXT"
                    db.execute(f"CREATE TABLE IF NOT EXISTS src_orders (id {text} PRIMARY KEY, rec TEXT, amount BIGINT)")
                    for r in rows:
                        db.execute(self.ph("INSERT INTO src_orders (id, rec, amount) VALUES (?, ?, ?)"),
                                   (r["id"], r["rec"], r["amount"]))

    def change_input(self) -> None:
        """New data for interval 1 arrives between two attempts (a late file, an updated row)."""
        start = INTERVALS[0][0]
        for read in self.task["reads"]:
            src = read["source"]
            if src["kind"] == "files":
                folder = self.dir / "files" / src["params"]["path"].replace("{interval.start}", start)
                write_jsonl(folder / "part-late.jsonl", [{"id": "d1-late", "rec": "d1-late", "amount": 99}])
            elif src["kind"] == "delta_table":
                append_delta(self.dir / "files" / src["params"]["location"], [{"id": "d1-late", "rec": "d1-late", "amount": 99}])
            elif src["kind"] in SQL_KINDS:
                with self.sql() as db:
                    db.execute(self.ph("UPDATE src_orders SET amount = amount + 1000 WHERE id = ?"), ("d1-r1",))
                    db.execute(self.ph("INSERT INTO src_orders (id, rec, amount) VALUES (?, ?, ?)"), ("d1-late", "d1-late", 99))

    def sql(self) -> Any:
        return SqlHandle(self)

    def ph(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.ctx.db in ("postgres", "mysql") else sql

    # -- the scheduler
    def command(self) -> list[str]:
        argv = list(self.task["command"])
        if argv and Path(argv[0]).name.startswith("python"):
            argv[0] = sys.executable
        return argv

    def attempt(self, interval: tuple[str, str], run_id: str, n: int, faults: list[str]) -> int:
        proc = subprocess.run(
            self.command(), env=self.env(interval, run_id, n, faults), cwd=self.dir,
            capture_output=True, text=True, timeout=300,
        )
        self.log.append(f"{interval[0]} {run_id} attempt {n} faults={faults} -> {proc.returncode}\n{proc.stderr}")
        return proc.returncode

    def run_interval(self, k: int, run_id: str, first_faults: list[str], base: list[str],
                     between: Any = None, first_attempt: int = 1, skip_first: bool = False,
                     first_rc: int | None = None) -> int:
        """One scheduled run of interval k under the derived retry policy, then operator re-runs
        of the failed interval (same run, next attempt) until it succeeds. Returns the last attempt number."""
        interval = INTERVALS[k - 1]
        n = first_attempt
        for i in range(self.retries + 1):
            if i == 0 and skip_first:
                rc = first_rc if first_rc is not None else -9
            else:
                rc = self.attempt(interval, run_id, n, first_faults if i == 0 else base)
            if i == 0 and between is not None:
                between()
            if rc == 0:
                return n
            n += 1
            if rc == 75 or self.on_ambiguous == "retry":
                continue
            break
        for _ in range(5):
            rc = self.attempt(interval, run_id, n, base)
            if rc == 0:
                return n
            n += 1
        raise RuntimeError(f"{self.name}: interval {interval[0]} never succeeded")

    def run(self) -> dict[str, Any]:
        """Returns what the sinks and endpoints hold after interval 1's scheduled run (`i1`) and
        at the end (`final`). The reference of `input_change` gets the same new data, arriving
        after interval 1 as late data would; the faulted run gets it between two attempts."""
        reference = self.reference
        self.reset()
        fault = self.fault
        if fault in REGRESSION_FAULTS + LATE_FAULTS and not reference:
            return self.run_v02()
        base = ["nondeterministic"] if fault == "nondeterministic" else []
        dup = fault == "dup_identity" and not reference
        self.seed(1, extra_dup=dup)
        seen: dict[str, Any] = {}
        if reference:
            self.run_interval(1, "run-1", base, base)
            seen["i1"] = self.observe()
            if fault == "input_change":
                self.change_input()
            self.seed(2)
            self.run_interval(2, "run-2", base, base)
            seen["final"] = self.observe()
            return seen
        if fault == "zombie":
            self.zombie(seen)
            seen["final"] = self.observe()
            return seen
        if fault.startswith("crash_"):
            self.run_interval(1, "run-1", [fault, *base], base)
        elif fault == "nondeterministic":
            self.run_interval(1, "run-1", ["crash_after_commit", *base], base)
        elif fault == "input_change":
            self.run_interval(1, "run-1", ["crash_before_commit"], base, between=self.change_input)
        else:  # dup_identity (seeded above), rerun (below)
            self.run_interval(1, "run-1", base, base)
        seen["i1"] = self.observe()
        self.seed(2)
        self.run_interval(2, "run-2", base, base)
        if fault == "rerun":
            self.run_interval(1, "run-1-rerun", base, base)
        seen["final"] = self.observe()
        return seen

    def zombie(self, seen: dict[str, Any], fault: str = "zombie") -> None:
        """Attempt 1 pauses before its commit, past its lease; the scheduler gives up on it and
        attempt 2 runs to completion; the next interval runs; then attempt 1 resumes."""
        interval = INTERVALS[0]
        paused = self.dir / "fault" / "paused"
        proc = subprocess.Popen(
            self.command(), env=self.env(interval, "run-1", 1, [fault]), cwd=self.dir,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        deadline = time.monotonic() + 120
        while not paused.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if proc.poll() is not None:
            # it finished before reaching the pause: an ordinary attempt
            rc = proc.returncode
            self.log.append(f"zombie attempt ended before pausing -> {rc}\n{proc.stderr.read() if proc.stderr else ''}")
            self.run_interval(1, "run-1", [], [], skip_first=True, first_rc=rc)
            seen["i1"] = self.observe()
            self.seed(2)
            self.run_interval(2, "run-2", [], [])
            return
        # the lease ran out: an ambiguous failure, handled like any other
        self.run_interval(1, "run-1", [], [], skip_first=True)
        seen["i1"] = self.observe()
        self.seed(2)
        self.run_interval(2, "run-2", [], [])
        (self.dir / "fault" / "resume").write_text("go")
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        self.log.append(f"zombie resumed -> {proc.returncode}\n{err}")

    # -- what `flowc audit` finds in the scenario's systems (the matrix's audit column)
    def audit(self) -> dict[str, Any]:
        """`flowc audit --format json` of this task over the scenario's two days, with the
        connections the task's attempts got (its environment, as a scheduler would set it).
        A database `flowc audit` has no reader for (AUDIT_UNREAD) makes the column say so, and
        the audit does not run."""
        if self.ctx.db in AUDIT_UNREAD:
            return {"_unsupported": f"flowc audit does not read {self.ctx.db} yet"}
        env = self.env(INTERVALS[0], "audit", 1, [])
        env["FLOWC_PYTHON"] = sys.executable
        proc = subprocess.run(
            [str(flowc_bin_path()), "audit", "--format", "json", "--since", DAYS[0], "--until", DAYS[1],
             "--at", AUDIT_AT, "--pipeline", self.pipeline["name"], "--task", self.task["name"],
             str(ROOT / "tests" / "fault" / f"{self.pipeline['_file']}.flow")],
            env=env, cwd=self.dir, capture_output=True, text=True, timeout=300,
        )
        try:
            report: dict[str, Any] = json.loads(proc.stdout)
        except json.JSONDecodeError:
            return {"_error": f"flowc audit exit {proc.returncode}: {proc.stderr.strip()}"}
        report["_exit"] = proc.returncode
        return report

    # -- what the sinks and endpoints hold
    def observe(self) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for w in self.task["writes"]:
            volatile = {k.get("column") or k.get("field") for k in (w.get("key") or []) if k["term"] in VOLATILE_TERMS}
            part = w.get("partition")
            if part and part["term"] in VOLATILE_TERMS:
                volatile.add(part.get("column") or part.get("field"))
            rows = [{c: v for c, v in r.items() if c not in volatile} for r in self.sink_rows(w)]
            seen[w["sink"]["name"]] = rows
        for e in self.task["emits"]:
            seen[e["effect"]["name"]] = self.ctx.endpoint.observed(self.slug, e["effect"]["name"])
        return seen

    def sink_rows(self, w: Decl) -> list[Decl]:
        sink = w["sink"]
        if sink["kind"] in SQL_KINDS:
            table = sink["params"]["table"]
            with self.sql() as db:
                found: list[Decl] = db.rows(table)
                return found
        if sink["kind"] == "delta_table":
            from deltalake import DeltaTable

            uri = str(self.dir / "files" / sink["params"]["location"])
            try:
                return list(DeltaTable(uri).to_pyarrow_table().to_pylist())
            except Exception:  # noqa: BLE001 - no table yet
                return []
        folder = self.dir / "files" / sink["params"]["path"].split("{")[0]
        rows: list[Decl] = []
        if folder.exists():
            for path in sorted(folder.rglob("*.jsonl")):
                rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        return rows


    # -- flowc 0.2 fault kinds (REGRESSION_FAULTS, LATE_FAULTS)
    def overlap(self) -> bool:
        return self.fault in REGRESSION_FAULTS or self.fault == "fault-free-overlap"

    def run_v02(self) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        if self.fault == "late_input":
            # attempt 1 finds no input (exit 75, nothing pinned); the input lands; attempt 2 reads it all
            self.run_interval(1, "run-1", [], [], between=lambda: self.seed(1))
            seen["i1"] = self.observe()
            self.seed(2)
            self.run_interval(2, "run-2", [], [])
        elif self.fault == "late_zombie":
            self.seed(1)
            self.zombie(seen, "late_zombie")
        elif self.fault == "two_intervals_live":
            self.seed(1)
            self.seed(2)
            self.live_intervals()
        else:
            self.seed(1)
            self.run_interval(1, "run-1", [], [])
            seen["i1"] = self.observe()
            self.seed(2)
            if self.fault == "rerun_older":
                self.run_interval(2, "run-2", [], [])
                self.run_interval(1, "run-1-rerun", [], [])
            else:
                self.two_live(2)
        seen["final"] = self.observe()
        return seen

    def live_intervals(self) -> None:
        """Intervals 1 and 2 at once, each attempt held at `before_commit` until both are there
        (or one has waited 4s: the other waits on a lock), then released together; an interval
        whose attempt failed is run again as the scheduler would."""
        folder = self.dir / "fault"
        procs = [
            subprocess.Popen(self.command(), env=self.env(INTERVALS[k - 1], f"run-{k}", 1, ["two_live"]),
                             cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for k in (1, 2)
        ]
        self.hold_and_release(folder, procs)
        for k, proc in enumerate(procs, 1):
            try:
                _, err = proc.communicate(timeout=180)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
            self.log.append(f"{INTERVALS[k - 1][0]} run-{k} live with the other interval -> {proc.returncode}\n{err}")
            if proc.returncode != 0:
                self.run_interval(k, f"run-{k}", [], [], first_attempt=2)

    @staticmethod
    def hold_and_release(folder: Path, procs: list[subprocess.Popen[str]]) -> int:
        deadline = time.monotonic() + 120
        alone_since: float | None = None
        held = 0
        while time.monotonic() < deadline and any(proc.poll() is None for proc in procs):
            held = len(list(folder.glob("live-*")))
            if held >= 2:
                break
            if held == 1:
                alone_since = alone_since or time.monotonic()
                if time.monotonic() - alone_since > 4:
                    break
            time.sleep(0.02)
        (folder / "resume").write_text("go")
        return held

    def two_live(self, k: int) -> None:
        """Two attempts of interval k at once, each held at `before_commit` (inside its write
        transaction) until both are there, or until one has waited 4s for the other (which then
        waits on a lock: the runtime serialized them); then both are released together."""
        interval = INTERVALS[k - 1]
        folder = self.dir / "fault"
        procs = [
            subprocess.Popen(self.command(), env=self.env(interval, f"run-{k}", n, ["two_live"]), cwd=self.dir,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for n in (1, 2)
        ]
        held = self.hold_and_release(folder, procs)
        codes = []
        for n, proc in enumerate(procs, 1):
            try:
                _, err = proc.communicate(timeout=180)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
            self.log.append(f"{interval[0]} run-{k} live attempt {n} ({held} held at once) -> {proc.returncode}\n{err}")
            codes.append(proc.returncode)
        if 0 not in codes:
            self.run_interval(k, f"run-{k}", [], [], first_attempt=3)

class SqlHandle:
    def __init__(self, scenario: Scenario) -> None:
        self.s = scenario

    def __enter__(self) -> SqlHandle:
        self.quote = '"'
        if self.s.ctx.db == "postgres":
            import psycopg

            self.conn: Any = psycopg.connect(self.s.pg_url(), autocommit=True)
        elif self.s.ctx.db == "mysql":
            self.conn = mysql_connect(self.s.sql_url())
            self.quote = "`"
        elif self.s.ctx.db == "duckdb":
            self.conn = duckdb_connect(self.s.dir / "data.duckdb")
        else:
            self.conn = sqlite3.connect(self.s.dir / "data.sqlite", isolation_level=None, timeout=60)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.conn.close()

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        if self.s.ctx.db == "mysql":
            cur = self.conn.cursor()
            cur.execute(sql, params or None)
            return cur
        return self.conn.execute(sql, params)

    def rows(self, table: str) -> list[Decl]:
        try:
            cur = self.execute(f"SELECT * FROM {self.quote}{table}{self.quote}")
        except Exception:  # noqa: BLE001 - the table was never created
            return []
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=False)) for r in cur.fetchall()]


def mysql_url(base: str, database: str) -> str:
    """`base` (mysql://USER@HOST:PORT/DB) naming `database` instead."""
    head, _, _ = base.rpartition("/")
    return f"{head}/{database}"


def mysql_connect(url: str) -> Any:
    from urllib.parse import urlparse

    import pymysql

    parsed = urlparse(url)
    return pymysql.connect(host=parsed.hostname, port=parsed.port or 3306, user=parsed.username or "root",
                           password=parsed.password or "", database=parsed.path.lstrip("/") or None,
                           autocommit=True, charset="utf8mb4")


def duckdb_connect(path: Path) -> Any:
    """The scenario's DuckDB file, waiting while a task process holds it (only one process can
    open it: the runtime opens it for a statement or a transaction at a time)."""
    import duckdb

    deadline = time.monotonic() + 120
    while True:
        try:
            return duckdb.connect(str(path))
        except duckdb.IOException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def append_delta(uri: Path, rows: list[Decl]) -> None:
    import pyarrow as pa
    from deltalake import write_deltalake

    write_deltalake(str(uri), pa.Table.from_pylist(rows), mode="append")


def declared_only(src: Decl, rows: list[Decl]) -> list[Decl]:
    """The rows as a `files` source with `fields` holds them: the runtime refuses a file with a
    column its `fields` do not list."""
    fields = src.get("fields")
    return rows if fields is None else [{c: v for c, v in r.items() if c in fields} for r in rows]


def write_jsonl(path: Path, rows: list[Decl]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))


# --- comparison -------------------------------------------------------------------------------------


def compare_rows(ref: list[Decl], obs: list[Decl], older: list[Decl] | None = None) -> dict[str, int]:
    """Anomalies of `obs` against `ref`, by record. With `older` (the reference after the older
    interval), a record that holds exactly its older content again is a regressed row."""
    def by_rec(rows: list[Decl]) -> dict[Any, list[str]]:
        out: dict[Any, list[str]] = defaultdict(list)
        for r in rows:
            out[r.get("rec")].append(json.dumps(r, sort_keys=True, default=str))
        return out

    r, o, old = by_rec(ref), by_rec(obs), by_rec(older or [])
    found: Counter[str] = Counter()
    for rec in set(r) | set(o):
        a, b = sorted(r.get(rec, [])), sorted(o.get(rec, []))
        if not a:
            found["extra rows"] += len(b)
        elif not b:
            found["missing rows"] += len(a)
        elif len(b) > len(a):
            found["duplicate rows"] += len(b) - len(a)
        elif len(b) < len(a):
            found["missing rows"] += len(a) - len(b)
        elif a != b and older is not None and b == sorted(old.get(rec, [])):
            found["regressed rows"] += 1
        elif a != b:
            found["changed rows"] += 1
    return dict(found)


def compare_calls(ref: Counter[Any], obs: Counter[Any]) -> dict[str, int]:
    found: Counter[str] = Counter()
    for key in set(ref) | set(obs):
        if obs[key] > ref[key]:
            found["extra calls"] += obs[key] - ref[key]
        elif obs[key] < ref[key]:
            found["missing calls"] += ref[key] - obs[key]
    return dict(found)


# --- the audit column -------------------------------------------------------------------------------

# After both intervals ran (and every failed one was run again), `flowc audit` looks at the
# scenario's systems as of this time: both intervals have ended, no outbox row is past its grace.
AUDIT_AT = "2026-01-03T00:30:00Z"
# The matrix's databases `flowc audit` has no reader for (it exits 2 on them, saying so): none,
# it reads SQLite, PostgreSQL, DuckDB and MySQL/MariaDB.
AUDIT_UNREAD: tuple[str, ...] = ()
# What the audit reports as a key held twice (a sink table's duplicate rows).
AUDIT_DUPLICATES = {"duplicate-key", "identical-rows", "message-resent", "commit-repeated"}
# The write modes whose commits to a Delta or Iceberg table the audit compares (audit.LAKE_APPENDS).
LAKE_APPENDS = ("append", "transactional", "conditional_commit")


def flowc_bin_path() -> Path:
    return Path(os.environ.get("FLOWC_BIN") or ROOT / "target" / "debug" / "flowc")


def audit_sees_duplicates(write: Decl) -> bool:
    """Whether the audit can see a repeated row of `write`: a SQL table (it compares rows by the
    key's columns, without those of run-scoped terms, as the matrix does), a local `files`
    sink (its files read by DuckDB, compared within each interval's folder where the path names
    the interval), a local Delta table written with key columns (its current version; without
    them a row names no interval, and a record copied by two intervals is no repeat), a Delta or
    Iceberg table a write appends to (its commits name their interval and attempt), or a Kafka
    topic (its messages name their interval and attempt in headers)."""
    kind = write["sink"]["kind"]
    lake = kind in ("delta_table", "iceberg_table")
    return bool(kind in (*SQL_KINDS, "files", "kafka_topic") or kind == "delta_table" and audit_keyed(write)
                or lake and write["mode"] in LAKE_APPENDS)


def audit_keyed(write: Decl) -> bool:
    """Whether the audit compares `write`'s rows by key columns (those of its key's terms that
    are not run-scoped; for an upsert without a key, the sink's primary key)."""
    keys = write.get("key") or []
    stable = [k for k in keys if k["term"] not in VOLATILE_TERMS]
    if len(stable) < len(keys):
        # run-scoped terms left out: compared within an interval only where a column names it
        # (an upsert's fence column names it, on the kinds that are `fenced`: not DuckDB, MySQL)
        fenced = write["mode"] == "upsert" and write["sink"]["kind"] in ("sqlite_table", "postgres_table")
        spans = fenced or any(k["term"] in INTERVAL_TERM_KINDS for k in keys)
        if not spans:
            return False
    if any(k.get("column") or k["term"] in ("input_field", "output_field") for k in stable):
        return True
    return write["mode"] in ("upsert", "insert_if_absent") and not write.get("key") and bool(write.get("primary_key"))


def audit_column(task: Decl, name: str, role: str, decl: Decl, guarantee: str, anomalies: dict[str, int],
                 audited: Decl, fault: str = "") -> tuple[bool, str]:
    """The cell's audit column: what `flowc audit` found for this output, and whether it is what
    the cell predicts. The audit must run (exit 0 or 1, never 2); find no broken guarantee on an
    output predicted strong; and find duplicates in a SQL sink exactly when the cell shows
    duplicate rows there (by key; in a table without key columns, identical rows, else the
    interval's repeated or late commit). What it cannot see
    (a changed row, a missing one, an extra call) it lists as not observable, and the column
    shows nothing for it."""
    if not audited:
        return True, "not run (scenario failed)"
    if "_unsupported" in audited:
        return True, f"not run: {audited['_unsupported']}"
    if "_error" in audited:
        return False, str(audited["_error"]).splitlines()[0][:120]
    if audited.get("_exit") == 2:
        why = "; ".join(e.get("message", "") for e in audited.get("could_not_run", []))
        return False, f"could not run: {why[:160]}"
    mine = [f for f in audited.get("findings", []) if f.get("task") == task["name"] and f.get("output") == name]
    text = ", ".join(sorted(f"{f['check']} {f['severity']}" for f in mine)) or "none"
    errors = [f for f in mine if f["severity"] == "error"]
    if guarantee in STRONG and errors:
        return False, text + " (a strong output broke its guarantee)"
    if role == "write" and audit_sees_duplicates(decl):
        found = any(f["check"] in AUDIT_DUPLICATES for f in mine)
        shown = "duplicate rows" in anomalies
        if found and not shown:
            return False, text + " (duplicates the cell does not show)"
        # A keyed table shows a record twice as a key twice. A table without key columns shows
        # it only where the two rows are identical; where they differ (a re-run of an older
        # interval over a newer one's partition), the evidence is the register's: the interval
        # committed again, or late.
        replayed = any(f["check"] in ("interval-repeated", "late-commit") for f in mine)
        # A source that delivers one record twice under two identities (`dup_identity`) leaves
        # two rows with two keys: nothing the audit can tell from two records (docs/audit.md,
        # "What leaves no evidence").
        from_input = fault == "dup_identity"
        # A Delta or Iceberg table that a write appends to again on a re-run (a plain append, a
        # conditional commit whose `txn` is new at every run) shows the re-run's copy in its
        # commits, whatever the register says (`commit-repeated`). A conditional commit of one
        # id per interval commits it once: rows it holds twice came so from its input (an
        # unpinned source that changed), which no commit shows.
        commits = decl["sink"]["kind"] in ("delta_table", "iceberg_table") and (
            decl["mode"] in ("append", "transactional")
            or decl["mode"] == "conditional_commit" and any(t["term"] in VOLATILE_TERMS for t in decl.get("txn") or []))
        if shown and not found and not from_input and (audit_keyed(decl) or commits or not replayed):
            return False, text + " (duplicates the audit missed)"
    return True, text


DUP_CLASS = {"duplicate rows", "extra rows", "changed rows", "extra calls"}
LOSS_CLASS = {"missing rows", "missing calls", "regressed rows"}


def shows_predicted(guarantee: str, anomalies: dict[str, int]) -> bool:
    kinds = set(anomalies)
    if guarantee == "at_least_once":
        return bool(kinds & DUP_CLASS)
    if guarantee == "at_most_once":
        return bool(kinds & LOSS_CLASS)
    return bool(kinds)


# --- flowc 0.2: state stores, outbox ids, the relay (fault kinds in the module docstring) ----------

V02_FAULTS = ("fresh_workdir", "receiver_failing", "relay_crash", "manual_rerun")
# The reference each of these kinds is compared with (run_matrix's `variant`).
V02_REFERENCE = {"fresh_workdir": "input_change", "manual_rerun": "manual_once"}
DURABLE_STATE = ("postgres_table", "duckdb_table", "mysql_table", "delta_table")
INTERVAL_TERM_KINDS = ("interval_start", "interval_end")
# A manual pipeline's runs: Argo sets only FLOW_INTERVAL_END (the trigger time).
MANUAL_TRIGGERS = ["2026-02-01T10:00:00Z", "2026-02-02T10:00:00Z"]
PER_INTERVAL = len(records(1))


def faults_v02(task: Decl, faults: list[str]) -> list[str]:
    """The fault kinds of `task`, with flowc 0.2's added: a manual task gets its own kinds only
    (the scheduled ones, `fresh_workdir` too, seed input per interval, which a manual
    pipeline's input has not)."""
    outbox = any(e["tracking"] == "outbox" for e in task["emits"])
    added = []
    if (task.get("state") or {}).get("kind") in DURABLE_STATE and not task.get("manual"):
        added.append("fresh_workdir")
    if task["emits"]:
        added.append("receiver_failing")
    if outbox:
        added.append("relay_crash")
    if task.get("manual"):
        return ["manual_rerun", *added]
    return faults + added


def key_terms(decl: Decl) -> list[str]:
    terms = [k["term"] for k in decl.get("key") or []]
    if decl.get("partition"):
        terms.append(decl["partition"]["term"])
    return terms


def causes_v02_write(task: Decl, write: Decl, kinds: set[str]) -> set[str]:
    """A write that a retry applies again (a non-idempotent mode) repeats under a receiver that
    fails or a relay that crashes (the retry re-applies it) and under a manual re-run; a key with
    run-scoped terms repeats under a manual re-run; unstable input shows in a fresh folder."""
    added: set[str] = set()
    if "crash_after_commit" in kinds:
        added |= {"receiver_failing", "relay_crash", "manual_rerun"}
    terms = key_terms(write) if write["mode"] in ("upsert", "append_ledger", "replace_partition") else []
    if task.get("manual") and any(t in VOLATILE_TERMS or t in INTERVAL_TERM_KINDS for t in terms):
        added.add("manual_rerun")
    if "input_change" in kinds:
        added.add("fresh_workdir")
    return added


def causes_v02_emit(task: Decl, emit: Decl, kinds: set[str]) -> set[str]:
    """An untracked emit repeats under a failing receiver and a manual re-run; an idempotency key
    or an outbox key with run-scoped terms under a manual re-run; an outbox effect without an
    idempotency key under a relay crash; unstable input shows in a fresh folder."""
    added: set[str] = set()
    terms = [k["term"] for k in emit.get("key") or []]
    run_scoped = VOLATILE_TERMS | (set(INTERVAL_TERM_KINDS) if task.get("manual") else set())
    if emit["tracking"] == "untracked":
        added |= {"receiver_failing", "manual_rerun"}
    elif emit["tracking"] == "idempotency_key":
        if any(t in run_scoped for t in terms):
            added.add("manual_rerun")
    else:
        if not emit["kind_has_idempotency_key"]:
            added.add("relay_crash")
        if any(t in run_scoped for t in terms):
            added.add("manual_rerun")
    if "input_change" in kinds:
        added.add("fresh_workdir")
    return added


def scenario_class(fault: str) -> type[Scenario]:
    return V02Scenario if fault in V02_FAULTS or fault == "manual_once" else Scenario


class V02Scenario(Scenario):
    """The scenarios of `V02_FAULTS` (and `manual_once`, the reference of `manual_rerun`)."""

    def __init__(self, ctx: Matrix, pipeline: Decl, task: Decl, fault: str, reference: bool) -> None:
        super().__init__(ctx, pipeline, task, fault, reference)
        self.fresh = fault == "fresh_workdir" and not reference
        self.manual = fault in ("manual_rerun", "manual_once")
        self.workdirs = 0

    def reset(self) -> None:
        super().reset()
        if self.ctx.db == "postgres":
            import psycopg

            # a postgres_table state store of a connection whose schema is S is schema S_flowc
            with psycopg.connect(self.ctx.pg_url, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}_flowc" CASCADE')

    def env(self, interval: tuple[str, str], run_id: str, attempt: int, faults: list[str]) -> dict[str, str]:
        env = super().env(interval, run_id, attempt, faults)
        if self.fresh:
            del env["FLOWC_STATE"]  # the task's own state store decides
            # the state store's sink may be another task's: the task reaches it all the same
            store = self.task.get("state") or {}
            sinks = {w["sink"]["name"]: w["sink"] for t in self.pipeline["tasks"] for w in t["writes"]}
            if store.get("sink") in sinks:
                env["FLOW_CONN_" + store["sink"].upper()] = self.conn_url(sinks[store["sink"]])
        if not interval[0]:
            del env["FLOW_INTERVAL_START"]
        if "relay_crash" in faults:
            env["FLOWC_RELAY_CRASH_AT"] = str(self.relay_crash_at())
        return env

    def relay_crash_at(self) -> int:
        """The send to crash after: the first row of the first outbox effect without an
        idempotency key (rows are relayed in insertion order: effect by effect), else the first."""
        outboxes = [e for e in self.task["emits"] if e["tracking"] == "outbox"]
        for i, e in enumerate(outboxes):
            if not e["kind_has_idempotency_key"]:
                return i * PER_INTERVAL + 1
        return 1

    def attempt(self, interval: tuple[str, str], run_id: str, n: int, faults: list[str]) -> int:
        if self.manual:
            interval = ("", MANUAL_TRIGGERS[INTERVALS.index(interval)])
        if not self.fresh:
            return super().attempt(interval, run_id, n, faults)
        self.workdirs += 1
        cwd = self.dir / f"work-{self.workdirs}"
        cwd.mkdir()
        proc = subprocess.run(
            self.command(), env=self.env(interval, run_id, n, faults), cwd=cwd,
            capture_output=True, text=True, timeout=300,
        )
        self.log.append(f"{interval[0]} {run_id} attempt {n} in {cwd.name} faults={faults} -> {proc.returncode}\n"
                        f"{proc.stderr}")
        return proc.returncode

    def observe(self) -> dict[str, Any]:
        seen = super().observe()
        if self.manual:
            # flowc's own columns (the writing interval's end) follow the trigger time
            for w in self.task["writes"]:
                name = w["sink"]["name"]
                seen[name] = [{c: v for c, v in r.items() if not c.startswith("_flow_")} for r in seen[name]]
        return seen

    def run(self) -> dict[str, Any]:
        if self.fault == "fresh_workdir":
            self.fault = "input_change"
            try:
                return super().run()
            finally:
                self.fault = "fresh_workdir"
        if self.fault == "receiver_failing":
            if not self.reference:
                self.ctx.endpoint.fail(self.slug, 2)
            return super().run()
        if self.manual:
            return self.run_manual()
        # relay_crash
        self.reset()
        self.seed(1)
        seen: dict[str, Any] = {}
        self.run_interval(1, "run-1", [] if self.reference else ["relay_crash"], [])
        seen["i1"] = self.observe()
        self.seed(2)
        self.run_interval(2, "run-2", [], [])
        seen["final"] = self.observe()
        return seen

    def run_manual(self) -> dict[str, Any]:
        """Run 1 at the first trigger time; `manual_rerun` runs again on the same input."""
        self.reset()
        self.seed(1)
        seen: dict[str, Any] = {}
        self.run_interval(1, "manual-1", [], [])
        seen["i1"] = self.observe()
        if self.fault == "manual_rerun" and not self.reference:
            self.run_interval(2, "manual-2", [], [])
        seen["final"] = self.observe()
        return seen


# --- the matrix -----------------------------------------------------------------------------------


# --- the matrix -----------------------------------------------------------------------------------

SOURCE = "flowc report + flowc scaffold"


def plan(db: str, only: str = "") -> list[tuple[Decl, Decl, str]]:
    """The scenarios, in order: (pipeline, task, fault kind)."""
    jobs = []
    for p in load_fixtures(db):
        for t in p["tasks"]:
            if only and only not in f"{p['name']}.{t['name']}":
                continue
            for fault in faults_for(t):
                jobs.append((p, t, fault))
    return jobs


def outputs_of(task: Decl) -> list[tuple[str, str, Decl]]:
    """(name, "write" or "emit", declaration) of every output of `task`."""
    return [(w["sink"]["name"], "write", w) for w in task["writes"]] + [
        (e["effect"]["name"], "emit", e) for e in task["emits"]]


def cell_ids(db: str, only: str = "") -> list[str]:
    """One id per cell, in the order of the printed rows: PIPELINE.TASK.OUTPUT[FAULT]."""
    return [f"{p['name']}.{t['name']}.{name}[{fault}]" for p, t, fault in plan(db, only)
            for name, _, _ in outputs_of(t)]


class Matrix:
    def __init__(self, db: str) -> None:
        self.db = db
        self.pg_url = os.environ.get("FLOWC_TEST_PG", "")
        if self.db == "postgres" and not self.pg_url:
            raise MissingBinary("--db postgres needs FLOWC_TEST_PG (see scripts/ci-postgres)")
        self.mysql_url = os.environ.get("FLOWC_TEST_MYSQL", "")
        if self.db == "mysql" and not self.mysql_url:
            raise MissingBinary("--db mysql needs FLOWC_TEST_MYSQL (see scripts/ci-mariadb)")
        # A folder of this run's own unless FLOWC_FAULT_WORK names one (tests/fault/conftest.py
        # names the session's): two runs on one machine (a CI run beside a developer's) must
        # never share cells.
        named = os.environ.get("FLOWC_FAULT_WORK")
        root = Path(named) if named else Path(tempfile.mkdtemp(prefix="flowc-fault-matrix-"))
        base = root / self.db
        if base.exists():
            shutil.rmtree(base)
        self.work = base / "cells"
        self.code = base / "scaffold"
        self.work.mkdir(parents=True)
        self.pipelines = load_fixtures(self.db)
        self.predicted = predictions_and_code(self.pipelines, self.code)
        self.source = SOURCE
        self.endpoint = Endpoint()


@dataclass
class Cell:
    pipeline: str
    task: str
    output: str
    fault: str
    guarantee: str
    anomalies: dict[str, int]
    causes: set[str]
    log: list[str]
    # the audit column: whether `flowc audit` found what the cell predicts, and what it found
    audit: tuple[bool, str] = (True, "not run")
    ok: bool = False
    row: str = ""

    @property
    def id(self) -> str:
        return f"{self.pipeline}.{self.task}.{self.output}[{self.fault}]"


@dataclass
class Result:
    db: str
    scenarios: int
    seconds: float
    cells: list[Cell] = field(default_factory=list)

    def by_id(self) -> dict[str, Cell]:
        return {c.id: c for c in self.cells}

    def ok_count(self) -> int:
        return sum(c.ok for c in self.cells)

    def lines(self, verbose: bool = False) -> list[str]:
        """What `scripts/fault-matrix` prints: a header, a row per cell, the count."""
        out = [f"fault matrix on {self.db}: predictions and code from {SOURCE}"]
        out.append(f"{'pipeline':<12} {'output':<40} {'fault':<20} {'predicted':<17} observed  [audit]")
        for c in self.cells:
            out.append(c.row)
            if verbose:
                out.append("    " + "\n    ".join("\n".join(c.log).splitlines()))
        out.append(f"({self.scenarios} scenarios in {self.seconds:.0f}s)")
        out.append(f"fault matrix: {self.ok_count()}/{len(self.cells)} cells as predicted")
        return out


def run_matrix(db: str, only: str = "", flip: list[str] | None = None, jobs_n: int = 2) -> Result:
    """Runs every scenario and judges every cell."""
    flips = set(flip or [])
    started = time.monotonic()
    m = Matrix(db)
    jobs = plan(db, only)
    references: dict[Key, Decl] = {}

    def variant(fault: str) -> str:
        references = {**REFERENCE_OF, **V02_REFERENCE}
        return fault if fault in ("nondeterministic", "input_change") else references.get(fault, "fault-free")

    def reference(key: tuple[Decl, Decl, str]) -> tuple[Key, Decl]:
        p, t, kind = key
        s = scenario_class(kind)(m, p, t, kind, reference=True)
        return (p["name"], t["name"], kind), s.run()

    wanted: dict[Key, tuple[Decl, Decl, str]] = {}
    for p, t, fault in jobs:
        wanted[(p["name"], t["name"], variant(fault))] = (p, t, variant(fault))
    with ThreadPoolExecutor(max_workers=max(1, jobs_n)) as pool:
        references.update(pool.map(reference, wanted.values()))

    def run_job(job: tuple[Decl, Decl, str]) -> tuple[Decl, Decl, str, Decl, Decl, list[str], Decl]:
        p, t, fault = job
        ref = references[(p["name"], t["name"], variant(fault))]
        s = scenario_class(fault)(m, p, t, fault, reference=False)
        try:
            seen = s.run()
        except Exception as err:  # noqa: BLE001 - a scenario that cannot finish is a failed cell
            return p, t, fault, ref, {"_error": str(err)}, s.log, {}
        return p, t, fault, ref, seen, s.log, s.audit()

    with ThreadPoolExecutor(max_workers=max(1, jobs_n)) as pool:
        results = list(pool.map(run_job, jobs))

    # cells: (output, fault) with observed anomalies
    cells: list[Cell] = []
    for p, t, fault, ref, seen, log, audited in results:
        for name, role, decl in outputs_of(t):
            pred = m.predicted.get((p["name"], t["name"], name))
            guarantee = pred["guarantee"] if pred else "missing"
            if f"{p['name']}.{t['name']}.{name}" in flips:
                guarantee = "at_least_once" if guarantee in STRONG else "effectively_once"
            anomalies: dict[str, int] = {}
            if "_error" in seen:
                anomalies = {"scenario failed": 1}
            else:
                compare: Callable[[Any, Any], dict[str, int]] = compare_rows if role == "write" else compare_calls
                for point in ("final",) if fault == "two_intervals_live" else ("i1", "final"):
                    older = ref["i1"][name] if point == "final" and role == "write" else None
                    for kind, count in (compare_rows(ref[point][name], seen[point][name], older) if older is not None
                                        else compare(ref[point][name], seen[point][name])).items():
                        anomalies[kind] = max(anomalies.get(kind, 0), count)
            causes = causes_of_write(t, decl) if role == "write" else causes_of_emit(t, decl)
            causes |= clause_causes(t, decl, role, pred)
            cells.append(Cell(p["name"], t["name"], name, fault, guarantee, anomalies, causes, log,
                              audit_column(t, name, role, decl, guarantee, anomalies, audited, fault)))

    # judge
    groups: dict[Key, bool] = defaultdict(bool)
    for c in cells:
        if c.guarantee not in STRONG and c.fault in c.causes:
            key = (c.pipeline, c.task, c.output)
            groups[key] = groups[key] or shows_predicted(c.guarantee, c.anomalies)
    for c in cells:
        key = (c.pipeline, c.task, c.output)
        if c.guarantee in STRONG:
            ok = not c.anomalies
            note = ""
        elif c.guarantee == "missing":
            ok, note = False, " (no prediction for this output)"
        elif c.fault in c.causes:
            ok = groups[key]
            if shows_predicted(c.guarantee, c.anomalies):
                note = " (a failing clause, shown)"
            elif ok:
                note = " (a failing clause, shown in another cell)"
            else:
                note = " (a failing clause, but no cell of one shows the predicted anomaly)"
        elif not c.causes:
            ok, note = False, " (weak prediction, but no fault kind exercises a failing clause)"
        else:
            ok, note = True, " (not a failing clause: anomalies allowed)"
        observed = ", ".join(f"{v} {k}" for k, v in sorted(c.anomalies.items())) or "none"
        audit_ok, audit_text = c.audit
        mark = "ok" if ok and audit_ok else "MISMATCH"
        c.ok = ok and audit_ok
        c.row = (f"{c.pipeline:<12} {c.task + '.' + c.output:<40} {c.fault:<20} {c.guarantee:<17} "
                 f"{observed}{note}  [audit: {audit_text}]  {mark}")
    return Result(db, len(jobs), time.monotonic() - started, cells)
