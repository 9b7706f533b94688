// Small file-system helpers whose errors always name the path and the cause.
#pragma once

#include <filesystem>
#include <string>

namespace accelopt {

std::string read_file(const std::filesystem::path& path);

// Writes to a temporary file beside `path`, syncs it, then renames it over `path`, so a reader
// never sees half a file, even after a crash.
void write_file_atomic(const std::filesystem::path& path, const std::string& content);

// A fresh directory removed with its contents when the object dies.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "accelopt");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// $ACCELOPT_CACHE_DIR, else $XDG_CACHE_HOME/accelopt, else ~/.cache/accelopt; created if missing.
std::filesystem::path cache_directory();

}  // namespace accelopt
