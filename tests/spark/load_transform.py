"""The transform of the Spark fault cells' task (tests/spark/spark_modes.flow, `sp.load`),
copied into the scaffold by tests/spark/cells.py: the interval's rows of the raw table, to
every sink."""

from __future__ import annotations

from typing import Any

from flowc_runtime.spark import JobContext

SINKS = ("sp_delta_commit", "sp_delta_append", "sp_delta_latest", "sp_delta_days",
         "sp_ice_commit", "sp_ice_append", "sp_ice_latest", "sp_ice_days")


def transform(ctx: JobContext, inputs: dict[str, Any]) -> dict[str, Any]:
    from pyspark.sql import functions as F

    raw = inputs["sp_raw"]
    rows = raw.where(F.col("day") == F.lit(ctx.interval_key)).select("id", "day", "amount")
    return {name: rows for name in SINKS}
