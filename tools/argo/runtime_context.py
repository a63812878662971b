"""What flowc's Python task runtime makes of the environment Argo gave a pod.

Reads a JSON list of environments (each the `main` container's env as Argo's controller rendered
it) on standard input, and prints a JSON list with, for each, the attempt's identity as
`flowc_runtime.context.context_from_env` derives it: interval start and end (RFC 3339, UTC), run id
and attempt, or the runtime's error. The task spec given to the runtime has no schedule of its own,
so the interval comes from the environment alone.

    python runtime_context.py TEMPLATES_PYTHON_DIR < envs.json
"""

from __future__ import annotations

import json
import sys

sys.path.insert(0, sys.argv[1])

from flowc_runtime.context import FlowError, context_from_env, iso  # noqa: E402
from flowc_runtime.spec import Task  # noqa: E402


def identity(env: dict[str, str]) -> dict[str, object]:
    task = Task(
        pipeline=env.get("FLOW_PIPELINE", ""),
        task=env.get("FLOW_TASK", ""),
        schedule=None,
        timezone="UTC",
        nondeterministic=False,
        reads=(),
        writes=(),
        emits=(),
    )
    try:
        ctx = context_from_env(task, env)
    except FlowError as err:
        return {"error": str(err)}
    return {
        "interval_start": iso(ctx.interval_start),
        "interval_end": iso(ctx.interval_end),
        "run_id": ctx.run_id,
        "attempt": ctx.attempt,
    }


json.dump([identity(env) for env in json.load(sys.stdin)], sys.stdout)
