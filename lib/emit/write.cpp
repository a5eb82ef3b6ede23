// Writing a generation's rendered files into the output directory, all or nothing.
#include "emit/generate.h"
#include "support/files.h"

namespace opscan::emit {

WriteReport write_outputs(const std::filesystem::path& out_dir,
                          const std::vector<OutputFile>& files) {
  std::vector<support::FileWrite> writes;
  for (const OutputFile& file : files)
    writes.push_back({out_dir / file.path, file.content, out_dir});
  support::WriteFilesResult result = support::write_files(writes);
  WriteReport report;
  if (!result.ok()) {
    const std::string path = result.failed_path->string();
    report.diagnostics.push_back(diag::make_error("opscan-io", {path, 0, 0, 0},
                                                  "cannot write " + path + ": " + result.error +
                                                      " (no output was changed)"));
    return report;
  }
  for (size_t i = 0; i < files.size(); ++i) {
    (result.outcomes[i] == support::WriteOutcome::written ? report.written : report.unchanged)
        .push_back(files[i].path);
  }
  return report;
}

} // namespace opscan::emit
