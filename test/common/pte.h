// ExecuTorch programs (.pte) for tests, made the way the format defines
// them: JSON model descriptions compiled by FlatBuffers' own flatc with a
// program schema (opscan's lib/pte/program.fbs, or ExecuTorch's), plus the
// extended header ExecuTorch's serializer adds. A test target that uses it
// defines OPSCAN_FLATC and OPSCAN_PTE_SCHEMA.
#pragma once

#include "files.h"
#include "run.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace opscan::testing {

// The binary flatc makes of the JSON model `json` (text) with `schema`
// (and -I `include_dir` for its includes); throws when flatc refuses it.
inline std::string flatc_binary(const std::string& json,
                                const std::string& schema = OPSCAN_PTE_SCHEMA,
                                const std::string& include_dir = "") {
  TempDir dir;
  dir.write("model.json", json);
  std::string command = std::string("'") + OPSCAN_FLATC + "' -b -o '" + dir.path().string() + "'";
  if (!include_dir.empty())
    command += " -I '" + include_dir + "'";
  command += " '" + schema + "' model.json";
  RunResult run = run_command(dir.path(), command);
  if (run.exit_code != 0)
    throw std::runtime_error("flatc failed: " + run.out + run.err);
  // The schema's file_extension names the output: "pte" (both schemas).
  std::string binary = read_file(dir.path() / "model.pte");
  if (binary.empty())
    throw std::runtime_error("flatc wrote no model.pte");
  return binary;
}

inline void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

// `program` with an extended header, laid out as ExecuTorch's serializer
// lays it out: "eh00", its length (24), the program's size and the offset
// of the segments, inserted after the file identifier (the root offset
// grows by 24); then `segments`, from a 16-byte boundary.
inline std::string with_extended_header(const std::string& program, const std::string& segments,
                                        uint32_t length = 24) {
  std::string header = "eh00";
  put_le(header, length, 4);
  const uint64_t program_size = program.size() + length;
  const uint64_t segment_base = (program_size + 15) / 16 * 16;
  put_le(header, program_size, 8);
  put_le(header, segment_base, 8);
  header.resize(length, '\0');
  std::string out = program.substr(0, 8) + header + program.substr(8);
  uint32_t root = 0;
  for (int i = 0; i < 4; ++i)
    root |= static_cast<uint32_t>(static_cast<unsigned char>(out[i])) << (8 * i);
  std::string patched;
  put_le(patched, root + length, 4);
  out.replace(0, 4, patched);
  out.resize(segment_base, '\0');
  return out + segments;
}

} // namespace opscan::testing
