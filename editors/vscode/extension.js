// Starts `flowc lsp` for .flow files: diagnostics, hover, definitions,
// references, completion, formatting, symbols, quick fixes and inlay hints
// all come from the server (see docs/editors.md).
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('flowc');
  const command = config.get('path') || 'flowc';
  const server = { command, args: ['lsp'], transport: TransportKind.stdio };
  const options = {
    documentSelector: [
      { scheme: 'file', language: 'flow' },
      { scheme: 'untitled', language: 'flow' },
    ],
    initializationOptions: { debounceMs: config.get('debounceMs') || 0 },
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.flow') },
  };
  client = new LanguageClient('flowc', 'flowc', server, options);
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
