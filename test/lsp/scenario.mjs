// The scenario the Node tests and the benchmark share: where the binary,
// the sources and the npm packages are (from the environment CTest sets),
// the kernel file with its expected problems, and the client steps that
// clear them with the server's quick fixes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const scenarioDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'scenario');
export const expected = JSON.parse(fs.readFileSync(path.join(scenarioDir, 'expected.json'), 'utf8'));
export const originalText = fs.readFileSync(path.join(scenarioDir, 'kernels.cpp'), 'utf8');
export const fixedText = fs.readFileSync(path.join(scenarioDir, 'kernels.fixed.cpp'), 'utf8');

export function environment() {
  const missing = ['OPSCAN_BINARY', 'OPSCAN_SOURCE_DIR', 'OPSCAN_NPM_DIR'].filter((v) => !process.env[v]);
  if (missing.length) throw new Error(`set ${missing.join(', ')} (CTest does: test/lsp/CMakeLists.txt)`);
  return { binary: process.env.OPSCAN_BINARY, sourceDir: process.env.OPSCAN_SOURCE_DIR, npmDir: process.env.OPSCAN_NPM_DIR };
}

export const sameRange = (a, b) =>
  a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;

const show = (r) => `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;

function units(text, encoding) {
  return encoding === 'utf-16' ? text.length : Buffer.byteLength(text, 'utf8');
}

// Where the expected problems are in `text`, an edited copy of kernels.cpp
// whose problem lines kept their text but may have moved down and gained
// a prefix (the edits the tests make): found by the line's original text.
export function expectedProblems(text, encoding) {
  const originalLines = originalText.split('\n');
  const lines = text.split('\n');
  return expected.problems.map((p) => {
    const at = (position) => {
      const original = originalLines[position.line];
      const line = lines.findIndex((l) => l.endsWith(original));
      assert.ok(line >= 0, `the edited text lost the line '${original}'`);
      const prefix = lines[line].slice(0, lines[line].length - original.length);
      const before = original.slice(0, position.character); // the file is ASCII: code units are characters
      return { line, character: units(prefix, encoding) + units(before, encoding) };
    };
    return { code: p.code, range: { start: at(p.range.start), end: at(p.range.end) } };
  });
}

// Checks the published diagnostics: the expected codes at exactly the
// expected ranges, each with opscan's source, a severity, and a help link.
export function assertProblems(diagnostics, problems) {
  const got = diagnostics.map((d) => `${d.code} ${show(d.range)}`).sort();
  const want = problems.map((p) => `${p.code} ${show(p.range)}`).sort();
  assert.deepEqual(got, want, 'the published diagnostics (code and range)');
  for (const d of diagnostics) {
    assert.equal(d.source, 'opscan', `${d.code}: source`);
    assert.ok([1, 2, 3, 4].includes(d.severity), `${d.code}: severity ${d.severity}`);
    assert.match(d.codeDescription?.href ?? '', new RegExp(`#${d.code}$`), `${d.code}: codeDescription.href`);
    assert.ok(d.message.length > 0, `${d.code}: a message`);
  }
}

// The text edits of a quick fix, checked against the document they are for.
function editsOf(action, uri, version) {
  const edit = action.edit;
  if (edit.documentChanges) {
    assert.equal(edit.documentChanges.length, 1, 'one document changed');
    const [change] = edit.documentChanges;
    assert.equal(change.textDocument.uri, uri);
    assert.equal(change.textDocument.version, version, 'the edit is for the version the client has');
    return change.edits;
  }
  assert.deepEqual(Object.keys(edit.changes), [uri], 'one document changed');
  return edit.changes[uri];
}

// Applies the quick fix of the first problem left, as an editor would (the
// edit's text edits sent back as one didChange), until none is left; the
// codes fixed, in order.
export async function fixAll(session, uri) {
  const fixed = [];
  for (let round = 0; round <= expected.problems.length + 2; ++round) {
    const version = session.version(uri);
    const diagnostics = await session.diagnostics(uri, version);
    if (diagnostics.length === 0) return fixed;
    const problem = diagnostics[0];
    const actions = await session.request('textDocument/codeAction', {
      textDocument: { uri },
      range: problem.range,
      context: { diagnostics: [problem], only: ['quickfix'] },
    });
    const action = actions.find(
      (a) => a.kind === 'quickfix' && a.diagnostics.some((d) => d.code === problem.code && sameRange(d.range, problem.range)),
    );
    assert.ok(action, `no quick fix for ${problem.code} at ${show(problem.range)}; got ${JSON.stringify(actions)}`);
    // Each edit applies to the text the previous left: from the last to the first.
    const edits = [...editsOf(action, uri, version)].sort(
      (a, b) => b.range.start.line - a.range.start.line || b.range.start.character - a.range.start.character,
    );
    await session.change(uri, edits);
    fixed.push(problem.code);
  }
  throw new Error(`the problems were not all fixed; fixed ${fixed.join(', ')}`);
}
