#!/usr/bin/env node
// Latency of `opscan lsp` from an edit to its diagnostics: the time from
// sending a didChange to receiving the publishDiagnostics of that version,
// debounce included, on a real-size kernel file (make_corpus.py's big file:
// N annotated kernels with bodies over the corpus's shared headers). The
// client is VS Code's client library on Node, as in test/lsp.
//
//   node bench/lsp_latency.mjs [--kernels 40] [--edits 100] [--warmup 10]
//                              [--debounce-ms 25] [--opscan BIN] [--npm DIR]
//
// BIN defaults to $OPSCAN, else build/tool/opscan; DIR (where scripts/setup.sh
// installed test/npm) to build/npm. Prints the figures; asserts no time.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { Session } from '../test/lsp/lsp_session.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.dirname(here);
const { values: options } = parseArgs({
  options: {
    kernels: { type: 'string', default: '40' },
    edits: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '10' },
    'debounce-ms': { type: 'string', default: '25' },
    opscan: { type: 'string', default: process.env.OPSCAN ?? path.join(repo, 'build/tool/opscan') },
    npm: { type: 'string', default: path.join(repo, 'build/npm') },
  },
});
const kernels = Number(options.kernels);
const edits = Number(options.edits);
const warmup = Number(options.warmup);
const debounceMs = Number(options['debounce-ms']);

// The corpus: one file of `kernels` kernels, and its compilation database.
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'opscan-lsp-bench-'));
execFileSync('python3', [path.join(here, 'make_corpus.py'), work, '-n', '1', '--big-file', String(kernels)]);
const file = path.join(work, 'big/ops_big.cpp');
const flags = ['-x', 'c++', '-std=c++17', `-I${repo}/include`, `-I${repo}/examples/include`, `-I${work}/include`];
fs.writeFileSync(
  path.join(work, 'compile_commands.json'),
  JSON.stringify([{ directory: work, file, arguments: ['c++', ...flags, '-c', file] }]),
);
const text = fs.readFileSync(file, 'utf8');
const uri = `file://${file}`;

const session = await Session.start({
  binary: options.opscan,
  npmDir: options.npm,
  initializationOptions: { debounceMs },
  timeoutMs: 120000,
});
try {
  let started = performance.now();
  await session.open(uri, text);
  const initial = await session.diagnostics(uri, 1);
  const cold = performance.now() - started;

  // Each edit inserts, then deletes, a space at the start of a line in the
  // middle of the file (inside a kernel's body): a real re-parse each time,
  // and the same diagnostics.
  const line = Math.floor(text.split('\n').length / 2);
  const at = { line, character: 0 };
  const times = [];
  // The CPU time of the server and its analysis worker: on a busy machine
  // the wall time also counts waiting for a core.
  const cpuTicks = () => session.cpuTicks();
  let ticks = 0;
  for (let i = 0; i < warmup + edits; ++i) {
    const change =
      i % 2 === 0
        ? { range: { start: at, end: at }, newText: ' ' }
        : { range: { start: at, end: { line, character: 1 } }, newText: '' };
    if (i === warmup) ticks = cpuTicks();
    started = performance.now();
    const version = await session.change(uri, [change]);
    const diagnostics = await session.diagnostics(uri, version);
    const elapsed = performance.now() - started;
    if (diagnostics.length !== initial.length) {
      throw new Error(`edit ${i}: ${diagnostics.length} diagnostics, not ${initial.length}`);
    }
    if (i >= warmup) times.push(elapsed);
  }
  const cpuPerEdit = ((cpuTicks() - ticks) * 10) / edits;
  const { code } = await session.close();
  if (code !== 0) throw new Error(`the server exited with ${code}`);

  times.sort((a, b) => a - b);
  const quantile = (q) => times[Math.min(times.length - 1, Math.round(q * (times.length - 1)))];
  const ms = (t) => `${t.toFixed(1)} ms`;
  console.log(`opscan lsp: didChange -> publishDiagnostics, ${path.basename(file)} (${kernels} kernels, ${text.split('\n').length} lines, ${initial.length} diagnostics)`);
  console.log(`debounce ${debounceMs} ms (included); ${warmup} warm-up edits, then ${edits} timed`);
  console.log(`cold (didOpen -> first diagnostics): ${ms(cold)}`);
  console.log(`server and worker CPU time per timed edit: ${ms(cpuPerEdit)}; load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`);
  console.log(`median ${ms(quantile(0.5))}, p10 ${ms(quantile(0.1))}, p90 ${ms(quantile(0.9))}, min ${ms(times[0])}, max ${ms(times[times.length - 1])}`);
} finally {
  session.kill();
  fs.rmSync(work, { recursive: true, force: true });
}
