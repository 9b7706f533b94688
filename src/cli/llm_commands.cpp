// accelopt llm ping [MODEL]: check a model set-up in one command. (`accelopt cost RUN` is in
// report_commands.cpp.)
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "llm/commands.h"
#include "roles/roles.h"

namespace accelopt::cli {

void register_llm_commands(CLI::App& app, CommandTable& table) {
  CLI::App* llm = app.add_subcommand("llm", "Model servers");
  llm->require_subcommand(1);
  auto config = std::make_shared<std::string>("accelopt.toml");
  auto model = std::make_shared<std::string>();
  CLI::App* ping = llm->add_subcommand("ping",
                                       "Send a tiny request to MODEL (default: every configured "
                                       "model); print latency, answer, usage");
  ping->add_option("model", *model, "model name from the config's [models] tables (default: all)");
  ping->add_option("--config", *config, "TOML configuration file")->capture_default_str();
  auto timeout = std::make_shared<double>(llm::kPingTimeoutSeconds);
  ping->add_option("--timeout", *timeout, "seconds to wait for the answer")
      ->check(positive_number())
      ->capture_default_str();
  ping->callback([&table, config, model, timeout] {
    table.select([config, model, timeout] {
      return llm::run_llm_ping(*config, roles::kRoleNames, *model, std::cout, {}, *timeout);
    });
  });
}

}  // namespace accelopt::cli
