// Tensors out, for other tools: the NumPy .npy format (version 1.0), so that a task's meaning can be
// checked against an independent implementation. The header is a Python dict literal padded so the
// data starts on a 64-byte boundary, as numpy.save writes it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace accelopt::task {

std::string npy_bytes(const std::string& descr, const std::vector<int64_t>& shape, const void* data,
                      size_t byte_count);

void write_npy(const std::filesystem::path& path, const std::string& descr,
               const std::vector<int64_t>& shape, const void* data, size_t byte_count);

}  // namespace accelopt::task
