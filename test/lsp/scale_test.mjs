// A file of 6,000 kernels beside a library the build generated with 6,000
// kernels for the same operators (issue 23: the server's first diagnostics
// grew with the square of the kernels, each kernel of the file checked
// against every kernel of the build's libraries: 2,000 kernels took 9 s of
// CPU, 4,000 took 35 s, 6,000 over a minute; now about 3 s). Every kernel
// must get its diagnostic, naming its counterpart; no time is asserted: the
// waits' limit (45 s) and CTest's timeout fail a server that is slow again.
// Run by CTest: node test/lsp/scale_test.mjs (environment: scenario.mjs).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { declarationLine, writeKernelWorkspace } from './kernel_file.mjs';
import { Session } from './lsp_session.mjs';
import { environment } from './scenario.mjs';

const KERNELS = 6000;
const env = environment();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opscan-lsp-scale-'));

let server = { kill() {} };
try {
  const { a, b, library } = writeKernelWorkspace(dir, KERNELS, env.sourceDir);
  library(env.binary);

  server = await Session.start({ binary: env.binary, npmDir: env.npmDir, initializationOptions: { debounceMs: 10 }, timeoutMs: 45000 });
  // b.cpp registers every operator of library 'first' again.
  await server.open(`file://${b}`, fs.readFileSync(b, 'utf8'));
  const overlaps = await server.diagnostics(`file://${b}`, 1);
  assert.equal(overlaps.length, KERNELS, 'one diagnostic per kernel');
  const byLine = new Map(overlaps.map((d) => [d.range.start.line, d]));
  for (let i = 0; i < KERNELS; ++i) {
    const d = byLine.get(declarationLine(i));
    assert.ok(d, `no diagnostic on the line of op${i}_out`);
    assert.equal(d.code, 'opscan-library-overlap');
    assert.equal(d.range.start.character, 'Tensor& '.length);
    assert.ok(d.message.startsWith(`library 'first' registers scale::op${i}.out`), d.message);
    assert.ok(d.message.includes(`${a}:${declarationLine(i) + 1})`), d.message);
    assert.equal(d.relatedInformation[0].location.uri, `file://${a}`);
    assert.equal(d.relatedInformation[0].location.range.start.line, declarationLine(i));
  }
  // a.cpp is the library's own file: nothing to say.
  await server.open(`file://${a}`, fs.readFileSync(a, 'utf8'));
  assert.deepEqual(await server.diagnostics(`file://${a}`, 1), []);
  const { code } = await server.close();
  assert.equal(code, 0, 'exit code after shutdown and exit');
} finally {
  server.kill();
  fs.rmSync(dir, { recursive: true, force: true });
}
