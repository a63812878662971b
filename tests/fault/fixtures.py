#!/usr/bin/env python3
"""The fault matrix's fixture pipelines, written once here and rendered two ways:

* `tests/fault/<file>.flow`: the `.flow` source, following docs/reference/language.md, that the real
  `flowc report` / `flowc scaffold` read;
* `tests/fault/ir/<file>.json`: the same pipelines as flowc's codegen IR. The fault matrix
  (tests/fault/matrix.py) reads the declarations from it (what to seed, what to observe);
  its predictions and code come from the flowc binary only. The guarantees in this IR come
  from `derive_*` below, a transcription of docs/reference/guarantees.md for the constructs these
  fixtures use; the matrix does not read them.

Run `python3 tests/fault/fixtures.py` after editing; a test checks the files are current.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# --- declarations ---------------------------------------------------------------------------


@dataclass
class Decl:
    name: str
    kind: str
    params: dict[str, object]
    immutable: bool = False
    pin: str | None = None
    identity: list[str] | None = None
    fields: list[str] | None = None


@dataclass
class TaskDef:
    name: str
    reads: list[tuple[str, str | None]]  # (source, pin override: None = default, "unpinned")
    writes: list[dict[str, Any]]
    emits: list[dict[str, Any]] = field(default_factory=list)
    key: list[tuple[str | None, str, str | None]] | None = None  # (column, term, field)
    nondeterministic: bool = False
    allows: list[tuple[str, str]] = field(default_factory=list)


KIND_CAPS: dict[str, dict[str, Any]] = {
    "files": {"transactional": False, "versioned": False, "coordinator": None},
    "sqlite_table": {"transactional": True, "versioned": False, "coordinator": "sqlite"},
    "postgres_table": {"transactional": True, "versioned": False, "coordinator": "postgres"},
    "duckdb_table": {"transactional": True, "versioned": False, "coordinator": "duckdb"},
    "mysql_table": {"transactional": True, "versioned": False, "coordinator": "mysql"},
    "delta_table": {"transactional": True, "versioned": True, "coordinator": None},
    "webhook": {"idempotency": True},
    "http_request": {"idempotency": True},
    "slack_message": {"idempotency": False},
    "email": {"idempotency": False},
}

FIELDS = ["id", "rec", "amount"]


def term_text(column: str | None, term: str, fld: str | None) -> str:
    text = {
        "input_field": f"input.{fld}",
        "input_hash": "hash(input)",
        "output_field": f"output.{fld}",
        "output_hash": "hash(output)",
        "interval_start": "interval.start",
        "interval_end": "interval.end",
        "run_id": "run.id",
        "attempt_id": "attempt.id",
        "attempt_number": "attempt.number",
    }[term]
    return f"{column} = {text}" if column else text


def key_text(parts: list[tuple[str | None, str, str | None]]) -> str:
    inner = [term_text(*p) for p in parts]
    return inner[0] if len(inner) == 1 else "(" + ", ".join(inner) + ")"


def ir_part(part: tuple[str | None, str, str | None]) -> dict[str, Any]:
    column, term, fld = part
    out: dict[str, object] = {"column": column, "term": term}
    if fld is not None:
        out["field"] = fld
    return out


# --- the model of docs/reference/guarantees.md, for these fixtures -------------------------

STABLE = {"input_field", "input_hash", "interval_start", "interval_end"}


def meet(a: str, b: str) -> str:
    order = ["exactly_once", "effectively_once", "at_least_once", "none"]
    return order[max(order.index(a), order.index(b))]


def derive_write(task: TaskDef, w: dict[str, Any], decls: dict[str, Decl], lease: bool, scheduled: bool) -> str:
    sink = decls[w["sink"]]
    caps = KIND_CAPS[sink.kind]
    input_stable = all(
        decls[s].immutable or (pin != "unpinned" and (pin or decls[s].pin) is not None) for s, pin in task.reads
    )
    deterministic = not task.nondeterministic
    mode = w["mode"]
    if mode == "conditional_commit" and caps["versioned"] and lease and input_stable and deterministic:
        return "exactly_once"
    idempotent = mode in ("upsert", "conditional_commit") or (
        mode in ("replace_partition", "append_ledger") and caps["transactional"]
    )
    key = w.get("key") or task.key
    if mode == "replace_partition":
        terms = [w["partition"][1]]
    elif mode in ("upsert", "append_ledger"):
        terms = [p[1] for p in key or []]
    else:
        terms = []
    stable_terms = STABLE if scheduled else {"input_field", "input_hash"}
    if deterministic:
        stable_terms = stable_terms | {"output_field", "output_hash"}
    key_stable = all(t in stable_terms for t in terms)
    key_unique = True
    if mode in ("upsert", "append_ledger") and key:
        only_input = all(p[1] == "input_field" for p in key)
        if only_input:
            fields = {p[2] for p in key}
            for source, _ in task.reads:
                ident = decls[source].identity
                if not ident or not set(ident) <= fields:
                    key_unique = False
    if idempotent and key_stable and key_unique and input_stable and deterministic:
        return "effectively_once"
    return "at_least_once"


def derive_emit(task: TaskDef, e: dict[str, Any], decls: dict[str, Decl], writes: dict[str, str], scheduled: bool) -> str:
    effect = decls[e["effect"]]
    idem = KIND_CAPS[effect.kind]["idempotency"]
    if e["via"] == "untracked":
        return "at_least_once"
    input_stable = all(
        decls[s].immutable or (pin != "unpinned" and (pin or decls[s].pin) is not None) for s, pin in task.reads
    )
    if e["via"] == "idempotency_key":
        stable = STABLE if scheduled else {"input_field", "input_hash"}
        ok = all(p[1] in stable for p in e["key"]) and idem and input_stable and not task.nondeterministic
        return "effectively_once" if ok else "at_least_once"
    holder = writes[e["outbox"]]
    return meet("effectively_once", holder) if idem else meet("at_least_once", holder)


# --- the fixtures ----------------------------------------------------------------------------


def tables_file(prefix: str, kind: str) -> tuple[list[Decl], dict[str, Any]]:
    """Every write mode of a SQL sink, every key kind, every effect tracking; the pinned files source."""
    p = prefix
    decls = [
        Decl(f"{p}orders_in", "files", {"path": "in/{interval.start}/"}, immutable=True, pin="listing",
             identity=["id"], fields=FIELDS),
        Decl(f"{p}orders_up", kind, {"table": "orders_up", "primary_key": ["id"]}),
        Decl(f"{p}orders_day", kind, {"table": "orders_day", "primary_key": ["id", "day"]}),
        Decl(f"{p}orders_run", kind, {"table": "orders_run", "primary_key": ["id", "run"]}),
        Decl(f"{p}daily", kind, {"table": "daily"}),
        Decl(f"{p}by_run", kind, {"table": "by_run"}),
        Decl(f"{p}ledger_in", kind, {"table": "ledger_in"}),
        Decl(f"{p}ledger_hash", kind, {"table": "ledger_hash"}),
        Decl(f"{p}ledger_att", kind, {"table": "ledger_att"}),
        Decl(f"{p}ledger_run", kind, {"table": "ledger_run"}),
        Decl(f"{p}appended", kind, {"table": "appended"}),
        Decl(f"{p}checked", kind, {"table": "checked"}),
        Decl(f"{p}hook", "webhook", {"url": "http://127.0.0.1:9/hook"}),
        Decl(f"{p}chat", "slack_message", {"channel": "#orders"}),
        Decl(f"{p}api", "http_request", {"url": "http://127.0.0.1:9/api", "method": "POST"}),
        Decl(f"{p}api_run", "http_request", {"url": "http://127.0.0.1:9/api_run"}),
        Decl(f"{p}loose", "webhook", {"url": "http://127.0.0.1:9/loose"}),
    ]
    src = f"{p}orders_in"
    inp: list[tuple[str | None, str, str | None]] = [(None, "input_field", "id")]
    tasks = [
        TaskDef("upsert_input", [(src, None)], key=inp,
                writes=[{"sink": f"{p}orders_up", "mode": "upsert"}],
                emits=[{"effect": f"{p}hook", "via": "outbox", "outbox": f"{p}orders_up"},
                       {"effect": f"{p}chat", "via": "outbox", "outbox": f"{p}orders_up"}]),
        TaskDef("upsert_interval", [(src, None)], key=[(None, "input_field", "id"), ("day", "interval_start", None)],
                writes=[{"sink": f"{p}orders_day", "mode": "upsert"}]),
        TaskDef("upsert_run", [(src, None)], key=[(None, "input_field", "id"), ("run", "run_id", None)],
                writes=[{"sink": f"{p}orders_run", "mode": "upsert"}]),
        TaskDef("replace_interval", [(src, None)],
                writes=[{"sink": f"{p}daily", "mode": "replace_partition", "partition": ("day", "interval_start", None)}],
                emits=[{"effect": f"{p}api", "via": "idempotency_key", "key": inp}]),
        TaskDef("replace_run", [(src, None)],
                writes=[{"sink": f"{p}by_run", "mode": "replace_partition", "partition": ("run", "run_id", None)}]),
        TaskDef("ledger_input", [(src, None)], key=inp,
                writes=[{"sink": f"{p}ledger_in", "mode": "append_ledger"}]),
        TaskDef("ledger_hash", [(src, None)], key=[(None, "input_hash", None)],
                writes=[{"sink": f"{p}ledger_hash", "mode": "append_ledger"}]),
        TaskDef("ledger_attempt", [(src, None)], key=[(None, "input_field", "id"), ("attempt", "attempt_number", None)],
                writes=[{"sink": f"{p}ledger_att", "mode": "append_ledger"}],
                allows=[("FL203", "fault matrix: shows the ledger of attempts duplicating")]),
        TaskDef("ledger_run", [(src, None)], key=[(None, "input_field", "id"), ("run", "run_id", None)],
                writes=[{"sink": f"{p}ledger_run", "mode": "append_ledger"}]),
        TaskDef("append_plain", [(src, None)],
                writes=[{"sink": f"{p}appended", "mode": "append"}],
                emits=[{"effect": f"{p}loose", "via": "untracked"},
                       {"effect": f"{p}api_run", "via": "idempotency_key",
                        "key": [(None, "input_field", "id"), (None, "run_id", None)]}],
                allows=[("FL401", "fault matrix: shows the untracked effect repeating"),
                        ("FL402", "fault matrix: shows a run-scoped idempotency key repeating")]),
        TaskDef("check_append", [(src, None)], key=inp,
                writes=[{"sink": f"{p}checked", "mode": "check_then_append"}],
                allows=[("FL201", "fault matrix: shows check-then-append duplicating under a zombie")]),
    ]
    decls, tasks = decls + v02_table_decls(p, kind), tasks + v02_table_tasks(p)
    return decls, {"tasks": tasks, "lease": True}


# What each SQL kind's stdlib entry lets a task write and pin (stdlib/*.flow): a fixture keeps the
# tasks its kind can run (`duckdb_table` and `mysql_table` have no `append ledger`, no
# `check_then_append` and no snapshot pin).
KIND_MODES: dict[str, set[str]] = {
    "duckdb_table": {"upsert", "insert_if_absent", "replace_partition", "append", "overwrite", "transactional"},
    "mysql_table": {"upsert", "insert_if_absent", "replace_partition", "append", "transactional"},
}
KIND_PINS: dict[str, set[str]] = {"duckdb_table": {"cursor"}, "mysql_table": {"cursor"}}


def for_kind(kind: str, made: tuple[list[Decl], dict[str, Any]]) -> tuple[list[Decl], dict[str, Any]]:
    """The fixture without the tasks `kind` cannot run (and the declarations only they use)."""
    decls, extra = made
    modes, pins = KIND_MODES.get(kind), KIND_PINS.get(kind)
    if modes is None or pins is None:
        return made
    by_name = {d.name: d for d in decls}

    def runs(t: TaskDef) -> bool:
        if any(w["mode"] not in modes for w in t.writes if by_name[w["sink"]].kind == kind):
            return False
        return all(pin in (None, "unpinned") or pin in pins for s, pin in t.reads if by_name[s].kind == kind)

    tasks = [t for t in extra["tasks"] if runs(t)]
    used = {s for t in tasks for s, _ in t.reads} | {w["sink"] for t in tasks for w in t.writes}
    used |= {e["effect"] for t in tasks for e in t.emits}
    return [d for d in decls if d.name in used], {**extra, "tasks": tasks}


def inputs_file(prefix: str, kind: str) -> tuple[list[Decl], dict[str, Any]]:
    """Pins and their absence, duplicate identities, a nondeterministic transform."""
    p = prefix
    decls = [
        Decl(f"{p}src_table", kind, {"table": "src_orders", "primary_key": ["id"]}, identity=["id"], fields=FIELDS),
        Decl(f"{p}drop", "files", {"path": "drop/{interval.start}/"}, identity=["id"], fields=FIELDS),
        Decl(f"{p}events", "files", {"path": "in/{interval.start}/"}, immutable=True, pin="listing",
             identity=[], fields=FIELDS),
        Decl(f"{p}orders_in", "files", {"path": "in/{interval.start}/"}, immutable=True, pin="listing",
             identity=["id"], fields=FIELDS),
        Decl(f"{p}snap_out", kind, {"table": "snap_out", "primary_key": ["id"]}),
        Decl(f"{p}live_out", kind, {"table": "live_out", "primary_key": ["id"]}),
        Decl(f"{p}drop_out", kind, {"table": "drop_out"}),
        Decl(f"{p}events_out", kind, {"table": "events_out", "primary_key": ["id"]}),
        Decl(f"{p}nondet_out", kind, {"table": "nondet_out", "primary_key": ["id"]}),
    ]
    inp: list[tuple[str | None, str, str | None]] = [(None, "input_field", "id")]
    tasks = [
        TaskDef("table_snapshot", [(f"{p}src_table", "snapshot")], key=inp,
                writes=[{"sink": f"{p}snap_out", "mode": "upsert"}]),
        TaskDef("table_unpinned", [(f"{p}src_table", "unpinned")], key=inp,
                writes=[{"sink": f"{p}live_out", "mode": "upsert"}]),
        TaskDef("files_unpinned", [(f"{p}drop", None)], key=inp,
                writes=[{"sink": f"{p}drop_out", "mode": "append_ledger"}]),
        TaskDef("identity_none", [(f"{p}events", None)], key=inp,
                writes=[{"sink": f"{p}events_out", "mode": "upsert"}]),
        TaskDef("nondeterministic", [(f"{p}orders_in", None)], key=inp, nondeterministic=True,
                writes=[{"sink": f"{p}nondet_out", "mode": "upsert"}]),
    ]
    return decls, {"tasks": tasks, "lease": True}


def delta_file(prefix: str, lease: bool) -> tuple[list[Decl], dict[str, Any]]:
    """conditional_commit, overwrite and append on delta; append and overwrite on a folder."""
    p = prefix
    decls = [
        Decl(f"{p}orders_in", "files", {"path": "in/{interval.start}/"}, immutable=True, pin="listing",
             identity=["id"], fields=FIELDS),
        Decl(f"{p}drop", "files", {"path": "drop/{interval.start}/"}, identity=["id"], fields=FIELDS),
        Decl(f"{p}facts", "delta_table", {"location": "facts"}),
    ]
    src = f"{p}orders_in"
    tasks = [TaskDef("conditional", [(src, None)], writes=[{"sink": f"{p}facts", "mode": "conditional_commit"}])]
    if lease:
        decls += [
            Decl(f"{p}facts_live", "delta_table", {"location": "facts_live"}),
            Decl(f"{p}latest", "delta_table", {"location": "latest"}),
            Decl(f"{p}out_files", "files", {"path": "out/appended/"}),
            Decl(f"{p}out_latest", "files", {"path": "out/latest/"}),
            Decl(f"{p}feed", "delta_table", {"location": "feed"}, pin="version", identity=["id"], fields=FIELDS),
            Decl(f"{p}feed_copy", "delta_table", {"location": "feed_copy"}),
            Decl(f"{p}feed_live", "delta_table", {"location": "feed_live"}),
            Decl(f"{p}log", "delta_table", {"location": "log"}),
        ]
        tasks += [
            TaskDef("conditional_unpinned", [(f"{p}drop", None)],
                    writes=[{"sink": f"{p}facts_live", "mode": "conditional_commit"}]),
            TaskDef("delta_overwrite", [(src, None)], writes=[{"sink": f"{p}latest", "mode": "overwrite"}]),
            TaskDef("files_append", [(src, None)], writes=[{"sink": f"{p}out_files", "mode": "append"}]),
            TaskDef("files_overwrite", [(src, None)], writes=[{"sink": f"{p}out_latest", "mode": "overwrite"}]),
            TaskDef("delta_pinned", [(f"{p}feed", None)],
                    writes=[{"sink": f"{p}feed_copy", "mode": "conditional_commit"}]),
            TaskDef("delta_unpinned", [(f"{p}feed", "unpinned")],
                    writes=[{"sink": f"{p}feed_live", "mode": "conditional_commit"}]),
            # an append without a key: only its commits show a re-run's copy (`commit-repeated`)
            TaskDef("delta_append", [(src, None)], writes=[{"sink": f"{p}log", "mode": "append"}]),
        ]
        decls, tasks = decls + v02_delta_decls(p), tasks + v02_delta_tasks(p)
    return decls, {"tasks": tasks, "lease": lease}


# --- flowc 0.2: the modes the regression fault kinds meet (late_zombie, rerun_older, two_live) ---
# Upserts are fenced on both SQL kinds (upsert_input above: strong). `replace partition` by a
# term of the data is not (weak); by an interval term it is (replace_interval above: strong).
# An overwrite owns its interval only on an interval-scoped path (strong); on a fixed path it
# regresses (files_overwrite above: weak, FL204). An upsert on a kind without `fenced` cannot be
# run here: only the stdlib's kinds have a runtime, and both SQL kinds are fenced.

DAY_FIELDS = [*FIELDS, "event_day"]


def v02_table_decls(p: str, kind: str) -> list[Decl]:
    return [
        Decl(f"{p}orders_days", "files", {"path": "in/{interval.start}/"}, immutable=True, pin="listing",
             identity=["id"], fields=DAY_FIELDS),
        Decl(f"{p}by_day", kind, {"table": "by_day"}),
    ]


def v02_table_tasks(p: str) -> list[TaskDef]:
    return [
        TaskDef("replace_input", [(f"{p}orders_days", None)],
                writes=[{"sink": f"{p}by_day", "mode": "replace_partition",
                         "partition": (None, "input_field", "event_day")}]),
    ]


def v02_delta_decls(p: str) -> list[Decl]:
    return [
        Decl(f"{p}out_scoped", "files", {"path": "out/scoped/{interval.start}/"}),
        Decl(f"{p}parts", "delta_table", {"location": "parts"}),
    ]


def v02_delta_tasks(p: str) -> list[TaskDef]:
    src = f"{p}orders_in"
    return [
        TaskDef("files_overwrite_scoped", [(src, None)], writes=[{"sink": f"{p}out_scoped", "mode": "overwrite"}]),
        TaskDef("delta_replace", [(src, None)],
                writes=[{"sink": f"{p}parts", "mode": "replace_partition", "partition": ("day", "interval_start", None)}]),
    ]


def manual_file(prefix: str, kind: str) -> tuple[list[Decl], dict[str, Any]]:
    """A manual pipeline (`schedule none`): an upsert holding an outbox, an idempotency-key effect
    and an untracked one, over a folder without interval placeholders (fault `manual_rerun`)."""
    p = prefix
    decls = [
        Decl(f"{p}batch", "files", {"path": "in/manual/"}, immutable=True, pin="listing", identity=["id"],
             fields=FIELDS),
        Decl(f"{p}accounts", kind, {"table": "accounts", "primary_key": ["id"]}),
        Decl(f"{p}notify", "slack_message", {"channel": "#accounts"}),
        Decl(f"{p}push", "http_request", {"url": "http://127.0.0.1:9/push", "method": "POST"}),
        Decl(f"{p}ping", "webhook", {"url": "http://127.0.0.1:9/ping"}),
        Decl(f"{p}hook", "webhook", {"url": "http://127.0.0.1:9/hook"}),
    ]
    inp: list[tuple[str | None, str, str | None]] = [(None, "input_field", "id")]
    tasks = [
        TaskDef("migrate", [(f"{p}batch", None)], key=inp,
                writes=[{"sink": f"{p}accounts", "mode": "upsert"}],
                emits=[{"effect": f"{p}hook", "via": "outbox", "outbox": f"{p}accounts"},
                       {"effect": f"{p}notify", "via": "outbox", "outbox": f"{p}accounts"},
                       {"effect": f"{p}push", "via": "idempotency_key", "key": inp},
                       {"effect": f"{p}ping", "via": "untracked"}],
                allows=[("FL401", "fault matrix: shows the untracked effect repeating")]),
    ]
    return decls, {"tasks": tasks, "lease": True, "manual": True}


def state_store(decls: list[Decl], extra: dict[str, Any]) -> dict[str, Any] | None:
    """The pipeline's state store: the first sink in source order that it writes and whose kind
    can hold flowc's state (postgres_table, duckdb_table, mysql_table, delta_table); `None`: the local file."""
    written = {w["sink"] for t in extra["tasks"] for w in t.writes}
    for d in decls:
        if d.name in written and d.kind in ("postgres_table", "duckdb_table", "mysql_table", "delta_table"):
            return {"kind": d.kind, "sink": d.name}
    return None


