// What a SQLite file's own header says about it before SQLite reads it. A file cut short (a full
// disk, an interrupted copy) or another program's file deserves a message that says so, which
// SQLite's "file is not a database" (or, for missing pages, silence until a query fails) is not.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace accelopt::store {

// Reads the file with a descriptor of its own. Closing any descriptor of a file drops every POSIX
// lock this process holds on it, and SQLite's locks are POSIX locks: so these are called before a
// process opens its connection to the file (cli's open_workspace), never beside an open one, which
// would lose its locks and let another process checkpoint under it (a malformed database).

// Why the file at `path` cannot be a whole SQLite database ("it is truncated: …", "it is not a
// SQLite file …"); nullopt when nothing is visibly wrong. A missing or empty file is a database
// not yet written, and pages a write-ahead log still holds are not counted as missing.
std::optional<std::string> sqlite_file_damage(const std::filesystem::path& path);

// Throws DamagedDatabase with sqlite_file_damage's reason, if there is one.
void check_sqlite_file(const std::filesystem::path& path);

}  // namespace accelopt::store
