#include "study/study_file.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <algorithm>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/files.h"
#include "llm/config.h"
#include "roles/roles.h"
#include "search/config.h"

namespace accelopt::study {
namespace {

const std::vector<std::string> kStudyKeys = {"name",         "tasks",  "workload", "seeds",
                                             "agents",       "preset", "fraction", "budget",
                                             "memory_order", "variant"};
const std::vector<std::string> kBudgetKeys = {"max_evaluations", "max_usd", "max_tokens",
                                              "max_wall_seconds"};
const std::vector<std::string> kVariantKeys = {"name", "agents", "search", "memory", "roles"};
// Keys a variant (or the base [search]) may not set: every cell has the study's budget and seeds.
const std::vector<std::string> kStudyOwnedSearchKeys = {"max_evaluations", "max_wall_seconds",
                                                        "seed"};

class Reader {
 public:
  explicit Reader(const Study& study) : study_(study) {}

  [[noreturn]] void fail(const toml::node* node, const std::string& key,
                         const std::string& why) const {
    int line = node != nullptr ? static_cast<int>(node->source().begin.line) : 0;
    throw UserError(fmt::format("{}{}: {}: {}", study_.path.string(),
                                line > 0 ? fmt::format(":{}", line) : "", key, why));
  }

  void check_keys(const toml::table& table, const std::string& prefix,
                  const std::vector<std::string>& known) const {
    for (auto&& [raw, node] : table) {
      std::string key(raw.str());
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      std::string near = llm::nearest_word(key, known);
      fail(&node, prefix + key,
           fmt::format("unknown key{} (see docs/study.md)",
                       near.empty() ? "" : fmt::format("; did you mean '{}'?", near)));
    }
  }

  std::string string(const toml::node& node, const std::string& key) const {
    if (!node.is_string()) fail(&node, key, "expected a string");
    return *node.value<std::string>();
  }

  int64_t positive_integer(const toml::node& node, const std::string& key) const {
    if (!node.is_integer() || *node.value<int64_t>() < 1) {
      fail(&node, key, "expected a whole number above 0");
    }
    return *node.value<int64_t>();
  }

  double positive_number(const toml::node& node, const std::string& key) const {
    if (!node.is_number() || *node.value<double>() <= 0)
      fail(&node, key, "expected a number above 0");
    return *node.value<double>();
  }

