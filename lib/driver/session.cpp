// A command run's diagnostics, messages and file ledger (session.h).
#include "driver/session.h"

#include "diag/text.h"

namespace opscan::driver {

Status Session::report(const diag::Diagnostics& diags, Status status) {
  reported_.insert(reported_.end(), diags.begin(), diags.end());
  if (report_.format == Format::text && !diags.empty()) {
    diag::TextOptions options;
    options.color = console_.color();
    options.source_files = source_files_;
    console_.error(diag::render_text(diags, options));
  }
  return worst(status, status_of(diags));
}

Status Session::usage(std::string message) {
  report({diag::make_error("opscan-usage", {}, std::move(message))});
  return Status::usage;
}

void Session::show_lines_of(const std::vector<std::string>& files) {
  if (!source_files_)
    source_files_.emplace();
  source_files_->insert(files.begin(), files.end());
}

void Session::say(std::string_view text) {
  if (report_.format == Format::text)
    console_.out(text);
  else
    console_.error(text);
}

void Session::add_input(std::string role, std::string path) {
  inputs_.push_back({std::move(role), std::move(path)});
}

void Session::add_inputs(const std::vector<RoleFile>& files) {
  inputs_.insert(inputs_.end(), files.begin(), files.end());
}

void Session::add_output(std::string role, std::string path) {
  outputs_.push_back({std::move(role), std::move(path)});
}

Status Session::check_outputs() {
  Outcome checked = driver::check_outputs(outputs_, inputs_);
  return report(checked.diagnostics, checked.status);
}

Status Session::check_fixes_file() {
  if (report_.export_fixes.empty())
    return Status::ok;
  Outcome checked = driver::check_fixes_file(report_.export_fixes, outputs_, inputs_);
  return report(checked.diagnostics, checked.status);
}

std::optional<Companion> Session::fixes_with_outputs() {
  if (report_.export_fixes.empty())
    return std::nullopt;
  fixes_with_outputs_ = true;
  return fixes_file(reported_, report_.export_fixes, main_source_);
}

std::optional<std::vector<std::string>>
Session::compiler_args(const std::string& flags_file, const std::vector<std::string>& extra,
                       diag::Diagnostics& diags) {
  std::vector<std::string> read;
  auto args = driver::compiler_args(flags_file, extra, diags, &read);
  for (const std::string& file : read) {
    response_files_.push_back({"a response file", file});
    inputs_.push_back(response_files_.back());
  }
  return args;
}

Status Session::finish(Status status) {
  if (!report_.export_fixes.empty() && !fixes_with_outputs_ &&
      (status == Status::ok || status == Status::errors)) {
    Outcome written =
        write_fixes_file(reported_, report_.export_fixes, main_source_, outputs_, inputs_);
    status = report(written.diagnostics, worst(status, written.status));
  }
  if (report_.format != Format::text)
    console_.out(render_report(reported_, report_, source_files_));
  return status;
}

} // namespace opscan::driver
