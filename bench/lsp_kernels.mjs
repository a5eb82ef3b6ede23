#!/usr/bin/env node
// Time from opening one file of N kernels in `opscan lsp` to its first
// diagnostics, for each N: alone (no generated library), as the file of a
// library the build generated, and beside that library (a second file
// registering the same N operators: N diagnostics). Issue 23 found the last
// two quadratic in N (every kernel checked against every kernel of the
// build's libraries). The file is test/lsp/kernel_file.mjs's; the client
// is VS Code's client library, as in test/lsp. Each case is a new server.
//
//   node bench/lsp_kernels.mjs [--kernels 10000,100000] [--opscan BIN] [--npm DIR]
//
// BIN defaults to $OPSCAN, else build/tool/opscan; DIR to build/npm.
// Prints the figures (wall time and the CPU time of the server and its
// analysis worker); asserts no time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { writeKernelWorkspace } from '../test/lsp/kernel_file.mjs';
import { Session } from '../test/lsp/lsp_session.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.dirname(here);
const { values: options } = parseArgs({
  options: {
    kernels: { type: 'string', default: '10000,100000' },
    opscan: { type: 'string', default: process.env.OPSCAN ?? path.join(repo, 'build/tool/opscan') },
    npm: { type: 'string', default: path.join(repo, 'build/npm') },
  },
});

// Opens `file` in a new server: seconds to its first diagnostics, the CPU
// seconds of the server and worker, and how many diagnostics.
async function firstDiagnostics(file) {
  const session = await Session.start({
    binary: options.opscan,
    npmDir: options.npm,
    initializationOptions: { debounceMs: 0, analysisTimeout: 86400 },
    timeoutMs: 3600000,
  });
  try {
    const started = performance.now();
    await session.open(`file://${file}`, fs.readFileSync(file, 'utf8'));
    const diagnostics = await session.diagnostics(`file://${file}`, 1);
    const seconds = (performance.now() - started) / 1000;
    const cpu = session.cpuTicks() / 100;
    await session.close();
    return { seconds, cpu, count: diagnostics.length };
  } finally {
    session.kill();
  }
}

console.log(`opscan lsp: didOpen -> first publishDiagnostics; load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`);
console.log('| kernels | file | first diagnostics | server + worker CPU | diagnostics |');
console.log('|---:|---|---:|---:|---:|');
for (const n of options.kernels.split(',').map(Number)) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'opscan-lsp-kernels-'));
  try {
    const { a, b, library } = writeKernelWorkspace(work, n, repo);
    const row = (what, r) =>
      console.log(`| ${n} | ${what} | ${r.seconds.toFixed(1)} s | ${r.cpu.toFixed(1)} s | ${r.count} |`);
    row('alone', await firstDiagnostics(a));
    library(options.opscan);
    row("the library's own file", await firstDiagnostics(a));
    row('beside the library (same operators)', await firstDiagnostics(b));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
