#include "cli/workspace.h"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <fstream>

#include "common/error.h"

namespace accelopt::cli {
namespace {

constexpr size_t kHeaderSize = 100;  // SQLite's file header
constexpr char kMagic[] = "SQLite format 3";

uint64_t big_endian(const unsigned char* bytes, int count) {
  uint64_t value = 0;
  for (int index = 0; index < count; ++index) value = (value << 8) | bytes[index];
  return value;
}

std::string recovery_hint(const std::filesystem::path& path) {
  return fmt::format(
      "restore it from a copy, or salvage what it holds with `sqlite3 {} .recover | sqlite3 "
      "recovered.db` and move recovered.db in its place, or start afresh with another "
      "--workspace",
      path.string());
}

}  // namespace

std::string damage_of(const std::filesystem::path& path) {
  std::error_code error;
  uintmax_t size = std::filesystem::file_size(path, error);
  if (error || size == 0) return "";
  std::array<unsigned char, kHeaderSize> header{};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(header.data()), header.size());
  bool sqlite = std::memcmp(header.data(), kMagic, sizeof(kMagic)) == 0;
  if (size < kHeaderSize) {
    return sqlite || size < sizeof(kMagic)
               ? fmt::format("it is truncated: {} bytes, less than a SQLite header", size)
               : "";
  }
  if (!sqlite) return "";
  uint64_t page_size = big_endian(&header[16], 2);
  if (page_size == 1) page_size = 65536;
  uint64_t pages = big_endian(&header[28], 4);
  // The page count is valid only when its "version valid for" matches the change counter.
  bool count_valid = big_endian(&header[92], 4) == big_endian(&header[24], 4);
  std::filesystem::path wal = path.string() + "-wal";
  bool wal_holds_pages = std::filesystem::exists(wal) && std::filesystem::file_size(wal, error) > 0;
  if (count_valid && !wal_holds_pages && pages * page_size > size) {
    return fmt::format("it is truncated: {} bytes where its header counts {} pages of {} bytes",
                       size, pages, page_size);
  }
  return "";
}

std::unique_ptr<store::Store> open_workspace(const std::string& workspace, Access access) {
  std::filesystem::path database = store::database_path(workspace);
  if (store::is_postgres_url(workspace)) return store::Store::open(database);  // its server checks
  if (access == Access::kRead && !std::filesystem::exists(database)) {
    throw UserError(
        fmt::format("no accelopt database at {} (give the folder of a run with "
                    "--workspace; the default is {})",
                    database.string(), kDefaultWorkspace));
  }
  if (std::string damage = damage_of(database); !damage.empty()) {
    throw UserError(fmt::format("the database {} is damaged: {}; {}", database.string(), damage,
                                recovery_hint(database)));
  }
  try {
    return store::Store::open(database);
  } catch (const UserError& error) {
    if (std::string(error.what()).find("not a SQLite database") == std::string::npos) throw;
    throw UserError(
        fmt::format("the database {} is damaged or is not an accelopt database ({}); "
                    "{}",
                    database.string(), error.what(), recovery_hint(database)));
  }
}

}  // namespace accelopt::cli
