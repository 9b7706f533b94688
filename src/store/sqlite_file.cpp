#include "store/sqlite_file.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "store/store.h"

namespace accelopt::store {
namespace {

constexpr size_t kHeaderSize = 100;
constexpr char kMagic[] = "SQLite format 3";  // with its NUL: the header's first 16 bytes

uint64_t big_endian(const unsigned char* bytes, int count) {
  uint64_t value = 0;
  for (int index = 0; index < count; ++index) value = (value << 8) | bytes[index];
  return value;
}

bool wal_holds_pages(const std::filesystem::path& path) {
  std::filesystem::path wal = path.string() + "-wal";
  std::error_code error;
  return std::filesystem::exists(wal, error) && std::filesystem::file_size(wal, error) > 0 &&
         !error;
}

std::string damaged_message(const std::filesystem::path& path, const std::string& damage) {
  return fmt::format(
      "the database {} is damaged: {}; restore it from a copy, or salvage what it holds with "
      "`sqlite3 {} .recover | sqlite3 recovered.db` and move recovered.db in its place, or start "
      "afresh with another --workspace",
      path.string(), damage, path.string());
}

}  // namespace

DamagedDatabase::DamagedDatabase(const std::filesystem::path& path, const std::string& damage)
    : UserError(damaged_message(path, damage)), path_(path), damage_(damage) {}

std::optional<std::string> sqlite_file_damage(const std::filesystem::path& path) {
  std::error_code error;
  uintmax_t size = std::filesystem::file_size(path, error);
  if (error || size == 0) return std::nullopt;
  std::array<unsigned char, kHeaderSize> header{};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(header.data()), header.size());
  bool sqlite = std::memcmp(header.data(), kMagic, sizeof(kMagic)) == 0;
  if (size < kHeaderSize && (sqlite || size < sizeof(kMagic))) {
    return fmt::format("it is truncated: {} bytes, less than a SQLite header", size);
  }
  if (!sqlite) {
    return "it is not a SQLite file: its first bytes are not \"SQLite format 3\" (is it another "
           "program's file?)";
  }
  uint64_t page_size = big_endian(&header[16], 2);
  if (page_size == 1) page_size = 65536;
  uint64_t pages = big_endian(&header[28], 4);
  // The page count is valid only when its "version valid for" matches the change counter.
  bool count_valid = big_endian(&header[92], 4) == big_endian(&header[24], 4);
  if (count_valid && !wal_holds_pages(path) && pages * page_size > size) {
    return fmt::format("it is truncated: {} bytes where its header counts {} pages of {} bytes",
                       size, pages, page_size);
  }
  return std::nullopt;
}

void check_sqlite_file(const std::filesystem::path& path) {
  if (auto damage = sqlite_file_damage(path)) throw DamagedDatabase(path, *damage);
}

}  // namespace accelopt::store
