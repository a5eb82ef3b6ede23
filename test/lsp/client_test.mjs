// `opscan lsp` driven by the client library VS Code uses
// (vscode-jsonrpc + vscode-languageserver-protocol), each test in a fresh
// workspace with the scenario's kernel file (test/lsp/scenario). Run by
// CTest: node --test test/lsp/client_test.mjs (environment: scenario.mjs).
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';

import { Session, applyEdits, loadClientLibraries, withTimeout, writeWorkspace } from './lsp_session.mjs';
import { assertProblems, environment, expected, expectedProblems, fixAll, fixedText, originalText, scenarioDir } from './scenario.mjs';

const env = environment();
const { rpc } = loadClientLibraries(env.npmDir);

// What each test started, ended after it whatever happened.
let cleanups = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
});

async function start({ encodings, documentChanges = true } = {}) {
  const workspace = writeWorkspace({ sourceDir: env.sourceDir, scenarioDir });
  cleanups.push(workspace.remove);
  const capabilities = { workspace: { workspaceEdit: { documentChanges } } };
  if (encodings) capabilities.general = { positionEncodings: encodings };
  const session = await Session.start({ binary: env.binary, npmDir: env.npmDir, capabilities, initializationOptions: { debounceMs: 10 } });
  cleanups.push(() => session.kill());
  return { session, workspace, uri: workspace.uri };
}

async function closeCleanly(session) {
  const { shutdownResult, code, signal } = await session.close();
  assert.equal(shutdownResult, null, 'shutdown answers null');
  assert.equal(signal, null, `the server was killed by ${signal}; stderr: ${session.stderr}`);
  assert.equal(code, 0, `exit code after shutdown and exit; stderr: ${session.stderr}`);
}

const at = (line, character) => ({ line, character });
const insert = (position, newText) => ({ range: { start: position, end: position }, newText });
const remove = (start, end) => ({ range: { start, end }, newText: '' });

test('initialize announces the capabilities, in UTF-16 unless the client offers UTF-8', async () => {
  const { session } = await start({ encodings: ['utf-16'] });
  assert.deepEqual(session.initializeResult.capabilities, {
    positionEncoding: 'utf-16',
    textDocumentSync: { openClose: true, change: 2, save: { includeText: false } },
    codeActionProvider: { codeActionKinds: ['quickfix', 'refactor.rewrite'] },
    hoverProvider: true,
  });
  assert.equal(session.initializeResult.serverInfo.name, 'opscan');
  await closeCleanly(session);
});

test('the quick fixes clear every problem and leave the expected text', async () => {
  const { session, uri, workspace } = await start();
  await session.open(uri, workspace.text);
  assertProblems(await session.diagnostics(uri, 1), expectedProblems(originalText, 'utf-16'));
  const fixed = await fixAll(session, uri);
  assert.deepEqual([...fixed].sort(), expected.problems.map((p) => p.code).sort(), 'one fix per problem');
  assert.equal(session.text(uri), fixedText);

  // The kernels are valid now: hovering a kernel's name shows its schema.
  const hover = await session.request('textDocument/hover', { textDocument: { uri }, position: expected.hover.position });
  assert.ok(hover, 'a hover on the kernel name');
  assert.equal(hover.contents.kind, 'markdown');
  assert.ok(hover.contents.value.includes(expected.hover.schema), `the schema in the hover:\n${hover.contents.value}`);
  // On the annotation's line too.
  const onAnnotation = await session.request('textDocument/hover', {
    textDocument: { uri },
    position: at(expected.hover.position.line - 1, 3),
  });
  assert.ok(onAnnotation?.contents.value.includes(expected.hover.schema), 'a hover on the OPSCAN_KERNEL line');
  // And nothing on a comment.
  assert.equal(await session.request('textDocument/hover', { textDocument: { uri }, position: at(0, 3) }), null);
  await closeCleanly(session);
});

test('without documentChanges, quick fixes are plain changes', async () => {
  const { session, uri, workspace } = await start({ documentChanges: false });
  await session.open(uri, workspace.text);
  const [problem] = await session.diagnostics(uri, 1);
  const [action] = await session.request('textDocument/codeAction', {
    textDocument: { uri },
    range: problem.range,
    context: { diagnostics: [problem] },
  });
  assert.equal(action.edit.documentChanges, undefined);
  assert.deepEqual(Object.keys(action.edit.changes), [uri]);
  assert.equal(await fixAll(session, uri).then((f) => f.length), expected.problems.length);
  assert.equal(session.text(uri), fixedText);
  await closeCleanly(session);
});