FILES: dict[str, tuple[str, Callable[[], tuple[list[Decl], dict[str, Any]]]]] = {
    "sqlite_modes": ("sq_modes", lambda: tables_file("sq_", "sqlite_table")),
    "sqlite_inputs": ("sq_inputs", lambda: inputs_file("sqi_", "sqlite_table")),
    "postgres_modes": ("pg_modes", lambda: tables_file("pg_", "postgres_table")),
    "postgres_inputs": ("pg_inputs", lambda: inputs_file("pgi_", "postgres_table")),
    "delta_lease": ("dl_lease", lambda: delta_file("dl_", True)),
    "delta_no_lease": ("dl_nolease", lambda: delta_file("dn_", False)),
    "sqlite_manual": ("sq_manual", lambda: manual_file("sqm_", "sqlite_table")),
    "postgres_manual": ("pg_manual", lambda: manual_file("pgm_", "postgres_table")),
    "duckdb_modes": ("dk_modes", lambda: for_kind("duckdb_table", tables_file("dk_", "duckdb_table"))),
    "duckdb_inputs": ("dk_inputs", lambda: for_kind("duckdb_table", inputs_file("dki_", "duckdb_table"))),
    "duckdb_manual": ("dk_manual", lambda: manual_file("dkm_", "duckdb_table")),
    "mysql_modes": ("my_modes", lambda: for_kind("mysql_table", tables_file("my_", "mysql_table"))),
    "mysql_inputs": ("my_inputs", lambda: for_kind("mysql_table", inputs_file("myi_", "mysql_table"))),
    "mysql_manual": ("my_manual", lambda: manual_file("mym_", "mysql_table")),
}

