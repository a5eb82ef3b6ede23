// The server's memory over a long editing run (issue 13: "memory stays
// bounded over long editing runs"): 10,000 incremental didChange edits
// (a character typed into a comment, then deleted), waiting every 100 edits
// for the diagnostics of the latest version so that analyses really run.
// The resident set (VmRSS) of the server and its analysis worker after the
// first 1,000 edits, once the preamble, the parsed unit and the
// allocator's pools exist, is the baseline; after the last edit it may be at most GROWTH_BOUND_MIB more,
// and the diagnostics are still exactly the scenario's. Run by CTest:
// node test/lsp/memory_test.mjs (environment: scenario.mjs).
import assert from 'node:assert/strict';

import { Session, writeWorkspace } from './lsp_session.mjs';
import { assertProblems, environment, expectedProblems, originalText, scenarioDir } from './scenario.mjs';

const EDITS = 10000;
const WAIT_EVERY = 100;
const BASELINE_AFTER = 1000;
// Measured growth between the 1,000th and the 10,000th edit: about 1 MiB
// (the figures this prints). The bound leaves room for the allocator's
// noise, and is crossed by a leak of one copy of the document per edit
// (the file is padded to over 32 KiB, so 9,000 copies are over 280 MiB) or
// of 180 KiB per analysis (at least 90 analyses run after the baseline).
const GROWTH_BOUND_MIB = 16;
const PADDING = Array.from({ length: 400 }, (_, i) => `// padding line ${String(i).padStart(3, '0')}: ${'-'.repeat(60)}\n`).join('');

const env = environment();
const workspace = writeWorkspace({ sourceDir: env.sourceDir, scenarioDir });
const text = workspace.text + PADDING;
const session = await Session.start({ binary: env.binary, npmDir: env.npmDir, initializationOptions: { debounceMs: 5 } });
const mib = (kib) => (kib / 1024).toFixed(1);
try {
  const uri = workspace.uri;
  await session.open(uri, text);
  await session.diagnostics(uri, 1);
  const expected = expectedProblems(originalText, 'utf-16');
  const where = { line: 0, character: 2 };
  const samples = [];
  let baseline;
  for (let edit = 1; edit <= EDITS; ++edit) {
    // Odd edits type an 'x' into the first comment, even ones delete it:
    // after each even edit the text is the scenario's again.
    if (edit % 2 === 1) {
      await session.change(uri, [{ range: { start: where, end: where }, newText: 'x' }]);
    } else {
      await session.change(uri, [{ range: { start: where, end: { line: 0, character: 3 } }, newText: '' }]);
    }
    if (edit % WAIT_EVERY === 0) {
      assertProblems(await session.diagnostics(uri, session.version(uri)), expected);
      if (edit % BASELINE_AFTER === 0) samples.push([edit, session.rssKiB()]);
      if (edit === BASELINE_AFTER) baseline = session.rssKiB();
    }
  }
  assert.equal(session.text(uri), text);
  const final = session.rssKiB();
  console.log(`VmRSS (MiB) by edits: ${samples.map(([e, kib]) => `${e}: ${mib(kib)}`).join(', ')}`);
  console.log(`growth from edit ${BASELINE_AFTER} to ${EDITS}: ${mib(final - baseline)} MiB (bound ${GROWTH_BOUND_MIB} MiB)`);
  assert.ok(
    final - baseline <= GROWTH_BOUND_MIB * 1024,
    `the server's memory grew by ${mib(final - baseline)} MiB between edit ${BASELINE_AFTER} and edit ${EDITS}`,
  );
  const { code } = await session.close();
  assert.equal(code, 0, 'exit code after shutdown and exit');
} finally {
  session.kill();
  workspace.remove();
}
