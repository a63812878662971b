#!/usr/bin/env python3
"""The Neovim set-up of docs/editors.md, run as written: its `init.lua` and
`ftplugin/flow.lua` blocks go into a fresh configuration folder, a `.flow`
file with a mistake is opened headless, and a `flowc` client must attach and
publish the finding. On Neovim 0.7 the same files without the
`vim.g.do_filetype_lua = 1` line must attach no client (the line the docs
say 0.7 needs). Run by scripts/e2e/editors with FLOWC set to the binary.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "editors.md"

PROBE = r"""
local out = assert(os.getenv("FLOWC_NVIM_OUT"))
local wait = tonumber(os.getenv("FLOWC_NVIM_WAIT") or "15000")
local buf = vim.api.nvim_get_current_buf()
local function clients()
  local list = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buf }) or vim.lsp.buf_get_clients(buf)
  local names = {}
  for _, c in pairs(list) do
    table.insert(names, c.name)
  end
  return names
end
vim.wait(wait, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)
local codes = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local code = d.code
  if code == nil and d.user_data and d.user_data.lsp then
    code = d.user_data.lsp.code
  end
  table.insert(codes, code or "")
end
local v = vim.version()
local f = assert(io.open(out, "w"))
f:write(vim.fn.json_encode({
  version = string.format("%d.%d.%d", v.major, v.minor, v.patch),
  filetype = vim.bo[buf].filetype,
  clients = clients(),
  codes = codes,
}))
f:close()
vim.cmd("qa!")
"""

BROKEN = """source orders: postgres_table {
  table  "shop.orders"
  mutable
  pin    snapshot
}

pipeline daily {
  schedule "0 2 * * *"
  task t {
    read   ordres
  }
}
"""


def lua_blocks(text: str) -> dict[str, str]:
    """The ```lua blocks of the docs, by the path their first line names."""
    blocks = {}
    for body in re.findall(r"```lua\n(.*?)```", text, flags=re.S):
        first = body.splitlines()[0]
        m = re.fullmatch(r"-- ~/\.config/nvim/(\S+)", first.strip())
        if m:
            blocks[m.group(1)] = body
    return blocks


def run(flowc: str, files: dict[str, str], wait_ms: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for rel, body in files.items():
            p = t / "config" / "nvim" / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(body)
        bindir = t / "bin"
        bindir.mkdir()
        (bindir / "flowc").symlink_to(flowc)
        proj = t / "proj"
        (proj / ".git").mkdir(parents=True)
        (proj / "broken.flow").write_text(BROKEN)
        (t / "probe.lua").write_text(PROBE)
        out = t / "out.json"
        env = {
            **os.environ,
            "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
            "XDG_CONFIG_HOME": str(t / "config"),
            "XDG_DATA_HOME": str(t / "data"),
            "XDG_STATE_HOME": str(t / "state"),
            "XDG_CACHE_HOME": str(t / "cache"),
            "FLOWC_NVIM_OUT": str(out),
            "FLOWC_NVIM_WAIT": str(wait_ms),
        }
        subprocess.run(
            ["nvim", "--headless", "-n", "-i", "NONE", "broken.flow", "-c", f"luafile {t / 'probe.lua'}"],
            cwd=proj,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
            check=True,
        )
        got: dict[str, object] = json.loads(out.read_text())
        return got


def main() -> int:
    flowc = os.environ.get("FLOWC") or str(ROOT / "target" / "debug" / "flowc")
    blocks = lua_blocks(DOCS.read_text())
    need = {"init.lua", "ftplugin/flow.lua"}
    missing = need - set(blocks)
    assert not missing, f"docs/editors.md has no block for {sorted(missing)}"
    passed = 0

    got = run(flowc, blocks, 15000)
    version = str(got["version"])
    print(f"Neovim {version}: filetype {got['filetype']!r}, clients {got['clients']}, codes {got['codes']}")
    assert got["filetype"] == "flow", got
    assert got["clients"] == ["flowc"], got
    assert "FL702" in got["codes"], got  # `ordres` is unknown
    passed += 1

    major, minor = (int(x) for x in version.split(".")[:2])
    if (major, minor) < (0, 8):
        # The near miss: the same files without the line 0.7 needs.
        without = dict(blocks)
        without["init.lua"] = "\n".join(
            line for line in blocks["init.lua"].splitlines() if "do_filetype_lua" not in line
        )
        assert without["init.lua"] != blocks["init.lua"]
        got = run(flowc, without, 2000)
        print(f"Neovim {version} without do_filetype_lua: filetype {got['filetype']!r}, clients {got['clients']}")
        assert got["filetype"] != "flow" and got["clients"] == [], got
        passed += 1
    print(f"{passed} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
