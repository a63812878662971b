#!/usr/bin/env python3
"""Fault cells of the Spark runtime: the real `flowc scaffold` of tests/spark/spark_modes.flow
(one Spark task writing every mode the Spark runtime has, to Delta and to Iceberg), run by the
real `spark-submit` (PySpark in local mode, one JVM per attempt) with the retry policy `flowc
report` derived, over two daily intervals, with one fault per cell injected by
tests/fault/fault_hooks.py (the fault matrix's hooks, loaded into the driver through
tests/fault/inject):

* `crash_before_commit`: attempt 1 is killed (SIGKILL) just before its first commit;
* `crash_after_commit`: attempt 1 is killed once every write committed;
* `late_zombie`: attempt 1 pauses before its first commit, its interval is committed by later
  attempts and the next interval too, then attempt 1 resumes and commits what it still can;
* `two_live`: attempt 1 of interval 2 is held inside its commit phase while attempt 2 starts
  (refused by the attempt register under `on_ambiguous fail`, held at its own commit under
  `retry`); then both are released;
* `rerun_older`: interval 1 is run again (a new run id) after interval 2 committed;
* `zombie_past_fence_delta`, `zombie_past_fence_iceberg`: attempt 1 pauses right after the
  attempt register let it commit (so no newer attempt can fence it), at the Delta or the
  Iceberg conditional commit; the interval is committed by later attempts and the next one
  too; then attempt 1 resumes into that commit, which only the table itself can refuse
  (Delta's `txnAppId`, Iceberg's `validate-from-snapshot-id`).

Each sink is read back with the Python runtime's libraries (deltalake; pyiceberg over the same
SQL catalog) and judged as the fault matrix judges (tests/fault/kafka_iceberg.py): `loss`,
`dup`, `regress`; on the sinks the task appends to, `flowc audit`'s reader of commits must find
a repeated commit exactly when the rows show `dup`. An output predicted `exactly_once`/`effectively_once` is as predicted when no
cell shows an anomaly; a weaker one when at least one cell shows an anomaly its guarantee
allows. A cell that cannot run to its end shows `error`. Prints one row per output, the
versions, and `spark cells: X/Y as predicted`; exits 1 unless every output is as predicted.

Usage: tests/spark/cells.py --python VENV_PYTHON --jars DIR [--only FAULT ...] [--db sqlite|postgres]
       [--also-postgres FAULT ...] [--jobs N] [--keep] [--verbose]
Without `--only`, every cell runs; `--jobs` (default 2) cells at once.
(scripts/e2e/spark runs it in .venv with .venv-spark's PySpark).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "spark"
FAULT_DIR = ROOT / "tests" / "fault"
FLOW = HERE / "spark_modes.flow"
INTERVALS = [("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"), ("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z")]
FAULTS = ("crash_before_commit", "crash_after_commit", "late_zombie", "two_live", "rerun_older",
          "zombie_past_fence_delta", "zombie_past_fence_iceberg")
# `zombie_past_fence_*`: the write (its place in tests/spark/spark_modes.flow) whose commit the
# zombie reaches past the attempt register's fence: the Delta and the Iceberg conditional commit
PAST_FENCE_AT = {"zombie_past_fence_delta": "1", "zombie_past_fence_iceberg": "5"}
STRONG = ("exactly_once", "effectively_once")
ANOMALIES = {"none": {"loss", "dup", "regress"}, "at_most_once": {"loss", "regress"}, "at_least_once": {"dup"}}
DELTA = {"sp_delta_commit": "d_commit", "sp_delta_append": "d_append", "sp_delta_latest": "d_latest",
         "sp_delta_days": "d_days"}
ICEBERG = {"sp_ice_commit": "sp.commit_t", "sp_ice_append": "sp.append_t", "sp_ice_latest": "sp.latest_t",
           "sp_ice_days": "sp.days_t"}
# The sinks the task appends to (`append`, `conditional_commit`): `flowc audit` compares their
# commits (`commit-repeated`), by the marks every commit carries.
APPENDS = ("sp_delta_commit", "sp_delta_append", "sp_ice_commit", "sp_ice_append")
# What a test of a few rows passes to `spark-submit` (none of it changes what a commit does):
# one core and partition; the Delta log read as one partition (its default, 50, made every
# attempt take twice as long: 60 s instead of 30 on a quiet 2-core machine); no whole-stage
# code generation or adaptive plans, which a cold JVM spends seconds compiling for three rows.
SPARK_OPTIONS = ["--master", "local[1]", "--driver-memory", "512m", "--conf", "spark.ui.enabled=false",
                 "--conf", "spark.sql.shuffle.partitions=1", "--conf", "spark.default.parallelism=1",
                 "--conf", "spark.databricks.delta.snapshotPartitions=1",
                 "--conf", "spark.sql.codegen.wholeStage=false", "--conf", "spark.sql.adaptive.enabled=false"]


def records(k: int) -> list[dict[str, Any]]:
    """Interval k's input: the same ids every interval, new amounts (an older interval's rows
    are recognisable)."""
    return [{"id": f"r{j}", "day": INTERVALS[k - 1][0], "amount": 10 * k + j} for j in (1, 2, 3)]


class Setup:
    def __init__(self, work: Path, python: str, jars: Path) -> None:
        self.work = work
        self.python = python
        self.jars = ",".join(str(p) for p in sorted(jars.glob("*.jar")))
        flowc = Path(os.environ.get("FLOWC_BIN") or ROOT / "target" / "debug" / "flowc")
        report = subprocess.run([str(flowc), "report", "--format", "json", str(FLOW)], capture_output=True,
                                text=True, check=True)
        data = json.loads(report.stdout)
        task = data["pipelines"][0]["tasks"][0]
        self.on_ambiguous = task["on_ambiguous"]
        self.retries = int(task.get("attempts_per_write") or 3) - 1
        self.predicted = {o["target"]: o["guarantee"] for o in task["outputs"]}
        self.code = work / "code"
        gen = subprocess.run([str(flowc), "scaffold", "--lang", "python", "--out", str(self.code), str(FLOW)],
                             capture_output=True, text=True)
        if gen.returncode != 0:
            raise RuntimeError(f"flowc scaffold failed:\n{gen.stderr}")
        shutil.copy(HERE / "load_transform.py", self.code / "sp" / "load_transform.py")
        sys.path.insert(0, str(self.code))  # the scaffolded flowc_runtime (its audit reader: commits_agree)
        self.versions = ""
        self.cds: str | None = None


def java_options(cds: str | None = None, dump: str | None = None) -> list[str]:
    """`--driver-java-options`: a small fast-starting JVM, and the class-data archive to map (or
    to write at exit)."""
    options = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss4m"
    if cds:
        options += f" -XX:SharedArchiveFile={cds}"
    if dump:
        options += f" -XX:ArchiveClassesAtExit={dump}"
    return ["--driver-java-options", options]


def class_data_archive(setup: Setup) -> str | None:
    """A JVM class-data archive of one attempt (the classes Spark, Delta and Iceberg load), made
    once per machine and Java, PySpark and jar set (in $FLOWC_SPARK_HOME, default
    ~/.cache/flowc/spark): every attempt maps it instead of loading and verifying those classes
    again, about 3.5 s of its 23. Without one (a JVM that cannot make it), attempts run as before."""
    home = Path(os.environ.get("FLOWC_SPARK_HOME") or Path.home() / ".cache" / "flowc" / "spark")
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    key = hashlib.sha256("\n".join([java, setup.python, setup.jars, *SPARK_OPTIONS]).encode()).hexdigest()[:16]
    archive = home / f"cds-{key}.jsa"
    if archive.exists():
        return str(archive)
    home.mkdir(parents=True, exist_ok=True)
    partial = home / f".cds-{key}-{os.getpid()}.jsa"
    cell = Cell(setup, "class_data_archive")
    cell.seed(1)
    code = cell.attempt(1, "cds", 1, [], dump=str(partial))
    if code != 0 or not partial.exists():
        partial.unlink(missing_ok=True)
        print(f"spark cells: no class-data archive (the attempt that makes it exited {code}); "
              "attempts load every class", flush=True)
        return None
    partial.replace(archive)
    for stale in home.glob("cds-*.jsa"):  # of another Java, PySpark or jar set: 200 MB each
        if stale != archive:
            stale.unlink(missing_ok=True)
    return str(archive)


class Cell:
    def __init__(self, setup: Setup, fault: str, pg: str | None = None) -> None:
        self.setup = setup
        self.fault = fault
        self.dir = Path(tempfile.mkdtemp(prefix=f"{fault}-", dir=setup.work))
        # PostgreSQL (`--db postgres`): the Iceberg catalog and the state in a schema of the cell
        self.pg = pg
        self.schema = "sp_" + self.dir.name.rsplit("-", 1)[-1].lower()
        if pg:
            import psycopg

            with psycopg.connect(pg, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
                conn.execute(f'CREATE SCHEMA "{self.schema}"')
        (self.dir / "fault").mkdir()
        self.log: list[str] = []
        self.problems: list[str] = []

    def seed(self, k: int) -> None:
        import pyarrow as pa
        from deltalake import write_deltalake

        write_deltalake(str(self.dir / "raw"), pa.Table.from_pylist(records(k)), mode="append")

    def env(self, k: int, run_id: str, attempt: int, faults: list[str]) -> dict[str, str]:
        venv_bin = str(Path(self.setup.python).parent)
        env = {key: v for key, v in os.environ.items() if not key.startswith(("FLOW_", "FLOWC_", "PYSPARK", "SPARK_"))}
        env.update({
            "PATH": venv_bin + os.pathsep + env.get("PATH", ""),
            "PYSPARK_PYTHON": self.setup.python,
            "PYSPARK_DRIVER_PYTHON": self.setup.python,
            "SPARK_LOCAL_IP": "127.0.0.1",
            "PYTHONPATH": os.pathsep.join([str(FAULT_DIR / "inject"), str(FAULT_DIR), str(self.setup.code)]),
            "FLOW_PIPELINE": "sp",
            "FLOW_TASK": "load",
            "FLOW_INTERVAL_START": INTERVALS[k - 1][0],
            "FLOW_INTERVAL_END": INTERVALS[k - 1][1],
            "FLOW_RUN_ID": run_id,
            "FLOW_ATTEMPT": str(attempt),
            "FLOWC_FAULT_DIR": str(self.dir / "fault"),
            # a held attempt waits for the cell's other attempts, each a JVM: minutes on a busy machine
            "FLOWC_ZOMBIE_MAX_SECONDS": "1200",
            "FLOWC_STATE": self.pg_url() if self.pg else f"sqlite://{self.dir}/state.sqlite",
            "FLOW_CONN_SP_RAW": self.dir.as_uri(),
        })
        for name in DELTA:
            env["FLOW_CONN_" + name.upper()] = self.dir.as_uri()
        for name in ICEBERG:
            env["FLOW_CONN_" + name.upper()] = self.lake_url()
        if faults:
            env["FLOWC_FAULT"] = ",".join(faults)
        if self.fault in PAST_FENCE_AT:
            env["FLOWC_PAST_FENCE_AT"] = PAST_FENCE_AT[self.fault]
        return env

    def pg_url(self, extra: str = "") -> str:
        assert self.pg is not None
        sep = "&" if "?" in self.pg else "?"
        return f"{self.pg}{sep}options=-csearch_path%3D{self.schema}{extra}"

    def lake_url(self) -> str:
        if self.pg:
            return self.pg_url("&warehouse=" + (self.dir / "lake" / "warehouse").as_uri())
        return (self.dir / "lake").as_uri()

    def command(self, dump: str | None = None) -> list[str]:
        return ["spark-submit", *SPARK_OPTIONS, *java_options(self.setup.cds, dump), "--jars", self.setup.jars,
                "sp/load.py"]

    def attempt(self, k: int, run_id: str, n: int, faults: list[str], dump: str | None = None) -> int:
        env = self.env(k, run_id, n, faults)
        # spark-submit passes the driver's stderr on to its own stdout: both are read as one
        proc = subprocess.run(self.command(dump), env=env, cwd=self.setup.code, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=1800)
        self.note(f"interval {k} {run_id} attempt {n} faults={faults} -> {proc.returncode}", proc.stdout)
        return proc.returncode

    def note(self, head: str, err: str) -> None:
        lines = [line for line in err.splitlines() if line.startswith(("flowc", "Traceback", "  File"))
                 or "Error" in line or "Exception" in line]
        self.log.append(head + "\n" + "\n".join(lines[-40:]))
        for line in lines:
            if line.startswith("flowc: Spark ") and not self.setup.versions:
                self.setup.versions = line.removeprefix("flowc: ")

    def run_interval(self, k: int, run_id: str, first: list[str], skip_first: bool = False) -> int:
        """The scheduler's retries under the derived policy, then operator re-runs."""
        n = 1
        for i in range(self.setup.retries + 1):
            rc = -9 if (i == 0 and skip_first) else self.attempt(k, run_id, n, first if i == 0 else [])
            if rc == 0:
                return n
            n += 1
            if rc == 75 or self.setup.on_ambiguous == "retry":
                continue
            break
        for _ in range(3):
            if self.attempt(k, run_id, n, []) == 0:
                return n
            n += 1
        raise RuntimeError(f"interval {k} never succeeded")

    def background(self, k: int, run_id: str, n: int, faults: list[str]) -> subprocess.Popen[str]:
        return subprocess.Popen(self.command(), env=self.env(k, run_id, n, faults), cwd=self.setup.code,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def wait_for(self, pattern: str, procs: list[subprocess.Popen[str]], count: int = 1) -> None:
        # generous: two JVMs starting at once on a loaded machine took more than ten minutes
        deadline = time.monotonic() + 1800
        while time.monotonic() < deadline:
            if len(list((self.dir / "fault").glob(pattern))) >= count:
                return
            if all(p.poll() is not None for p in procs):
                return
            time.sleep(0.2)

    def finish(self, procs: list[subprocess.Popen[str]], label: str) -> list[int]:
        (self.dir / "fault" / "resume").write_text("go")
        codes = []
        for p in procs:
            try:
                err, _ = p.communicate(timeout=1800)
            except subprocess.TimeoutExpired:
                p.kill()
                err, _ = p.communicate()
            codes.append(p.returncode)
            self.note(f"{label} -> {p.returncode}", err)
        (self.dir / "fault" / "resume").unlink()
        return codes

    def schedule(self) -> None:
        self.seed(1)
        if self.fault in ("late_zombie", *PAST_FENCE_AT):
            hook = "late_zombie" if self.fault == "late_zombie" else "zombie_past_fence"
            zombie = self.background(1, "run-1", 1, [hook])
            self.wait_for("paused", [zombie])
            if not (self.dir / "fault" / "paused").exists():
                self.problems.append("attempt 1 ended before it reached its commit")
            self.run_interval(1, "run-1", [], skip_first=True)
            self.seed(2)
            self.run_interval(2, "run-2", [])
            (code,) = self.finish([zombie], "zombie resumed")
            if self.fault in PAST_FENCE_AT and not any("past the fence" in entry for entry in self.log):
                self.problems.append("the zombie never resumed past the fence")
            if self.fault in PAST_FENCE_AT and code not in (0, 75):
                self.problems.append(f"the zombie exited {code}: its late commit should be skipped or refused")
        elif self.fault == "two_live":
            self.run_interval(1, "run-1", [])
            self.seed(2)
            # Attempt 1 is held inside its commit phase (at its first commit) before attempt 2
            # starts. Started at once, the two raced: the attempt whose JVM came second to the
            # register fenced the other before its commit phase, and the cell showed nothing of
            # a live attempt at its commit.
            held = self.background(2, "run-2", 1, ["two_live"])
            self.wait_for("live-*", [held])
            if not list((self.dir / "fault").glob("live-*")):
                self.problems.append("attempt 1 ended before it reached its commit")
            # Attempt 2 is refused by the attempt register (attempt 1 may be committing and the
            # task's `on_ambiguous` is fail) or, under `retry`, is held at its own commit too
            second = self.background(2, "run-2", 2, ["two_live"])
            self.wait_for("live-*", [second], count=2)
            codes = self.finish([held, second], "two live attempts")
            if 0 not in codes:
                self.run_interval(2, "run-2-operator", [])
        else:
            first = [self.fault] if self.fault.startswith("crash_") else []
            self.run_interval(1, "run-1", first)
            if first and not any(f"flowc fault: {self.fault}" in entry for entry in self.log):
                self.problems.append(f"attempt 1 never reached `{self.fault}`")
            self.seed(2)
            self.run_interval(2, "run-2", [])
            if self.fault == "rerun_older":
                self.run_interval(1, "run-1-rerun", [])

    # -- what the sinks hold
    def rows(self, sink: str) -> list[dict[str, Any]]:
        if sink in DELTA:
            from deltalake import DeltaTable

            path = self.dir / DELTA[sink]
            if not (path / "_delta_log").exists():
                return []
            return list(DeltaTable(str(path)).to_pyarrow_table().to_pylist())
        table = self.iceberg(sink)
        if table is None or table.current_snapshot() is None:
            return []
        return list(table.scan().to_arrow().to_pylist())

    def iceberg(self, sink: str) -> Any:
        """The Iceberg table of `sink` (pyiceberg over the cell's SQL catalog), None before it exists."""
        from pyiceberg.catalog.sql import SqlCatalog
        from pyiceberg.exceptions import NoSuchTableError

        lake = self.dir / "lake"
        if self.pg:
            uri = "postgresql+psycopg://" + self.pg_url().split("://", 1)[1]
            cat = SqlCatalog("flowc", uri=uri, warehouse=(lake / "warehouse").as_uri())
        else:
            cat = SqlCatalog("flowc", uri=f"sqlite:///{lake}/catalog.sqlite", warehouse=(lake / "warehouse").as_uri())
        try:
            return cat.load_table(ICEBERG[sink])
        except NoSuchTableError:
            return None

    def commits_agree(self, sink: str, anomalies: set[str]) -> None:
        """`flowc audit`'s reader of a table's commits (`commit-repeated`, the scaffolded
        flowc_runtime.audit) on a sink the task appends to: every commit of the task carries its
        marks (Delta's `userMetadata`, Iceberg's snapshot properties, as the Spark runtime writes
        them), and an interval two attempts both appended is found exactly when the rows show
        `dup`."""
        from flowc_runtime import audit

        if sink in DELTA:
            path = self.dir / DELTA[sink]
            if not (path / "_delta_log").exists():
                return
            commits = audit.delta_commits(str(path), sink)
        else:
            table = self.iceberg(sink)
            if table is None:
                return
            commits = audit.iceberg_commits(table)
        check = audit.Audit({"now": INTERVALS[-1][1], "pipelines": []}, {})
        kind = "delta_table" if sink in DELTA else "iceberg_table"
        if not check.commit_repeats({"pipeline": "sp", "task": "load", "output": sink}, {"name": sink, "kind": kind},
                                    commits):
            self.problems.append(f"`{sink}`: no commit carries the task's marks ({len(commits)} commits)")
            return
        found = [o["examples"] for o in check.observations]
        if bool(found) != ("dup" in anomalies):
            self.problems.append(f"`{sink}`: the audit's commit-repeated ({found or 'nothing'}) disagrees with the "
                                 f"rows ({'+'.join(sorted(anomalies)) or 'clean'})")

    def judge(self, sink: str) -> set[str]:
        rows = self.rows(sink)
        anomalies: set[str] = set()
        if sink in ("sp_delta_latest", "sp_ice_latest"):
            held = sorted((r["id"], r["amount"]) for r in rows)
            newer = sorted((r["id"], r["amount"]) for r in records(2))
            older = sorted((r["id"], r["amount"]) for r in records(1))
            if held == older:
                anomalies.add("regress")
            elif held != newer:
                anomalies.add("loss" if len(held) < len(newer) else "dup")
            return anomalies
        want = Counter((r["id"], r["amount"]) for k in (1, 2) for r in records(k))
        got = Counter((r["id"], r["amount"]) for r in rows)
        if any(got[key] < n for key, n in want.items()):
            anomalies.add("loss")
        if any(n > want.get(key, 0) for key, n in got.items()):
            anomalies.add("dup")
        return anomalies

    def run(self) -> dict[str, set[str]]:
        sinks = list(DELTA) + list(ICEBERG)
        try:
            self.schedule()
        except Exception as err:  # noqa: BLE001 - a cell that cannot run is reported as such
            self.problems.append(f"the cell did not run to its end: {err}")
            return {sink: {"error"} for sink in sinks}
        judged = {sink: self.judge(sink) for sink in sinks}
        for sink in APPENDS:
            try:
                self.commits_agree(sink, judged[sink])
            except Exception as err:  # noqa: BLE001 - a reader that fails is a problem of the cell
                self.problems.append(f"`{sink}`: the audit's commit reader failed: {type(err).__name__}: {err}")
        return judged


def decoy_catalog(pg: str) -> None:
    """Another Iceberg catalog's tables in a schema of their own, as a shared database has them:
    every PostgreSQL cell's catalog, in its own schema, must still get tables of its own (Iceberg's
    JdbcCatalog looked for `iceberg_tables` in every schema and skipped creating its own)."""
    import psycopg

    with psycopg.connect(pg, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA IF NOT EXISTS flowc_spark_other_catalog")
        conn.execute("CREATE TABLE IF NOT EXISTS flowc_spark_other_catalog.iceberg_tables (catalog_name "
                     "VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT "
                     "NULL, metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000), "
                     "PRIMARY KEY (catalog_name, table_namespace, table_name))")


def expected(guarantee: str) -> set[str]:
    return ANOMALIES.get(guarantee, set())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", required=True)
    parser.add_argument("--jars", required=True)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--jobs", type=int, default=2, help="cells run at once (each attempt is a JVM on one core)")
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite",
                        help="where the Iceberg catalog and the state are (postgres: FLOWC_TEST_PG's server)")
    parser.add_argument("--also-postgres", action="append", default=[], metavar="FAULT",
                        help="run this cell once more with the catalog and the state on PostgreSQL")
    args = parser.parse_args()
    # Iceberg's JdbcCatalog creates its table without the column pyiceberg added for views
    # (`iceberg_type`); pyiceberg reads it as is and warns on every load: not a finding here
    logging.getLogger("pyiceberg.catalog.sql").setLevel(logging.ERROR)
    unknown = sorted(set(args.only + args.also_postgres) - set(FAULTS))
    if unknown:
        print(f"spark cells: no cell {', '.join(unknown)} (cells: {', '.join(FAULTS)})", file=sys.stderr)
        return 2
    pg = os.environ.get("FLOWC_TEST_PG")
    if (args.db == "postgres" or args.also_postgres) and not pg:
        print("spark cells: PostgreSQL cells need FLOWC_TEST_PG (scripts/ci-postgres prints it)", file=sys.stderr)
        return 2
    faults = [f for f in FAULTS if f in args.only] if args.only else list(FAULTS)
    # (label, fault, PostgreSQL URL or None): a cell's label names its database when it is not
    # the pass's own
    runs = [(f, f, pg if args.db == "postgres" else None) for f in faults]
    if args.db == "sqlite":
        runs += [(f"{f} (postgres)", f, pg) for f in FAULTS if f in args.also_postgres]
    if pg and any(url for _, _, url in runs):
        decoy_catalog(pg)
    work = Path(tempfile.mkdtemp(prefix="flowc-spark-"))
    setup = Setup(work, args.python, Path(args.jars))
    start = time.monotonic()
    setup.cds = class_data_archive(setup)
    print(f"class-data archive: {setup.cds or 'none'} ({time.monotonic() - start:.0f} s)", flush=True)
    seen: dict[str, dict[str, set[str]]] = {}
    failed_cells = 0
    lock = threading.Lock()

    def one(label: str, fault: str, url: str | None) -> None:
        nonlocal failed_cells
        start = time.monotonic()
        cell = Cell(setup, fault, url)
        outcome = cell.run()
        shown = ", ".join(f"{s}={'+'.join(sorted(a)) or 'clean'}" for s, a in outcome.items())
        lines = [f"cell {label} ({time.monotonic() - start:.0f} s): {shown}"]
        lines += [f"  problem: {problem}" for problem in cell.problems]
        if cell.problems or args.verbose:
            lines += ["    " + line for entry in cell.log for line in entry.splitlines()]
        with lock:
            seen[label] = outcome
            failed_cells += bool(cell.problems)
            print("\n".join(lines), flush=True)

    # Cells are independent (each its own folder, tables, state and schema): `--jobs` runs that
    # many at once, each attempt a JVM on one core.
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for future in [pool.submit(one, *run) for run in runs]:
            future.result()
    seen = {label: seen[label] for label, _, _ in runs}
    passed = failed = 0
    for sink, guarantee in setup.predicted.items():
        cells = {fault: seen[fault][sink] for fault in seen}
        errors = [f for f, a in cells.items() if "error" in a]
        if guarantee in STRONG:
            ok = not errors and all(not a for a in cells.values())
            why = "no anomaly in any cell" if ok else "anomalies: " + ", ".join(
                f"{f}={'+'.join(sorted(a))}" for f, a in cells.items() if a)
        else:
            showing = [f for f, a in cells.items() if a & expected(guarantee)]
            ok = not errors and bool(showing)
            why = (f"shows its anomaly in {', '.join(showing)}" if showing else "shows no anomaly its guarantee allows") \
                if not errors else f"cells that did not run: {', '.join(errors)}"
        passed += ok
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {sink:16} {guarantee:17} {why}")
    print(f"versions: {setup.versions or 'not printed by any attempt'}")
    on = args.db + (f", {len(runs) - len(faults)} on postgres" if len(runs) > len(faults) else "")
    print(f"spark cells ({on}): {passed}/{passed + failed} outputs as predicted over {len(seen)} cells")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept {work}")
    failed += failed_cells
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and setup.versions else 1


if __name__ == "__main__":
    sys.exit(main())