// Incremental edits across lines and around non-ASCII text, then the
// positions the server publishes, then its quick fixes on the edited text.
async function editAroundNonAscii(encoding) {
  const { session, uri, workspace } = await start({ encodings: encoding === 'utf-8' ? ['utf-8', 'utf-16'] : ['utf-16'] });
  assert.equal(session.encoding, encoding);
  await session.open(uri, workspace.text);
  await session.diagnostics(uri, 1);
  const width = (s) => (encoding === 'utf-16' ? s.length : Buffer.byteLength(s, 'utf8'));
  const line = (text) => originalText.split('\n').findIndex((l) => l.includes(text));
  const scaleLine = line('Tensor& scale_out(');
  const mulAnnotation = line('"lsp::mul.out"');
  const edits = [
    // A non-ASCII comment before the first problem's column...
    [insert(at(scaleLine, 0), '/*𝄞*/')],
    // ...a new non-ASCII line before the second problem's kernel, and a
    // non-ASCII prefix on its declaration (one didChange, two edits).
    [insert(at(mulAnnotation, 0), '// déjà vu 𝄞\n'), insert(at(mulAnnotation + 2, 0), `/* é𝄞 */ `)],
    // Lines inserted, then deleted across lines (one left).
    [insert(at(2, 0), '// first\n// second\n// third\n')],
    [remove(at(2, width('// first')), at(4, width('// third')))],
    // A deletion inside the non-ASCII prefix: "/* é𝄞 */ " -> "/* 𝄞 */ ".
    [remove(at(mulAnnotation + 3, width('/* ')), at(mulAnnotation + 3, width('/* é')))],
  ];
  for (const change of edits) await session.change(uri, change);
  const text = session.text(uri);
  assert.ok(text.includes(`// first\n${originalText.split('\n')[2]}\n`), 'the cross-line deletion left one line');
  assert.ok(text.includes('/* 𝄞 */ Tensor& mul_out('), 'the deletion inside the non-ASCII prefix');
  const version = session.version(uri);
  assertProblems(await session.diagnostics(uri, version), expectedProblems(text, encoding));

  // The fixes, computed by the server on its copy of the edited text, land
  // where the same fixes land on kernels.fixed.cpp with the same edits.
  await fixAll(session, uri);
  let want = fixedText;
  for (const change of edits) for (const e of change) want = applyEdits(want, [e], encoding);
  assert.equal(session.text(uri), want);
  await closeCleanly(session);
}

test('incremental edits around non-ASCII text: exact UTF-16 positions', () => editAroundNonAscii('utf-16'));
test('incremental edits around non-ASCII text: exact UTF-8 positions when UTF-8 is offered', () => editAroundNonAscii('utf-8'));

test('cancelled and outdated requests are answered, and the server keeps serving', async () => {
  const { session, uri, workspace } = await start();
  await session.open(uri, workspace.text);
  const [problem] = await session.diagnostics(uri, 1);
  const codeAction = (token) =>
    session
      .request('textDocument/codeAction', { textDocument: { uri }, range: problem.range, context: { diagnostics: [] } }, token)
      .then((result) => ({ result }), (error) => ({ error }));
  const outcomes = [];
  for (let round = 0; round < 5; ++round) {
    // A code action asked right after an edit, then cancelled at once: the
    // server answers it (cancelled, or with actions if it was faster).
    await session.change(uri, [insert(at(0, 2), ' ')]);
    const source = new rpc.CancellationTokenSource();
    const cancelled = codeAction(source.token);
    source.cancel();
    // A code action whose document changes while it waits.
    const outdated = codeAction();
    await session.change(uri, [remove(at(0, 2), at(0, 3))]);
    for (const [what, outcome, allowed] of [
      ['cancelled', await cancelled, [-32800, -32801]],
      ['outdated', await outdated, [-32801]],
    ]) {
      if (outcome.error) {
        assert.ok(outcome.error instanceof rpc.ResponseError, `${what}: ${outcome.error}`);
        assert.ok(allowed.includes(outcome.error.code), `${what}: error ${outcome.error.code} ${outcome.error.message}`);
        outcomes.push(outcome.error.code);
      } else {
        assert.ok(Array.isArray(outcome.result), `${what}: an array of actions`);
        outcomes.push('answered');
      }
    }
  }
  // Still serving: the latest version is analysed and a request answered.
  assertProblems(await session.diagnostics(uri, session.version(uri)), expectedProblems(originalText, 'utf-16'));
  assert.ok(Array.isArray((await codeAction()).result), 'a code action after the cancellations');
  console.log(`cancellation outcomes: ${outcomes.join(' ')}`);
  await closeCleanly(session);
});

test('a malformed message is answered with a parse error, and the next request still answered', async () => {
  const { session, uri, workspace } = await start();
  await session.open(uri, workspace.text);
  await session.diagnostics(uri, 1);
  await session.writeRaw('Content-Length: 5\r\n\r\n{bad}');
  const parseError = () => session.raw.find((m) => m.id === null && m.error?.code === -32700);
  await withTimeout(
    new Promise((resolve) => {
      const poll = setInterval(() => parseError() && (clearInterval(poll), resolve()), 10);
    }),
    session.timeoutMs,
    'the parse error (-32700)',
  );
  const hover = await session.request('textDocument/hover', { textDocument: { uri }, position: at(0, 0) });
  assert.equal(hover, null, 'the request after the malformed message is answered');
  await closeCleanly(session);
});

test('exit without shutdown ends the server with exit code 1', async () => {
  const { session } = await start();
  await session.notify('exit');
  const { code } = await withTimeout(session.exited, session.timeoutMs, 'the server to exit');
  assert.equal(code, 1);
});
