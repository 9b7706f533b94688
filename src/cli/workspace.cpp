#include "cli/workspace.h"

#include <fmt/format.h>

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

}  // namespace accelopt::cli
