#include "cli/workspace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "common/error.h"
#include "store/sqlite_file.h"

namespace accelopt::cli {

std::unique_ptr<store::Store> open_workspace(const std::string& workspace, Access access) {
  std::filesystem::path database = store::database_path(workspace);
  if (store::is_postgres_url(workspace)) return store::Store::open(database);  // its server checks
  if (access == Access::kRead && !std::filesystem::exists(database)) {
    throw UserError(
        fmt::format("no accelopt database at {} (give the folder of a run with "
                    "--workspace; the default is {})",
                    database.string(), kDefaultWorkspace));
  }
  // Before this process opens the file: the check reads it with a descriptor of its own.
  store::check_sqlite_file(database);
  return store::Store::open(
      database);  // store::DamagedDatabase says what is wrong, and the way out
}

std::string workspace_option(const std::string& workspace) {
  if (workspace == kDefaultWorkspace) return "";
  std::string shown = store::redact_url(workspace);
  bool plain = std::all_of(shown.begin(), shown.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_./:@%+=,-").find(c) != std::string_view::npos;
  });
  if (plain) return "--workspace " + shown;
  std::string quoted = "'";
  for (char c : shown) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "--workspace " + quoted + "'";
}

}  // namespace accelopt::cli
