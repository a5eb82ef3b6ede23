// One document's analysis in the worker: compile command, live parse, findings, hovers and fixes.
#include "lsp/analysis.h"

#include "diag/codes.h"
#include "driver/driver.h"
#include "emit/registry.h"
#include "lsp/workspace.h"
#include "scan/known_schemas.h"
#include "scan/live.h"
#include "support/files.h"
#include "support/text.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <list>
#include <map>
#include <set>

namespace opscan::lsp {
namespace {

// Parsed translation units kept for re-parsing: each holds a preamble
// (tens of MB), so only the most recently used are kept.
constexpr size_t kMaxUnits = 8;

// A kernel that other kernels of a library claim too gets a diagnostic for
// each of them up to this many (a file of kernels all registering one
// operator would otherwise get the square of its kernels); the last one
// says there are more.
constexpr size_t kMaxOverlapsShown = 8;

const char* kSource = "opscan";

std::string canonical(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

bool is_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The bytes a diagnostic at `offset` covers: the word or string literal
// there, else one character (editors show an empty range badly).
std::pair<size_t, size_t> extent_at(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t end = offset;
  if (end < text.size() && text[end] == '"') {
    const size_t close = text.find_first_of("\"\n", end + 1);
    if (close != std::string_view::npos && text[close] == '"')
      return {offset, close + 1};
  }
  while (end < text.size() && (is_word(text[end]) || text[end] == ':'))
    ++end;
  if (end == offset && end < text.size() && text[end] != '\n')
    ++end;
  return {offset, end};
}

int severity_of(diag::Severity s) {
  switch (s) {
  case diag::Severity::error:
    return 1;
  case diag::Severity::warning:
    return 2;
  case diag::Severity::note:
    return 3;
  }
  return 1;
}

Json to_json(Position p) {
  return {{"line", p.line}, {"character", p.character}};
}

Json to_json(const Range& r) {
  return {{"start", to_json(r.start)}, {"end", to_json(r.end)}};
}

// What a fix does, for its action's title: the words it changes, without
// what the old and new text share ("Change 'float' to 'int'" for a schema
// rewritten whole).
std::string title_of(const std::vector<diag::FixIt>& fixits, std::string_view text) {
  if (fixits.size() != 1)
    return "Apply opscan's fix";
  const diag::FixIt& f = fixits.front();
  std::string_view old = text.substr(std::min<size_t>(f.offset, text.size()), f.length);
  std::string_view now = f.replacement;
  size_t prefix = 0;
  while (prefix < old.size() && prefix < now.size() && old[prefix] == now[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < old.size() - prefix && suffix < now.size() - prefix &&
         old[old.size() - 1 - suffix] == now[now.size() - 1 - suffix])
    ++suffix;
  // Whole words: back to where the word began and on to where it ends.
  while (prefix > 0 && is_word(old[prefix - 1]))
    --prefix;
  while (suffix > 0 && is_word(old[old.size() - suffix]))
    --suffix;
  auto shown = [](std::string_view s) {
    std::string one_line(s);
    std::replace(one_line.begin(), one_line.end(), '\n', ' ');
    return support::clipped(one_line, 60);
  };
  old = old.substr(prefix, old.size() - prefix - suffix);
  now = now.substr(prefix, now.size() - prefix - suffix);
  if (old.empty())
    return fmt::format("Insert '{}'", shown(now));
  if (now.empty())
    return fmt::format("Remove '{}'", shown(old));
  return fmt::format("Change '{}' to '{}'", shown(old), shown(now));
}

// A kernel's hover: its operator, schema, keys, the target's stack layout
// and the library that registers it.
std::string hover_text(const ir::Kernel& k, const std::string& target_name,
                       const std::string& library, const std::string& registration) {
  std::string text = fmt::format("**{}** — schema {}\n\n```\n{}\n```\n", k.op.str(),
                                 ir::to_string(k.schema_origin), k.schema().str());
  if (!k.kernel_key.empty())
    text += fmt::format("\nkernel key: `{}`\n", k.kernel_key);
  if (!k.dispatch_key.empty())
    text += fmt::format("\ndispatch key: `{}`\n", k.dispatch_key);
  if (const emit::Target* target = emit::builtin_targets().find(target_name)) {
    std::vector<std::string> slots = target->stack_layout(k);
    if (!slots.empty()) {
      text += fmt::format("\n{} wrapper's stack:\n", target->name());
      for (const std::string& slot : slots)
        text += "- `" + slot + "`\n";
    }
  }
  if (!library.empty()) {
    text += fmt::format("\nlibrary `{}`, registered by {}\n", library,
                        registration.empty() ? "a static initializer" : "`" + registration + "()`");
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

} // namespace

Json to_json(const AnalyzerOptions& options) {
  Json out = {{"target", options.target},
              {"encoding", options.encoding == Encoding::utf8 ? "utf-8" : "utf-16"}};
  // Paths as URIs, as in requests.
  if (options.compilation_database_dir)
    out["compilationDatabasePath"] = uri_of_path(*options.compilation_database_dir);
  if (options.schemas)
    out["schemas"] = uri_of_path(*options.schemas);
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
  options.schemas = path("schemas");
  if (auto target = text("target"); target && emit::builtin_targets().find(*target))
    options.target = *target;
  options.encoding = text("encoding") == "utf-8" ? Encoding::utf8 : Encoding::utf16;
  return options;
}

struct Analyzer::State {
  AnalyzerOptions options;
  Workspace workspace;
  std::list<std::pair<std::string, std::unique_ptr<scan::LiveUnit>>> units; // most recent first
  std::optional<scan::KnownSchemas> known;
  scan::FieldCheck check_field = driver::field_check(emit::builtin_targets());
  std::set<std::string> told; // messages logged once
  Json log = Json::array();   // for the next answer

  explicit State(AnalyzerOptions o)
      : options(std::move(o)), workspace(options.compilation_database_dir) {
    if (options.schemas) {
      diag::Diagnostics problems;
      known = scan::load_known_schemas(*options.schemas, problems);
      for (const diag::Diagnostic& d : problems)
        note(1, "opscan: " + *options.schemas + ": " + d.message);
    }
  }

  void note(int type, std::string message) {
    log.push_back({{"type", type}, {"message", std::move(message)}});
  }

  // The unit for `command`: one per main file and kind of walk, so a unit
  // parsed with other arguments (a compile_commands.json since changed) is
  // dropped when its replacement is made.
  scan::LiveUnit& unit_for(const FileCommand& command, const std::string& path) {
    const bool main_file_only = command.main_file == path;
    const std::string file_key = (main_file_only ? "main\n" : "all\n") + command.main_file;
    std::string key = file_key + '\n' + command.directory;
    for (const std::string& a : command.args)
      key += '\n' + a;
    for (auto it = units.begin(); it != units.end(); ++it) {
      if (it->first == key) {
        units.splice(units.begin(), units, it);
        return *units.front().second;
      }
    }
    units.remove_if([&](const auto& entry) {
      return entry.first == file_key || entry.first.starts_with(file_key + "\n");
    });
    units.emplace_front(key, std::make_unique<scan::LiveUnit>(command.main_file, command.args,
                                                              main_file_only, command.directory));
    if (units.size() > kMaxUnits)
      units.pop_back();
    return *units.front().second;
  }

  void drop_unit(const scan::LiveUnit& unit) {
    units.remove_if([&](const auto& entry) { return entry.second.get() == &unit; });
  }

  scan::LiveAnalysis run_unit(const FileCommand& command, const std::vector<scan::Buffer>& buffers,
                              const std::string& path) {
    scan::LiveUnit& unit = unit_for(command, path);
    try {
      return unit.analyze(buffers, known ? &*known : nullptr, check_field, path);
    } catch (const std::exception& e) {
      // One file's failure is that file's diagnostic; the worker goes on.
      drop_unit(unit);
      scan::LiveAnalysis failed;
      failed.diagnostics.push_back(diag::make_error(
          "opscan-internal", {path, 1, 1, 0}, std::string("the analysis failed: ") + e.what()));
      return failed;
    }
  }

  Json analyze(const Request& doc);
};

Json Analyzer::State::analyze(const Request& doc) {
  const Encoding enc = options.encoding;
  FileCommand command = workspace.command_for(doc.path);
  for (const diag::Diagnostic& d : command.database_problems) {
    if (told.insert("bad database " + d.location.file + d.message).second)
      note(1, fmt::format("opscan: {}: {} [{}]: files using it are scanned as C++17 with no "
                          "include paths",
                          database_place(d), d.message, d.code));
  }
  if (command.database.empty() && command.database_problems.empty()) {
    const std::string dir = std::filesystem::path(doc.path).parent_path().string();
    if (told.insert("no database " + dir).second)
      note(3, "opscan: no compile_commands.json for " + dir +
                  " or its parents (or their build/): files there are scanned as C++17 with "
                  "no include paths");
  }
  const std::string self = canonical(doc.path);
  scan::LiveAnalysis analysis = run_unit(command, doc.buffers, doc.path);
  auto reads_self = [&](const scan::LiveAnalysis& a) {
    return std::any_of(a.files.begin(), a.files.end(),
                       [&](const std::string& f) { return canonical(f) == self; });
  };
  if (command.main_file != doc.path && !reads_self(analysis)) {
    // The guessed includer does not include it after all: parse the
    // header alone, with the includer's flags.
    command.main_file = doc.path;
    analysis = run_unit(command, doc.buffers, doc.path);
  }
  if (!command.database.empty())
    workspace.note_includes(command.main_file, command.database, analysis.files);

  const std::string& text = doc.text;
  const LineIndex lines(text);
  Json diagnostics = Json::array();
  Json fixes = Json::array();
  Json kernels = Json::array();
  Json suggestions = Json::array();
  std::string target = options.target;
  std::string library;      // "" when no generated library holds the file
  std::string registration; // its registration function, "" when static

  std::map<std::string, bool> is_self; // path -> whether it is this document
  auto here = [&](const std::string& file) {
    auto [it, fresh] = is_self.try_emplace(file, false);
    if (fresh)
      it->second = !file.empty() && canonical(file) == self;
    return it->second;
  };
  auto range_here = [&](const diag::Location& where) {
    if (!where.valid())
      return Range{};
    auto [begin, end] = extent_at(text, where.offset);
    return Range{lines.position(text, begin, enc), lines.position(text, end, enc)};
  };
  // Other files' texts and line starts, each read once.
  std::map<std::string, std::optional<std::pair<std::string, LineIndex>>> others;
  auto location_json = [&](const diag::Location& where) -> Json {
    Range r;
    if (here(where.file)) {
      r = range_here(where);
    } else if (where.valid()) {
      auto [it, fresh] = others.try_emplace(where.file);
      if (fresh) {
        if (std::optional<std::string> other = support::read_file(where.file, nullptr, 16 << 20)) {
          LineIndex index(*other);
          it->second.emplace(std::move(*other), std::move(index));
        }
      }
      if (it->second && where.offset <= it->second->first.size()) {
        const auto& [other, index] = *it->second;
        auto [begin, end] = extent_at(other, where.offset);
        r = {index.position(other, begin, enc), index.position(other, end, enc)};
      } else {
        r.start = r.end = {where.line - 1, where.column > 0 ? where.column - 1 : 0};
      }
    }
    return {{"uri", uri_of_path(where.file)}, {"range", to_json(r)}};
  };
  auto edits_of = [&](const std::vector<diag::FixIt>& fixits) {
    Json edits = Json::array();
    for (const diag::FixIt& f : fixits) {
      Range r{lines.position(text, f.offset, enc), lines.position(text, f.offset + f.length, enc)};
      edits.push_back({{"range", to_json(r)}, {"newText", f.replacement}});
    }
    return edits;
  };

  auto add = [&](const diag::Diagnostic& d, Range range, std::string message) {
    Json out = {{"range", to_json(range)},
                {"severity", severity_of(d.severity)},
                {"source", kSource},
                {"message", std::move(message)}};
    if (!d.code.empty()) {
      out["code"] = d.code;
      if (diag::find_code(d.code))
        out["codeDescription"] = {{"href", diag::help_url(d.code)}};
    }
    Json related = Json::array();
    for (const diag::Note& note : d.notes) {
      if (note.location.file.empty())
        continue;
      related.push_back({{"location", location_json(note.location)}, {"message", note.message}});
    }
    if (!related.empty())
      out["relatedInformation"] = std::move(related);
    std::vector<diag::FixIt> fixits;
    for (const diag::FixIt& f : d.fixits) {
      if (here(f.file) && f.offset + f.length <= text.size() &&
          std::find(fixits.begin(), fixits.end(), f) == fixits.end())
        fixits.push_back(f);
    }
    if (!fixits.empty()) {
      fixes.push_back({{"range", to_json(range)},
                       {"diagnostic", diagnostics.size()},
                       {"title", title_of(fixits, text)},
                       {"edits", edits_of(fixits)}});
    }
    diagnostics.push_back(std::move(out));
  };

  for (const diag::Diagnostic& d : analysis.diagnostics) {
    if (here(d.location.file) || d.location.file.empty()) {
      std::string message = d.message;
      // Notes without a place in a file are part of the message.
      for (const diag::Note& note : d.notes) {
        if (note.location.file.empty())
          message += "\n" + note.message;
      }
      add(d, range_here(d.location), message);
    } else if (command.main_file == doc.path && d.code == "opscan-clang-error") {
      // A compile error in a header this file includes stops this file's
      // analysis too. (Opscan's findings there are that header's own.)
      diag::Diagnostic moved = d;
      moved.notes.insert(moved.notes.begin(), {d.message, d.location});
      moved.fixits.clear();
      add(moved, Range{},
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
    add(moved, Range{},
        fmt::format("{} cannot be used ({}), so this file is analysed as C++17 with no include "
                    "paths: {}",
                    database_place(d), d.code, d.message));
  }

  // The kernels of this document, and what the build's libraries say of them.
  std::vector<const ir::Kernel*> mine;
  for (const ir::Kernel& k : analysis.fragment.kernels) {
    if (here(k.location.file))
      mine.push_back(&k);
  }
  if (!command.database.empty()) {
    const std::vector<BuiltLibrary>& built = workspace.libraries(command.database);
    for (const BuiltLibrary& l : built) {
      for (const ir::SourceFile& source : l.module.sources) {
        std::string file = source.path;
        if (!file.empty() && std::filesystem::path(file).is_relative())
          file = (std::filesystem::path(command.database).parent_path() / file)
                     .lexically_normal()
                     .string();
        if (here(file)) {
          library = l.module.library->name;
          registration = l.module.library->function;
          target = l.module.library->target;
        }
      }
    }
    // Kernels of the libraries that make the same claim as one of `mine`
    // elsewhere: within the library holding this file, a duplicate; in
    // another, an overlap no program can link. Found by the libraries'
    // claims index: linear in the kernels of the file.
    for (const ir::Kernel* k : mine) {
      for (const BuiltLibrary& l : built) {
        const emit::Target* t = emit::builtin_targets().find(l.module.library->target);
        if (!t)
          continue;
        std::map<size_t, std::string> others_of_k; // kernel -> the claim's description
        bool more = false;                         // than are shown
        for (const emit::Target::Claim& c : t->claims(*k)) {
          auto by_file = l.claims.find(c.key);
          if (by_file == l.claims.end())
            continue;
          for (const auto& [file, claimants] : by_file->second) {
            if (here(file))
              continue; // this file's own kernels, as last built
            for (const BuiltLibrary::Claimant& other : claimants) {
              if (l.module.kernels[other.kernel].usr == k->usr)
                continue;
              if (auto it = others_of_k.find(other.kernel); it != others_of_k.end()) {
                it->second = other.description;
              } else if (others_of_k.size() < kMaxOverlapsShown) {
                others_of_k.emplace(other.kernel, other.description);
              } else {
                more = true;
                break;
              }
            }
          }
        }
        size_t shown = 0;
        for (const auto& [index, shared] : others_of_k) {
          const ir::Kernel& other = l.module.kernels[index];
          const diag::Location& at = l.locations[index];
          const std::string& name = l.module.library->name;
          const bool same = name == library;
          std::string message =
              same ? fmt::format("library '{}' registers {} here and in {}:{}", name, shared,
                                 at.file, at.line)
                   : fmt::format("library '{}' registers {} too ({}:{}): a program cannot link "
                                 "both libraries",
                                 name, shared, at.file, at.line);
          if (++shown == others_of_k.size() && more)
            message += fmt::format(" (and more kernels of library '{}')", name);
          const std::string code = same ? "opscan-duplicate-kernel" : "opscan-library-overlap";
          diagnostics.push_back(
              {{"range", to_json(range_here(k->location))},
               {"severity", same ? 1 : 2},
               {"source", kSource},
               {"code", code},
               {"codeDescription", {{"href", diag::help_url(code)}}},
               {"message", message},
               {"relatedInformation",
                {{{"location", location_json(at)},
                  {"message", fmt::format("{} in library '{}'", describe(other), name)}},
                 {{"location", location_json(k->location)},
                  {"message", describe(*k) + " here"}}}}});
        }
      }
    }
  }
  // What generation would refuse (a target's context, types, keys) is
  // found by generating, in memory, for the target the file is built for.
  if (!analysis.fragment.kernels.empty() && !diag::has_errors(analysis.diagnostics)) {
    driver::Request request;
    request.options.target = target;
    if (!library.empty())
      request.options.library = library;
    driver::Plan plan = driver::plan_scanned(analysis.fragment, request, emit::builtin_targets());
    for (const diag::Diagnostic& d : plan.diagnostics) {
      if (here(d.location.file))
        add(d, range_here(d.location), d.message);
    }
  }
  for (const scan::KernelSuggestion& suggestion : analysis.suggestions) {
    if (!here(suggestion.location.file) || !suggestion.location.valid())
      continue;
    Range r = range_here(suggestion.location);
    r.start.character = 0;
    std::vector<diag::FixIt> fixits;
    for (const diag::FixIt& f : suggestion.fixits) {
      if (here(f.file) && f.offset + f.length <= text.size())
        fixits.push_back(f);
    }
    if (fixits.size() == suggestion.fixits.size()) {
      suggestions.push_back(
          {{"range", to_json(r)},
           {"title", fmt::format("Make this an operator: OPSCAN_KERNEL(\"{}\")", suggestion.op)},
           {"edits", edits_of(fixits)}});
    }
  }
  for (const ir::Kernel* k : mine) {
    Range r = range_here(k->location);
    // The annotation is on the lines just above the name, usually.
    const size_t line_start = text.rfind('\n', k->location.offset);
    size_t from = line_start == std::string::npos ? 0 : line_start;
    for (int up = 0; up < 4 && from > 0; ++up) {
      const size_t previous = text.rfind('\n', from - 1);
      const size_t begin = previous == std::string::npos ? 0 : previous + 1;
      if (std::string_view(text).substr(begin, from - begin).find("OPSCAN_KERNEL") !=
          std::string_view::npos) {
        r.start = lines.position(text, begin, enc);
        break;
      }
      from = begin > 0 ? begin - 1 : 0;
    }
    kernels.push_back(
        {{"range", to_json(r)}, {"hover", hover_text(*k, target, library, registration)}});
  }
  return {{"diagnostics", std::move(diagnostics)},
          {"fixes", std::move(fixes)},
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
    const std::string message = std::string("the analysis failed: ") + e.what();
    snapshot = {{"diagnostics",
                 {{{"range", to_json(Range{})},
                   {"severity", 1},
                   {"source", kSource},
                   {"code", "opscan-internal"},
                   {"message", message}}}},
                {"fixes", Json::array()},
                {"kernels", Json::array()},
                {"suggestions", Json::array()}};
  }
  Json answer = {{"snapshot", std::move(snapshot)}, {"log", std::move(state_->log)}};
  state_->log = Json::array();
  return answer;
}

} // namespace opscan::lsp
