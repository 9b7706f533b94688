// Compiled kernels kept by content, across runs, with one policy for every platform's compiler:
//
//  - The key is the SHA-256 of the toolchain's identity (its version and pipeline), the flags, the
//    generated header and the source: the same kernel is never compiled twice.
//  - A library is kept, and so is a failure the compiler reported (an error, a refusal): both are
//    as deterministic as the input.
//  - A compile that ran past its deadline, or that was ended by a signal (out of memory on a busy
//    machine, say), is not kept: the next try may finish.
//  - An entry appears whole or not at all: it is built in a staging folder beside its place and
//    renamed in, with its record (result.json) last; an entry without its record was left by a
//    killed process and is made again. When two processes make the same entry, the first kept
//    wins and the other's is dropped.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/subprocess.h"

namespace accelopt::platform {

class CompileCache {
 public:
  explicit CompileCache(std::filesystem::path directory);

  static std::string key(const std::string& toolchain, const std::vector<std::string>& flags,
                         const std::string& header, const std::string& source);
  // Where `key`'s entry lives (whether or not it exists yet).
  std::filesystem::path entry(const std::string& key) const;
  // The entry's record (result.json), when the entry is whole; nullopt otherwise.
  std::optional<Json> load(const std::string& key) const;
  // A fresh staging folder for `key`'s entry, private to this process and thread.
  std::filesystem::path staging(const std::string& key) const;
  // Writes `record` into `staging` and renames it in as `key`'s entry. Returns false when another
  // process kept the same entry first (then `staging` is removed and the caller loads theirs).
  bool keep(const std::string& key, const std::filesystem::path& staging, const Json& record);

  const std::filesystem::path& directory() const { return directory_; }

 private:
  std::filesystem::path directory_;
};

// Whether a finished compile's result may be kept (see above).
bool keepable(const ExitStatus& status);

}  // namespace accelopt::platform
