// `opscan lsp` driven by the client library VS Code uses
// (vscode-jsonrpc + vscode-languageserver-protocol), each test in a fresh
// workspace with the scenario's kernel file (test/lsp/scenario). Run by
// CTest: node --test test/lsp/client_test.mjs (environment: scenario.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

test('"Make this an operator" annotates a kernel-shaped function, which then scans clean', async () => {
  const { session, uri } = await start();
  // The fixed scenario plus a function with a kernel's shape and no annotation.
  const declaration = 'Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);';
  const text = fixedText.replace('} // namespace lsp_scenario', `${declaration}\n} // namespace lsp_scenario`);
  await session.open(uri, text);
  assert.deepEqual(await session.diagnostics(uri, 1), [], 'no problems before');
  const line = text.split('\n').indexOf(declaration);
  const actions = await session.request('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: at(line, 10), end: at(line, 10) },
    context: { diagnostics: [] },
  });
  const make = actions.filter((a) => a.title.startsWith('Make this an operator'));
  assert.equal(make.length, 1, `one "Make this an operator" action: ${JSON.stringify(actions)}`);
  assert.equal(make[0].title, 'Make this an operator: OPSCAN_KERNEL("lsp_scenario::relu.out")');
  const edits = make[0].edit.documentChanges[0].edits;
  await session.change(uri, [...edits].reverse());
  assert.deepEqual(await session.diagnostics(uri, session.version(uri)), [], 'the new kernel scans clean');
  assert.equal(
    session.text(uri),
    fixedText.replace('} // namespace lsp_scenario', `OPSCAN_KERNEL("lsp_scenario::relu.out")\n${declaration}\n} // namespace lsp_scenario`),
  );
  // Offered only where a function is: not on a comment line, not twice.
  const elsewhere = await session.request('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: at(0, 0), end: at(0, 0) },
    context: { diagnostics: [] },
  });
  assert.deepEqual(elsewhere, []);
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

// Polls the server's messages until one matches (bounded by the session's limit).
function waitForRaw(session, matches, what) {
  return withTimeout(
    new Promise((resolve) => {
      const poll = setInterval(() => {
        const found = session.raw.filter(matches);
        if (found.length > 0) (clearInterval(poll), resolve(found));
      }, 10);
    }),
    session.timeoutMs,
    what,
  );
}

