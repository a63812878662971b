"""Fault cells of the Kafka and Iceberg runtimes (tests/fault/kafka_iceberg.flow), judged by
tests/fault/test_kafka_iceberg.py and run by `scripts/fault-matrix` with the others.

Each cell runs the generated task of one output (the real `flowc scaffold`, predictions from
the real `flowc report`) over two daily intervals as a scheduler would (retries, exit 75,
`on_ambiguous`, then operator re-runs until the interval succeeds), with one fault injected by
tests/fault/fault_hooks.py, against a real Apache Kafka broker (KRaft, one node, started per
cell on 127.0.0.1: tests/fault/kafka_broker.py) and a real Iceberg SQL catalog (pyiceberg on
SQLite, its warehouse a folder of the cell). The sink is read back (Kafka: `read_committed`, up
to the partition's last stable offset; Iceberg: the current snapshot) and compared with what a
fault-free run writes:

* `loss`: a record of the input is missing; `dup`: a record is there twice or more;
  `regress`: the table holds an older interval's output instead of the newer one's.

An output predicted `exactly_once` or `effectively_once` is as predicted when none of its
cells shows an anomaly; a weaker output when at least one of its cells shows the anomaly its
guarantee allows (`none`, `at_most_once`: loss or regression; `at_least_once`: duplicates).

Beyond that, a cell checks what its fault claims: a crash or a held zombie at the step it names
actually happened, a zombie of the exactly-once task is refused by the broker as fenced (exit
75, the client's fenced error, not an unanswered commit), and where an attempt's transaction was
aborted its messages are in the topic (a `read_uncommitted` reader sees them) while a
`read_committed` reader does not.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kafka_broker
import matrix

ROOT = Path(__file__).resolve().parents[2]
FAULT_DIR = ROOT / "tests" / "fault"
FLOW = FAULT_DIR / "kafka_iceberg.flow"
INTERVALS = matrix.INTERVALS
STRONG = ("exactly_once", "effectively_once")
ANOMALIES = {"none": {"loss", "dup", "regress"}, "at_most_once": {"loss", "regress"}, "at_least_once": {"dup"}}
SOURCE_TOPIC = "orders"
SOURCE_PARTITIONS = 2
# The rows printed at the end of the session (tests/fault/conftest.py), filled by the tests.
ROWS: list[str] = []

# A Kafka write's two new kinds, run for every offset commit mode (tests/fault/fault_hooks.py).
PRODUCE_COMMIT_FAULTS = ("crash_between_produce_and_commit", "zombie_at_commit")
KAFKA_WRITES = [("kq", "auto", "kq_out_auto"), ("kq", "before", "kq_out_before"), ("kq", "after", "kq_out_after"),
                ("kq", "txn", "kq_out_txn")]
# (pipeline, task, sink, kind of sink, fault): the cells.
CELLS: list[tuple[str, str, str, str]] = [
    ("kq", "auto", "kq_out_auto", "crash_after_read"),
    ("kq", "auto", "kq_out_auto", "crash_after_commit"),
    ("kq", "before", "kq_out_before", "crash_after_read"),
    ("kq", "before", "kq_out_before", "crash_after_commit"),
    ("kq", "after", "kq_out_after", "crash_after_read"),
    ("kq", "after", "kq_out_after", "crash_after_commit"),
    ("kq", "txn", "kq_out_txn", "crash_after_read"),
    ("kq", "txn", "kq_out_txn", "crash_before_commit"),
    ("kq", "txn", "kq_out_txn", "crash_after_commit"),
    ("kq", "txn", "kq_out_txn", "late_zombie"),
    ("kq", "txn", "kq_out_txn", "two_live"),
    ("kq", "txn", "kq_out_txn", "rerun_older"),
    ("kq", "lake", "kq_lake", "crash_before_commit"),
    ("kq", "lake", "kq_lake", "crash_after_commit"),
    ("kq", "lake", "kq_lake", "late_zombie"),
    ("kq", "lake", "kq_lake", "rerun_older"),
    ("iq", "conditional", "iq_facts", "crash_after_commit"),
    ("iq", "conditional", "iq_facts", "late_zombie"),
    ("iq", "conditional", "iq_facts", "two_live"),
    ("iq", "conditional", "iq_facts", "rerun_older"),
    ("iq", "conditional", "iq_facts", "fresh_workdir"),
    ("iq", "overwrite", "iq_latest", "crash_after_commit"),
    ("iq", "overwrite", "iq_latest", "late_zombie"),
    ("iq", "overwrite", "iq_latest", "rerun_older"),
    # killed after the first batch of rows was staged (FLOWC_BATCH_ROWS=1), before the commit
    ("kq", "auto", "kq_out_auto", "crash_mid_batch"),
    ("kq", "before", "kq_out_before", "crash_mid_batch"),
    ("kq", "after", "kq_out_after", "crash_mid_batch"),
    ("kq", "txn", "kq_out_txn", "crash_mid_batch"),
    ("kq", "lake", "kq_lake", "crash_mid_batch"),
    ("iq", "conditional", "iq_facts", "crash_mid_batch"),
    ("iq", "overwrite", "iq_latest", "crash_mid_batch"),
    # attempt 1 holds its transaction open past the sink's `transaction_timeout` (3 s)
    ("kq", "txn_short", "kq_out_txn_short", "slow_transaction"),
] + [(p, t, s, f) for p, t, s in KAFKA_WRITES for f in PRODUCE_COMMIT_FAULTS]


def cell_id(cell: tuple[str, str, str, str]) -> str:
    return f"{cell[0]}.{cell[1]}.{cell[2]}.{cell[3]}"


@dataclass
class Outcome:
    anomalies: set[str]
    log: list[str] = field(default_factory=list)
    # extra checks of the cell (an assertion that failed, in words)
    problems: list[str] = field(default_factory=list)
    # what `flowc audit` found for the cell's output (its audit column)
    audit: str = ""


class Setup:
    """The scaffold and the predictions, once per session."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.config: Any = None  # the pytest config of the session (tests/fault/test_kafka_iceberg.py)
        self.code = work / "code"
        flowc = matrix.flowc_bin()
        report = subprocess.run([str(flowc), "report", "--format", "json", str(FLOW)], capture_output=True, text=True, cwd=ROOT)
        data = json.loads(report.stdout)
        self.predicted: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.tasks: dict[tuple[str, str], dict[str, Any]] = {}
        for p in data["pipelines"]:
            for t in p["tasks"]:
                self.tasks[(p["name"], t["name"])] = {"on_ambiguous": t["on_ambiguous"],
                                                      "attempts": t.get("attempts_per_write") or 3}
                for o in t["outputs"]:
                    self.predicted[(p["name"], t["name"], o["target"])] = {"guarantee": o["guarantee"]}
        if self.code.exists():
            shutil.rmtree(self.code)
        matrix.scaffold(flowc, self.code, [str(FLOW)])
        # Each task's IR (its writes, as `flowc audit` reads them): the audit column's judge.
        ir = work / "ir"
        built = subprocess.run([str(flowc), "build", "--target", "ir", "--out", str(ir), str(FLOW)],
                               capture_output=True, text=True, cwd=ROOT)
        if built.returncode != 0:
            raise RuntimeError(f"flowc build --target ir failed:\n{built.stderr}")
        self.ir: dict[tuple[str, str], dict[str, Any]] = {}
        for path in sorted(ir.glob("*.ir.json")):
            pipeline = json.loads(path.read_text(encoding="utf-8"))
            for task in pipeline["tasks"]:
                self.ir[(pipeline["name"], task["name"])] = task


