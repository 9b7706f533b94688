#include "task/safetensors.h"

#include <fmt/format.h>

#include <fstream>

#include "common/error.h"
#include "common/files.h"
#include "common/json.h"

namespace accelopt::task {
namespace {

constexpr uint64_t kMaxHeader = 100ull << 20;  // the format's own limit

// safetensors' dtype names for the dtypes the harness runs.
const std::vector<std::pair<std::string, DType>>& dtype_names() {
  static const std::vector<std::pair<std::string, DType>> names = {
      {"F32", DType::kFloat32}, {"F16", DType::kFloat16}, {"BF16", DType::kBFloat16},
      {"I32", DType::kInt32},   {"I8", DType::kInt8},     {"F8_E4M3", DType::kFloat8E4M3}};
  return names;
}

struct Header {
  Json json;
  uint64_t data_start = 0;
  uint64_t data_size = 0;
};

Header read_header(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(file.string() + ": cannot be read");
  unsigned char length_bytes[8];
  in.read(reinterpret_cast<char*>(length_bytes), 8);
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | length_bytes[i];
  std::error_code error;
  uint64_t size = std::filesystem::file_size(file, error);
  if (!in || error || length == 0 || length > kMaxHeader || 8 + length > size) {
    throw UserError(file.string() + ": not a safetensors file (no header length it can hold)");
  }
  std::string text(length, '\0');
  in.read(text.data(), static_cast<std::streamsize>(length));
  Header header;
  header.json = Json::parse(text, nullptr, false);
  if (!in || header.json.is_discarded() || !header.json.is_object()) {
    throw UserError(file.string() + ": not a safetensors file (its header is not a JSON object)");
  }
  header.data_start = 8 + length;
  header.data_size = size - header.data_start;
  return header;
}

// `key`'s entry in `header`, read from `file`.
SafetensorsEntry entry_of(const Header& header, const std::filesystem::path& file,
                          const std::string& key) {
  if (!header.json.contains(key) || key == "__metadata__") {
    std::string held;
    for (const auto& [name, entry] : header.json.items()) {
      if (name != "__metadata__") held += (held.empty() ? "" : ", ") + name;
    }
    throw UserError(fmt::format("{}: holds no tensor '{}' (it holds {})", file.string(), key,
                                held.empty() ? "none" : held));
  }
  const Json& entry = header.json[key];
  std::string where = fmt::format("{}: tensor '{}'", file.string(), key);
  if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
      !entry.contains("data_offsets")) {
    throw UserError(where + ": its header entry lacks dtype, shape or data_offsets");
  }
  SafetensorsEntry found;
  std::string dtype = entry["dtype"].is_string() ? entry["dtype"].get<std::string>() : "?";
  bool known = false;
  for (const auto& [name, value] : dtype_names()) {
    if (name == dtype) {
      found.dtype = value;
      known = true;
    }
  }
  if (!known) {
    throw UserError(where + ": dtype " + dtype +
                    "; the harness runs F32, F16, BF16, F8_E4M3, I32 and I8 tensors");
  }
  uint64_t elements = 1;
  for (const Json& dimension : entry["shape"]) {
    if (!dimension.is_number_integer() || dimension.get<int64_t>() < 0) {
      throw UserError(where + ": a shape of non-negative integers is expected");
    }
    found.shape.push_back(dimension.get<int64_t>());
    elements *= static_cast<uint64_t>(dimension.get<int64_t>());
  }
  const Json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    throw UserError(where + ": data_offsets must be two byte offsets");
  }
  found.begin = offsets[0].get<uint64_t>();
  found.end = offsets[1].get<uint64_t>();
  if (found.end < found.begin || found.end > header.data_size ||
      found.end - found.begin != elements * dtype_size(found.dtype)) {
    throw UserError(fmt::format(
        "{}: its bytes [{}, {}) do not hold {} elements of {} (the file has {} bytes of data)",
        where, found.begin, found.end, elements, dtype, header.data_size));
  }
  return found;
}

}  // namespace

SafetensorsEntry safetensors_entry(const std::filesystem::path& file, const std::string& key) {
  return entry_of(read_header(file), file, key);
}

std::vector<unsigned char> read_safetensors_tensor(const std::filesystem::path& file,
                                                   const std::string& key) {
  Header header = read_header(file);
  SafetensorsEntry entry = entry_of(header, file, key);
  std::ifstream in(file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(header.data_start + entry.begin));
  std::vector<unsigned char> bytes(entry.end - entry.begin);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw UserError(file.string() + ": tensor '" + key + "' could not be read whole");
  return bytes;
}

void write_safetensors(const std::filesystem::path& file,
                       const std::vector<SafetensorsTensor>& tensors) {
  Json header = Json::object();
  std::string data;
  for (const SafetensorsTensor& tensor : tensors) {
    std::string dtype;
    for (const auto& [name, value] : dtype_names()) {
      if (value == tensor.dtype) dtype = name;
    }
    header[tensor.key] = {{"dtype", dtype},
                          {"shape", tensor.shape},
                          {"data_offsets", {data.size(), data.size() + tensor.bytes.size()}}};
    data.append(tensor.bytes.begin(), tensor.bytes.end());
  }
  std::string text = header.dump();
  std::string content(8, '\0');
  for (int i = 0; i < 8; ++i) content[i] = static_cast<char>((text.size() >> (8 * i)) & 0xFF);
  write_file_atomic(file, content + text + data);
}

}  // namespace accelopt::task
