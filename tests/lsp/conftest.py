"""A real LSP client (pytest-lsp) connected to `flowc lsp`, in a project copied to a temporary folder."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(__file__).resolve().parents[2]
FLOWC = os.environ.get("FLOWC", str(ROOT / "target" / "debug" / "flowc"))
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# One project folder for the whole session: the server and the tests share it.
WORK = Path(os.environ.get("FLOWC_LSP_WORK", "/tmp/flowc-lsp-tests")) / str(os.getpid())
CACHE = WORK / "cache"


def fresh_project() -> Path:
    """The fixture files in a clean project folder (with a `.git` marker: its project root)."""
    proj = WORK / "proj"
    if proj.exists():
        shutil.rmtree(proj)
    proj.mkdir(parents=True)
    (proj / ".git").mkdir()
    for f in FIXTURES.iterdir():
        shutil.copy(f, proj / f.name)
    return proj


def make_writable(path: Path) -> None:
    for p in path.rglob("*"):
        p.chmod(p.stat().st_mode | stat.S_IWUSR)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[FLOWC, "lsp"], server_env={**os.environ, "XDG_CACHE_HOME": str(CACHE)}),
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    params = types.InitializeParams(capabilities=types.ClientCapabilities())
    await lsp_client.initialize_session(params)
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest.fixture
def project() -> Path:
    return fresh_project()
