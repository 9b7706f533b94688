// The agents' prompt templates: mustache files a user can edit, rendered from named variables.
//
// A template is looked up first in the user's folder (LlmAgentOptions::prompts_dir), then in the
// built-in one (prompts/ of the source tree). Role templates are "<role>.system.mustache" and
// "<role>.user.mustache"; `{{> name}}` includes partials/<name>.mustache, and `{{> platform}}` the
// platform's knowledge, platform/<platform>.mustache. docs/agents.md lists the variables.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "common/json.h"

namespace accelopt::agents {

// The built-in prompts folder: $ACCELOPT_PROMPTS_DIR, else a `prompts` folder beside or above the
// running executable (build/src/cli/accelopt finds the source tree's), else
// share/accelopt/prompts of an installation, else the source tree this was compiled from. Throws
// UserError naming the places it looked.
std::filesystem::path builtin_prompts_dir();

class PromptLibrary {
 public:
  // Reads every template at once, so that a missing or malformed one fails here, not in the middle
  // of a run. `user_dir` may be empty; `builtin_dir` empty means builtin_prompts_dir().
  explicit PromptLibrary(std::filesystem::path user_dir = {},
                         std::filesystem::path builtin_dir = {}, std::string platform = "cpu");

  // Renders "<name>.mustache" (e.g. "planner.system"), values inserted verbatim (no HTML
  // escaping). Throws UserError naming the file when the template is malformed. (thread-safe)
  std::string render(const std::string& name, const Json& variables) const;

  // Where "<name>.mustache" was read from.
  std::filesystem::path source_of(const std::string& name) const;

 private:
  struct Template {
    std::filesystem::path path;
    std::string text;
  };
  const Template& find(const std::string& name) const;

  std::filesystem::path user_dir_, builtin_dir_;
  std::string platform_;
  std::map<std::string, Template> templates_;  // "planner.system", "partials/task", "platform/cpu"
};

// The mustache data for a JSON value: objects and arrays as such, strings as they are, numbers in
// their shortest form, booleans as section switches, null as an absent value.
// (Exposed for tests.)
std::string render_mustache(const std::string& text, const Json& variables,
                            const std::map<std::string, std::string>& partials,
                            const std::string& origin);

}  // namespace accelopt::agents