 private:
  const Study& study_;
};

void check_agents(const Reader& reader, const toml::node& node, const std::string& key,
                  const std::string& agents) {
  if (agents != "tuner" && agents != "llm" && agents != "hybrid") {
    reader.fail(&node, key, fmt::format("'{}' is not one of tuner, llm, hybrid", agents));
  }
}

void check_search_table(const Reader& reader, const toml::node& node, const std::string& where) {
  const toml::table* table = node.as_table();
  if (table == nullptr) reader.fail(&node, where, "expected a table");
  for (const std::string& owned : kStudyOwnedSearchKeys) {
    if (const toml::node* found = table->get(owned)) {
      reader.fail(found, where + "." + owned,
                  owned == "seed" ? "the seeds are the study's ([study] seeds)"
                                  : "the budget is the study's ([study.budget]), the same for "
                                    "every cell");
    }
  }
}

bool valid_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// Lays `over`'s keys over `base`, table by table.
void lay_over(toml::table& base, const toml::table& over) {
  for (auto&& [key, node] : over) base.insert_or_assign(key, node);
}

toml::table& table_in(toml::table& root, std::string_view name) {
  if (!root.contains(name)) root.insert(name, toml::table{});
  return *root[name].as_table();
}

}  // namespace

std::string Cell::key() const {
  return fmt::format("{}/{}/seed{}/{}", variant, task, seed, warm ? "warm" : "cold");
}

std::string_view memory_order_name(MemoryOrder order) {
  switch (order) {
    case MemoryOrder::kCold:
      return "cold";
    case MemoryOrder::kColdThenWarm:
      return "cold-then-warm";
    case MemoryOrder::kLeaveOneOut:
      return "leave-one-out";
  }
  return "cold";
}

std::vector<Cell> Study::cells() const {
  std::vector<Cell> all;
  for (bool warm : {false, true}) {
    if (warm && memory_order == MemoryOrder::kCold) break;
    for (size_t seed_index = 0; seed_index < seeds.size(); ++seed_index) {
      uint64_t seed = seeds[seed_index];
      // Each seed starts with the next variant, so that none always runs first: a machine that
      // drifts over the study would otherwise favour one variant in every pair.
      for (size_t step = 0; step < variants.size(); ++step) {
        const Variant& variant = variants[(seed_index + step) % variants.size()];
        if (warm && !variant.memory_on) continue;
        for (const auto& task : tasks) {
          all.push_back(Cell{variant.name, task.filename().string(), task, seed, warm});
        }
      }
    }
  }
  return all;
}

const Variant& Study::variant(const std::string& name) const {
  for (const Variant& variant : variants) {
    if (variant.name == name) return variant;
  }
  throw InternalError("study: no variant " + name);
}

Study load_study(
    const std::filesystem::path& path,
    const std::function<std::filesystem::path(const std::filesystem::path&)>& find_task) {
  Study study;
  study.path = std::filesystem::absolute(path);
  try {
    study.text = read_file(study.path);
  } catch (const std::exception& error) {
    throw UserError(fmt::format("reading the study {}: {}", study.path.string(), error.what()));
  }
  toml::table root;
  try {
    root = toml::parse(study.text, study.path.string());
  } catch (const toml::parse_error& error) {
    throw UserError(fmt::format("{}:{}: {}", study.path.string(), error.source().begin.line,
                                error.description()));
  }
  std::vector<std::string_view> tables(llm::kConfigTables.begin(), llm::kConfigTables.end());
  tables.insert(tables.end(), search::kConfigTables.begin(), search::kConfigTables.end());
  tables.push_back("study");
  llm::check_config_tables(study.text, study.path.string(), tables);
  Reader reader(study);
  if (const toml::node* budget = root.get("budget")) {
    reader.fail(budget, "[budget]",
                "a study's budget is [study.budget] (max_usd, max_tokens), the same for every "
                "cell");
  }
  if (const toml::node* search = root.get("search")) check_search_table(reader, *search, "search");

  const toml::table* top = root["study"].as_table();
  if (top == nullptr) {
    throw UserError(
        fmt::format("{}: no [study] table: a study file needs [study] with a name, "
                    "tasks and a budget (docs/study.md)",
                    study.path.string()));
  }
  reader.check_keys(*top, "study.", kStudyKeys);
  if (const toml::node* name = top->get("name")) {
    study.name = reader.string(*name, "study.name");
    if (!valid_name(study.name)) {
      reader.fail(name, "study.name", "use letters, digits, '-', '_' and '.'");
    }
  } else {
    reader.fail(top, "study.name", "missing: name the study");
  }
  const toml::array* tasks = top->get_as<toml::array>("tasks");
  if (tasks == nullptr || tasks->empty()) {
    reader.fail(top->get("tasks") ? top->get("tasks") : top, "study.tasks",
                "expected a list of task folders, e.g. [\"bench/cpu/silu\"]");
  }
  std::set<std::string> task_names;
  for (const toml::node& task : *tasks) {
    std::filesystem::path given = reader.string(task, "study.tasks");
    std::filesystem::path beside = study.path.parent_path() / given;
    std::filesystem::path found;
    if (given.is_absolute()) {
      found = given;
    } else if (std::filesystem::is_directory(beside)) {
      found = std::filesystem::weakly_canonical(beside);
    } else {
      try {
        found = find_task(given);
      } catch (const UserError& error) {
        reader.fail(&task, "study.tasks", error.what());
      }
    }
    if (!std::filesystem::is_directory(found)) {
      reader.fail(&task, "study.tasks", fmt::format("{} is not a folder", found.string()));
    }
    found = std::filesystem::absolute(found);
    if (!task_names.insert(found.filename().string()).second) {
      reader.fail(&task, "study.tasks", "a task given twice");
    }
    study.tasks.push_back(found);
  }
  if (const toml::node* workload = top->get("workload")) {
    study.workload = reader.string(*workload, "study.workload");
  }
  if (const toml::node* seeds = top->get("seeds")) {
    if (const toml::array* list = seeds->as_array()) {
      for (const toml::node& seed : *list) {
        study.seeds.push_back(static_cast<uint64_t>(reader.positive_integer(seed, "study.seeds")));
      }
      if (study.seeds.empty()) reader.fail(seeds, "study.seeds", "an empty list");
    } else {
      int64_t count = reader.positive_integer(*seeds, "study.seeds");
      for (int64_t seed = 1; seed <= count; ++seed) study.seeds.push_back(seed);
    }
  } else {
    study.seeds = {1};
  }
  if (const toml::node* agents = top->get("agents")) {
    study.agents = reader.string(*agents, "study.agents");
    check_agents(reader, *agents, "study.agents", study.agents);
  }
  if (const toml::node* preset = top->get("preset")) {
    study.preset = reader.string(*preset, "study.preset");
    try {
      search::preset(study.preset);
    } catch (const UserError& error) {
      reader.fail(preset, "study.preset", error.what());
    }
  }
  if (const toml::node* fraction = top->get("fraction")) {
    study.fraction = reader.positive_number(*fraction, "study.fraction");
    if (study.fraction > 1) reader.fail(fraction, "study.fraction", "expected a number in (0, 1]");
  }
  if (const toml::node* order = top->get("memory_order")) {
    std::string name = reader.string(*order, "study.memory_order");
    if (name == "cold") {
      study.memory_order = MemoryOrder::kCold;
    } else if (name == "cold-then-warm") {
      study.memory_order = MemoryOrder::kColdThenWarm;
    } else if (name == "leave-one-out") {
      study.memory_order = MemoryOrder::kLeaveOneOut;
    } else {
      reader.fail(order, "study.memory_order", "choose cold, cold-then-warm or leave-one-out");
    }
  }
  const toml::table* budget = top->get_as<toml::table>("budget");
  if (budget == nullptr) {
    reader.fail(top, "study.budget",
                "missing: every cell needs the same budget, [study.budget] with max_evaluations, "
                "max_usd, max_tokens or max_wall_seconds");
  }
  reader.check_keys(*budget, "study.budget.", kBudgetKeys);
  if (const toml::node* node = budget->get("max_evaluations")) {
    study.budget.max_evaluations = reader.positive_integer(*node, "study.budget.max_evaluations");
  }
  if (const toml::node* node = budget->get("max_tokens")) {
    study.budget.max_tokens = reader.positive_integer(*node, "study.budget.max_tokens");
  }
  if (const toml::node* node = budget->get("max_usd")) {
    study.budget.max_usd = reader.positive_number(*node, "study.budget.max_usd");
  }
  if (const toml::node* node = budget->get("max_wall_seconds")) {
    study.budget.max_wall_seconds = reader.positive_number(*node, "study.budget.max_wall_seconds");
  }
  if (!study.budget.max_evaluations && !study.budget.max_tokens && !study.budget.max_usd &&
      !study.budget.max_wall_seconds) {
    reader.fail(budget, "study.budget",
                "empty: give at least one of max_evaluations, max_usd, "
                "max_tokens, max_wall_seconds");
  }

  const toml::array* variants = top->get_as<toml::array>("variant");
  if (variants == nullptr || variants->empty()) {
    reader.fail(top, "study.variant", "missing: at least one [[study.variant]] with a name");
  }
  search::SearchConfig base = search::preset(study.preset);
  search::apply_config_text(base, study.text, study.path);
  for (const toml::node& node : *variants) {
    const toml::table* table = node.as_table();
    if (table == nullptr) reader.fail(&node, "study.variant", "expected a table");
    reader.check_keys(*table, "study.variant.", kVariantKeys);
    Variant variant;
    variant.line = static_cast<int>(node.source().begin.line);
    const toml::node* name = table->get("name");
    if (name == nullptr) reader.fail(&node, "study.variant.name", "missing: name the variant");
    variant.name = reader.string(*name, "study.variant.name");
    if (!valid_name(variant.name)) {
      reader.fail(name, "study.variant.name", "use letters, digits, '-', '_' and '.'");
    }
    for (const Variant& other : study.variants) {
      if (other.name == variant.name) reader.fail(name, "study.variant.name", "a name given twice");
    }
    variant.agents = study.agents;
    if (const toml::node* agents = table->get("agents")) {
      variant.agents = reader.string(*agents, "study.variant.agents");
      check_agents(reader, *agents, "study.variant.agents", variant.agents);
    }
    if (const toml::node* search = table->get("search")) {
      check_search_table(reader, *search, "study.variant.search");
    }
    if (const toml::node* memory = table->get("memory")) {
      if (memory->is_string()) {
        if (*memory->value<std::string>() != "off") {
          reader.fail(memory, "study.variant.memory",
                      "expected \"off\" or a table such as { scope = \"task\", exp_n = 8 }");
        }
        variant.memory_on = false;
      } else if (!memory->is_table()) {
        reader.fail(memory, "study.variant.memory", "expected \"off\" or a table");
      }
    }
    if (const toml::node* roles = table->get("roles"); roles != nullptr && !roles->is_table()) {
      reader.fail(roles, "study.variant.roles",
                  "expected a table such as { planner = \"strong\" }");
    }
    study.variants.push_back(variant);
    // The variant's whole configuration, checked now: a bad key fails before any cell runs.
    search::SearchConfig config = search::preset(study.preset);
    std::string text = variant_config_text(study, study.variants.back());
    search::apply_config_text(config, text, study.path);
    if (config.strategy == search::Strategy::kRepeatedSampling ||
        (config.memory.top_k == 0 && config.memory.retrieve_limit == 0)) {
      study.variants.back().memory_on = false;
    }
  }
  return study;
}

void make_smoke(Study& study) {
  study.smoke = true;
  study.name += "-smoke";
  study.seeds.resize(1);
  if (study.tasks.size() > kSmokeTasks) study.tasks.resize(kSmokeTasks);
  study.workload = "small";
  study.budget.max_evaluations =
      std::min(study.budget.max_evaluations.value_or(kSmokeEvaluations), kSmokeEvaluations);
}

std::string variant_config_text(const Study& study, const Variant& variant) {
  toml::table root = toml::parse(study.text, study.path.string());
  toml::table over;
  for (const toml::node& node : *root["study"]["variant"].as_array()) {
    const toml::table& table = *node.as_table();
    if (table["name"].value<std::string>() == variant.name) over = table;
  }
  root.erase("study");
  toml::table& search = table_in(root, "search");
  if (!search.contains("preset")) search.insert("preset", study.preset);
  if (const toml::table* table = over["search"].as_table()) lay_over(search, *table);
  toml::table& memory = table_in(root, "memory");
  if (const toml::table* table = over["memory"].as_table()) lay_over(memory, *table);
  if (over["memory"].is_string()) {  // "off": the planner reads none, the search writes none
    memory.insert_or_assign("top_k", 0);
    memory.insert_or_assign("retrieve_limit", 0);
  }
  if (const toml::table* table = over["roles"].as_table())
    lay_over(table_in(root, "roles"), *table);
  if (study.smoke) {  // brief timing: the smoke run checks that the study runs, not its figures
    search.insert_or_assign("timing_target", 0.1);
    search.insert_or_assign("timing_budget_seconds", 0.5);
    search.insert_or_assign("timing_min_pairs", 3);
    search.insert_or_assign("timing_quiet_wait_seconds", 0.0);
  }
  if (study.budget.max_evaluations) {
    search.insert_or_assign("max_evaluations", *study.budget.max_evaluations);
  }
  if (study.budget.max_wall_seconds) {
    search.insert_or_assign("max_wall_seconds", *study.budget.max_wall_seconds);
  }
  if (study.budget.max_usd || study.budget.max_tokens) {
    toml::table& budget = table_in(root, "budget");
    if (study.budget.max_usd) budget.insert_or_assign("usd", *study.budget.max_usd);
    if (study.budget.max_tokens) budget.insert_or_assign("tokens", *study.budget.max_tokens);
  }
  std::ostringstream text;
  text << "# generated by `accelopt study` from " << study.path.string() << ", variant "
       << variant.name << "\n"
       << root << "\n";
  // What the search and the model part would refuse, said where the variant is written.
  std::string source = fmt::format("variant '{}'", variant.name);
  auto refuse = [&](const UserError& error) {
    std::string why = error.what();
    if (why.rfind(source, 0) == 0) {
      size_t colon = why.find(": ", source.size());
      if (colon != std::string::npos) why = why.substr(colon + 2);
    }
    throw UserError(fmt::format("{}:{}: variant '{}': {}", study.path.string(), variant.line,
                                variant.name, why));
  };
  try {
    search::SearchConfig config = search::preset(study.preset);
    search::apply_config_text(config, text.str(), source);
    llm::parse_llm_config(text.str(), source, roles::kRoleNames, study.path.parent_path());
  } catch (const UserError& error) {
    refuse(error);
  }
  return text.str();
}

}  // namespace accelopt::study
