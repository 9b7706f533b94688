// accelopt: the command line. Parses, wires the parts together, prints; errors are caught here and
// nowhere between.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/scale_out_commands.h"
#include "common/error.h"

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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);  // prints the message, or the help
    return code == 0 ? 0 : 2;    // a usage error, like a UserError
  }
  try {
    return table.run();
  } catch (const accelopt::UserError& error) {
    std::cerr << "accelopt: " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "accelopt: internal error: " << error.what() << "\n";
    return 3;
  }
}
