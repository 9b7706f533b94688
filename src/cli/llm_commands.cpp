// accelopt llm ping MODEL (check a model set-up in one command) and accelopt cost RUN.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "common/error.h"
#include "llm/commands.h"
#include "store/store.h"

namespace accelopt::cli {

void register_llm_commands(CLI::App& app, CommandTable& table) {
  CLI::App* llm = app.add_subcommand("llm", "Model servers");
  llm->require_subcommand(1);
  auto config = std::make_shared<std::string>("accelopt.toml");
  auto model = std::make_shared<std::string>();
  CLI::App* ping = llm->add_subcommand("ping", "Send a tiny request to MODEL; print latency, answer, usage");
  ping->add_option("model", *model, "model name from the config's [models] tables")->required();
  ping->add_option("--config", *config, "TOML configuration file")->capture_default_str();
  auto timeout = std::make_shared<double>(llm::kPingTimeoutSeconds);
  ping->add_option("--timeout", *timeout, "seconds to wait for the answer")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  ping->callback([&table, config, model, timeout] {
    table.select([config, model, timeout] {
      return llm::run_llm_ping(*config, *model, std::cout, {}, *timeout);
    });
  });

  auto run = std::make_shared<std::string>();
  auto workspace = std::make_shared<std::string>(".accelopt");
  CLI::App* cost = app.add_subcommand("cost", "What a run's model calls cost, per role and per model");
  cost->add_option("run", *run, "run id")->required();
  cost->add_option("--workspace", *workspace, "workspace folder")->capture_default_str();
  cost->callback([&table, run, workspace] {
    table.select([run, workspace] {
      std::filesystem::path database = store::database_path(*workspace);
      if (!std::filesystem::exists(database)) {
        throw UserError("no kernel database at " + database.string() + " (use --workspace)");
      }
      std::unique_ptr<store::Store> db = store::Store::open(database);
      store::StoreLedger ledger(*db);
      return llm::print_cost(ledger, *run, std::cout);
    });
  });
}

}  // namespace accelopt::cli
