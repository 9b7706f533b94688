// accelopt memory list|show ID|export FILE|import FILE|clear: the optimization memory of a
// workspace, with each entry's provenance.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/workspace.h"
#include "common/error.h"
#include "common/files.h"
#include "memory/memory.h"
#include "report/memory_text.h"

namespace accelopt::cli {
namespace {

Json entry_json(const store::MemoryEntryRecord& entry) {
  return Json{{"id", entry.id},
              {"run", entry.run_id},
              {"task", entry.task},
              {"op_type", entry.op_type},
              {"tags", entry.tags},
              {"knobs", entry.knobs},
              {"slow_candidate", entry.slow_candidate},
              {"fast_candidate", entry.fast_candidate},
              {"positive", entry.positive},
              {"speedup", entry.speedup},
              {"speedup_low", entry.speedup_low},
              {"speedup_high", entry.speedup_high},
              {"iteration", entry.iteration},
              {"insight", entry.insight},
              {"created_at", entry.created_at}};
}

int run_memory(const std::string& action, const std::string& argument, const std::string& task,
               const std::string& workspace) {
  // Only import may make a database; the others read one (clear on none would have nothing to do).
  auto store = open_workspace(workspace, action == "import" ? Access::kWrite : Access::kRead);
  if (action == "list") {
    std::vector<store::MemoryEntryRecord> entries = store->memory_entries();
    std::erase_if(entries, [&](const auto& entry) { return !task.empty() && entry.task != task; });
    report::print_memory_entries(std::cout, entries);
    return 0;
  }
  if (action == "show") {
    int64_t id = 0;
    try {
      id = std::stoll(argument);
    } catch (const std::exception&) {
      throw UserError("memory show: give an entry id (see `accelopt memory list`)");
    }
    auto entry = store->memory_entry(id);
    if (!entry) throw UserError(fmt::format("memory show: there is no entry #{}", id));
    std::cout << entry_json(*entry).dump(2) << "\n";
    return 0;
  }
  if (action == "export") {
    if (argument.empty()) throw UserError("memory export: give a FILE to write");
    Json all = Json::array();
    for (const auto& entry : store->memory_entries()) {
      if (task.empty() || entry.task == task) all.push_back(entry_json(entry));
    }
    write_file_atomic(
        argument,
        Json{{"format", "accelopt-memory"}, {"version", 1}, {"entries", all}}.dump(2) + "\n");
    std::cout << fmt::format("exported {} entries to {}\n", all.size(), argument);
    return 0;
  }
  if (action == "import") {
    if (argument.empty()) throw UserError("memory import: give a FILE to read");
    Json file;
    try {
      file = Json::parse(read_file(argument));
    } catch (const Json::exception& error) {
      throw UserError(fmt::format("{}: not JSON: {}", argument, error.what()));
    }
    if (file.value("format", "") != "accelopt-memory") {
      throw UserError(fmt::format("{}: not an accelopt memory export", argument));
    }
    std::vector<store::MemoryEntryRecord> entries;
    for (const Json& json : file.at("entries")) {
      store::MemoryEntryRecord entry;
      entry.run_id = 0;  // imported: no run of this workspace made it
      entry.task = json.at("task").get<std::string>();
      entry.op_type = json.value("op_type", "");
      entry.tags = json.value("tags", std::vector<std::string>{});
      entry.knobs = json.value("knobs", std::vector<std::string>{});
      entry.slow_candidate = json.value("slow_candidate", int64_t{0});
      entry.fast_candidate = json.value("fast_candidate", int64_t{0});
      entry.positive = json.value("positive", true);
      entry.speedup = json.value("speedup", 1.0);
      entry.speedup_low = json.value("speedup_low", entry.speedup);
      entry.speedup_high = json.value("speedup_high", entry.speedup);
      entry.iteration = json.value("iteration", 0);
      entry.insight = json.value("insight", Json::object());
      entry.insight["detail"]["imported_from"] = argument;
      entries.push_back(std::move(entry));
    }
    int64_t added = memory::import_entries(*store, entries);
    std::cout << fmt::format("imported {} entries ({} already in the memory)\n", added,
                             static_cast<int64_t>(entries.size()) - added);
    return 0;
  }
  if (action == "clear") {
    int64_t removed = store->clear_memory(task);
    std::cout << fmt::format("removed {} entries\n", removed);
    return 0;
  }
  throw UserError(fmt::format("memory: unknown action '{}'", action));
}

}  // namespace

void register_memory_commands(CLI::App& app, CommandTable& table) {
  auto workspace = std::make_shared<std::string>(kDefaultWorkspace);
  auto action = std::make_shared<std::string>();
  auto argument = std::make_shared<std::string>();
  auto task = std::make_shared<std::string>();
  auto* memory = app.add_subcommand(
      "memory", "The optimization memory: list|show ID|export FILE|import FILE|clear");
  memory->add_option("ACTION", *action, "list, show, export, import or clear")
      ->required()
      ->check(CLI::IsMember({"list", "show", "export", "import", "clear"}));
  memory->add_option("ARG", *argument, "entry id (show) or file (export, import)");
  memory->add_option("--task", *task, "only this task's entries (list, export, clear)");
  memory
      ->add_option("--workspace,--db", *workspace,
                   "workspace directory, or a postgresql:// database")
      ->capture_default_str();
  memory->callback([&table, action, argument, task, workspace] {
    table.select([action, argument, task, workspace] {
      return run_memory(*action, *argument, *task, *workspace);
    });
  });
}

}  // namespace accelopt::cli
