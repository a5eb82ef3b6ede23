// Reading files, and writing them atomically and only when their content
// changes (so timestamps stay put and builds do not redo work).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace opscan::support {

// The whole file, or nullopt when it cannot be read; `error` then says why.
std::optional<std::string> read_file(const std::filesystem::path& path,
                                     std::string* error = nullptr);

enum class WriteOutcome { unchanged, written, failed };

// Writes `content` to a temporary file beside `path`, then renames it over
// `path`, unless `path` already holds exactly `content`. Creates parent
// directories. On failure returns `failed` with `error` set and leaves
// `path` as it was.
WriteOutcome write_if_changed(const std::filesystem::path& path, const std::string& content,
                              std::string* error = nullptr);

// Creates `path` (and its parent directories) if it does not exist, else
// leaves its content alone; either way sets its modification time to now.
// For stamp files: build tools compare their time with the inputs'. On
// failure returns false with `error` set.
bool touch(const std::filesystem::path& path, std::string* error = nullptr);

// `path` relative to the current directory when it lies inside it, else
// absolute; lexically normalised. Keeps outputs independent of where a
// checkout lives.
std::string display_path(const std::filesystem::path& path);

} // namespace opscan::support
