// A real LSP client session with `opscan lsp`, built on the npm packages
// VS Code's client uses (vscode-jsonrpc over the server's stdio), shared by
// the Node tests (test/lsp) and the latency benchmark (bench/lsp_latency.mjs).
// Every wait has a limit, so a silent server fails a test instead of hanging it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

// The pinned npm packages live in the build directory (scripts/setup.sh
// installs test/npm there), not beside this file.
export function loadClientLibraries(npmDir) {
  const modules = path.join(npmDir, 'node_modules');
  if (!fs.existsSync(path.join(modules, 'vscode-jsonrpc'))) {
    throw new Error(`no vscode-jsonrpc in ${modules}: run scripts/setup.sh (it installs test/npm there)`);
  }
  const require = createRequire(path.join(modules, 'opscan-tests.js'));
  return { rpc: require('vscode-jsonrpc/node'), protocol: require('vscode-languageserver-protocol/node') };
}

export function withTimeout(promise, ms, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

// A fresh workspace holding the scenario's kernel file and a
// compile_commands.json that finds opscan's and the examples' headers.
export function writeWorkspace({ sourceDir, scenarioDir, source = 'kernels.cpp' }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opscan-lsp-'));
  const file = path.join(dir, 'kernels.cpp');
  fs.copyFileSync(path.join(scenarioDir, source), file);
  const command = {
    directory: dir,
    file,
    arguments: ['c++', '-std=c++17', `-I${sourceDir}/include`, `-I${sourceDir}/examples/include`, '-c', file],
  };
  fs.writeFileSync(path.join(dir, 'compile_commands.json'), JSON.stringify([command], null, 1));
  return { dir, file, uri: `file://${file}`, text: fs.readFileSync(file, 'utf8'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

// LSP positions count code units of the negotiated encoding; JS strings
// index UTF-16 code units.
export function offsetAt(text, position, encoding) {
  let lineStart = 0;
  for (let line = 0; line < position.line; ++line) {
    const next = text.indexOf('\n', lineStart);
    if (next < 0) return text.length;
    lineStart = next + 1;
  }
  let lineEnd = text.indexOf('\n', lineStart);
  if (lineEnd < 0) lineEnd = text.length;
  if (encoding === 'utf-16') return Math.min(lineStart + position.character, lineEnd);
  const bytes = Buffer.from(text.slice(lineStart, lineEnd), 'utf8').subarray(0, position.character);
  return lineStart + bytes.toString('utf8').length;
}

export function positionAt(text, offset, encoding) {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  const column = before.slice(before.lastIndexOf('\n') + 1);
  return { line, character: encoding === 'utf-16' ? column.length : Buffer.byteLength(column, 'utf8') };
}

// Applies LSP text edits (non-overlapping, against the same text) as an
// editor does: from the last to the first.
export function applyEdits(text, edits, encoding) {
  const sorted = edits
    .map((e) => ({ start: offsetAt(text, e.range.start, encoding), end: offsetAt(text, e.range.end, encoding), newText: e.newText }))
    .sort((a, b) => b.start - a.start);
  for (const e of sorted) text = text.slice(0, e.start) + e.newText + text.slice(e.end);
  return text;
}

// Splits a byte stream into LSP messages: the test's own view of what the
// server wrote, beside the client library's (which drops responses without
// an id, such as a parse error's). Chunks are joined once a message is
// whole, not as each arrives (a message of 100 MB comes in thousands).
function frameParser(onMessage) {
  let pending = Buffer.alloc(0); // joined
  let chunks = []; // read since
  let buffered = 0; // bytes in both
  let needed = 0; // bytes the next message needs, once its header is read
  return (chunk) => {
    chunks.push(chunk);
    buffered += chunk.length;
    if (needed > buffered) return;
    pending = Buffer.concat([pending, ...chunks]);
    chunks = [];
    for (;;) {
      const headerEnd = pending.indexOf('\r\n\r\n');
      if (headerEnd < 0) {
        needed = 0;
        return;
      }
      const length = Number(/Content-Length: *(\d+)/i.exec(pending.subarray(0, headerEnd).toString())[1]);
      needed = headerEnd + 4 + length;
      if (pending.length < needed) return;
      onMessage(JSON.parse(pending.subarray(headerEnd + 4, needed).toString('utf8')));
      pending = pending.subarray(needed);
      buffered = pending.length;
      needed = 0;
    }
  };
}

export class Session {
  // Starts `opscan lsp` and initializes it.
  static async start({ binary, npmDir, args = [], capabilities = {}, initializationOptions = {}, timeoutMs = 60000, env = process.env }) {
    const session = new Session(binary, npmDir, args, timeoutMs, env);
    session.initializeResult = await session.request('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities,
      initializationOptions,
    });
    session.encoding = session.initializeResult.capabilities.positionEncoding;
    session.notify('initialized', {});
    return session;
  }

  constructor(binary, npmDir, args, timeoutMs, env) {
    const { rpc } = loadClientLibraries(npmDir);
    this.rpc = rpc;
    this.timeoutMs = timeoutMs;
    this.child = spawn(binary, ['lsp', ...args], { stdio: ['pipe', 'pipe', 'pipe'], env });
    this.stderr = '';
    this.child.stderr.on('data', (d) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    this.raw = []; // every message the server wrote, in order
    this.child.stdout.on('data', frameParser((m) => this.raw.push(m)));
    this.connection = rpc.createMessageConnection(
      new rpc.StreamMessageReader(this.child.stdout),
      new rpc.StreamMessageWriter(this.child.stdin),
      { error: () => {}, warn: () => {}, info: () => {}, log: () => {} },
    );
    this.published = new Map(); // uri -> the latest publishDiagnostics params
    this.waiters = [];
    this.connection.onNotification('textDocument/publishDiagnostics', (params) => {
      this.published.set(params.uri, params);
      this.waiters = this.waiters.filter((w) => !w(params));
    });
    // What the server asked the client to watch (client/registerCapability).
    this.registrations = [];
    this.connection.onRequest('client/registerCapability', (params) => {
      this.registrations.push(...params.registrations);
      return null;
    });
    this.connection.listen();
    this.versions = new Map();
    this.texts = new Map();
  }

  get pid() {
    return this.child.pid;
  }

  request(method, params, token) {
    // An undefined token would be sent as a second parameter (an array).
    const sent = token ? this.connection.sendRequest(method, params, token) : this.connection.sendRequest(method, params);
    return withTimeout(sent, this.timeoutMs, `the answer to ${method}`);
  }

  notify(method, params) {
    return this.connection.sendNotification(method, params);
  }

  // The first publishDiagnostics for `uri` at `version` (or one already
  // received).
  diagnostics(uri, version) {
    const seen = this.published.get(uri);
    if (seen && seen.version === version) return Promise.resolve(seen.diagnostics);
    const arrived = new Promise((resolve) => {
      this.waiters.push((params) => {
        if (params.uri !== uri || params.version !== version) return false;
        resolve(params.diagnostics);
        return true;
      });
    });
    return withTimeout(arrived, this.timeoutMs, `diagnostics of ${uri} version ${version}`);
  }

  // The next publishDiagnostics for `uri`, whatever its version (after a
  // change the server learns of outside the document, its version stays).
  nextDiagnostics(uri) {
    const arrived = new Promise((resolve) => {
      this.waiters.push((params) => {
        if (params.uri !== uri) return false;
        resolve(params.diagnostics);
        return true;
      });
    });
    return withTimeout(arrived, this.timeoutMs, `the next diagnostics of ${uri}`);
  }

  async open(uri, text) {
    this.versions.set(uri, 1);
    this.texts.set(uri, text);
    await this.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'cpp', version: 1, text } });
    return 1;
  }

  // Sends incremental edits (each against the text the previous left, as
  // LSP applies them) and keeps this side's copy of the text; returns the
  // new version.
  async change(uri, edits) {
    const version = this.versions.get(uri) + 1;
    this.versions.set(uri, version);
    let text = this.texts.get(uri);
    for (const e of edits) text = applyEdits(text, [e], this.encoding);
    this.texts.set(uri, text);
    await this.notify('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: edits.map((e) => ({ range: e.range, text: e.newText })),
    });
    return version;
  }

  version(uri) {
    return this.versions.get(uri);
  }

  text(uri) {
    return this.texts.get(uri);
  }

  // Writes bytes to the server's stdin outside the client library (only
  // between messages: the library writes each message whole).
  writeRaw(bytes) {
    return new Promise((resolve, reject) => this.child.stdin.write(bytes, (e) => (e ? reject(e) : resolve())));
  }

  // The server and the processes it started (its analysis worker, which
  // holds the parsed units and does the analyses): their pids, from the
  // parent pids of /proc/*/stat (the field after the name in parentheses).
  processes() {
    const parents = new Map();
    for (const entry of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // It ended meanwhile.
      }
    }
    const pids = [];
    for (const pending = [this.pid]; pending.length > 0; ) {
      const pid = pending.pop();
      pids.push(pid);
      for (const [child, parent] of parents) if (parent === pid) pending.push(child);
    }
    return pids;
  }

  // Sums a number each of processes() has in /proc (those that still run).
  sumOver(read) {
    let total = 0;
    for (const pid of this.processes()) {
      try {
        total += read(pid);
      } catch {
        // It ended meanwhile.
      }
    }
    return total;
  }

  // The resident memory of the server and its worker, in KiB.
  rssKiB() {
    return this.sumOver((pid) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]));
  }

  // The CPU time (user + system) of the server and its worker, in clock
  // ticks of 10 ms.
  cpuTicks() {
    return this.sumOver((pid) => {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return Number(fields[11]) + Number(fields[12]);
    });
  }

  // shutdown, then exit: the server's exit code.
  async close() {
    const result = await this.request('shutdown', null);
    await this.notify('exit');
    const { code, signal } = await withTimeout(this.exited, this.timeoutMs, 'the server to exit');
    this.connection.dispose();
    return { shutdownResult: result, code, signal };
  }

  kill() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
