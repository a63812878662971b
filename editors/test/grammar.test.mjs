// Tokenizes .flow files with the TextMate grammar, the way VS Code does
// (vscode-textmate + the oniguruma regex engine), and checks the scopes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import vsctm from 'vscode-textmate';
import oniguruma from 'vscode-oniguruma';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const grammarPath = path.join(root, 'editors', 'textmate', 'flow.tmLanguage.json');
const require = createRequire(import.meta.url);

const onigLib = (async () => {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  return {
    createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
    createOnigString: (s) => new oniguruma.OnigString(s),
  };
})();

async function loadGrammar(text) {
  const registry = new vsctm.Registry({
    onigLib,
    loadGrammar: async (scopeName) =>
      scopeName === 'source.flow' ? vsctm.parseRawGrammar(text, grammarPath) : null,
  });
  return registry.loadGrammar('source.flow');
}

/** Every line of a file as [{text, scopes}] tokens. */
function tokenize(grammar, source) {
  let stack = vsctm.INITIAL;
  return source.split(/\r?\n/).map((line) => {
    const r = grammar.tokenizeLine(line, stack);
    stack = r.ruleStack;
    return r.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), start: t.startIndex, scopes: t.scopes }));
  });
}

const has = (tok, prefix) => tok.scopes.some((s) => s === prefix || s.startsWith(prefix + '.'));

/** The token covering `needle` in the first line that contains `lineMark`. */
function find(lines, source, lineMark, needle) {
  const srcLines = source.split(/\r?\n/);
  const i = srcLines.findIndex((l) => l.includes(lineMark));
  if (i < 0) return { error: `no line contains ${JSON.stringify(lineMark)}` };
  const at = srcLines[i].indexOf(needle, srcLines[i].indexOf(lineMark));
  if (at < 0) return { error: `line ${i + 1} lacks ${JSON.stringify(needle)}` };
  const tok = lines[i].find((t) => t.start <= at && at < t.start + t.text.length);
  return { tok, line: i + 1 };
}

