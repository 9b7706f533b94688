#include "cli/credentials.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>

#include "common/error.h"
#include "store/store.h"

namespace accelopt::cli {

std::string read_password_file(const std::filesystem::path& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    throw UserError(errno_message("--db-password-file " + path.string()));
  }
  if ((status.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    throw UserError(
        fmt::format("--db-password-file {}: others may read it (mode {:o}); `chmod 600 {}` first",
                    path.string(), status.st_mode & 0777, path.string()));
  }
  std::ifstream file(path);
  std::string password;
  if (!file || !std::getline(file, password)) {
    throw UserError(
        fmt::format("--db-password-file {}: cannot read a password from it", path.string()));
  }
  if (!password.empty() && password.back() == '\r') password.pop_back();
  if (password.empty()) {
    throw UserError(fmt::format("--db-password-file {}: its first line is empty", path.string()));
  }
  return password;
}

void use_password_file(const std::filesystem::path& path) {
  std::string password = read_password_file(path);
  if (::setenv("PGPASSWORD", password.c_str(), 1) != 0) {
    throw InternalError(errno_message("setting PGPASSWORD"));
  }
}

void add_password_file_options(CLI::App& app, std::string& path) {
  std::function<void(CLI::App&)> visit = [&](CLI::App& command) {
    for (CLI::App* sub : command.get_subcommands([](CLI::App*) { return true; })) {
      bool takes_database = sub->get_option_no_throw("--db") != nullptr ||
                            sub->get_option_no_throw("--workspace") != nullptr;
      if (takes_database && sub->get_option_no_throw("--db-password-file") == nullptr) {
        sub->add_option("--db-password-file", path,
                        "a file (mode 0600) whose first line is the database's password, so "
                        "that it appears on no command line");
      }
      visit(*sub);
    }
  };
  visit(app);
}

void mask_passwords_in_arguments(int argc, char** argv) {
  for (int index = 1; index < argc; ++index) {
    std::string argument = argv[index];
    size_t url = argument.find("postgresql://");
    if (url == std::string::npos) url = argument.find("postgres://");
    if (url == std::string::npos) continue;
    std::string masked = argument;
    auto spans = store::password_spans(std::string_view(argument).substr(url));
    // From the last to the first, so that earlier offsets hold; never longer than the original.
    for (auto span = spans.rbegin(); span != spans.rend(); ++span) {
      size_t length = span->second - span->first;
      masked.replace(url + span->first, length, std::string(std::min<size_t>(length, 3), '*'));
    }
    std::memset(argv[index], 0, argument.size());
    std::memcpy(argv[index], masked.data(), masked.size());
  }
}

}  // namespace accelopt::cli
