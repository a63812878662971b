"""Loaded at start-up by every task process the fault matrix runs (this folder is first on
their PYTHONPATH): installs the fault-injecting hooks. Nothing else ever loads it. A failure
here ends the process (exit 99) instead of running the task without its faults."""

import os
import traceback

try:
    import fault_hooks

    fault_hooks.install()
except Exception:  # noqa: BLE001 - any failure must stop the run, loudly
    traceback.print_exc()
    os._exit(99)