// [line containing, token text, scope it must carry]
const EXPECT = [
  ['# Fixture', '# Fixture', 'comment.line.number-sign.flow'],
  ['use "common', 'use', 'keyword.control.import.flow'],
  ['use "common', 'common/kinds.flow', 'string.quoted.double.flow'],
  ['kind audit_log', 'kind', 'keyword.declaration.kind.flow'],
  ['kind audit_log', 'audit_log', 'entity.name.type.kind.flow'],
  ['roles        sink', 'roles', 'keyword.other.statement.flow'],
  ['roles        sink', 'sink', 'support.constant.role.flow'],
  ['writes       append', 'ledger', 'keyword.other.clause.flow'],
  ['idempotency  none', 'none', 'constant.language.none.flow'],
  ['param        table', 'string', 'support.type.flow'],
  ['param        ttl', 'duration', 'support.type.flow'],
  ['param        ttl', '?', 'keyword.operator.optional.flow'],
  ['source raw_orders', 'source', 'keyword.declaration.source.flow'],
  ['source raw_orders', 'raw_orders', 'entity.name.section.flow'],
  ['source raw_orders', 'files', 'entity.name.type.kind.flow'],
  ['path      "lake', 'path', 'variable.other.property.flow'],
  ['path      "lake', 'lake/raw/', 'string.quoted.double.flow'],
  ['path      "lake', '{interval.start}', 'variable.other.placeholder.flow'],
  ['path      "lake', '\\{', 'constant.character.escape.flow'],
  ['path      "lake', '\\}', 'constant.character.escape.flow'],
  ['path      "lake', '{interval.date}', 'variable.other.placeholder.flow'],
  ['path      "lake', '%Y%m%d', 'constant.other.placeholder.format.flow'],
  ['path      "lake', '{interval.date:%Y}', 'invalid.illegal.placeholder.flow'],
  ['path      "lake', '\\"', 'constant.character.escape.flow'],
  ['path      "lake', '\\t', 'constant.character.escape.flow'],
  ['path      "lake', '\\u{1F600}', 'constant.character.escape.flow'],
  ['path      "lake', '{interval.strat}', 'invalid.illegal.placeholder.flow'],
  ['immutable', 'immutable', 'keyword.other.statement.flow'],
  ['fields    [order_id', '# trailing comment', 'comment.line.number-sign.flow'],
  ['fields    [order_id', '[', 'punctuation.section.brackets.flow'],
  ['url "https', '#anchor', 'string.quoted.double.flow'],
  ['pipeline orders_daily', 'pipeline', 'keyword.declaration.pipeline.flow'],
  ['pipeline orders_daily', 'orders_daily', 'entity.name.function.pipeline.flow'],
  ['schedule     "0 2', '0 2 * * *', 'string.quoted.double.flow'],
  ['start        2026', '2026-01-01', 'constant.numeric.date.flow'],
  ['retries      3', '3', 'constant.numeric.integer.flow'],
  ['retry_delay  1h30m', '1h30m', 'constant.numeric.duration.flow'],
  ['timeout      45s', '45s', 'constant.numeric.duration.flow'],
  ['catchup      false', 'false', 'constant.language.boolean.flow'],
  ['require      effectively_once', 'effectively_once', 'support.constant.guarantee.flow'],
  ['allow        FL204', 'FL204', 'constant.other.rule-code.flow'],
  ['secret       "warehouse', 'secret', 'keyword.other.statement.flow'],
  ['state        orders', 'state', 'keyword.other.statement.flow'],
  ['namespace    "jobs"', 'namespace', 'keyword.other.statement.flow'],
  ['resources    {', 'resources', 'keyword.other.statement.flow'],
  ['resources    {', '500m', 'string.quoted.double.flow'],
  ['allow        FL204', 'because', 'keyword.other.clause.flow'],
  ['task load_orders', 'task', 'keyword.declaration.task.flow'],
  ['read     raw_orders', 'read', 'keyword.other.statement.flow'],
  ['read     raw_orders', 'pinned', 'keyword.other.clause.flow'],
  ['read     raw_orders', 'listing', 'support.constant.pin.flow'],
  ['read     raw_orders', 'commit', 'keyword.other.clause.flow'],
  ['read     raw_orders', 'after_write', 'support.constant.commit-mode.flow'],
  ['key      (input', 'key', 'keyword.other.statement.flow'],
  ['key      (input', 'input', 'variable.language.flow'],
  ['key      (input', 'order_id', 'variable.other.member.flow'],
  ['key      (input', '=', 'keyword.operator.assignment.flow'],
  ['write    orders', 'upsert', 'support.constant.write-mode.flow'],
  ['write    orders', 'require', 'keyword.other.clause.flow'],
  ['write    orders', 'at_least_once', 'support.constant.guarantee.flow'],
  ['emit     alert', 'via', 'keyword.other.clause.flow'],
  ['emit     alert', 'idempotency_key', 'keyword.other.clause.flow'],
  ['emit     alert', 'hash', 'support.function.flow'],
  ['timeout  30min', '30min', 'invalid.illegal.numeric.flow'],
  ['on_ambiguous fail', 'fail', 'support.constant.on-ambiguous.flow'],
  ['run      image', 'run', 'keyword.other.statement.flow'],
  ['run      image', 'image', 'keyword.other.clause.flow'],
  ['run      image', 'command', 'keyword.other.clause.flow'],
  ['run      image', 'orders.load', 'string.quoted.double.flow'],
  ['ORDERS_MODE', 'ORDERS_MODE', 'variable.other.property.flow'],
];

function checkFixture(grammar) {
  const source = fs.readFileSync(path.join(here, 'fixtures', 'highlight.flow'), 'utf8');
  const lines = tokenize(grammar, source);
  const failures = [];
  for (const [mark, needle, scope] of EXPECT) {
    const { tok, line, error } = find(lines, source, mark, needle);
    if (error) failures.push(error);
    else if (!tok || !has(tok, scope))
      failures.push(`line ${line}: ${JSON.stringify(needle)} has ${JSON.stringify(tok?.scopes)}, expected ${scope}`);
  }
  return failures;
}

