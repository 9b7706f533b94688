// A workspace is a folder holding the kernel database (accelopt.db). Commands that only read it
// must not create one in a mistyped folder; a damaged file is the store's to name
// (store::DamagedDatabase).
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

// What a hint must add to reach `workspace` ("--workspace DIR", quoted for a shell, a database
// URL without its password), or "" for the default one.
std::string workspace_option(const std::string& workspace);

}  // namespace accelopt::cli
