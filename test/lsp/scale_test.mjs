// A file of 10,000 kernels beside a library the build generated with
// 10,000 kernels for the same operators (issue 23: the server's first
// diagnostics grew with the square of the kernels, when each kernel of the
// file was checked against every kernel of the build's libraries; 2,000
// kernels took 9 s, 10,000 minutes). Every kernel must get its diagnostic,
// naming its counterpart; no time is asserted: the waits' limit (60 s) and
// CTest's timeout fail a server that is slow again. Run by CTest:
// node test/lsp/scale_test.mjs (environment: scenario.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { declarationLine, kernelFile, kernelFileFlags } from './kernel_file.mjs';
import { Session } from './lsp_session.mjs';
import { environment } from './scenario.mjs';

const KERNELS = 10000;
const env = environment();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opscan-lsp-scale-'));
const flags = kernelFileFlags(env.sourceDir);

let server = { kill() {} };
try {
  const a = path.join(dir, 'a.cpp');
  const b = path.join(dir, 'b.cpp');
  fs.writeFileSync(a, kernelFile('scale_a', KERNELS));
  fs.writeFileSync(b, kernelFile('scale_b', KERNELS));
  const build = path.join(dir, 'build');
  fs.mkdirSync(build);
  fs.writeFileSync(
    path.join(build, 'compile_commands.json'),
    JSON.stringify([a, b].map((file) => ({ directory: dir, file, arguments: ['c++', ...flags, '-c', file] }))),
  );
  // The library of a.cpp, where the build puts it.
  execFileSync(env.binary, ['run', a, '--lib', 'first', '--registration', 'named', '-o', path.join(build, 'first.opscan/include'), '--', ...flags], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });

  server = await Session.start({ binary: env.binary, npmDir: env.npmDir, initializationOptions: { debounceMs: 10 }, timeoutMs: 60000 });
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
