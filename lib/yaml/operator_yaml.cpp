// yaml-cpp's event parser, folded into entries by a stack of the mappings
// and sequences open. No document tree is built (its nodes cost tens of
// times the file's size), subtrees under keys not read are only counted
// through, and an alias is resolved only to a string it names, so anchors
// cannot multiply the work.
#include "yaml/operator_yaml.h"

#include "yaml/marks.h"

#include <algorithm>
#include <map>
#include <set>
#include <streambuf>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

namespace opscan::yaml {
namespace {

constexpr std::string_view kFormat = "opscan-yaml-format";
constexpr std::string_view kSyntax = "opscan-yaml-syntax";

// Thrown by the reader to stop at the first problem (opscan-yaml-format);
// caught below.
struct Problem {
  diag::Location where;
  std::string message;
};

// An istream over the text, without copying it.
class ViewBuffer : public std::streambuf {
public:
  explicit ViewBuffer(std::string_view text) {
    char* begin = const_cast<char*>(text.data()); // only ever read
    setg(begin, begin, begin + text.size());
  }
};

// A node as the reader sees it: aliases of strings are resolved to them.
struct Node {
  enum class Kind { scalar, null, sequence, mapping, alias_of_collection };
  Kind kind = Kind::null;
  Scalar scalar; // where (always) and text (scalars)
  std::string alias_name;
};

std::string describe(const Node& node) {
  switch (node.kind) {
  case Node::Kind::scalar:
    return "a string";
  case Node::Kind::null:
    return "nothing (null)";
  case Node::Kind::sequence:
    return "a sequence";
  case Node::Kind::mapping:
    return "a mapping";
  case Node::Kind::alias_of_collection:
    return "an alias (*" + node.alias_name + ") of a mapping or sequence";
  }
  return "?";
}

class Reader : public YAML::EventHandler {
public:
  Reader(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  std::vector<Entry> entries;

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1)
      fail(located(mark), "more than one YAML document: an operator file is one sequence");
  }
  void OnDocumentEnd() override {}

  void OnAnchor(const YAML::Mark&, const std::string& name) override { anchor_name_ = name; }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    remember(anchor, std::nullopt);
    Node n;
    n.scalar.where = located(mark);
    node(n);
  }

  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    remember(anchor, value);
    Node n;
    n.kind = Node::Kind::scalar;
    n.scalar = scalar(mark, value);
    node(n);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Node n;
    n.scalar.where = located(mark);
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      n.kind = Node::Kind::alias_of_collection;
      n.alias_name = collection_anchors_[anchor];
    } else if (it->second) {
      n.kind = Node::Kind::scalar;
      n.scalar.text = *it->second; // located at the alias, not verbatim
    }
    node(n);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    start(mark, anchor, Node::Kind::sequence);
  }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    start(mark, anchor, Node::Kind::mapping);
  }
  void OnSequenceEnd() override { end(); }
  void OnMapEnd() override { end(); }

