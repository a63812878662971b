"""`flowc lsp` driven by a real client (pytest-lsp): every feature, each test failing without it."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest_lsp
from conftest import CACHE, FLOWC, ROOT
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient


def uri_of(path: Path) -> str:
    return path.resolve().as_uri()


def pos(text: str, needle: str, delta: int = 0) -> types.Position:
    """The position of `needle` (plus `delta` characters) in UTF-16 units, as the protocol counts."""
    at = text.index(needle) + delta
    line = text.count("\n", 0, at)
    start = text.rfind("\n", 0, at) + 1
    col = len(text[start:at].encode("utf-16-le")) // 2
    return types.Position(line=line, character=col)


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def diagnostics(
    client: LanguageClient, uri: str, until: Callable[[list[types.Diagnostic]], bool] = lambda _: True
) -> list[types.Diagnostic]:
    """The next findings published for `uri` (for which `until` holds: a check of an earlier
    edit may still be on its way)."""
    client.diagnostics.pop(uri, None)

    async def wait() -> list[types.Diagnostic]:
        while uri not in client.diagnostics or not until(list(client.diagnostics[uri])):
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return list(client.diagnostics[uri])

    return await asyncio.wait_for(wait(), timeout=20)


def open_doc(client: LanguageClient, path: Path, version: int = 1) -> tuple[str, str]:
    text = path.read_text()
    uri = uri_of(path)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="flow", version=version, text=text)
        )
    )
    return uri, text


def replace_all(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def check_json(path: Path) -> list[dict[str, object]]:
    out = subprocess.run([FLOWC, "check", "--format", "json", path.name], cwd=path.parent, capture_output=True, text=True)
    found: list[dict[str, object]] = json.loads(out.stdout)["diagnostics"]
    return [d for d in found if not d.get("suppressed")]


# ---- diagnostics ----


async def test_diagnostics_on_open_match_check(client: LanguageClient, project: Path) -> None:
    path = project / "good.flow"
    uri, text = open_doc(client, path)
    got = await diagnostics(client, uri)
    want = check_json(path)
    assert sorted((str(d.code), d.message.split("\nhelp: ")[0]) for d in got) == sorted(
        (str(w["code"]), str(w["message"])) for w in want
    )
    fl900 = [d for d in got if d.code == "FL900"]
    assert fl900 and all(d.severity == types.DiagnosticSeverity.Error and d.source == "flowc" for d in fl900)
    # Help and related spans, as `check` shows them.
    # (the help names the output's anomalies first, then the way out)
    assert all("\nhelp: " in d.message and "fix the clauses labelled above" in d.message.split("\nhelp: ", 1)[1]
               for d in fl900)
    related = [r for d in fl900 for r in d.related_information or []]
    assert any("(key_stable)" in r.message and r.location.range.start == pos(text, "interval.start)") for r in related), related
    spans = {(d.range.start.line + 1, d.range.start.character + 1) for d in got}
    assert {(int(w["span"]["line"]), int(w["span"]["column"])) for w in want} == spans  # type: ignore[index]


async def test_positions_are_utf16_after_non_ascii(client: LanguageClient, project: Path) -> None:
    uri, text = open_doc(client, project / "broken.flow")
    got = await diagnostics(client, uri)
    unknown = next(d for d in got if "ordres" in d.message)
    assert unknown.code == "FL702"
    assert unknown.range.start == pos(text, "ordres")
    assert unknown.range.end == pos(text, "ordres", 6)


async def test_diagnostics_on_incremental_change(client: LanguageClient, project: Path) -> None:
    uri, text = open_doc(client, project / "broken.flow")
    assert any("ordres" in d.message for d in await diagnostics(client, uri))
    start = pos(text, "ordres")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=start, end=types.Position(line=start.line, character=start.character + 6)),
                    text="orders",
                )
            ],
        )
    )
    after = await diagnostics(client, uri)
    assert not any("ordres" in d.message for d in after), after


async def test_save_rechecks_with_files_changed_on_disk(client: LanguageClient, project: Path) -> None:
    uri, _ = open_doc(client, project / "good.flow")
    assert not any(d.code == "FL702" for d in await diagnostics(client, uri))
    # The imported file (not open) loses `orders` on disk; saving re-checks.
    common = project / "common.flow"
    common.write_text(common.read_text().replace("source orders:", "source orders_v2:"))
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=doc(uri)))
    after = await diagnostics(client, uri)
    assert any(d.code == "FL702" and "orders" in d.message for d in after), after


async def test_change_to_a_used_file_rechecks_its_importers(client: LanguageClient, project: Path) -> None:
    good, _ = open_doc(client, project / "good.flow")
    assert not any(d.code == "FL702" for d in await diagnostics(client, good))
    common, text = open_doc(client, project / "common.flow")
    await diagnostics(client, common)
    replace_all(client, common, text.replace("source orders:", "source orders_v2:"), 2)
    after = await diagnostics(client, good, until=lambda ds: any(d.code == "FL702" for d in ds))
    assert any(d.code == "FL702" and "`orders`" in d.message for d in after), after


async def test_a_closed_file_has_its_findings_cleared(client: LanguageClient, project: Path) -> None:
    uri, _ = open_doc(client, project / "broken.flow")
    assert await diagnostics(client, uri)
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=doc(uri)))
    assert await diagnostics(client, uri) == []


# ---- hover ----


async def hover_text(client: LanguageClient, uri: str, at: types.Position) -> str:
    h = await client.text_document_hover_async(types.HoverParams(text_document=doc(uri), position=at))
    assert h is not None
    assert isinstance(h.contents, types.MarkupContent)
    return h.contents.value


async def test_hover_on_a_write_shows_guarantee_requirement_and_failing_clauses(client: LanguageClient, project: Path) -> None:
    uri, text = open_doc(client, project / "good.flow")
    await diagnostics(client, uri)
    v = await hover_text(client, uri, pos(text, "write  totals append", 2))
    assert "guarantee: `at_least_once`" in v, v
    assert "required: `effectively_once`" in v
    assert "`idempotent`" in v and "applies every attempt again" in v
    v = await hover_text(client, uri, pos(text, "write  totals upsert", 2))
    assert "`key_stable`" in v, v
    v = await hover_text(client, uri, pos(text, "emit   alerts", 2))
    assert v.startswith("**emit `alerts`**") and "guarantee: `at_least_once`" in v and "is untracked" in v, v


async def test_hover_on_a_declaration_shows_its_kinds_capabilities(client: LanguageClient, project: Path) -> None:
    uri, text = open_doc(client, project / "good.flow")
    await diagnostics(client, uri)
    v = await hover_text(client, uri, pos(text, "totals: postgres_table", 1))
    assert "**sink `totals`**: kind `postgres_table`" in v, v
    assert "roles:" in v and "writes:" in v and "upsert" in v


async def test_hover_on_an_allowed_code_shows_the_rules_summary(client: LanguageClient, project: Path) -> None:
    uri, text = open_doc(client, project / "good.flow")
    await diagnostics(client, uri)
    v = await hover_text(client, uri, pos(text, "FL207", 2))
    summary = subprocess.run([FLOWC, "rules"], capture_output=True, text=True).stdout
    line = next(ln for ln in summary.splitlines() if "FL207" in ln)
    assert v.startswith("**FL207**"), v
    assert any(word in v for word in line.split() if len(word) > 6), (v, line)


# ---- definition and references ----


async def definition(client: LanguageClient, uri: str, at: types.Position) -> types.Location:
    r = await client.text_document_definition_async(types.DefinitionParams(text_document=doc(uri), position=at))
    assert isinstance(r, types.Location), r
    return r


async def test_definition_of_a_source_a_task_and_a_use_path(client: LanguageClient, project: Path) -> None:
    uri, text = open_doc(client, project / "good.flow")
    await diagnostics(client, uri)
    common = project / "common.flow"
    loc = await definition(client, uri, pos(text, "read   orders", 8))
    assert loc.uri == uri_of(common)
    assert loc.range.start == pos(common.read_text(), "orders")
    loc = await definition(client, uri, pos(text, "after  load", 8))
    assert loc.uri == uri and loc.range.start == pos(text, "load {")
    loc = await definition(client, uri, pos(text, '"common.flow"', 3))
    assert loc.uri == uri_of(common) and loc.range.start == types.Position(line=0, character=0)
    loc = await definition(client, uri, pos(text, "write  totals upsert", 8))
    assert loc.range.start == pos(text, "totals: postgres")
    loc = await definition(client, uri, pos(text, "emit   alerts", 9))
    assert loc.uri == uri_of(common) and loc.range.start == pos(common.read_text(), "alerts")


async def test_definition_of_a_stdlib_kind_opens_a_read_only_copy(client: LanguageClient, project: Path) -> None:
    uri, text = open_doc(client, project / "good.flow")
    await diagnostics(client, uri)
    loc = await definition(client, uri, pos(text, "postgres_table", 3))
    path = Path(loc.uri.removeprefix("file://"))
    assert path.parent.parent == CACHE / "flowc" and path.name == "postgres.flow", loc.uri
    copy = path.read_text()
    assert copy == (ROOT / "stdlib" / "postgres.flow").read_text()
    assert not path.stat().st_mode & 0o222, "the copy is read-only"
    assert loc.range.start == pos(copy, "postgres_table")


async def test_references_of_a_sink_a_kind_and_a_task(client: LanguageClient, project: Path) -> None:
    uri, text = open_doc(client, project / "good.flow")
    await diagnostics(client, uri)
    at = pos(text, "totals: postgres")
    refs = await client.text_document_references_async(
        types.ReferenceParams(text_document=doc(uri), position=at, context=types.ReferenceContext(include_declaration=True))
    )
    assert refs is not None
    lines = sorted(r.range.start.line for r in refs)
    assert lines == [pos(text, "totals: p").line, pos(text, "totals upsert").line, pos(text, "totals append").line]
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc(uri), position=pos(text, "task load", 6), context=types.ReferenceContext(include_declaration=False)
        )
    )
    assert refs is not None and [r.range.start for r in refs] == [pos(text, "load\n    read")]
    # A kind: the declarations of that kind, in this file and the one it uses.
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc(uri),
            position=pos(text, "postgres_table", 2),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    assert refs is not None
    common = project / "common.flow"
    assert sorted((r.uri, r.range.start.line) for r in refs) == sorted(
        [(uri, pos(text, "postgres_table").line), (uri_of(common), pos(common.read_text(), "postgres_table").line)]
    )


# ---- completion ----


async def complete(client: LanguageClient, uri: str, text: str, version: int, at: types.Position) -> set[str]:
    replace_all(client, uri, text, version)
    r = await client.text_document_completion_async(types.CompletionParams(text_document=doc(uri), position=at))
    items = r.items if isinstance(r, types.CompletionList) else (r or [])
    return {i.label for i in items}


async def test_completion_offers_what_the_place_takes(client: LanguageClient, project: Path) -> None:
    uri, text = open_doc(client, project / "good.flow")
    await diagnostics(client, uri)
    # Rule codes after `allow`.
    t = text.replace("allow FL207", "allow FL2")
    assert {"FL207", "FL202", "FL101"} <= await complete(client, uri, t, 2, pos(t, "FL2 ", 3))
    # Modes the sink's kind offers after `write NAME`.
    t = text.replace("write  totals append", "write  totals ")
    got = await complete(client, uri, t, 3, pos(t, "write  totals \n", 14))
    assert {"upsert", "append"} <= got and "pinned" not in got, got
    # Pins the source's kind offers after `read NAME pinned`.
    t = text.replace("read   orders\n    write  totals append", "read   orders pinned \n    write  totals append")
    assert "snapshot" in await complete(client, uri, t, 4, pos(t, "pinned ", 7))
    # Declared names after `read`.
    t = text.replace("read   orders\n    write  totals append", "read   \n    write  totals append")
    got = await complete(client, uri, t, 5, pos(t, "read   \n", 7))
    assert "orders" in got and "totals" not in got, got
    # Fields from `fields` lines after `output.`.
    t = text.replace("read   orders\n    write  totals append", "read   orders\n    key    (output.)\n    write  totals append")
    got = await complete(client, uri, t, 6, pos(t, "output.)", 7))
    assert {"order_id", "amount_cents", "day"} <= got, got
    # Kinds after `sink NAME:`.
    t = text + "\nsink more: \n"
    got = await complete(client, uri, t, 7, pos(t, "more: \n", 6))
    assert "postgres_table" in got and "sqlite_table" in got, got
    # Properties and the kind's parameters inside a declaration.
    t = text.replace("  primary_key  day\n", "  primary_key  day\n  \n", 1)
    got = await complete(client, uri, t, 8, pos(t, "day\n  \n", 6))
    assert {"fields", "table", "primary_key"} <= got, got


# ---- formatting, symbols, code actions, inlay hints ----


async def test_formatting_is_flowc_fmt(client: LanguageClient, project: Path) -> None:
    path = project / "good.flow"
    messy = path.read_text().replace("    read   orders\n    key", "read orders\n        key")
    path.write_text(messy)
    uri, _ = open_doc(client, path)
    edits = await client.text_document_formatting_async(
        types.DocumentFormattingParams(text_document=doc(uri), options=types.FormattingOptions(tab_size=2, insert_spaces=True))
    )
    assert edits and len(edits) == 1
    subprocess.run([FLOWC, "fmt", path.name], cwd=project, check=True)
    assert edits[0].new_text == path.read_text() != messy


async def test_document_symbols(client: LanguageClient, project: Path) -> None:
    uri, _ = open_doc(client, project / "good.flow")
    syms = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(uri)))
    assert syms is not None
    top = [(s.name, s.kind) for s in syms if isinstance(s, types.DocumentSymbol)]
    assert top == [("totals", types.SymbolKind.Variable), ("daily", types.SymbolKind.Module)]
    pipeline = syms[1]
    assert isinstance(pipeline, types.DocumentSymbol)
    assert [c.name for c in pipeline.children or []] == ["load", "again"]


async def test_code_action_applies_the_did_you_mean(client: LanguageClient, project: Path) -> None:
    uri, text = open_doc(client, project / "broken.flow")
    found = await diagnostics(client, uri)
    unknown = [d for d in found if d.code == "FL702"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(text_document=doc(uri), range=unknown[0].range, context=types.CodeActionContext(diagnostics=found))
    )
    assert actions is not None
    (fix,) = [a for a in actions if isinstance(a, types.CodeAction)]
    assert fix.kind == types.CodeActionKind.QuickFix and fix.title == "replace `ordres` with `orders`"
    assert fix.edit is not None and fix.edit.changes is not None
    (edit,) = fix.edit.changes[uri]
    assert edit.new_text == "orders" and edit.range == unknown[0].range


async def test_inlay_hints_show_each_outputs_guarantee_at_the_end_of_its_line(client: LanguageClient, project: Path) -> None:
    uri, text = open_doc(client, project / "good.flow")
    await diagnostics(client, uri)
    end = types.Position(line=text.count("\n") + 1, character=0)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=doc(uri), range=types.Range(start=types.Position(line=0, character=0), end=end))
    )
    assert hints is not None
    got = [(h.position, h.label) for h in hints]
    assert got == [
        (pos(text, "write  totals upsert", 20), "⇒ at_least_once"),
        (pos(text, "write  totals append", 20), "⇒ at_least_once"),
        (pos(text, "emit   alerts", 13), "⇒ at_least_once"),
    ]


# ---- robustness ----


async def test_fuzz_corpus_as_edits_never_crashes_the_server(client: LanguageClient, project: Path) -> None:
    corpus = sorted((ROOT / "fuzz" / "corpus" / "check").iterdir())
    sample = random.Random(7).sample(corpus, min(80, len(corpus)))
    uri, _ = open_doc(client, project / "good.flow")
    await diagnostics(client, uri)
    for n, f in enumerate(sample, start=2):
        text = f.read_bytes().decode("utf-8", errors="replace")
        replace_all(client, uri, text, n)
        # A request after each edit: answered, so the server is alive and caught up.
        await client.text_document_hover_async(
            types.HoverParams(text_document=doc(uri), position=types.Position(line=0, character=1))
        )
        await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(uri)))
        await client.text_document_completion_async(
            types.CompletionParams(text_document=doc(uri), position=types.Position(line=1, character=3))
        )
    replace_all(client, uri, (project / "broken.flow").read_text(), 999)
    assert any(d.code == "FL702" for d in await diagnostics(client, uri))


# ---- debounce ----


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[FLOWC, "lsp"], server_env={**os.environ, "XDG_CACHE_HOME": str(CACHE)}),
)
async def slow_client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    params = types.InitializeParams(capabilities=types.ClientCapabilities(), initialization_options={"debounceMs": 600})
    await lsp_client.initialize_session(params)
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_debounce_ms_waits_for_quiet_and_checks_a_burst_once(slow_client: LanguageClient, project: Path) -> None:
    client = slow_client
    uri, text = open_doc(client, project / "broken.flow")
    await diagnostics(client, uri)
    client.diagnostics.pop(uri, None)
    start = time.monotonic()
    for v in range(2, 6):
        replace_all(client, uri, text + "#" * v + "\n", v)
    await asyncio.sleep(0.3)
    assert uri not in client.diagnostics, "nothing is published before the quiet period"
    got = await diagnostics(client, uri)
    assert time.monotonic() - start >= 0.6
    assert got
    client.diagnostics.pop(uri, None)
    await asyncio.sleep(0.8)
    assert uri not in client.diagnostics, "the burst of four edits is checked once"
