#include "platform/compile_cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <functional>
#include <thread>

#include "common/files.h"
#include "common/hash.h"

namespace accelopt::platform {

CompileCache::CompileCache(std::filesystem::path directory) : directory_(std::move(directory)) {
  std::filesystem::create_directories(directory_);
}

std::string CompileCache::key(const std::string& toolchain, const std::vector<std::string>& flags,
                              const std::string& header, const std::string& source) {
  std::string material = toolchain + "\n";
  for (const std::string& flag : flags) material += flag + "\n";
  material += "--header--\n" + header + "--source--\n" + source;
  return sha256_hex(material);
}

std::filesystem::path CompileCache::entry(const std::string& key) const {
  return directory_ / key.substr(0, 2) / key;
}

std::optional<Json> CompileCache::load(const std::string& key) const {
  std::filesystem::path record = entry(key) / "result.json";
  if (!std::filesystem::exists(record)) return std::nullopt;
  Json json = Json::parse(read_file(record), nullptr, false);
  if (json.is_discarded() || !json.is_object()) return std::nullopt;
  return json;
}

std::filesystem::path CompileCache::staging(const std::string& key) const {
  std::filesystem::path folder = entry(key);
  folder +=
      fmt::format(".tmp.{}.{}", getpid(), std::hash<std::thread::id>{}(std::this_thread::get_id()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

bool CompileCache::keep(const std::string& key, const std::filesystem::path& staging,
                        const Json& record) {
  write_file_atomic(staging / "result.json", record.dump(2));
  std::filesystem::path target = entry(key);
  std::error_code error;
  std::filesystem::rename(staging, target, error);
  if (!error) return true;
  if (load(key)) {
    std::filesystem::remove_all(staging);
    return false;
  }
  // An entry without its record: left by a killed process, replaced.
  std::filesystem::remove_all(target);
  std::filesystem::rename(staging, target);
  return true;
}

bool keepable(const ExitStatus& status) {
  return !status.timed_out && (status.exited || status.signal == 0);
}

}  // namespace accelopt::platform
