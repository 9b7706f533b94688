// The scripted model server behind the real LLM agents: role recognition, defaults, queues, rules,
// failures, and the record of what was asked.
#include "scripted_model_server.h"

#include <gtest/gtest.h>

#include "agents/llm_agents.h"
#include "common/files.h"
#include "llm/config.h"
#include "llm/models.h"
#include "roles/roles.h"
#include "task/task.h"

namespace accelopt::testing {
namespace {

namespace fs = std::filesystem;
const fs::path kSourceDir = ACCELOPT_SOURCE_DIR;

class ScriptedServer : public ::testing::Test {
 protected:
  void SetUp() override {
    task_ = task::load_task(kSourceDir / "tests" / "data" / "tasks" / "axpy");
    baseline_ = {&task_, "small", read_file(task_.baseline_path()), std::nullopt};
    llm::ModelSetOptions options;
    options.hooks.sleep = [](double, const llm::CancelToken&) {};
    models_ = std::make_unique<llm::ModelSet>(
        llm::parse_llm_config(server_.config_toml(), "scripted.toml", roles::kRoleNames),
        std::move(options));
    options_.builtin_prompts_dir = kSourceDir / "prompts";
    options_.machine.prompt_variables = {{"isa", "AVX2"}};
  }

  ScriptedModelServer server_;
  task::Task task_;
  roles::KernelView baseline_;
  std::unique_ptr<llm::ModelSet> models_;
  agents::LlmAgentOptions options_;
};

TEST_F(ScriptedServer, DefaultsGiveDistinctPlansAndEchoTheKernel) {
  auto planner = agents::make_llm_planner(*models_, options_);
  std::vector<roles::Plan> plans = planner->propose(baseline_, {}, 3);
  EXPECT_EQ(plans.size(), 3u);
  options_.plans_in_one_call = true;
  plans = agents::make_llm_planner(*models_, options_)->propose(baseline_, {}, 4);
  EXPECT_EQ(plans.size(), 4u);
  EXPECT_EQ(server_.count("planner"), 4);

  std::vector<roles::Implementation> kernels =
      agents::make_llm_executor(*models_, options_)->implement(baseline_, plans[0], 2);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].source, baseline_.source);  // the current kernel, unchanged
  EXPECT_EQ(kernels[0].author, "llm:scripted-model");

  roles::RewritePair pair{baseline_, baseline_, plans[0], 1.5, 1.4, 1.6};
  std::optional<roles::Insight> insight =
      agents::make_llm_summarizer(*models_, options_)->summarize(pair);
  ASSERT_TRUE(insight);
  EXPECT_EQ(insight->title, "Scripted insight 1");
}

TEST_F(ScriptedServer, RulesQueuesAndFailuresFollowTheScript) {
  server_.queue("planner", plan_answer("Go faster", "PLAN-FAST: one simd pass."))
      .queue("planner", plan_answer("Break it", "PLAN-BROKEN: drop a semicolon."));
  server_.on("executor", "PLAN-FAST", kernel_answer(axpy::faster()))
      .on("executor", "PLAN-BROKEN", kernel_answer(axpy::broken()))
      .on("fixer", "expected ';'", "Fixed.\n```cpp\n" + axpy::repaired() + "```", 1)
      .on("summarizer", "", no_optimization_answer(), 1)
      .on(ScriptRule{"summarizer", "", "overloaded", -1, 503});

  std::vector<roles::Plan> plans =
      agents::make_llm_planner(*models_, options_)->propose(baseline_, {}, 2);
  ASSERT_EQ(plans.size(), 2u);
  auto executor = agents::make_llm_executor(*models_, options_);
  std::set<std::string> sources;
  for (const roles::Plan& plan : plans) {
    for (const roles::Implementation& kernel : executor->implement(baseline_, plan, 1)) {
      sources.insert(kernel.source);
    }
  }
  EXPECT_EQ(sources, (std::set<std::string>{axpy::faster(), axpy::broken()}));

  roles::KernelView failed{&task_, "small", axpy::broken(), kernel::Verdict{}};
  failed.verdict->status = kernel::Status::kCompileError;
  failed.verdict->log = "kernel.cpp:7:70: error: expected ';' before '}' token";
  auto fixer = agents::make_llm_fixer(*models_, options_);
  EXPECT_EQ(fixer->fix(failed, plans[1])->source, axpy::repaired());
  EXPECT_EQ(fixer->fix(failed, plans[1])->source, axpy::broken());  // rule used up: the default

  auto summarizer = agents::make_llm_summarizer(*models_, options_);
  roles::RewritePair pair{
      baseline_, {&task_, "small", axpy::faster(), std::nullopt}, plans[0], 2, 1.9, 2.1};
  EXPECT_FALSE(summarizer->summarize(pair));
  EXPECT_THROW(summarizer->summarize(pair), roles::AgentUnavailable);

  std::vector<ScriptedRequest> fixes = server_.requests("fixer");
  ASSERT_EQ(fixes.size(), 2u);
  EXPECT_NE(fixes[0].user.find("COMPILE_ERROR"), std::string::npos);
  EXPECT_EQ(server_.requests("summarizer").back().http_status, 503);
  EXPECT_EQ(server_.requests().size(), 8u);
}

TEST_F(ScriptedServer, AResponderSeesEachRequestFirst) {
  server_.set_responder([](const ScriptedRequest& request) -> std::optional<std::string> {
    if (request.role == "planner") return "## Plan: from the responder\nDo it.";
    return std::nullopt;
  });
  std::vector<roles::Plan> plans =
      agents::make_llm_planner(*models_, options_)->propose(baseline_, {}, 1);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].text, "## Plan: from the responder\nDo it.");
}

// The delay stands for a hosted model's latency: no answer comes sooner.
TEST_F(ScriptedServer, AnAnswerComesNoSoonerThanTheDelay) {
  server_.set_delay(std::chrono::milliseconds(300));
  auto start = std::chrono::steady_clock::now();
  std::vector<roles::Plan> plans =
      agents::make_llm_planner(*models_, options_)->propose(baseline_, {}, 1);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
  EXPECT_EQ(plans.size(), 1u);
}

TEST(ScriptedAnswers, CodeAfterFindsTheKernelOfAPrompt) {
  std::string prompt =
      "## The current kernel\n\n```cpp\nint a;\n```\n## The failed kernel\n"
      "```cpp\nint b;\n\n```\n";
  EXPECT_EQ(code_after(prompt, "## The current kernel"), "int a;");
  EXPECT_EQ(code_after(prompt, "## The failed kernel"), "int b;\n");
  EXPECT_EQ(code_after(prompt, "## Nothing"), "");
}

}  // namespace
}  // namespace accelopt::testing
