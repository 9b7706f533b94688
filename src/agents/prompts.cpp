#include "agents/prompts.h"

#include <unistd.h>
#include <kainjow/mustache.hpp>

#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>
#include <system_error>

#include "common/error.h"
#include "common/files.h"
#include "roles/roles.h"

namespace accelopt::agents {
namespace fs = std::filesystem;
namespace mustache = kainjow::mustache;

namespace {

// Each role's two templates: "planner.system", "planner.user", ...
std::vector<std::string> role_templates() {
  std::vector<std::string> names;
  for (std::string_view role : roles::kRoleNames) {
    names.push_back(std::string(role) + ".system");
    names.push_back(std::string(role) + ".user");
  }
  return names;
}

bool is_prompts_dir(const fs::path& dir) {
  std::error_code error;
  return fs::is_regular_file(dir / (std::string(roles::kPlanner) + ".system.mustache"), error);
}

std::string format_number(double value) {
  std::ostringstream out;
  out.precision(6);
  out << value;
  return out.str();
}

mustache::data to_data(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object: {
      mustache::data object{mustache::data::type::object};
      for (const auto& [key, item] : value.items()) {
        if (item.is_null() || (item.is_string() && item.get_ref<const std::string&>().empty())) {
          continue;  // absent: sections over it are skipped, `{{key}}` renders nothing
        }
        object.set(key, to_data(item));
      }
      return object;
    }
    case Json::value_t::array: {
      mustache::data list{mustache::data::type::list};
      for (const Json& item : value) list.push_back(to_data(item));
      return list;
    }
    case Json::value_t::string:
      return mustache::data{value.get<std::string>()};
    case Json::value_t::boolean:
      return mustache::data{value.get<bool>()};
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return mustache::data{value.dump()};
    case Json::value_t::number_float:
      return mustache::data{format_number(value.get<double>())};
    default:
      return mustache::data{mustache::data::type::bool_false};
  }
}

// Names of the partials `text` includes.
std::set<std::string> partial_references(const std::string& text) {
  static const std::regex pattern(R"(\{\{>\s*([^}\s]+)\s*\}\})");
  std::set<std::string> names;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
    names.insert((*it)[1].str());
  }
  return names;
}

}  // namespace

fs::path builtin_prompts_dir() {
  std::vector<fs::path> tried;
  if (const char* env = std::getenv("ACCELOPT_PROMPTS_DIR"); env != nullptr && *env != '\0') {
    if (is_prompts_dir(env)) return env;
    throw UserError(std::string("ACCELOPT_PROMPTS_DIR=") + env +
                    ": not a prompts folder (it has no planner.system.mustache)");
  }
  std::error_code error;
  fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    // build/src/cli/accelopt → build/src/cli, build/src, build, <source tree>, ...
    for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
      for (const fs::path& candidate : {dir / "prompts", dir / "share" / "accelopt" / "prompts"}) {
        tried.push_back(candidate);
        if (is_prompts_dir(candidate)) return candidate;
      }
      if (dir == dir.root_path()) break;
    }
  }
#ifdef ACCELOPT_SOURCE_DIR
  fs::path source = fs::path(ACCELOPT_SOURCE_DIR) / "prompts";
  tried.push_back(source);
  if (is_prompts_dir(source)) return source;
#endif
  std::string message =
      "cannot find the built-in prompts folder; set ACCELOPT_PROMPTS_DIR. Looked in:";
  for (const fs::path& path : tried) message += "\n  " + path.string();
  throw UserError(message);
}

std::string render_mustache(const std::string& text, const Json& variables,
                            const std::map<std::string, std::string>& partials,
                            const std::string& origin) {
  mustache::mustache tmpl{text};
  if (!tmpl.is_valid()) throw UserError(origin + ": " + tmpl.error_message());
  tmpl.set_custom_escape([](const std::string& value) { return value; });
  mustache::data data = to_data(variables.is_object() ? variables : Json::object());
  for (const auto& [name, body] : partials) {
    data.set(name, mustache::partial{[&body] { return body; }});
  }
  std::string out = tmpl.render(data);
  if (!tmpl.is_valid()) throw UserError(origin + ": " + tmpl.error_message());
  return out;
}

