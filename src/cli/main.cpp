// accelopt: the command line. Parses, wires the parts together, prints; errors are caught here and
// nowhere between.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/credentials.h"
#include "cli/scale_out_commands.h"
#include "common/error.h"
#include "store/store.h"

namespace {

// The last guard where text leaves the program: no password of a URL given on the command line,
// whatever layer wrote the message.
std::string shown(std::string message, const std::vector<std::string>& arguments) {
  for (size_t index = 1; index < arguments.size(); ++index) {
    std::string_view argument = arguments[index];
    if (size_t equals = argument.find('='); argument.starts_with("--") && equals != argument.npos) {
      argument.remove_prefix(equals + 1);
    }
    message = accelopt::store::redact(message, argument);
  }
  return message;
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);  // a closed pipe is an error value, not a death
  CLI::App app{
      "accelopt: LLM agents that optimize compute kernels, and the harness that judges them"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "accelopt 0.1.0");
  accelopt::cli::CommandTable table;
  accelopt::cli::register_commands(app, table);
  accelopt::cli::register_worker_command(app, table);
  accelopt::cli::register_slurm_command(app, table);
  std::string password_file;
  accelopt::cli::add_password_file_options(app, password_file);
  std::vector<std::string> arguments(argv, argv + argc);  // as given, for shown()
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // The message, or the help; an argument it quotes may be a URL with its password.
    std::ostringstream out, err;
    int code = app.exit(error, out, err);
    std::cout << shown(out.str(), arguments);
    std::cerr << shown(err.str(), arguments);
    return code == 0 ? 0 : 2;  // a usage error, like a UserError
  }
  accelopt::cli::mask_passwords_in_arguments(argc, argv);
  try {
    if (!password_file.empty()) accelopt::cli::use_password_file(password_file);
    return table.run();
  } catch (const accelopt::UserError& error) {
    std::cerr << "accelopt: " << shown(error.what(), arguments) << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "accelopt: internal error: " << shown(error.what(), arguments) << "\n";
    return 3;
  }
}
