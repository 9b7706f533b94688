// Tensors in, from the safetensors format FlashInfer-Bench writes a workload's inputs in: an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype, shape and byte range, then
// the raw bytes. Read without a library (Debian packages none for C++).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "task/dtype.h"

namespace accelopt::task {

struct SafetensorsEntry {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // the bytes' range after the header
};

// `key`'s entry from the file's header, read alone (a weight file can be gigabytes). Throws
// UserError "<file>: ..." for a file that is not safetensors, a key it does not hold (naming those
// it does), a dtype the harness does not run (F64, I64, U8, BOOL, ...), or a byte range that does
// not match the shape.
SafetensorsEntry safetensors_entry(const std::filesystem::path& file, const std::string& key);

// `key`'s bytes, as the file holds them (little-endian, the dtype's width).
std::vector<unsigned char> read_safetensors_tensor(const std::filesystem::path& file,
                                                   const std::string& key);

// A file of `tensors` (key, dtype, shape, bytes), as safetensors writes one: for tests and tools.
struct SafetensorsTensor {
  std::string key;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;
};
void write_safetensors(const std::filesystem::path& file,
                       const std::vector<SafetensorsTensor>& tensors);

}  // namespace accelopt::task