PromptLibrary::PromptLibrary(fs::path user_dir, fs::path builtin_dir, std::string platform)
    : user_dir_(std::move(user_dir)),
      builtin_dir_(builtin_dir.empty() ? builtin_prompts_dir() : std::move(builtin_dir)),
      platform_(std::move(platform)) {
  if (!user_dir_.empty() && !fs::is_directory(user_dir_)) {
    throw UserError("prompts folder " + user_dir_.string() + ": not a directory");
  }
  // Built-in first, then the user's files over them.
  for (const fs::path& root : {builtin_dir_, user_dir_}) {
    if (root.empty()) continue;
    for (const std::string& name : role_templates()) {
      fs::path path = root / (name + ".mustache");
      if (fs::is_regular_file(path)) templates_[name] = {path, read_file(path)};
    }
    // The executor's templates for a task without a baseline (roles::BaselineWriter), read where
    // present: a folder of one's own need not have them.
    for (const char* name : {"baseline.system", "baseline.user"}) {
      fs::path path = root / (std::string(name) + ".mustache");
      if (fs::is_regular_file(path)) templates_[name] = {path, read_file(path)};
    }
    for (const char* folder : {"partials", "platform"}) {
      std::error_code error;
      if (!fs::is_directory(root / folder, error)) continue;
      for (const auto& entry : fs::directory_iterator(root / folder)) {
        if (entry.path().extension() != ".mustache") continue;
        std::string name = std::string(folder) + "/" + entry.path().stem().string();
        templates_[name] = {entry.path(), read_file(entry.path())};
      }
    }
  }
  for (const std::string& name : role_templates()) {
    if (!templates_.count(name)) {
      throw UserError("prompt template " + name + ".mustache is missing from " +
                      builtin_dir_.string() +
                      (user_dir_.empty() ? "" : " and from " + user_dir_.string()));
    }
  }
  for (const auto& [name, tmpl] : templates_) {
    mustache::mustache parsed{tmpl.text};
    if (!parsed.is_valid()) throw UserError(tmpl.path.string() + ": " + parsed.error_message());
  }
  // Every `{{> name}}` must resolve: a typo would otherwise silently drop a section of a prompt.
  for (const auto& [name, tmpl] : templates_) {
    for (const std::string& reference : partial_references(tmpl.text)) {
      if (reference == "platform" ? !templates_.count("platform/" + platform_)
                                  : !templates_.count(reference)) {
        throw UserError(
            tmpl.path.string() + ": includes {{> " + reference + "}}, but there is no " +
            (reference == "platform" ? "platform/" + platform_ : reference) + ".mustache in " +
            builtin_dir_.string() + (user_dir_.empty() ? "" : " or " + user_dir_.string()));
      }
    }
  }
}

const PromptLibrary::Template& PromptLibrary::find(const std::string& name) const {
  auto it = templates_.find(name);
  if (it == templates_.end()) {
    throw InternalError("no prompt template named '" + name + "'");
  }
  return it->second;
}

fs::path PromptLibrary::source_of(const std::string& name) const {
  return find(name).path;
}

std::string PromptLibrary::render(const std::string& name, const Json& variables) const {
  const Template& tmpl = find(name);
  std::map<std::string, std::string> partials;
  for (const auto& [key, value] : templates_) {
    if (key.starts_with("partials/")) partials[key] = value.text;
  }
  if (auto it = templates_.find("platform/" + platform_); it != templates_.end()) {
    partials["platform"] = it->second.text;
  }
  return render_mustache(tmpl.text, variables, partials, tmpl.path.string());
}

}  // namespace accelopt::agents
