"""The runtime's connector registry and templates/python/capabilities.json (what `flowc
scaffold` accepts) name the same kinds, and a connector exists for what the table promises."""

from __future__ import annotations

import json
import typing
from pathlib import Path

from flowc_runtime.connectors import CONNECTORS, Connector
from flowc_runtime.spec import Mode, Pin

ROOT = Path(__file__).resolve().parents[2]
CAPS = json.loads((ROOT / "templates" / "python" / "capabilities.json").read_text(encoding="utf-8"))


def test_the_registry_has_exactly_the_kinds_of_the_table() -> None:
    assert sorted(CONNECTORS) == sorted(CAPS["data"])
    for kind, connector in CONNECTORS.items():
        assert connector.kind == kind


def test_the_table_uses_the_ir_names_of_the_spec() -> None:
    pins, modes = set(typing.get_args(Pin)), set(typing.get_args(Mode))
    for kind, caps in CAPS["data"].items():
        assert set(caps["pins"]) <= pins, kind
        assert set(caps["modes"]) <= modes, kind
    assert "conditional_commit" not in CAPS["data"]["files"]["modes"]


def test_a_promised_pin_or_outbox_has_an_implementation() -> None:
    for kind, caps in CAPS["data"].items():
        cls = type(CONNECTORS[kind])
        if caps["pins"]:
            assert cls.resolve_pin is not Connector.resolve_pin, kind
        assert (cls.relay is not Connector.relay) == caps["outbox"], kind
        # a writer: in memory (`apply`) or batch by batch (`apply_stream`)
        assert cls.apply is not Connector.apply or cls.apply_stream is not Connector.apply_stream, kind
        assert cls.read is not Connector.read, kind


def test_the_runtime_ships_no_fault_injection() -> None:
    """Fault injection lives in tests/fault; what `flowc scaffold` copies has only no-op hooks."""
    import flowc_runtime.hooks as hooks

    runtime = ROOT / "templates" / "python"
    texts = {p: p.read_text(encoding="utf-8") for p in runtime.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert any(p.name == "hooks.py" for p in texts)
    for path, text in texts.items():
        for banned in ("FLOWC_FAULT", "SIGKILL", "os.kill", "fault_hooks"):
            assert banned not in text, f"{path} holds {banned}"
    hooks.step("before_commit")
    hooks.before_transaction_commit()
    hooks.before_publish()
    assert hooks.output_extra("run", 1) == {}