class Cell:
    def __init__(self, setup: Setup, cell: tuple[str, str, str, str], dist: Path,
                 extra_faults: list[str] | None = None, pg: str | None = None) -> None:
        self.setup = setup
        self.pipeline, self.task, self.sink, self.fault = cell
        self.name = cell_id(cell) + ("+" + "+".join(extra_faults) if extra_faults else "")
        self.extra = extra_faults or []
        self.dir = Path(tempfile.mkdtemp(prefix="cell-", dir=setup.work))
        (self.dir / "fault").mkdir()
        self.dist = dist
        self.broker: kafka_broker.Broker | None = None
        info = setup.tasks[(self.pipeline, self.task)]
        self.on_ambiguous = info["on_ambiguous"]
        self.retries = int(info["attempts"]) - 1
        self.log: list[str] = []
        self.fresh = self.fault == "fresh_workdir"
        # PostgreSQL (the fault matrix's `--db postgres`): the Iceberg catalog and the state in a
        # schema of the cell on that server; else SQLite files of the cell
        self.pg = pg
        self.schema = "ki_" + self.dir.name.replace("cell-", "").replace("-", "_").lower()
        self.kafka_sink = self.pipeline == "kq" and self.task != "lake"

    # -- the systems
    def start(self) -> None:
        if self.pg:
            import psycopg

            with psycopg.connect(self.pg, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
                conn.execute(f'CREATE SCHEMA "{self.schema}"')
        if self.pipeline == "kq":
            self.broker = kafka_broker.Broker(self.dist)
            from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

            admin = AdminClient({"bootstrap.servers": self.broker.bootstrap, "log_level": 3})
            topics = [NewTopic(SOURCE_TOPIC, SOURCE_PARTITIONS, 1)]
            topics += [NewTopic(t, 1, 1) for t in ("out_auto", "out_before", "out_after", "out_txn", "out_txn_short")]
            for future in admin.create_topics(topics).values():
                future.result(30)

    def stop(self) -> None:
        if self.broker is not None:
            self.broker.stop()

    def records(self, k: int) -> list[dict[str, Any]]:
        if self.pipeline == "iq":
            # the same ids every interval, new amounts: an older interval's rows are recognisable
            return [{"id": f"r{j}", "rec": f"r{j}", "amount": 10 * k + j} for j in (1, 2, 3)]
        return [{"id": f"d{k}-r{j}", "rec": f"d{k}-r{j}", "amount": 10 * k + j} for j in (1, 2, 3, 4)]

    def seed(self, k: int) -> None:
        rows = self.records(k)
        if self.pipeline == "iq":
            folder = self.dir / "files" / "in" / INTERVALS[k - 1][0]
            matrix.write_jsonl(folder / "part-0.jsonl", rows)
            return
        from confluent_kafka import Producer

        assert self.broker is not None
        producer = Producer({"bootstrap.servers": self.broker.bootstrap, "linger.ms": 0, "log_level": 3})
        for i, row in enumerate(rows):
            producer.produce(SOURCE_TOPIC, value=json.dumps(row).encode(), partition=i % SOURCE_PARTITIONS)
        if producer.flush(30):
            raise RuntimeError("the input was not acknowledged within 30 s")

    def env(self, interval: tuple[str, str], run_id: str, attempt: int, faults: list[str]) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOW_", "FLOWC_"))}
        env.update({
            "PYTHONPATH": os.pathsep.join([str(FAULT_DIR / "inject"), str(FAULT_DIR), str(self.setup.code)]),
            "FLOW_PIPELINE": self.pipeline,
            "FLOW_TASK": self.task,
            "FLOW_INTERVAL_START": interval[0],
            "FLOW_INTERVAL_END": interval[1],
            "FLOW_RUN_ID": run_id,
            "FLOW_ATTEMPT": str(attempt),
            "FLOWC_FAULT_DIR": str(self.dir / "fault"),
            "FLOWC_BATCH_ROWS": "1",  # several batches per write: `crash_mid_batch` comes after the first
            "FLOW_CONN_IQ_IN": f"file://{self.dir}/files",
            "FLOW_CONN_IQ_FACTS": self.lake_url(),
            "FLOW_CONN_IQ_LATEST": self.lake_url(),
            "FLOW_CONN_KQ_LAKE": self.lake_url(),
        })
        if not self.fresh:
            env["FLOWC_STATE"] = self.pg_url() if self.pg else f"sqlite://{self.dir}/state.sqlite"
        if self.broker is not None:
            for name in ("KQ_ORDERS", "KQ_ORDERS_PINNED", "KQ_OUT_AUTO", "KQ_OUT_BEFORE", "KQ_OUT_AFTER", "KQ_OUT_TXN",
                         "KQ_OUT_TXN_SHORT"):
                env["FLOW_CONN_" + name] = f"kafka://{self.broker.bootstrap}"
        faults = faults + self.extra
        if faults:
            env["FLOWC_FAULT"] = ",".join(faults)
        return env

    def pg_url(self, extra: str = "") -> str:
        assert self.pg is not None
        sep = "&" if "?" in self.pg else "?"
        return f"{self.pg}{sep}options=-csearch_path%3D{self.schema}{extra}"

    def lake_url(self) -> str:
        if self.pg:
            return self.pg_url("&warehouse=" + (self.dir / "lake" / "warehouse").as_uri())
        return f"file://{self.dir}/lake"

    def catalog(self) -> Any:
        from pyiceberg.catalog.sql import SqlCatalog

        lake = self.dir / "lake"
        if self.pg:
            uri = "postgresql+psycopg://" + self.pg_url().split("://", 1)[1]
            return SqlCatalog("flowc", uri=uri, warehouse=(lake / "warehouse").as_uri())
        return SqlCatalog("flowc", uri=f"sqlite:///{lake}/catalog.sqlite", warehouse=(lake / "warehouse").as_uri())

    def command(self) -> list[str]:
        return [sys.executable, "-m", f"{self.pipeline}.{self.task}"]

    def workdir(self) -> Path:
        if not self.fresh:
            return self.dir
        return Path(tempfile.mkdtemp(prefix="pod-", dir=self.dir))

    def attempt(self, k: int, run_id: str, n: int, faults: list[str]) -> int:
        interval = INTERVALS[k - 1]
        proc = subprocess.run(self.command(), env=self.env(interval, run_id, n, faults), cwd=self.workdir(),
                              capture_output=True, text=True, timeout=300)
        self.log.append(f"{interval[0]} {run_id} attempt {n} faults={faults} -> {proc.returncode}\n{proc.stderr}")
        return proc.returncode

    def run_interval(self, k: int, run_id: str, first: list[str], skip_first: bool = False) -> int:
        """The scheduler's retries under the derived policy, then operator re-runs (next attempt)."""
        n = 1
        for i in range(self.retries + 1):
            rc = -9 if (i == 0 and skip_first) else self.attempt(k, run_id, n, first if i == 0 else [])
            if rc == 0:
                return n
            n += 1
            if rc == 75 or self.on_ambiguous == "retry":
                continue
            break
        for _ in range(5):
            if self.attempt(k, run_id, n, []) == 0:
                return n
            n += 1
        raise RuntimeError(f"{self.name}: interval {k} never succeeded")

    def background(self, k: int, run_id: str, n: int, faults: list[str]) -> subprocess.Popen[str]:
        return subprocess.Popen(self.command(), env=self.env(INTERVALS[k - 1], run_id, n, faults), cwd=self.workdir(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def wait_for(self, path: Path, procs: list[subprocess.Popen[str]], count: int = 1) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if len(list(path.parent.glob(path.name))) >= count:
                return
            if all(p.poll() is not None for p in procs):
                return
            time.sleep(0.05)

    def finish(self, procs: list[subprocess.Popen[str]], label: str) -> list[tuple[int, str]]:
        """Release the held attempts; their exit codes and standard errors."""
        (self.dir / "fault" / "resume").write_text("go")
        ends = []
        for p in procs:
            try:
                _, err = p.communicate(timeout=180)
            except subprocess.TimeoutExpired:
                p.kill()
                _, err = p.communicate()
            ends.append((p.returncode, err))
            self.log.append(f"{label} -> {p.returncode}\n{err}")
        (self.dir / "fault" / "resume").unlink()
        return ends

    # -- the schedules
    def run(self) -> Outcome:
        try:
            self.start()
            return self.schedule()
        except Exception as err:  # noqa: BLE001 - a cell that cannot run is reported as such
            return Outcome({"error"}, self.log, [f"the cell did not run to its end: {err}"])
        finally:
            self.stop()

    def schedule(self) -> Outcome:
        fault = self.fault
        self.seed(1)
        problems: list[str] = []
        if fault in ("late_zombie",):
            zombie = self.background(1, "run-1", 1, ["late_zombie"])
            self.wait_for(self.dir / "fault" / "paused", [zombie])
            self.run_interval(1, "run-1", [], skip_first=True)
            self.seed(2)
            self.run_interval(2, "run-2", [])
            (end,) = self.finish([zombie], "zombie resumed")
            if self.task == "txn" and not self.extra:
                problems += fenced_by_the_broker(*end)
        elif fault == "zombie_at_commit":
            # attempt 1 produces (inside its transaction, where there is one) and is held before
            # its commit; the scheduler's retry commits the interval; then attempt 1 resumes
            zombie = self.background(1, "run-1", 1, ["zombie_at_commit"])
            self.wait_for(self.dir / "fault" / "paused", [zombie])
            if not (self.dir / "fault" / "paused").exists():
                problems.append("attempt 1 ended before it reached its commit")
            self.run_interval(1, "run-1", [], skip_first=True)
            (end,) = self.finish([zombie], "zombie resumed into its commit")
            if self.task == "txn" and not self.extra:
                problems += fenced_by_the_broker(*end)
                problems += self.aborted_messages_hidden()
            self.seed(2)
            self.run_interval(2, "run-2", [])
        elif fault == "two_live":
            self.run_interval(1, "run-1", [])
            self.seed(2)
            procs = [self.background(2, "run-2", n, ["two_live"]) for n in (1, 2)]
            self.wait_for(self.dir / "fault" / "live-*", procs, count=2)
            codes = [code for code, _ in self.finish(procs, "two live attempts")]
            if 0 not in codes:
                self.run_interval(2, "run-2-operator", [])
        elif fault == "slow_transaction":
            # attempt 1 produces, then holds its transaction open for SLOW_SECONDS, past the
            # sink's 3 s timeout (the broker looks for expired transactions every 10 s): the
            # broker aborts it, the attempt says so and exits 75; the retry commits
            self.run_interval(1, "run-1", ["slow_transaction"])
            problems += timed_out_by_the_broker(self.log)
            problems += self.aborted_messages_hidden()
            self.seed(2)
            self.run_interval(2, "run-2", [])
        elif fault == "fresh_workdir":
            # attempt 1 pins and dies before its commit; new input lands; the retries run in
            # new empty folders: only a durable state store keeps the pin
            self.attempt(1, "run-1", 1, ["crash_before_commit"])
            late = self.dir / "files" / "in" / INTERVALS[0][0] / "part-late.jsonl"
            matrix.write_jsonl(late, [{"id": "late", "rec": "late", "amount": 99}])
            self.run_interval(1, "run-1", [], skip_first=True)
            self.seed(2)
            self.run_interval(2, "run-2", [])
        else:
            first = [fault] if fault.startswith("crash_") else []
            self.run_interval(1, "run-1", first)
            if fault == "crash_between_produce_and_commit":
                if f"flowc fault: {fault}" not in "\n".join(self.log):
                    problems.append("attempt 1 never reached the point between its produce and its commit")
                if self.task == "txn" and not self.extra:
                    problems += self.aborted_messages_hidden()
            self.seed(2)
            self.run_interval(2, "run-2", [])
            if fault == "rerun_older":
                self.run_interval(1, "run-1-rerun", [])
        if self.pipeline == "kq" and self.task == "lake":
            problems += self.offsets_reach_the_end()
        anomalies = self.judge()
        ok, audited = self.audit_column(anomalies)
        if not ok:
            problems.append(f"audit: {audited}")
        return Outcome(anomalies, self.log, problems, audited)

    # -- what `flowc audit` finds (the cells' audit column, as the fault matrix's)
    def audit_column(self, anomalies: set[str]) -> tuple[bool, str]:
        """`flowc audit --format json` of this task over the cell's two days, with the task's
        connections, judged as the fault matrix judges its own cells (matrix.audit_column): it
        runs, finds no broken guarantee on a strong output, and finds duplicates where it can
        see them exactly when the cell shows them. A cell whose attempts kept their state in
        their own pod folders (`fresh_workdir`) leaves no register to audit."""
        if self.fresh:
            return True, "not run: each attempt's state was in its own pod folder"
        env = self.env(INTERVALS[0], "audit", 1, [])
        env.pop("FLOWC_FAULT", None)
        env["FLOWC_PYTHON"] = sys.executable
        proc = subprocess.run(
            [str(matrix.flowc_bin()), "audit", "--format", "json", "--since", matrix.DAYS[0], "--until",
             matrix.DAYS[1], "--at", matrix.AUDIT_AT, "--pipeline", self.pipeline, "--task", self.task, str(FLOW)],
            env=env, cwd=self.dir, capture_output=True, text=True, timeout=300,
        )
        try:
            audited: dict[str, Any] = json.loads(proc.stdout)
        except json.JSONDecodeError:
            audited = {"_error": f"flowc audit exit {proc.returncode}: {proc.stderr.strip()}"}
        audited.setdefault("_exit", proc.returncode)
        task = self.setup.ir[(self.pipeline, self.task)]
        (write,) = [w for w in task["writes"] if w["sink"]["name"] == self.sink]
        guarantee = self.setup.predicted[(self.pipeline, self.task, self.sink)]["guarantee"]
        shown = {"duplicate rows": 1} if "dup" in anomalies else {}
        return matrix.audit_column(task, self.sink, "write", write, guarantee, shown, audited, self.fault)

    # -- what the sink holds
    def observed(self) -> list[dict[str, Any]]:
        if self.kafka_sink:
            return self.topic_rows("out_" + self.sink.removeprefix("kq_out_"))
        where = "fm.orders_lake" if self.task == "lake" else ("fm.facts" if self.sink == "iq_facts" else "fm.latest")
        from pyiceberg.exceptions import NoSuchTableError

        cat = self.catalog()
        try:
            table = cat.load_table(where)
        except NoSuchTableError:
            return []
        if table.current_snapshot() is None:
            return []
        return list(table.scan().to_arrow().to_pylist())

    def topic_rows(self, topic: str, isolation: str = "read_committed") -> list[dict[str, Any]]:
        """Every message of the topic's one partition that a reader of `isolation` sees, read up
        to the end the broker answers for it (`read_committed`: the last stable offset)."""
        from confluent_kafka import Consumer, TopicPartition

        assert self.broker is not None
        consumer = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "observer", "log_level": 3,
                             "isolation.level": isolation, "enable.auto.commit": False})
        try:
            part = TopicPartition(topic, 0)
            _, end = consumer.get_watermark_offsets(part, timeout=30, cached=False)
            consumer.assign([TopicPartition(topic, 0, 0)])
            rows: list[dict[str, Any]] = []
            deadline = time.monotonic() + 30
            while max(consumer.position([part])[0].offset, 0) < end:  # no position yet: at 0
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{isolation} read of {topic} stopped before its end offset {end}")
                msg = consumer.poll(0.2)
                if msg is not None and msg.error() is None:
                    rows.append(json.loads(msg.value() or b"{}"))
            return rows
        finally:
            consumer.close()

    def aborted_messages_hidden(self) -> list[str]:
        """Interval 1 committed after an attempt's transaction was aborted: the aborted messages
        are in the topic, a `read_uncommitted` reader sees them, a `read_committed` one does not."""
        topic = "out_" + self.sink.removeprefix("kq_out_")
        want = Counter(json.dumps(r, sort_keys=True) for r in self.records(1))
        key = ("id", "rec", "amount")
        committed = Counter(json.dumps({k: r[k] for k in key}, sort_keys=True) for r in self.topic_rows(topic))
        every = Counter(json.dumps({k: r[k] for k in key}, sort_keys=True)
                        for r in self.topic_rows(topic, "read_uncommitted"))
        problems = []
        if committed != want:
            problems.append(f"read_committed sees {sorted(committed.elements())}, not interval 1's records once each")
        if not all(every[r] >= 2 for r in want):
            problems.append("the aborted attempt's messages are not in the topic: the cell shows nothing")
        return problems

    def offsets_reach_the_end(self) -> list[str]:
        """A12: the source's group offsets reach the input's end, even when an attempt found its
        interval already committed."""
        from confluent_kafka import Consumer, TopicPartition

        assert self.broker is not None
        consumer = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "flowc.kq.lake", "log_level": 3})
        try:
            parts = [TopicPartition(SOURCE_TOPIC, p) for p in range(SOURCE_PARTITIONS)]
            done = {tp.partition: tp.offset for tp in consumer.committed(parts, timeout=30)}
            ends = {p: consumer.get_watermark_offsets(TopicPartition(SOURCE_TOPIC, p), timeout=30, cached=False)[1]
                    for p in range(SOURCE_PARTITIONS)}
        finally:
            consumer.close()
        if done != ends:
            return [f"the group's committed offsets {done} do not reach the input's end {ends}"]
        return []

    def judge(self) -> set[str]:
        rows = self.observed()
        anomalies: set[str] = set()
        if self.pipeline == "iq" and self.sink == "iq_latest":
            # overwrite: the table should hold interval 2's rows
            held = sorted((r["id"], r["amount"]) for r in rows)
            newer = sorted((r["id"], r["amount"]) for r in self.records(2))
            older = sorted((r["id"], r["amount"]) for r in self.records(1))
            if held == older:
                anomalies.add("regress")
            elif held != newer:
                anomalies.add("loss" if len(held) < len(newer) else "dup")
            return anomalies
        want = Counter((r["id"], r["amount"]) for k in (1, 2) for r in self.records(k))
        got = Counter((r["id"], r["amount"]) for r in rows)
        if any(got[key] < n for key, n in want.items()):
            anomalies.add("loss")
        if any(n > want.get(key, 0) for key, n in got.items()):
            anomalies.add("dup")
        return anomalies


def fenced_by_the_broker(code: int, err: str) -> list[str]:
    """A zombie of the exactly-once task: refused as fenced (exit 75, the client's fenced
    error), not an unanswered commit (70) or a connection the broker closed."""
    if code == 75 and "fenced by a newer attempt" in err:
        return []
    last = err.strip().splitlines()[-1] if err.strip() else "nothing on stderr"
    return [f"the zombie exited {code} ({last}): a newer attempt should have fenced it (exit 75, fenced)"]


def timed_out_by_the_broker(log: list[str]) -> list[str]:
    """Attempt 1 of `slow_transaction`: held past its transaction's timeout, it exits 75 naming the
    timeout and the setting, not a newer attempt that does not exist."""
    first = log[0] if log else ""
    if "faults=['slow_transaction'] -> 75" in first and "longer than its timeout (3 s)" in first \
            and "`transaction_timeout` on sink `kq_out_txn_short`" in first and "newer attempt" not in first:
        return []
    return [f"attempt 1 held past its transaction timeout did not say so: {first.strip()[-400:]}"]


def expected(guarantee: str) -> set[str]:
    """The anomalies an output of `guarantee` may show."""
    return ANOMALIES.get(guarantee, set())