private:
  // What an open mapping or sequence is.
  enum class Open {
    entries,
    entry,
    kernels,
    kernel,
    arg_meta,
    aliases,         // an argument's alias names in arg_meta
    type_alias,      // an entry's type_alias mapping
    dim_order_alias, // an entry's dim_order_alias mapping
    alias_values,    // the values of one alias in either
    skipped
  };

  struct Frame {
    Open open;
    diag::Location where;
    std::optional<Scalar> key; // mappings: the key whose value comes next
    std::set<std::string> keys;
    size_t depth = 0; // skipped: collections open inside it
  };

  [[noreturn]] void fail(diag::Location where, std::string message) {
    throw Problem{std::move(where), std::move(message)};
  }

  diag::Location located(const YAML::Mark& mark) const {
    return location(mark, path_, bom_size(text_));
  }

  // The value located, and whether it stands in the file as it is: plain,
  // or inside quotes that hold no escapes.
  Scalar scalar(const YAML::Mark& mark, const std::string& value) const {
    Scalar s{value, located(mark), false};
    if (mark.is_null() || value.find('\n') != std::string::npos)
      return s;
    const size_t pos = s.where.offset;
    auto stands_at = [&](size_t at) { return text_.substr(at).starts_with(value); };
    if (pos < text_.size() && stands_at(pos)) {
      s.verbatim = true;
    } else if (pos < text_.size() && (text_[pos] == '"' || text_[pos] == '\'') &&
               stands_at(pos + 1) && text_.substr(pos + 1 + value.size()).starts_with(text_[pos])) {
      s.verbatim = true;
      ++s.where.column;
      ++s.where.offset;
    }
    return s;
  }

  // Strings and nulls under an anchor, for aliases naming them; only the
  // names of anchored collections are kept.
  void remember(YAML::anchor_t anchor, std::optional<std::string> value) {
    if (anchor != YAML::NullAnchor)
      anchors_[anchor] = std::move(value);
    anchor_name_.clear();
  }

  void start(const YAML::Mark& mark, YAML::anchor_t anchor, Node::Kind kind) {
    if (anchor != YAML::NullAnchor)
      collection_anchors_[anchor] = anchor_name_;
    anchor_name_.clear();
    if (!stack_.empty() && stack_.back().open == Open::skipped) {
      ++stack_.back().depth;
      return;
    }
    Node n;
    n.kind = kind;
    n.scalar.where = located(mark);
    node(n);
  }

  void end() {
    Frame& top = stack_.back();
    if (top.open == Open::skipped && top.depth > 0) {
      --top.depth;
      return;
    }
    if (top.open == Open::entry) {
      const Entry& e = entries.back();
      if (!e.func && !e.op)
        fail(top.where, "an operator entry needs 'func' (a schema) or 'op' (an operator name)");
      if (e.func && e.op)
        fail(e.op->where, "an operator entry has 'func' or 'op', not both");
    }
    if (top.open == Open::kernel && entries.back().kernels.back().kernel_name.text.empty())
      fail(top.where, "a kernel needs 'kernel_name'");
    stack_.pop_back();
  }

  void push(Open open, const Node& n) { stack_.push_back(Frame{open, n.scalar.where, {}, {}, 0}); }

  // Every node in document order: a mapping's keys and values alternate.
  void node(const Node& n) {
    if (stack_.empty())
      return top_level(n);
    Frame& top = stack_.back();
    switch (top.open) {
    case Open::skipped:
      return;
    case Open::entries:
      if (n.kind != Node::Kind::mapping)
        fail(n.scalar.where,
             "an operator entry is a mapping (func: ... or op: ...), not " + describe(n));
      entries.push_back(Entry{n.scalar.where, {}, {}, {}, {}, {}, {}});
      return push(Open::entry, n);
    case Open::kernels:
      if (n.kind != Node::Kind::mapping)
        fail(n.scalar.where,
             "a kernel is a mapping (arg_meta: ..., kernel_name: ...), not " + describe(n));
      entries.back().kernels.push_back(Kernel{n.scalar.where, std::nullopt, {}});
      return push(Open::kernel, n);
    case Open::aliases:
      entries.back().kernels.back().arg_meta->back().aliases.push_back(
          string_value(n, "an alias name"));
      return;
    case Open::alias_values: {
      // The mapping the values are under is the frame below.
      Entry& entry = entries.back();
      auto& aliases = stack_[stack_.size() - 2].open == Open::type_alias ? entry.type_alias
                                                                         : entry.dim_order_alias;
      aliases.back().values.push_back(string_value(n, "a dtype name or dimension"));
      return;
    }
    case Open::entry:
    case Open::kernel:
    case Open::arg_meta:
    case Open::type_alias:
    case Open::dim_order_alias: {
      if (!top.key)
        return key(top, n);
      const Scalar key = std::move(*top.key);
      top.key.reset();
      return value(top.open, key, n);
    }
    }
  }

  void top_level(const Node& n) {
    if (n.kind == Node::Kind::null)
      return; // an empty document: no entries
    if (n.kind != Node::Kind::sequence)
      fail(n.scalar.where,
           "the top level of an operator file is a sequence of entries, not " + describe(n));
    push(Open::entries, n);
  }

  void key(Frame& top, const Node& n) {
    if (n.kind != Node::Kind::scalar)
      fail(n.scalar.where, "a key is a string, not " + describe(n));
    if (n.scalar.text == "<<")
      fail(n.scalar.where, "merge keys ('<<') are not read: write the entry out");
    if (!top.keys.insert(n.scalar.text).second)
      fail(n.scalar.where, "key '" + n.scalar.text + "' is given twice in this mapping");
    top.key = n.scalar;
  }

  Scalar string_value(const Node& n, std::string_view what) {
    if (n.kind != Node::Kind::scalar)
      fail(n.scalar.where, "expected " + std::string(what) + ", found " + describe(n));
    return n.scalar;
  }

  // Values of keys this module does not read are skipped whole.
  void skip(const Node& n) {
    if (n.kind == Node::Kind::sequence || n.kind == Node::Kind::mapping)
      push(Open::skipped, n);
  }

  void value(Open in, const Scalar& key, const Node& n) {
    const std::string& k = key.text;
    if (in == Open::arg_meta) {
      if (n.kind != Node::Kind::sequence)
        fail(n.scalar.where, "arg_meta of '" + k +
                                 "': expected a list of alias names such as [T0, D0], found " +
                                 describe(n));
      entries.back().kernels.back().arg_meta->push_back(ArgMeta{key, {}});
      return push(Open::aliases, n);
    }
    if (in == Open::type_alias || in == Open::dim_order_alias) {
      if (n.kind != Node::Kind::sequence)
        fail(n.scalar.where, "alias '" + k + "': expected a list such as " +
                                 (in == Open::type_alias ? "[Float, Double]" : "[0, 1, 2, 3]") +
                                 ", found " + describe(n));
      Entry& entry = entries.back();
      (in == Open::type_alias ? entry.type_alias : entry.dim_order_alias).push_back(Alias{key, {}});
      return push(Open::alias_values, n);
    }
    if (in == Open::kernel) {
      Kernel& kernel = entries.back().kernels.back();
      if (k == "kernel_name") {
        kernel.kernel_name = string_value(n, "a kernel name");
        if (kernel.kernel_name.text.empty())
          fail(n.scalar.where, "kernel_name is empty");
      } else if (k == "arg_meta" && n.kind == Node::Kind::mapping) {
        kernel.arg_meta.emplace();
        push(Open::arg_meta, n);
      } else if (k == "arg_meta" && n.kind != Node::Kind::null) {
        fail(n.scalar.where,
             "arg_meta: expected null or a mapping of arguments, found " + describe(n));
      } else if (k != "arg_meta") {
        skip(n);
      }
      return;
    }
    Entry& entry = entries.back();
    if (k == "func") {
      entry.func = string_value(n, "a schema");
    } else if (k == "op") {
      entry.op = string_value(n, "an operator name");
    } else if (k == "autogen") {
      entry.autogen = split_names(string_value(n, "comma-separated operator names"));
    } else if (k == "kernels" && n.kind == Node::Kind::sequence) {
      push(Open::kernels, n);
    } else if (k == "kernels" && n.kind != Node::Kind::null) {
      fail(n.scalar.where, "kernels: expected a sequence of kernels, found " + describe(n));
    } else if ((k == "type_alias" || k == "dim_order_alias") && n.kind == Node::Kind::mapping) {
      push(k == "type_alias" ? Open::type_alias : Open::dim_order_alias, n);
    } else if ((k == "type_alias" || k == "dim_order_alias") && n.kind != Node::Kind::null) {
      fail(n.scalar.where, k + ": expected a mapping of aliases, found " + describe(n));
    } else if (k != "kernels" && k != "type_alias" && k != "dim_order_alias") {
      skip(n);
    }
  }

  // "foo.out, foo_.out": torchgen separates names by ", "; any spaces
  // around a comma are taken. An empty value lists none.
  std::vector<Scalar> split_names(const Scalar& list) {
    std::vector<Scalar> names;
    const std::string& t = list.text;
    if (t.find_first_not_of(" \t") == std::string::npos)
      return names;
    size_t start = 0;
    for (;;) {
      const size_t comma = std::min(t.find(',', start), t.size());
      const size_t first = std::min(t.find_first_not_of(" \t", start), comma);
      size_t last = comma;
      while (last > first && (t[last - 1] == ' ' || t[last - 1] == '\t'))
        --last;
      Scalar name{t.substr(first, last - first), list.at(first), list.verbatim};
      if (name.text.empty())
        fail(name.where, "autogen: an empty operator name between commas");
      names.push_back(std::move(name));
      if (comma == t.size())
        return names;
      start = comma + 1;
    }
  }

  std::string_view text_;
  const std::string& path_;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, std::optional<std::string>> anchors_;
  std::map<YAML::anchor_t, std::string> collection_anchors_;
  std::string anchor_name_;
  int documents_ = 0;
};

} // namespace

