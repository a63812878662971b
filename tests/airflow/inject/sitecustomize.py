"""Installed by scripts/e2e/airflow-scheduler in every task process (on PYTHONPATH there only):
stalls the first attempt of each scheduler cell inside its commit phase (never shipped)."""

from __future__ import annotations

try:
    import stall_hooks
except ImportError:  # not a flowc task process
    pass
else:
    stall_hooks.install()
