// The database password kept off command lines and screens (docs/scale-out.md, "The database"):
// given in a file (`--db-password-file`), or to libpq directly (PGPASSWORD, PGPASSFILE); a URL
// typed with its password is masked in this process's own command line as soon as it starts.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>

namespace accelopt::cli {

// The password in `path`: its first line. Refused (UserError) when the file cannot be read, is
// empty, or can be read by others than its owner (as libpq refuses such a ~/.pgpass).
std::string read_password_file(const std::filesystem::path& path);

// Every connection this process opens authenticates with the password in `path`, unless its URL
// carries one: libpq's PGPASSWORD, set in this process only (its children get the environments
// they are given, never this one; /proc/PID/environ keeps the environment it started with).
void use_password_file(const std::filesystem::path& path);

// `--db-password-file FILE` on every subcommand that takes a database (`--db` or `--workspace`)
// and has no such option of its own; `path` gets the value given.
void add_password_file_options(CLI::App& app, std::string& path);

// Overwrites, in place, each password that a postgresql:// URL among the arguments carries with
// "***", so that /proc/PID/cmdline and ps stop showing it once the process has started (a moment
// after exec they still may: a file or PGPASSWORD never shows at all). Parse before calling.
void mask_passwords_in_arguments(int argc, char** argv);

}  // namespace accelopt::cli
