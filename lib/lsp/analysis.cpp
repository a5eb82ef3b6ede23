// One document's analysis in the worker: parse, findings, libraries, hovers.
#include "lsp/analysis.h"

#include "driver/driver.h"
#include "emit/registry.h"
#include "kernel/known_schemas.h"
#include "lsp/diagnostics.h"
#include "lsp/libraries.h"
#include "lsp/units.h"
#include "lsp/workspace.h"
#include "scan/live.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <set>

namespace opscan::lsp {
namespace {

// A kernel's hover: its operator, schema, keys, the target's stack layout
// and the library that registers it.
std::string hover_text(const ir::Kernel& k, const std::string& target_name,
                       const LibraryContext& context) {
  std::string text = fmt::format("**{}** — schema {}\n\n```\n{}\n```\n", k.op.str(),
                                 ir::to_string(k.schema_origin), k.schema().str());
  for (const ir::Field& field : emit::builtin_targets().fields()) {
    if (std::string_view value = k.field(field.key); !value.empty())
      text += fmt::format("\n{}: `{}`\n", field.noun, value);
  }
  if (const emit::Target* target = emit::builtin_targets().find(target_name)) {
    std::vector<std::string> slots = target->stack_layout(k);
    if (!slots.empty()) {
      text += fmt::format("\n{} wrapper's stack:\n", target->name());
      for (const std::string& slot : slots)
        text += "- `" + slot + "`\n";
    }
  }
  if (!context.library.empty()) {
    text += fmt::format("\nlibrary `{}`, registered by {}\n", context.library,
                        context.registration.empty() ? "a static initializer"
                                                     : "`" + context.registration + "()`");
  }
  return text;
}

// The document an analysis is of.
struct Request {
  std::string uri;
  std::string path;
  std::string text;
  std::vector<scan::Buffer> buffers; // every open document, this one first
};

std::string string_of(const Json& object, const char* name) {
  if (!object.is_object() || !object.contains(name) || !object.at(name).is_string())
    throw std::runtime_error(fmt::format("the request has no string '{}'", name));
  return object.at(name).get<std::string>();
}

// The file a document's URI names, as the server's Document has it. (Paths
// travel as URIs: percent-escaped, any byte of a file name survives JSON.)
std::string path_of(const std::string& uri) {
  std::optional<std::string> path = path_of_uri(uri);
  if (!path)
    throw std::runtime_error("not a file: URI: " + uri);
  return std::filesystem::path(*path).lexically_normal().string();
}

Request request_of(const Json& json) {
  Request r{string_of(json, "uri"), "", string_of(json, "text"), {}};
  r.path = path_of(r.uri);
  r.buffers.push_back({r.path, r.text});
  if (json.contains("buffers") && json.at("buffers").is_array()) {
    for (const Json& b : json.at("buffers"))
      r.buffers.push_back({path_of(string_of(b, "uri")), string_of(b, "text")});
  }
  return r;
}

// Where a problem of a compile_commands.json is: FILE:LINE:COLUMN, or the
// database's name when it could not be read at all (the message names it).
std::string database_place(const diag::Diagnostic& d) {
  if (d.location.file.empty())
    return "compile_commands.json";
  return fmt::format("{}:{}:{}", d.location.file, d.location.line, d.location.column);
}

// Where the hover of kernel `k` applies: its name, and the annotation on
// the lines just above it (usually).
Range hover_range(const ir::Kernel& k, const std::string& text, const DocumentDiagnostics& out) {
  Range r = out.range_of(k.location);
  const size_t line_start = text.rfind('\n', k.location.offset);
  size_t from = line_start == std::string::npos ? 0 : line_start;
  for (int up = 0; up < 4 && from > 0; ++up) {
    const size_t previous = text.rfind('\n', from - 1);
    const size_t begin = previous == std::string::npos ? 0 : previous + 1;
    if (std::string_view(text).substr(begin, from - begin).find("OPSCAN_KERNEL") !=
        std::string_view::npos) {
      r.start = out.position(begin);
      break;
    }
    from = begin > 0 ? begin - 1 : 0;
  }
  return r;
}

} // namespace

Json to_json(const AnalyzerOptions& options) {
  Json out = {{"target", options.target},
              {"encoding", options.encoding == Encoding::utf8 ? "utf-8" : "utf-16"}};
  // Paths as URIs, as in requests.
  if (options.compilation_database_dir)
    out["compilationDatabasePath"] = uri_of_path(*options.compilation_database_dir);
  if (!options.schemas.empty()) {
    out["schemas"] = Json::array();
    for (const std::string& schemas : options.schemas)
      out["schemas"].push_back(uri_of_path(schemas));
  }
  return out;
}

AnalyzerOptions analyzer_options(const Json& json) {
  AnalyzerOptions options;
  if (!json.is_object())
    return options;
  auto text = [&](const char* name) -> std::optional<std::string> {
    if (json.contains(name) && json.at(name).is_string())
      return json.at(name).get<std::string>();
    return std::nullopt;
  };
  auto path = [&](const char* name) -> std::optional<std::string> {
    std::optional<std::string> uri = text(name);
    return uri ? path_of_uri(*uri) : std::nullopt;
  };
  options.compilation_database_dir = path("compilationDatabasePath");
  if (json.contains("schemas") && json.at("schemas").is_array()) {
    for (const Json& uri : json.at("schemas")) {
      if (uri.is_string()) {
        if (auto schemas = path_of_uri(uri.get<std::string>()))
          options.schemas.push_back(*schemas);
      }
    }
  }
  if (auto target = text("target"); target && emit::builtin_targets().find(*target))
    options.target = *target;
  options.encoding = text("encoding") == "utf-8" ? Encoding::utf8 : Encoding::utf16;
  return options;
}

struct Analyzer::State {
  AnalyzerOptions options;
  Workspace workspace;
  UnitCache units;
  std::optional<kernel::KnownSchemas> known;
  std::set<std::string> told; // messages logged once
  Json log = Json::array();   // for the next answer

