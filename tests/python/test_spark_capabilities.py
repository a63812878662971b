"""The Spark runtime (flowc_runtime/spark) runs exactly what templates/python/capabilities.json's
`spark` section promises (what `flowc scaffold` accepts for a `spark-submit` task), and refuses
the rest before it starts Spark."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest

from flowc_runtime.context import Invalid
from flowc_runtime.spark import attempt as spark_run
from flowc_runtime.spec import Emit, Endpoint, Mode, Read, Task, Write

ROOT = Path(__file__).resolve().parents[2]
CAPS = json.loads((ROOT / "templates" / "python" / "capabilities.json").read_text(encoding="utf-8"))["spark"]


def test_the_spark_runtime_has_exactly_the_kinds_and_modes_of_the_table() -> None:
    assert sorted(spark_run.KINDS) == sorted(CAPS["data"])
    for kind in spark_run.KINDS:
        assert sorted(CAPS["data"][kind]["modes"]) == sorted(spark_run.MODES), kind
        assert CAPS["data"][kind]["outbox"] is False


def task(kind: str = "delta_table", mode: str = "conditional_commit", emits: tuple[Emit, ...] = ()) -> Task:
    return Task(pipeline="p", task="t", schedule="@daily", timezone="UTC", nondeterministic=False,
                reads=(Read(source=Endpoint("raw", "delta_table", {"location": "raw"}), immutable=False,
                            pin="version"),),
                writes=(Write(sink=Endpoint("out", kind, {"location": "out"}), mode=cast(Mode, mode)),), emits=emits)


def test_what_the_table_lists_passes_the_runtime_check() -> None:
    for kind in spark_run.KINDS:
        for mode in spark_run.MODES:
            spark_run.check_declarations(task(kind, mode))


@pytest.mark.parametrize(("kind", "mode", "emits", "said"), [
    ("postgres_table", "append", (), "no runtime for kind `postgres_table`"),
    ("delta_table", "transactional", (), "no runtime for `transactional`"),
    ("delta_table", "append", (Emit(Endpoint("hook", "webhook"), "untracked"),), "no runtime for effects"),
])
def test_anything_else_is_refused_with_exit_65_before_spark_starts(kind: str, mode: str, emits: tuple[Emit, ...],
                                                                    said: str) -> None:
    with pytest.raises(Invalid, match=said):
        spark_run.check_declarations(task(kind, mode, emits))
    env = {"FLOW_INTERVAL_START": "2026-01-01T00:00:00Z", "FLOW_INTERVAL_END": "2026-01-02T00:00:00Z",
           "FLOW_RUN_ID": "r", "FLOWC_STATE": "sqlite:///dev/null/never"}
    # the refusal comes before the state store or Spark are reached: exit 65
    assert spark_run.run(task(kind, mode, emits), lambda ctx, inputs: {}, env) == 65