// Issue 23: a message nested 200,000 deep crashed the server (SIGSEGV) on
// the stack. It is refused (-32600, unparsed) and serving goes on.
test('a message nested far too deep is refused, and the server keeps serving', async () => {
  const { session, uri, workspace } = await start();
  await session.open(uri, workspace.text);
  const deep = '['.repeat(200000) + ']'.repeat(200000);
  for (const body of [
    `{"jsonrpc":"2.0","method":"foo","params":${deep}}`,
    `{"jsonrpc":"2.0","id":${deep},"method":"shutdown"}`,
  ]) {
    await session.writeRaw(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  const refused = (m) => m.id === null && m.error?.code === -32600 && /deeper than/.test(m.error.message);
  await waitForRaw(session, (m) => refused(m) && session.raw.filter(refused).length === 2, 'two refusals (-32600)');
  const hover = await session.request('textDocument/hover', { textDocument: { uri }, position: at(0, 0) });
  assert.equal(hover, null, 'the request after the deep messages is answered');
  await closeCleanly(session);
});

// Issue 23: one bad header line (with a valid Content-Length) left its body
// to be read as the next header, and no message was read again: requests,
// shutdown and exit went unanswered until the input ended.
test('a message with a malformed header is answered with a parse error, and the next messages are read', async () => {
  const { session, uri, workspace } = await start();
  await session.open(uri, workspace.text);
  await session.writeRaw('Content-Length: 2\r\nBogus header\r\n\r\n{}');
  await session.writeRaw('Content-Length: abc\r\n\r\n{"jsonrpc":"2.0","method":"x"}');
  await waitForRaw(session, (m) => m.id === null && m.error?.code === -32700 && /Content-Length/.test(m.error.message), 'the parse errors (-32700)');
  const hover = await session.request('textDocument/hover', { textDocument: { uri }, position: at(0, 0) });
  assert.equal(hover, null, 'the request after the malformed headers is answered');
  await closeCleanly(session);
});

// Issue 23: each edit of a didChange made a line index of the whole text:
// 100,000 edits of a 1 MB document kept the server (shutdown and exit too)
// busy for two minutes.
test('one didChange of 100,000 edits to a 1 MB document is applied exactly, and the server answers at once', async () => {
  const { session, uri } = await start();
  const lines = [];
  for (let i = 0; i < 13000; ++i) lines.push(`// line ${i}: out[i] = self[i] * other[i] + alpha * bias[i];\n`);
  await session.open(uri, lines.join(''));
  const edits = [];
  for (let i = 0; i < 100000; ++i) edits.push(insert(at(i % 13000, 0), 'a'));
  await session.notify('textDocument/didChange', {
    textDocument: { uri, version: 2 },
    contentChanges: edits.map((e) => ({ range: e.range, text: e.newText })),
  });
  await session.diagnostics(uri, 2);
  const hover = await session.request('textDocument/hover', { textDocument: { uri }, position: at(12999, 0) });
  assert.equal(hover, null);
  await closeCleanly(session);
});

// Issue 23: every analysis sent the worker the text of every other open
// document (400 open files of 100 KB: the last one's first diagnostics
// after 265 s). Only texts that differ from their files are sent: an
// unsaved header still counts, and 20 open files of 1 MB as saved cost an
// analysis nothing (the bytes the worker reads, from /proc/PID/io).
test('an analysis is sent the unsaved texts only, and still uses them', async () => {
  const { session, workspace } = await start();
  const file = (name) => path.join(workspace.dir, name);
  const uriOf = (name) => `file://${file(name)}`;
  fs.writeFileSync(file('decl.h'), 'int declared_on_disk();\n');
  await session.open(uriOf('decl.h'), 'int declared_on_disk();\nint declared_unsaved();\n');
  const user = '#include "decl.h"\nstatic int used = declared_unsaved();\n';
  fs.writeFileSync(file('user.cpp'), user);
  await session.open(uriOf('user.cpp'), user);
  const clangErrors = (diagnostics) => diagnostics.filter((d) => d.code === 'opscan-clang-error');
  assert.deepEqual(clangErrors(await session.diagnostics(uriOf('user.cpp'), 1)), [], 'the unsaved header is parsed');
  const big = '// a line of a large file that is open in the editor, and saved as it is\n'.repeat(14000);
  for (let i = 0; i < 20; ++i) {
    fs.writeFileSync(file(`big-${i}.cpp`), big);
    await session.open(uriOf(`big-${i}.cpp`), big);
    await session.diagnostics(uriOf(`big-${i}.cpp`), 1);
  }
  const worker = session.processes().find((pid) => pid !== session.pid);
  const readBytes = () => Number(/rchar: (\d+)/.exec(fs.readFileSync(`/proc/${worker}/io`, 'utf8'))[1]);
  const before = readBytes();
  const version = await session.change(uriOf('user.cpp'), [insert(at(2, 0), '// edited\n')]);
  assert.deepEqual(clangErrors(await session.diagnostics(uriOf('user.cpp'), version)), [], 'the unsaved header is still parsed');
  const read = readBytes() - before;
  assert.ok(read < 5e6, `the worker read ${read} bytes for one analysis of a small file (20 MB of saved files are open)`);
  await closeCleanly(session);
});

test('exit without shutdown ends the server with exit code 1', async () => {
  const { session } = await start();
  await session.notify('exit');
  const { code } = await withTimeout(session.exited, session.timeoutMs, 'the server to exit');
  assert.equal(code, 1);
});

// ---- analyses that crash or never end (issue 23) --------------------------
// Real inputs that crash or hang libclang 14 whatever the compiler options:
// a chain of 100,000 `!` overflows its parser's stack (SIGSEGV), and an
// #include of a named pipe nobody writes never ends. Each server gets a
// TMPDIR of its own, to see what is left there.

function privateTmpdir() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opscan-lsp-tmpdir-'));
  cleanups.push(() => fs.rmSync(tmp, { recursive: true, force: true }));
  return tmp;
}

async function startIn(tmp, initializationOptions, extra = {}) {
  const workspace = writeWorkspace({ sourceDir: env.sourceDir, scenarioDir });
  cleanups.push(workspace.remove);
  const session = await Session.start({
    binary: env.binary,
    npmDir: env.npmDir,
    initializationOptions: { debounceMs: 10, ...initializationOptions },
    env: { ...process.env, TMPDIR: tmp },
    timeoutMs: 30000,
    ...extra,
  });
  cleanups.push(() => session.kill());
  return { session, workspace };
}

const logs = (session) => session.raw.filter((m) => m.method === 'window/logMessage').map((m) => m.params.message);

test('a document that crashes libclang gets a diagnostic, the others are served, and TMPDIR is left empty', async () => {
  const tmp = privateTmpdir();
  const { session, workspace } = await startIn(tmp, {});
  const crashUri = `file://${workspace.dir}/crash.cpp`;
  await session.open(crashUri, `int v = ${'!'.repeat(100000)}1;\n`);
  await session.open(workspace.uri, workspace.text);
  const crashed = await session.diagnostics(crashUri, 1);
  assert.equal(crashed.length, 1, JSON.stringify(crashed));
  assert.equal(crashed[0].code, 'opscan-analysis-crashed');
  assert.equal(crashed[0].severity, 1);
  assert.deepEqual(crashed[0].range.start, at(0, 0));
  assert.match(crashed[0].message, /killed by signal SIGSEGV/);
  // The other document, analysed after the crash, has its own problems.
  assertProblems(await session.diagnostics(workspace.uri, 1), expectedProblems(originalText, 'utf-16'));
  // libclang's files (the preamble of the other document) are in the
  // worker's own directory, not loose in TMPDIR.
  const entries = fs.readdirSync(tmp);
  assert.equal(entries.length, 1, `TMPDIR holds ${entries}`);
  assert.ok(entries[0].startsWith(`opscan-lsp-${session.pid}-`), entries[0]);
  assert.ok(fs.readdirSync(path.join(tmp, entries[0])).length > 0, 'the preamble is in the worker directory');
  // Requests about the crashed document are answered.
  assert.equal(await session.request('textDocument/hover', { textDocument: { uri: crashUri }, position: at(0, 0) }), null);
  assert.deepEqual(
    await session.request('textDocument/codeAction', { textDocument: { uri: crashUri }, range: crashed[0].range, context: { diagnostics: crashed } }),
    [],
  );
  // Saved unchanged, it is not analysed again (one crash, one log of it).
  await session.notify('textDocument/didSave', { textDocument: { uri: crashUri } });
  assert.equal((await session.nextDiagnostics(crashUri))[0].code, 'opscan-analysis-crashed');
  assert.equal(logs(session).filter((m) => m.includes('crash.cpp crashed')).length, 1, logs(session).join('\n'));
  await closeCleanly(session);
  assert.deepEqual(fs.readdirSync(tmp), [], 'nothing is left in TMPDIR');
});

test('an analysis that never ends is stopped at the time limit, and the other documents are served', async () => {
  const tmp = privateTmpdir();
  const { session, workspace } = await startIn(tmp, { analysisTimeout: 2 });
  execFileSync('mkfifo', [path.join(workspace.dir, 'never.fifo')]);
  const hungUri = `file://${workspace.dir}/hung.cpp`;
  const otherUri = `file://${workspace.dir}/other.cpp`;
  await session.open(hungUri, '#include "never.fifo"\nint x;\n');
  await session.open(otherUri, 'int x = y;\n');
  const timedOut = await session.diagnostics(hungUri, 1);
  assert.equal(timedOut.length, 1, JSON.stringify(timedOut));
  assert.equal(timedOut[0].code, 'opscan-analysis-timeout');
  assert.equal(timedOut[0].severity, 2);
  assert.match(timedOut[0].message, /after 2 s/);
  const other = await session.diagnostics(otherUri, 1);
  assert.deepEqual(other.map((d) => d.code), ['opscan-clang-error']);
  assert.match(other[0].message, /undeclared identifier 'y'/);
  await closeCleanly(session);
  assert.deepEqual(fs.readdirSync(tmp), [], 'nothing is left in TMPDIR');
});

test('shutdown and exit are answered at once while an analysis is under way', async () => {
  const tmp = privateTmpdir();
  // A limit far beyond the test's: only exit can end this analysis.
  const { session, workspace } = await startIn(tmp, { analysisTimeout: 3600 });
  const fifo = path.join(workspace.dir, 'never.fifo');
  execFileSync('mkfifo', [fifo]);
  await session.open(`file://${workspace.dir}/hung.cpp`, '#include "never.fifo"\n');
  // Under way once libclang has the pipe open: opening it for writing
  // without blocking succeeds only then. Held open, libclang's read waits.
  const writer = await withTimeout(
    new Promise((resolve) => {
      const poll = setInterval(() => {
        try {
          const fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
          clearInterval(poll);
          resolve(fd);
        } catch {
          // no reader yet
        }
      }, 10);
    }),
    session.timeoutMs,
    'libclang to open the named pipe',
  );
  cleanups.push(() => fs.closeSync(writer));
  await closeCleanly(session);
  assert.deepEqual(fs.readdirSync(tmp), [], 'nothing is left in TMPDIR');
});

// ---- a changed compile_commands.json (issue 23) ----------------------------

test('a changed compile_commands.json applies to an open document: after an edit, a reopen, or a watched-file notice', async () => {
  const tmp = privateTmpdir();
  const { session, workspace } = await startIn(
    tmp,
    {},
    { capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } } },
  );
  const file = path.join(workspace.dir, 'flags.cpp');
  const uri = `file://${file}`;
  const text = [
    '#include <opscan/annotations.h>',
    '#include <opscan_examples/executorch_types.h>',
    '#ifdef BROKEN',
    '#error "BROKEN is defined"',
    '#endif',
    'namespace flags_test {',
    'using executorch::aten::Tensor;',
    '#ifdef WITH_KERNEL',
    'OPSCAN_KERNEL("flags_test::twice.out")',
    'Tensor& twice_out(executorch::runtime::KernelRuntimeContext& ctx, const Tensor& self, const Tensor&, Tensor& out);',
    '#endif',
    '} // namespace flags_test',
    '',
  ].join('\n');
  fs.writeFileSync(file, text);
  const database = path.join(workspace.dir, 'compile_commands.json');
  const useFlag = (flag) => {
    const includes = [`-I${env.sourceDir}/include`, `-I${env.sourceDir}/examples/include`];
    const command = { directory: workspace.dir, file, arguments: ['c++', '-std=c++17', ...includes, flag, '-c', file] };
    fs.writeFileSync(database, JSON.stringify([command]));
  };
  const codes = (diagnostics) => diagnostics.map((d) => d.code);
  const broken = ['opscan-clang-error'];
  const withKernel = ['opscan-scan-unnamed-parameter'];

  useFlag('-DBROKEN');
  await session.open(uri, text);
  assert.deepEqual(codes(await session.diagnostics(uri, 1)), broken);
  // Changed on disk: the next analysis (after an edit) reads it again.
  useFlag('-DWITH_KERNEL');
  const edited = await session.change(uri, [insert(at(0, 0), '// edited\n')]);
  assert.deepEqual(codes(await session.diagnostics(uri, edited)), withKernel);
  // Changed back, the document closed and opened again.
  useFlag('-DBROKEN');
  await session.notify('textDocument/didClose', { textDocument: { uri } });
  assert.deepEqual(await session.nextDiagnostics(uri), [], 'closing clears its diagnostics');
  await session.open(uri, text);
  assert.deepEqual(codes(await session.diagnostics(uri, 1)), broken);
  // Changed again, and the client (asked to watch compile databases) says
  // so: analysed again without an edit.
  assert.ok(
    session.registrations.some(
      (r) => r.method === 'workspace/didChangeWatchedFiles' && r.registerOptions.watchers.some((w) => w.globPattern === '**/compile_commands.json'),
    ),
    `the server watches compile databases: ${JSON.stringify(session.registrations)}`,
  );
  useFlag('-DWITH_KERNEL');
  const next = session.nextDiagnostics(uri);
  await session.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: `file://${database}`, type: 2 }] });
  assert.deepEqual(codes(await next), withKernel);
  await closeCleanly(session);
});

// Issue 23: a server stopped by a signal (editors stop servers with
// SIGTERM) left its worker's private directory in TMPDIR. It is removed,
// and the server still dies of the signal.
for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT']) {
  test(`a server stopped by ${signal} leaves nothing in TMPDIR`, async () => {
    const tmp = privateTmpdir();
    const { session, workspace } = await startIn(tmp, {});
    await session.open(workspace.uri, workspace.text);
    await session.diagnostics(workspace.uri, 1);
    const own = () => fs.readdirSync(tmp).filter((name) => name.startsWith(`opscan-lsp-${session.pid}-`));
    assert.equal(own().length, 1, `the worker's private directory while it runs: ${fs.readdirSync(tmp)}`);
    session.child.kill(signal);
    const ended = await withTimeout(session.exited, session.timeoutMs, 'the server to end');
    assert.equal(ended.signal, signal, `it dies of the signal: ${JSON.stringify(ended)}`);
    assert.deepEqual(own(), [], 'its private directory is removed');
  });
}