diag::Location Scalar::at(size_t offset) const {
  if (!verbatim || offset > text.size())
    return where;
  diag::Location l = where;
  l.column += static_cast<uint32_t>(offset);
  l.offset += static_cast<uint32_t>(offset);
  return l;
}

std::optional<std::vector<Entry>>
parse_operator_yaml(std::string_view text, const std::string& path, diag::Diagnostics& diags) {
  ViewBuffer buffer(text);
  std::istream in(&buffer);
  Reader reader(text, path);
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(reader)) {
    }
  } catch (const Problem& p) {
    diags.push_back(diag::make_error(std::string(kFormat), p.where, p.message));
    return std::nullopt;
  } catch (const YAML::DeepRecursion& e) {
    diags.push_back(diag::make_error(std::string(kSyntax), location(e.mark, path, bom_size(text)),
                                     "malformed YAML: nested deeper than the reader allows"));
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    diags.push_back(diag::make_error(std::string(kSyntax), location(e.mark, path, bom_size(text)),
                                     "malformed YAML: " + e.msg));
    return std::nullopt;
  }
  return std::move(reader.entries);
}

namespace {

// Parses `text`, qualified with `ns` when it names no namespace before the
// argument list; error offsets then index `text` itself.
template <typename T, typename Parse>
schema::Parsed<T> parse_qualified(std::string_view text, std::string_view ns, Parse parse) {
  const size_t paren = text.find('(');
  if (text.substr(0, paren).find("::") != std::string_view::npos)
    return parse(text);
  const std::string prefix = std::string(ns) + "::";
  schema::Parsed<T> parsed = parse(prefix + std::string(text));
  if (parsed.error)
    parsed.error->offset =
        parsed.error->offset > prefix.size() ? parsed.error->offset - prefix.size() : 0;
  return parsed;
}

} // namespace

schema::Parsed<schema::Schema> parse_func(const Scalar& func) {
  return parse_qualified<schema::Schema>(
      func.text, "aten", [](std::string_view t) { return schema::parse_schema(t); });
}

schema::Parsed<schema::OperatorName> parse_operator(const Scalar& name, std::string_view ns) {
  return parse_qualified<schema::OperatorName>(
      name.text, ns, [](std::string_view t) { return schema::parse_operator_name(t); });
}

} // namespace opscan::yaml
