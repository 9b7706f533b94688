// The TOML configuration: what it accepts, and what it says about mistakes.
#include "llm/config.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace accelopt::llm {
namespace {

// The llm part is told its role names (roles::kRoleNames in the program).
constexpr std::string_view kRoles[] = {"planner", "executor", "fixer", "summarizer"};

constexpr const char* kExample = R"(
[models.local]
provider = "openai"
base_url = "http://localhost:8000/v1"
model = "Qwen/Qwen3-Coder-30B"
price_input_per_mtok = 0.5
price_output_per_mtok = 2
concurrency = 8
temperature = 0.7
max_tokens = 4096
stop = ["</kernel>"]
extra_body = { top_k = 20, chat_template_kwargs = { enable_thinking = true } }

[models.claude]
provider = "anthropic"
model = "claude-sonnet-4-5"
api_key_env = "ANTHROPIC_API_KEY"
price_input_per_mtok = 3
price_output_per_mtok = 15
thinking_budget = 2048

[roles]
planner = "claude"
executor = "local"

[budget]
usd = 5.0
calls = 200

[replay]
mode = "auto"
dir = "cassettes"

[search]
beam = 4
)";

std::string error_of(const std::string& text) {
  try {
    parse_llm_config(text, "accelopt.toml", kRoles);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(Config, ReadsModelsRolesBudgetAndReplay) {
  LlmConfig config = parse_llm_config(kExample, "accelopt.toml", kRoles, "/project");
  ASSERT_EQ(config.models.size(), 2u);
  const ModelConfig& local = config.model("local");
  EXPECT_EQ(local.provider, Provider::kOpenAi);
  EXPECT_EQ(local.concurrency, 8);
  EXPECT_EQ(local.defaults.temperature, 0.7);
  EXPECT_EQ(local.defaults.max_tokens, 4096);
  EXPECT_EQ(local.defaults.stop, std::vector<std::string>{"</kernel>"});
  EXPECT_EQ(local.defaults.extra_body["chat_template_kwargs"]["enable_thinking"], true);
  const ModelConfig& claude = config.model("claude");
  EXPECT_EQ(claude.provider, Provider::kAnthropic);
  EXPECT_EQ(claude.base_url, "https://api.anthropic.com");
  EXPECT_EQ(claude.defaults.thinking_budget, 2048);
  EXPECT_EQ(config.model_for_role("planner").name, "claude");
  EXPECT_EQ(config.model_for_role("executor").name, "local");
  EXPECT_EQ(config.budget.usd, 5.0);
  EXPECT_EQ(config.budget.calls, 200);
  EXPECT_FALSE(config.budget.tokens);
  EXPECT_EQ(config.replay.mode, ReplayMode::kAuto);
  EXPECT_EQ(config.replay.dir, std::filesystem::path("/project/cassettes"));
}

TEST(Config, ARoleWithoutAModelIsAnErrorUnlessThereIsOnlyOne) {
  LlmConfig config = parse_llm_config(kExample, "accelopt.toml", kRoles);
  try {
    config.model_for_role("fixer");
    FAIL();
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("fixer = \"MODEL\" under [roles]"), std::string::npos);
  }
  LlmConfig single =
      parse_llm_config("[models.m]\nbase_url = \"http://h\"\nmodel = \"x\"\n", "a", kRoles);
  EXPECT_EQ(single.model_for_role("fixer").name, "m");
}

TEST(Config, ATypoNamesFileLineKeyAndTheNearestKey) {
  std::string error =
      error_of("[models.m]\nbase_url = \"http://h\"\nmodel = \"x\"\ntempreature = 1\n");
  EXPECT_NE(error.find("accelopt.toml:4: models.m.tempreature: unknown key; did you mean "
                       "'temperature'?"),
            std::string::npos)
      << error;
  error = error_of("[model.m]\nx = 1\n");
  EXPECT_NE(error.find("did you mean [models]?"), std::string::npos) << error;
  error = error_of("[budget]\nusd = 1\ncals = 3\n");
  EXPECT_NE(error.find("did you mean 'calls'?"), std::string::npos) << error;
}

TEST(Config, RolesAreTheNamesTheCallerGives) {
  constexpr std::string_view kTwo[] = {"planner", "critic"};
  std::string models = "[models.m]\nbase_url = \"http://h\"\nmodel = \"x\"\n";
  LlmConfig config = parse_llm_config(models + "[roles]\ncritic = \"m\"\n", "a.toml", kTwo);
  EXPECT_EQ(config.roles.at("critic"), "m");
  EXPECT_EQ(config.role_names, (std::vector<std::string>{"planner", "critic"}));

  auto error_with_two = [&](const std::string& roles) {
    try {
      parse_llm_config(models + "[roles]\n" + roles, "a.toml", kTwo);
    } catch (const UserError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_NE(error_with_two("planer = \"m\"\n")
                .find("roles.planer: unknown key; did you mean "
                      "'planner'?"),
            std::string::npos);
  EXPECT_NE(error_with_two("executor = \"m\"\n")
                .find("roles.executor: unknown key (known: planner, critic)"),
            std::string::npos);
}

TEST(Config, ATableNoPartReadsIsAnErrorWithTheNearestKnownTable) {
  constexpr std::string_view kTables[] = {"models", "roles",  "budget",
                                          "replay", "search", "memory"};
  auto error_of_tables = [&](const std::string& text) {
    try {
      check_config_tables(text, "accelopt.toml", kTables);
    } catch (const UserError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of_tables(kExample), "");
  EXPECT_EQ(error_of_tables("[models.m]\nmodel = \"x\"\n\n[serach]\nbeam_width = 2\n"),
            "accelopt.toml:4: [serach]: unknown table; did you mean [search]?");
  EXPECT_EQ(error_of_tables("[platform]\nname = \"cpu\"\n"),
            "accelopt.toml:1: [platform]: unknown table (known: [models], [roles], [budget], "
            "[replay], [search], [memory])");
  EXPECT_NE(error_of_tables("iterations = 3\n")
                .find("accelopt.toml:1: iterations: a key outside "
                      "any table"),
            std::string::npos);
  EXPECT_NE(error_of_tables("[search\n").find("accelopt.toml:1:"), std::string::npos);
}

TEST(Config, WrongTypesAndValuesSayWhy) {
  EXPECT_NE(error_of("[models.m]\nbase_url = \"http://h\"\nmodel = \"x\"\nconcurrency = \"4\"\n")
                .find(":4: models.m.concurrency: expected an integer"),
            std::string::npos);
  EXPECT_NE(error_of("[models.m]\nbase_url = \"http://h\"\nmodel = \"x\"\nconcurrency = 0\n")
                .find("must be at least 1"),
            std::string::npos);
  EXPECT_NE(error_of("[models.m]\nprovider = \"gemini\"\nbase_url = \"http://h\"\nmodel = \"x\"\n")
                .find("'gemini' is not a provider"),
            std::string::npos);
  EXPECT_NE(error_of("[models.m]\nbase_url = \"localhost:8000\"\nmodel = \"x\"\n")
                .find("must start with http://"),
            std::string::npos);
  EXPECT_NE(error_of("[models.m]\nbase_url = \"http://h\"\n").find("models.m.model: missing"),
            std::string::npos);
  EXPECT_NE(error_of("[models.m]\nbase_url = \"http://h\"\nmodel = \"x\"\n"
                     "api_key_env = \"sk-abcdef\"\n")
                .find("not the key itself"),
            std::string::npos);
  EXPECT_NE(
      error_of("[models.m]\nbase_url = \"http://h\"\nmodel = \"x\"\n[roles]\nplanner = \"n\"\n")
          .find("roles.planner: no model 'n'"),
      std::string::npos);
  EXPECT_NE(error_of("[replay]\nmode = \"replya\"\ndir = \"x\"\n").find("'replya' is not a mode"),
            std::string::npos);
  EXPECT_NE(error_of("[models.m\n").find("accelopt.toml:1:"), std::string::npos);
}

TEST(Config, CostUsesPricesPerMillionTokens) {
  ModelConfig model;
  model.price_input_per_mtok = 3;
  model.price_output_per_mtok = 15;
  Usage usage;
  usage.prompt_tokens = 1'000'000;
  usage.completion_tokens = 200'000;
  EXPECT_DOUBLE_EQ(model.cost_usd(usage), 3 + 3);
  model.price_cached_input_per_mtok = 0.3;
  usage.cached_tokens = 500'000;
  EXPECT_DOUBLE_EQ(model.cost_usd(usage), 1.5 + 0.15 + 3);
}

TEST(Config, NearestWord) {
  EXPECT_EQ(nearest_word("planer", {"planner", "fixer"}), "planner");
  EXPECT_EQ(nearest_word("zzzzzz", {"planner", "fixer"}), "");
}

}  // namespace
}  // namespace accelopt::llm
