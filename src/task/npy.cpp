#include "task/npy.h"

#include "common/files.h"

namespace accelopt::task {

std::string npy_bytes(const std::string& descr, const std::vector<int64_t>& shape, const void* data,
                      size_t byte_count) {
  std::string dims;
  for (int64_t dim : shape) dims += std::to_string(dim) + ", ";
  // "(3,)" for one axis, "(2, 3)" for more.
  if (shape.size() == 1) dims.erase(dims.size() - 1);
  if (shape.size() > 1) dims.erase(dims.size() - 2);
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  size_t unpadded = 10 + header.size() + 1;  // magic, version, length, header, newline
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string bytes = "\x93NUMPY";
  bytes.push_back('\x01');
  bytes.push_back('\x00');
  bytes.push_back(static_cast<char>(header.size() & 0xff));
  bytes.push_back(static_cast<char>((header.size() >> 8) & 0xff));
  bytes += header;
  bytes.append(static_cast<const char*>(data), byte_count);
  return bytes;
}

void write_npy(const std::filesystem::path& path, const std::string& descr,
               const std::vector<int64_t>& shape, const void* data, size_t byte_count) {
  write_file_atomic(path, npy_bytes(descr, shape, data, byte_count));
}

}  // namespace accelopt::task
