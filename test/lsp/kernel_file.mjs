// A kernel file of any size, for the scale test and the benchmark
// (bench/lsp_kernels.mjs): `count` annotated out variants `scale::op<i>.out`
// in namespace `namespace`, against opscan's and the examples' headers.
export const kernelFileHeader = [
  '#include <opscan/annotations.h>',
  '#include <opscan_examples/executorch_types.h>',
  'using executorch::aten::Tensor;',
  'using executorch::runtime::KernelRuntimeContext;',
];

export function kernelFile(namespace, count) {
  return [
    ...kernelFileHeader,
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
export const declarationLine = (i) => kernelFileHeader.length + 2 + 2 * i;

// The compile flags that find the headers.
export const kernelFileFlags = (sourceDir) => ['-std=c++17', `-I${sourceDir}/include`, `-I${sourceDir}/examples/include`];
