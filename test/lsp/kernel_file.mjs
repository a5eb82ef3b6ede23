// Kernel files of any size, for the scale test (scale_test.mjs) and the
// benchmark (bench/lsp_kernels.mjs): `count` annotated out variants
// `scale::op<i>.out`, against opscan's and the examples' headers.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const header = [
  '#include <opscan/annotations.h>',
  '#include <opscan_examples/executorch_types.h>',
  'using executorch::aten::Tensor;',
  'using executorch::runtime::KernelRuntimeContext;',
];

export function kernelFile(namespace, count) {
  return [
    ...header,
    `namespace ${namespace} {`,
    ...Array.from({ length: count }, (_, i) => [
      `OPSCAN_KERNEL("scale::op${i}.out")`,
      `Tensor& op${i}_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);`,
    ]).flat(),
    '}',
    '',
  ].join('\n');
}

// The 0-based line of kernel i's declaration (its annotation is the line before).
export const declarationLine = (i) => header.length + 2 + 2 * i;

// In `dir`: a.cpp and b.cpp, each with `count` kernels for the same
// operators (namespaces scale_a and scale_b), and build/compile_commands.json
// for both. `library()` then generates library 'first' from a.cpp where a
// build puts it (build/first.opscan/include/first/ir.json), with `binary`.
export function writeKernelWorkspace(dir, count, sourceDir) {
  const flags = ['-std=c++17', `-I${sourceDir}/include`, `-I${sourceDir}/examples/include`];
  const a = path.join(dir, 'a.cpp');
  const b = path.join(dir, 'b.cpp');
  fs.writeFileSync(a, kernelFile('scale_a', count));
  fs.writeFileSync(b, kernelFile('scale_b', count));
  const build = path.join(dir, 'build');
  fs.mkdirSync(build);
  fs.writeFileSync(
    path.join(build, 'compile_commands.json'),
    JSON.stringify([a, b].map((file) => ({ directory: dir, file, arguments: ['c++', ...flags, '-c', file] }))),
  );
  const library = (binary) =>
    execFileSync(binary, ['run', a, '--lib', 'first', '--registration', 'named', '-o', path.join(build, 'first.opscan/include'), '--', ...flags], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  return { a, b, library };
}
