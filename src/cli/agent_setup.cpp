#include "cli/agent_setup.h"

#include <fmt/format.h>

#include <filesystem>
#include <vector>

#include "common/error.h"
#include "common/files.h"
#include "roles/roles.h"
#include "search/config.h"

namespace accelopt::cli {

ConfigFile read_config(const std::string& path) {
  ConfigFile file;
  if (path.empty()) return file;
  file.path = std::filesystem::absolute(path).string();
  file.text = read_file(file.path);
  std::vector<std::string_view> tables(llm::kConfigTables.begin(), llm::kConfigTables.end());
  tables.insert(tables.end(), search::kConfigTables.begin(), search::kConfigTables.end());
  llm::check_config_tables(file.text, file.path, tables);
  file.llm = llm::parse_llm_config(file.text, file.path, roles::kRoleNames,
                                   std::filesystem::path(file.path).parent_path());
  return file;
}

void check_mode(const std::string& mode) {
  if (mode != "tuner" && mode != "llm" && mode != "hybrid") {
    throw UserError(fmt::format("--agents: '{}' is not one of tuner, llm, hybrid", mode));
  }
}

agents::LlmAgentOptions llm_agent_options(const std::string& mode, const std::string& prompts,
                                          const platform::BuiltPlatform& platform,
                                          const search::SearchConfig& search) {
  agents::LlmAgentOptions options;
  options.prompts_dir = prompts;
  // The agents are told the platform's machine, in its own prompt fragment (platform/registry.h).
  options.platform = platform.prompt_fragment;
  options.machine = platform.description;
  options.structural_only = mode == "hybrid";
  options.plans_in_one_call = search.plans_in_one_call;
  return options;
}

}  // namespace accelopt::cli