# --- rendering ---------------------------------------------------------------------------------


def flow_value(value: object) -> str:
    if isinstance(value, list):
        return value[0] if len(value) == 1 else "(" + ", ".join(value) + ")"
    return json.dumps(value, ensure_ascii=False)


def render_flow(file_name: str, pipeline: str, decls: list[Decl], extra: dict[str, Any]) -> str:
    by_name = {d.name: d for d in decls}
    lines = [
        f"# Fault-matrix fixture `{file_name}`: generated by tests/fault/fixtures.py (edit there).",
        "# Each task exercises one write mode, key kind, pin or effect tracking; scripts/fault-matrix",
        "# runs every task under every fault kind and compares with a fault-free run.",
        "",
    ]
    for d in decls:
        role = "effect" if d.kind in ("webhook", "http_request", "slack_message", "email") else (
            "source" if d.pin is not None or d.identity is not None or d.immutable else "sink")
        lines.append(f"{role} {d.name}: {d.kind} {{")
        for name, value in d.params.items():
            lines.append(f"  {name} {flow_value(value)}")
        if role == "source":
            lines.append("  immutable" if d.immutable else "  mutable")
            if d.pin:
                lines.append(f"  pin {d.pin}")
            if d.identity is not None:
                lines.append("  identity none" if not d.identity else f"  identity {flow_value(d.identity)}")
            if d.fields:
                lines.append(f"  fields [{', '.join(d.fields)}]")
        lines.append("}")
        lines.append("")
    schedule = ["  schedule none"] if extra.get("manual") else ['  schedule "@daily"', "  start 2026-01-01"]
    lines += [
        f"pipeline {pipeline} {{",
        *schedule,
        '  timezone "UTC"',
        "  retries 2",
        "  retry_delay 1s",
    ]
    if extra["lease"]:
        lines.append("  timeout 10m")
    lines.append("  require none")
    for t in extra["tasks"]:
        lines.append("")
        lines.append(f"  task {t.name} {{")
        for source, pin in t.reads:
            suffix = "" if pin is None else (" unpinned" if pin == "unpinned" else f" pinned {pin}")
            lines.append(f"    read {source}{suffix}")
        if t.key:
            lines.append(f"    key {key_text(t.key)}")
        for w in t.writes:
            mode = w["mode"].replace("_", " ")
            if w["mode"] == "replace_partition":
                mode = "replace partition " + term_text(*w["partition"])
            elif w["mode"] in ("check_then_append", "conditional_commit"):
                mode = w["mode"]
            lines.append(f"    write {w['sink']} {mode}")
        for e in t.emits:
            if e["via"] == "outbox":
                lines.append(f"    emit {e['effect']} via outbox {e['outbox']}")
            elif e["via"] == "idempotency_key":
                lines.append(f"    emit {e['effect']} via idempotency_key {key_text(e['key'])}")
            else:
                lines.append(f"    emit {e['effect']}")
        if t.nondeterministic:
            lines.append("    nondeterministic")
        for code, why in t.allows:
            lines.append(f"    allow {code} because {json.dumps(why)}")
        lines.append(f'    run command ["python", "-m", "{pipeline}.{t.name}"]')
        lines.append("  }")
    lines.append("}")
    del by_name
    return "\n".join(lines) + "\n"