const STATEMENT_WORDS = /^\s*(read|write|key|emit|after|run|retries|retry_delay|timeout|require|schedule|start|timezone|immutable|identity|fields|primary_key)\b/;
const DURATION_AFTER = /^\s*(timeout|retry_delay)\s+([0-9][A-Za-z0-9]*)\s*(#.*)?$/;

/** Checks that hold for any valid .flow file: comments, strings, statement words, durations. */
function checkFile(grammar, file) {
  const source = fs.readFileSync(file, 'utf8');
  const lines = tokenize(grammar, source);
  const failures = [];
  const name = path.relative(root, file);
  const srcLines = source.split(/\r?\n/);
  let checked = 0;
  srcLines.forEach((text, i) => {
    const toks = lines[i];
    const at = (col) => toks.find((t) => t.start <= col && col < t.start + t.text.length);
    const trimmed = text.trimStart();
    if (trimmed.startsWith('#')) {
      checked++;
      if (!has(at(text.indexOf('#')), 'comment.line.number-sign.flow')) failures.push(`${name}:${i + 1}: comment line not a comment`);
      return;
    }
    const m = STATEMENT_WORDS.exec(text);
    if (m) {
      checked++;
      if (!has(at(text.indexOf(m[1])), 'keyword.other.statement.flow')) failures.push(`${name}:${i + 1}: \`${m[1]}\` not a keyword`);
    }
    const d = DURATION_AFTER.exec(text);
    if (d && /[dhms]$/.test(d[2])) {
      checked++;
      if (!has(at(text.indexOf(d[2], text.indexOf(d[1]) + d[1].length)), 'constant.numeric.duration.flow'))
        failures.push(`${name}:${i + 1}: \`${d[2]}\` not a duration`);
    }
    // The first string on a line that has no comment before it.
    const q = text.indexOf('"');
    if (q >= 0 && !text.slice(0, q).includes('#')) {
      checked++;
      if (!has(at(q + 1 < text.length ? q + 1 : q), 'string.quoted.double.flow')) failures.push(`${name}:${i + 1}: string not a string`);
    }
  });
  return { failures, checked };
}

function flowFiles() {
  const out = [];
  const walk = (dir) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.flow')) out.push(p);
    }
  };
  for (const d of ['examples', 'stdlib', 'templates', 'editors/test/fixtures']) walk(path.join(root, d));
  return out.sort();
}

test('the fixture tokens carry the expected scopes', async () => {
  const grammar = await loadGrammar(fs.readFileSync(grammarPath, 'utf8'));
  assert.deepEqual(checkFixture(grammar), []);
});

test('every .flow file in the repository highlights comments, strings, keywords and durations', async () => {
  const grammar = await loadGrammar(fs.readFileSync(grammarPath, 'utf8'));
  const files = flowFiles();
  assert.ok(files.length >= 2, `expected the fixture and the init template, found ${files}`);
  let checked = 0;
  const failures = [];
  for (const f of files) {
    const r = checkFile(grammar, f);
    checked += r.checked;
    failures.push(...r.failures);
  }
  assert.deepEqual(failures, []);
  assert.ok(checked > 50, `only ${checked} lines checked`);
});

test('the checks fail on a grammar without scopes', async () => {
  const empty = JSON.stringify({ scopeName: 'source.flow', patterns: [], repository: {} });
  const grammar = await loadGrammar(empty);
  assert.equal(checkFixture(grammar).length, EXPECT.length);
  const r = checkFile(grammar, path.join(here, 'fixtures', 'highlight.flow'));
  assert.ok(r.failures.length === r.checked && r.checked > 20, `${r.failures.length} of ${r.checked} failed`);
});

test('the VS Code manifest points at the grammar', () => {
  const dir = path.join(root, 'editors', 'vscode');
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const [grammar] = manifest.contributes.grammars;
  assert.equal(grammar.scopeName, 'source.flow');
  assert.equal(path.resolve(dir, grammar.path), grammarPath);
  const [language] = manifest.contributes.languages;
  assert.deepEqual(language.extensions, ['.flow']);
  const config = JSON.parse(fs.readFileSync(path.resolve(dir, language.configuration), 'utf8'));
  assert.equal(config.comments.lineComment, '#');
});
