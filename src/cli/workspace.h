// A workspace is a folder holding the kernel database (accelopt.db). Commands that only read it
// must not create one in a mistyped folder, and a damaged file deserves a message that says so and
// how to recover, rather than SQLite's "not a database".
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace accelopt::cli {

constexpr const char* kDefaultWorkspace = ".accelopt";

enum class Access : uint8_t {
  kRead = 0,   // the database must exist: UserError "no accelopt database at PATH" otherwise
  kWrite = 1,  // created when missing
};

std::unique_ptr<store::Store> open_workspace(const std::string& workspace, Access access);

// Why the SQLite file at `path` cannot be a whole database (truncated header or pages), or empty
// when nothing is visibly wrong with it.
std::string damage_of(const std::filesystem::path& path);

}  // namespace accelopt::cli