def endpoint(d: Decl) -> dict[str, Any]:
    caps = KIND_CAPS[d.kind]
    return {
        "name": d.name,
        "kind": d.kind,
        "params": d.params,
        "fields": d.fields,
        "coordinator": caps.get("coordinator"),
    }


def render_ir(file_name: str, pipeline: str, decls: list[Decl], extra: dict[str, Any]) -> list[dict[str, Any]]:
    by_name = {d.name: d for d in decls}
    tasks = []
    for t in extra["tasks"]:
        write_g: dict[str, str] = {}
        writes = []
        for w in t.writes:
            g = derive_write(t, w, by_name, extra["lease"], not extra.get("manual"))
            write_g[w["sink"]] = g
            key = w.get("key") or t.key
            writes.append({
                "sink": endpoint(by_name[w["sink"]]),
                "mode": w["mode"],
                "partition": ir_part(w["partition"]) if "partition" in w else None,
                "key": [ir_part(k) for k in key] if key else None,
                "primary_key": by_name[w["sink"]].params.get("primary_key"),
                "guarantee": g,
                "required": "none",
            })
        emits = []
        for e in t.emits:
            g = derive_emit(t, e, by_name, write_g, not extra.get("manual"))
            if e["via"] == "outbox":
                holder = next(w for w in t.writes if w["sink"] == e["outbox"])
                key = holder.get("key") or t.key
            else:
                key = e.get("key")
            emits.append({
                "effect": endpoint(by_name[e["effect"]]),
                "tracking": e["via"],
                "outbox": e.get("outbox"),
                "key": [ir_part(k) for k in key] if key else None,
                "kind_has_idempotency_key": KIND_CAPS[by_name[e["effect"]].kind]["idempotency"],
                "guarantee": g,
                "required": "none",
            })
        outputs = [w["guarantee"] for w in writes] + [e["guarantee"] for e in emits]
        all_idempotent = all(g in ("exactly_once", "effectively_once") for g in outputs)
        reads = []
        for source, pin in t.reads:
            d = by_name[source]
            effective = None if pin == "unpinned" else (pin or d.pin)
            reads.append({
                "source": endpoint(d),
                "immutable": d.immutable,
                "pin": effective,
                "commit": None,
                "identity": d.identity,
            })
        tasks.append({
            "name": t.name,
            "upstream": [],
            "retries": 2,
            "internal_retries": 0,
            "retry_delay_seconds": 1,
            "timeout_seconds": 600 if extra["lease"] else None,
            "on_ambiguous": "retry" if all_idempotent else "fail",
            "image": None,
            "command": ["python", "-m", f"{pipeline}.{t.name}"],
            "env": [],
            "nondeterministic": t.nondeterministic,
            "reads": reads,
            "writes": writes,
            "emits": emits,
            "manual": bool(extra.get("manual")),
            "state": state_store(decls, extra),
        })
    return [{
        "name": pipeline,
        "source_file": f"tests/fault/{file_name}.flow",
        "schedule": None if extra.get("manual") else {"text": "@daily", "cron": "0 0 * * *"},
        "start": None if extra.get("manual") else "2026-01-01",
        "timezone": "UTC",
        "catchup": False,
        "image": None,
        "tasks": tasks,
    }]


def render_all() -> dict[Path, str]:
    out: dict[Path, str] = {}
    for file_name, (pipeline, make) in FILES.items():
        decls, extra = make()
        out[HERE / f"{file_name}.flow"] = render_flow(file_name, pipeline, decls, extra)
        ir = render_ir(file_name, pipeline, decls, extra)
        out[HERE / "ir" / f"{file_name}.json"] = json.dumps(ir, indent=2, sort_keys=True) + "\n"
    return out


def main() -> int:
    check = "--check" in sys.argv
    stale = []
    for path, text in render_all().items():
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if stale:
        print("stale fixtures (run tests/fault/fixtures.py):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
