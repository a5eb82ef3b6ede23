// Starts `opscan lsp` for C and C++ files. It runs beside clangd: each
// server publishes its own diagnostics, and VS Code shows both.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('opscan');
  const args = ['lsp'];
  const dir = config.get('compileCommandsDir');
  if (dir) args.push('--compile-commands-dir', dir);
  client = new LanguageClient(
    'opscan', 'opscan',
    { command: config.get('path'), args },
    { documentSelector: [{ scheme: 'file', language: 'cpp' }, { scheme: 'file', language: 'c' }] });
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