  explicit State(AnalyzerOptions o)
      : options(std::move(o)), workspace(options.compilation_database_dir) {
    if (!options.schemas.empty()) {
      diag::Diagnostics problems;
      known = kernel::load_known_schemas(options.schemas, problems);
      for (const diag::Diagnostic& d : problems)
        note(1, "opscan: " + d.location.file + ": " + d.message);
    }
  }

  void note(int type, std::string message) {
    log.push_back({{"type", type}, {"message", std::move(message)}});
  }

  Json analyze(const Request& doc);
  void note_database(const FileCommand& command, const std::string& path);
  scan::LiveAnalysis parse(FileCommand& command, const Request& doc, DocumentDiagnostics& out);
  void add_findings(const scan::LiveAnalysis& analysis, const FileCommand& command,
                    const Request& doc, DocumentDiagnostics& out);
  LibraryContext add_library_findings(const std::vector<const ir::Kernel*>& mine,
                                      const std::string& database, DocumentDiagnostics& out);
  Json suggestions(const scan::LiveAnalysis& analysis, DocumentDiagnostics& out,
                   const std::string& text);
};

// Tells the log (once each) why the document has default flags.
void Analyzer::State::note_database(const FileCommand& command, const std::string& path) {
  for (const diag::Diagnostic& d : command.database_problems) {
    if (told.insert("bad database " + d.location.file + d.message).second)
      note(1, fmt::format("opscan: {}: {} [{}]: files using it are scanned as C++17 with no "
                          "include paths",
                          database_place(d), d.message, d.code));
  }
  if (command.database.empty() && command.database_problems.empty()) {
    const std::string dir = std::filesystem::path(path).parent_path().string();
    if (told.insert("no database " + dir).second)
      note(3, "opscan: no compile_commands.json for " + dir +
                  " or its parents (or their build/): files there are scanned as C++17 with "
                  "no include paths");
  }
}

// The document's unit, parsed (through its includer, or alone when the
// includer turns out not to read it).
scan::LiveAnalysis Analyzer::State::parse(FileCommand& command, const Request& doc,
                                          DocumentDiagnostics& out) {
  const kernel::KnownSchemas* schemas = known ? &*known : nullptr;
  scan::LiveAnalysis analysis =
      units.analyze(command, doc.buffers, doc.path, schemas, emit::builtin_targets().fields());
  if (command.main_file != doc.path &&
      std::none_of(analysis.files.begin(), analysis.files.end(),
                   [&](const std::string& f) { return out.here(f); })) {
    // The guessed includer does not include it after all: parse the
    // header alone, with the includer's flags.
    command.main_file = doc.path;
    analysis =
        units.analyze(command, doc.buffers, doc.path, schemas, emit::builtin_targets().fields());
  }
  if (!command.database.empty())
    workspace.note_includes(command.main_file, command.database, analysis.files);
  return analysis;
}

// The parse's findings in the document, and those that stop it from
// elsewhere: a compile error in an included header, a compile database
// that cannot be used.
void Analyzer::State::add_findings(const scan::LiveAnalysis& analysis, const FileCommand& command,
                                   const Request& doc, DocumentDiagnostics& out) {
  for (const diag::Diagnostic& d : analysis.diagnostics) {
    if (out.here(d.location.file) || d.location.file.empty()) {
      std::string message = d.message;
      // Notes without a place in a file are part of the message.
      for (const diag::Note& note : d.notes) {
        if (note.location.file.empty())
          message += "\n" + note.message;
      }
      out.add(d, out.range_of(d.location), message);
    } else if (command.main_file == doc.path && d.code == "opscan-clang-error") {
      // A compile error in a header this file includes stops this file's
      // analysis too. (Opscan's findings there are that header's own.)
      diag::Diagnostic moved = d;
      moved.notes.insert(moved.notes.begin(), {d.message, d.location});
      moved.fixits.clear();
      out.add(
          moved, Range{},
          fmt::format("in included file {}:{}: {}", d.location.file, d.location.line, d.message));
    }
  }
  // A compile_commands.json that cannot be used: said on the document (its
  // other diagnostics likely follow from the default flags), at the place
  // in the database.
  for (const diag::Diagnostic& d : command.database_problems) {
    diag::Diagnostic moved = d;
    if (!d.location.file.empty())
      moved.notes.insert(moved.notes.begin(), {d.message, d.location});
    moved.fixits.clear();
    out.add(moved, Range{},
            fmt::format("{} cannot be used ({}), so this file is analysed as C++17 with no "
                        "include paths: {}",
                        database_place(d), d.code, d.message));
  }
}

// What the build's libraries say of the document's kernels `mine`, added
// to `out`; the library that holds the document.
LibraryContext Analyzer::State::add_library_findings(const std::vector<const ir::Kernel*>& mine,
                                                     const std::string& database,
                                                     DocumentDiagnostics& out) {
  if (database.empty())
    return {};
  const BuiltLibraries& built = workspace.built_libraries(database);
  const IsDocument here = [&](const std::string& file) { return out.here(file); };
  const LibraryContext context = library_of(built, database, here);
  for (const diag::Diagnostic& d : claimed_elsewhere(mine, built, context.library, here))
    out.add(d, out.range_of(d.location), d.message);
  for (const diag::Diagnostic& d : refused_libraries(built)) {
    if (told.insert("bad library " + d.message).second)
      note(2, "opscan: " + d.message);
    out.add(d, Range{}, d.message);
  }
  return context;
}

// Rewrites that would make a function a kernel, offered where it is.
Json Analyzer::State::suggestions(const scan::LiveAnalysis& analysis, DocumentDiagnostics& out,
                                  const std::string& text) {
  Json suggestions = Json::array();
  for (const scan::KernelSuggestion& suggestion : analysis.suggestions) {
    if (!out.here(suggestion.location.file) || !suggestion.location.valid())
      continue;
    Range r = out.range_of(suggestion.location);
    r.start.character = 0;
    std::vector<diag::FixIt> fixits;
    for (const diag::FixIt& f : suggestion.fixits) {
      if (out.here(f.file) && f.offset + f.length <= text.size())
        fixits.push_back(f);
    }
    if (fixits.size() == suggestion.fixits.size()) {
      suggestions.push_back(
          {{"range", to_json(r)},
           {"title", fmt::format("Make this an operator: OPSCAN_KERNEL(\"{}\")", suggestion.op)},
           {"edits", out.edits(fixits)}});
    }
  }
  return suggestions;
}

Json Analyzer::State::analyze(const Request& doc) {
  FileCommand command = workspace.command_for(doc.path);
  note_database(command, doc.path);
  DocumentDiagnostics out(doc.text, doc.path, options.encoding);
  const scan::LiveAnalysis analysis = parse(command, doc, out);
  add_findings(analysis, command, doc, out);

  // The kernels of this document, and what the build's libraries say of them.
  std::vector<const ir::Kernel*> mine;
  for (const ir::Kernel& k : analysis.fragment.kernels) {
    if (out.here(k.location.file))
      mine.push_back(&k);
  }
  const LibraryContext context = add_library_findings(mine, command.database, out);
  const std::string target = context.target.empty() ? options.target : context.target;
  // What generation would refuse (a target's context, types, keys) is
  // found by generating, in memory, for the target the file is built for.
  if (!analysis.fragment.kernels.empty() && !diag::has_errors(analysis.diagnostics)) {
    driver::Request request;
    request.options.target = target;
    if (!context.library.empty())
      request.options.library = context.library;
    driver::Plan plan = driver::plan_scanned(analysis.fragment, request, emit::builtin_targets());
    for (const diag::Diagnostic& d : plan.diagnostics) {
      if (out.here(d.location.file))
        out.add(d, out.range_of(d.location), d.message);
    }
  }
  Json suggestions = this->suggestions(analysis, out, doc.text);
  Json kernels = Json::array();
  for (const ir::Kernel* k : mine) {
    kernels.push_back({{"range", to_json(hover_range(*k, doc.text, out))},
                       {"hover", hover_text(*k, target, context)}});
  }
  return {{"diagnostics", out.take_diagnostics()},
          {"fixes", out.take_fixes()},
          {"kernels", std::move(kernels)},
          {"suggestions", std::move(suggestions)}};
}

Analyzer::Analyzer(AnalyzerOptions options) : state_(std::make_unique<State>(std::move(options))) {}

Analyzer::~Analyzer() = default;

Json Analyzer::analyze(const Json& request) {
  Json snapshot;
  try {
    snapshot = state_->analyze(request_of(request));
  } catch (const std::exception& e) {
    diag::Diagnostic failed =
        diag::make_error("opscan-internal", {}, std::string("the analysis failed: ") + e.what());
    snapshot = {{"diagnostics", {lsp_diagnostic(failed, Range{}, failed.message)}},
                {"fixes", Json::array()},
                {"kernels", Json::array()},
                {"suggestions", Json::array()}};
  }
  Json answer = {{"snapshot", std::move(snapshot)}, {"log", std::move(state_->log)}};
  state_->log = Json::array();
  return answer;
}

} // namespace opscan::lsp
