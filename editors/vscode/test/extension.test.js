// The extension's wiring, with `vscode` and the language client stood in
// for (VS Code itself cannot run here): activation starts `flowc lsp` (or
// `flowc.path`) for .flow documents and stops it on deactivation.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const Module = require('node:module');
const path = require('node:path');

function load(settings) {
  const made = [];
  const fakes = {
    vscode: {
      workspace: {
        getConfiguration: (section) => {
          assert.equal(section, 'flowc');
          return { get: (k) => settings[k] };
        },
        createFileSystemWatcher: (glob) => ({ glob }),
      },
    },
    'vscode-languageclient/node': {
      TransportKind: { stdio: 0 },
      LanguageClient: class {
        constructor(id, name, server, options) {
          Object.assign(this, { id, name, server, options, started: 0, stopped: 0 });
          made.push(this);
        }
        start() { this.started += 1; return Promise.resolve(); }
        stop() { this.stopped += 1; return Promise.resolve(); }
        dispose() {}
      },
    },
  };
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request in fakes ? request : resolve.call(this, request, ...rest);
  };
  for (const [name, exports] of Object.entries(fakes)) {
    require.cache[name] = { id: name, filename: name, loaded: true, exports };
  }
  const file = path.join(__dirname, '..', 'extension.js');
  delete require.cache[require.resolve(file)];
  const ext = require(file);
  Module._resolveFilename = resolve;
  return { ext, made };
}

test('activation starts flowc lsp for .flow files', async () => {
  const { ext, made } = load({});
  const context = { subscriptions: [] };
  await ext.activate(context);
  assert.equal(made.length, 1);
  const c = made[0];
  assert.deepEqual([c.server.command, c.server.args], ['flowc', ['lsp']]);
  assert.deepEqual(c.options.documentSelector.map((s) => s.language), ['flow', 'flow']);
  assert.equal(c.options.synchronize.fileEvents.glob, '**/*.flow');
  assert.equal(c.started, 1);
  assert.ok(context.subscriptions.includes(c));
  await ext.deactivate();
  assert.equal(c.stopped, 1);
});

test('flowc.path and flowc.debounceMs are honoured', async () => {
  const { ext, made } = load({ path: '/opt/flowc/bin/flowc', debounceMs: 40 });
  await ext.activate({ subscriptions: [] });
  assert.equal(made[0].server.command, '/opt/flowc/bin/flowc');
  assert.deepEqual(made[0].options.initializationOptions, { debounceMs: 40 });
});

test('the manifest activates on flow files and runs extension.js', () => {
  const m = require('../package.json');
  assert.deepEqual(m.activationEvents, ['onLanguage:flow']);
  assert.equal(m.main, './extension.js');
  assert.equal(m.dependencies['vscode-languageclient'], '9.0.1');
});
