"""Neovim's built-in LSP client, headless, against `flowc lsp`: diagnostics, a hover, a definition."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import CACHE, FLOWC, fresh_project

NVIM = shutil.which("nvim")


@pytest.mark.skipif(NVIM is None and not os.environ.get("FLOWC_REQUIRE_NVIM"), reason="no nvim (scripts/e2e/lsp installs it)")
def test_neovim_reads_diagnostics_hover_and_definition(tmp_path: Path) -> None:
    assert NVIM, "nvim is required here"
    proj = fresh_project()
    file = proj / "broken.flow"
    out = tmp_path / "nvim.json"
    env = {**os.environ, "FLOWC": FLOWC, "FLOWC_NVIM_FILE": str(file), "FLOWC_NVIM_OUT": str(out), "XDG_CACHE_HOME": str(CACHE)}
    script = Path(__file__).with_name("nvim.lua")
    subprocess.run(
        [NVIM, "--headless", "--clean", "-n", "-c", f"luafile {script}"],
        env=env,
        timeout=60,
        check=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    got = json.loads(out.read_text())
    assert got["client"]
    text = file.read_text()
    line = text[: text.index("ordres")].count("\n")
    (unknown,) = [d for d in got["diagnostics"] if "ordres" in d["message"]]
    assert unknown["code"] == "FL702" and unknown["line"] == line and unknown["col"] == len("    read   ")
    assert "**sink `totals`**" in got["hover"]["contents"]["value"]
    assert got["definition"]["uri"] == file.resolve().as_uri()
    assert got["definition"]["range"]["start"]["line"] == got["sink_line"]
