#include "emit/generate.h"
#include "support/files.h"

namespace opscan::emit {

WriteReport write_outputs(const std::filesystem::path& out_dir,
                          const std::vector<OutputFile>& files) {
  WriteReport report;
  for (const OutputFile& file : files) {
    std::filesystem::path path = out_dir / file.path;
    std::string error;
    switch (support::write_if_changed(path, file.content, &error)) {
    case support::WriteOutcome::unchanged:
      report.unchanged.push_back(file.path);
      break;
    case support::WriteOutcome::written:
      report.written.push_back(file.path);
      break;
    case support::WriteOutcome::failed:
      report.diagnostics.push_back(diag::make_error(
          "opscan-io", {path.string(), 0, 0, 0}, "cannot write " + path.string() + ": " + error));
      break;
    }
  }
  return report;
}

} // namespace opscan::emit
