// Each LLM agent end to end over real HTTP: prompts rendered from the built-in templates, sent to
// a local OpenAI-compatible server that answers by role, answers parsed.
#include "agents/llm_agents.h"

#include <gtest/gtest.h>

#include <mutex>

#include "common/files.h"
#include "kernel/verdict.h"
#include "llm/config.h"
#include "llm/models.h"
#include "llm/test_server.h"
#include "roles/roles.h"
#include "task/task.h"

namespace accelopt::agents {
namespace {

namespace fs = std::filesystem;
using llm::testing::openai_answer;
using llm::testing::TestServer;

const fs::path kSourceDir = ACCELOPT_SOURCE_DIR;

struct Call {
  std::string role, system, user;
};

std::string role_of(const std::string& system) {
  for (const char* role : {"planner", "executor", "fixer", "summarizer"}) {
    if (system.find(std::string("You are the ") + role) != std::string::npos) return role;
  }
  return "unknown";
}

// A server that answers each role with `answer(role, user prompt, n-th call of that role)`.
class RoleServer {
 public:
  using Answer =
      std::function<std::string(const std::string& role, const std::string& user, int n)>;
  explicit RoleServer(Answer answer)
      : answer_(std::move(answer)),
        server_([this](const httplib::Request& request, httplib::Response& response, int) {
          Json body = Json::parse(request.body);
          Call call{"", "", ""};
          for (const Json& message : body["messages"]) {
            if (message["role"] == "system") call.system = message["content"];
            if (message["role"] == "user") call.user = message["content"];
          }
          call.role = role_of(call.system);
          int n;
          {
            std::lock_guard lock(mutex_);
            n = counts_[call.role]++;
            calls_.push_back(call);
          }
          std::string content = answer_(call.role, call.user, n);
          if (content == "HTTP 400") {
            response.status = 400;
            response.set_content(R"({"error": {"message": "bad request"}})", "application/json");
            return;
          }
          response.set_content(openai_answer(content).dump(), "application/json");
        }) {}

  std::vector<Call> calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  std::string url() const { return server_.url(); }

 private:
  Answer answer_;
  mutable std::mutex mutex_;
  std::map<std::string, int> counts_;
  std::vector<Call> calls_;
  TestServer server_;  // last: stops before the rest is destroyed
};

std::unique_ptr<llm::ModelSet> models_for(const std::string& url, const std::string& extra = "") {
  llm::ModelSetOptions options;
  options.hooks.sleep = [](double, const llm::CancelToken&) {};
  std::string toml = "[models.local]\nbase_url = \"" + url +
                     "/v1\"\nmodel = \"scripted\"\nmax_retries = 0\nconcurrency = 8\n" + extra;
  return std::make_unique<llm::ModelSet>(
      llm::parse_llm_config(toml, "test.toml", roles::kRoleNames), std::move(options));
}

LlmAgentOptions agent_options() {
  LlmAgentOptions options;
  options.builtin_prompts_dir = kSourceDir / "prompts";
  options.machine.prompt_variables = {
      {"isa", "AVX-512"}, {"vector_bits", "512"}, {"floats_per_vector", "16"}};
  return options;
}

std::string fenced(const std::string& source) {
  return "Here is the kernel.\n\n```cpp\n" + source + "```\n\nIt should be faster.";
}

const char* kFast = R"(#include <cstdint>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, float* __restrict out) {
#pragma omp simd
  for (std::int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + __builtin_expf(-x[i]));
}
)";

class LlmAgents : public ::testing::Test {
 protected:
  void SetUp() override {
    task_ = task::load_task(kSourceDir / "bench" / "cpu" / "silu");
    baseline_ = {&task_, "", read_file(task_.baseline_path()), std::nullopt};
  }
  task::Task task_;
  roles::KernelView baseline_;
};

TEST_F(LlmAgents, PlannerMakesIndependentCallsAndDropsNearDuplicates) {
  RoleServer server([](const std::string& role, const std::string&, int n) -> std::string {
    EXPECT_EQ(role, "planner");
    if (n == 1)
      return "## Plan: Vectorize exp\nReplace std::exp by a polynomial so the loop vectorizes.";
    if (n == 2)
      return "<think>again</think>## Plan: vectorize EXP\nReplace std::exp by a polynomial, so the "
             "loop vectorizes.";
    return "## Plan: Larger chunks\nRaise CHUNK to 4096 so the buffer loop amortizes.";
  });
  auto models = models_for(server.url());
  auto planner = make_llm_planner(*models, agent_options());
  roles::Insight insight{"Fuse passes", "One pass.", "", "", 1.4, 1.3, 1.5, true};
  std::vector<roles::Plan> plans = planner->propose(baseline_, {insight}, 3);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_EQ(plans[0].author, "llm:served-model");
  std::vector<Call> calls = server.calls();
  ASSERT_EQ(calls.size(), 3u);
  std::set<std::string> indices;
  for (const Call& call : calls) {
    EXPECT_NE(call.user.find("Fuse passes"), std::string::npos);  // the memory
    EXPECT_NE(call.user.find(baseline_.source), std::string::npos);
    for (int i = 1; i <= 3; ++i) {
      if (call.user.find("proposal " + std::to_string(i) + " of 3") != std::string::npos) {
        indices.insert(std::to_string(i));
      }
    }
  }
  EXPECT_EQ(indices.size(), 3u);  // each call differs, so record/replay keeps them apart
}

// Each draw is shown the plans drawn before it for the same kernel, so the draws spread.
TEST_F(LlmAgents, TheSecondPlannerDrawSeesTheFirstPlan) {
  RoleServer server([](const std::string&, const std::string&, int n) -> std::string {
    return "## Plan: Idea " + std::to_string(n) + "\nDo thing " + std::to_string(n) + ".";
  });
  auto models = models_for(server.url());
  std::vector<roles::Plan> plans =
      make_llm_planner(*models, agent_options())->propose(baseline_, {}, 3);
  ASSERT_EQ(plans.size(), 3u);
  std::vector<Call> calls = server.calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].user.find("Plans already proposed for this kernel"), std::string::npos);
  EXPECT_NE(calls[1].user.find("Plans already proposed for this kernel in this iteration"),
            std::string::npos)
      << calls[1].user;
  EXPECT_NE(calls[1].user.find("- ## Plan: Idea 0\nDo thing 0."), std::string::npos);
  EXPECT_NE(calls[2].user.find("- ## Plan: Idea 1\nDo thing 1."), std::string::npos);
  EXPECT_NE(calls[2].user.find("- ## Plan: Idea 0"), std::string::npos);
}

TEST_F(LlmAgents, PlannerCanAskForAllPlansInOneCall) {
  RoleServer server([](const std::string&, const std::string& user, int) -> std::string {
    EXPECT_NE(user.find("Propose 3 distinct plans"), std::string::npos);
    return "## Plan 1: Polynomial exp\nVectorize the exponential.\n"
           "## Plan 2: Polynomial exp\nVectorize the exponential.\n"
           "## Plan 3: Fuse\nOne loop computes the quotient directly.\n"
           "## Plan 4: Extra\nOne more than asked.\n";
  });
  auto models = models_for(server.url());
  LlmAgentOptions options = agent_options();
  options.plans_in_one_call = true;
  std::vector<roles::Plan> plans = make_llm_planner(*models, options)->propose(baseline_, {}, 3);
  ASSERT_EQ(plans.size(), 3u);
  EXPECT_EQ(plans[0].text, "## Plan 1: Polynomial exp\nVectorize the exponential.");
  EXPECT_EQ(plans[1].text, "## Plan 3: Fuse\nOne loop computes the quotient directly.");
  EXPECT_EQ(server.calls().size(), 1u);
}

TEST_F(LlmAgents, ExecutorReturnsWholeKernelsAndParseFailuresAsValues) {
  RoleServer server([](const std::string& role, const std::string& user, int n) -> std::string {
    EXPECT_EQ(role, "executor");
    EXPECT_NE(user.find("PLAN: vectorize"), std::string::npos);
    return n == 0 ? fenced(kFast) : "I would rather not.";
  });
  auto models = models_for(server.url(), "temperature = 0.7\n");
  std::vector<roles::Implementation> kernels =
      make_llm_executor(*models, agent_options())
          ->implement(baseline_, {"PLAN: vectorize", "llm:x"}, 2);
  ASSERT_EQ(kernels.size(), 2u);
  int good = 0, bad = 0;
  for (const roles::Implementation& kernel : kernels) {
    if (kernel.source == kFast) ++good;
    if (kernel.source.empty() && !kernel.parse_error.empty()) ++bad;
    EXPECT_EQ(kernel.author, "llm:served-model");
  }
  EXPECT_EQ(good, 1);
  EXPECT_EQ(bad, 1);
}

TEST_F(LlmAgents, FixerSeesTheFailureAndReturnsTheRepairedKernel) {
  RoleServer server([](const std::string& role, const std::string& user, int) -> std::string {
    EXPECT_EQ(role, "fixer");
    EXPECT_NE(user.find("Status: COMPILE_ERROR"), std::string::npos);
    EXPECT_NE(user.find("expected ';' before '}'"), std::string::npos);
    EXPECT_NE(user.find("PLAN: vectorize"), std::string::npos);
    return "The semicolon was missing.\n```c++\n" + std::string(kFast) + "```";
  });
  auto models = models_for(server.url());
  auto fixer = make_llm_fixer(*models, agent_options());
  roles::KernelView failed = baseline_;
  failed.source = "broken source";
  kernel::Verdict verdict;
  verdict.status = kernel::Status::kCompileError;
  verdict.message = "the kernel does not compile";
  verdict.log = "kernel.cpp:4:3: error: expected ';' before '}' token";
  failed.verdict = verdict;
  std::optional<roles::Implementation> fixed = fixer->fix(failed, {"PLAN: vectorize", "llm:x"});
  ASSERT_TRUE(fixed);
  EXPECT_EQ(fixed->source, kFast);

  failed.verdict->status = kernel::Status::kPassed;  // nothing to repair: no call
  EXPECT_FALSE(fixer->fix(failed, {"PLAN", ""}));
  EXPECT_EQ(server.calls().size(), 1u);
}

TEST_F(LlmAgents, SummarizerReturnsInsightsWithTheMeasuredSpeedupOrNothing) {
  RoleServer server([](const std::string& role, const std::string& user, int n) -> std::string {
    EXPECT_EQ(role, "summarizer");
    EXPECT_NE(user.find("1.8x the speed"), std::string::npos);
    EXPECT_NE(user.find("interval 1.7–1.9"), std::string::npos);
    if (n == 0) {
      return R"({"title": "Polynomial exp", "description": "A vectorizable exp.",
                 "before": "d[i] = std::exp(-x[i]);", "after": "d = poly(x);"})";
    }
    if (n == 1) return "NO OPTIMIZATION FOUND";
    return "lorem ipsum";
  });
  auto models = models_for(server.url());
  auto summarizer = make_llm_summarizer(*models, agent_options());
  roles::RewritePair pair;
  pair.slow = baseline_;
  pair.fast = {&task_, "", kFast, std::nullopt};
  pair.plan = {"PLAN: vectorize", "llm:x"};
  pair.speedup = 1.8, pair.speedup_low = 1.7, pair.speedup_high = 1.9;
  std::optional<roles::Insight> insight = summarizer->summarize(pair);
  ASSERT_TRUE(insight);
  EXPECT_EQ(insight->title, "Polynomial exp");
  EXPECT_EQ(insight->after_snippet, "d = poly(x);");
  EXPECT_DOUBLE_EQ(insight->speedup, 1.8);
  EXPECT_DOUBLE_EQ(insight->speedup_low, 1.7);
  EXPECT_TRUE(insight->positive);
  EXPECT_FALSE(summarizer->summarize(pair));  // "no optimization found"
  EXPECT_FALSE(summarizer->summarize(pair));  // garbage
}

// The summarizer judges a rewrite against what its siblings reached: the slowest of them is said
// to be so.
TEST_F(LlmAgents, TheSummarizerSeesTheSiblingsWithTheirFigures) {
  RoleServer server([](const std::string&, const std::string&, int) -> std::string {
    return "NO OPTIMIZATION FOUND";
  });
  auto models = models_for(server.url());
  roles::RewritePair pair;
  pair.slow = baseline_;
  pair.fast = {&task_, "", kFast, std::nullopt};
  pair.plan = {"## Plan: Unroll by 4\nUnroll the loop.", "llm:x"};
  pair.speedup = 4.39, pair.speedup_low = 4.2, pair.speedup_high = 4.6;
  pair.siblings = {{"Plan: Unroll by 4", "PASSED", 4.39, 4.2, 4.6, true},
                   {"Plan: Polynomial exp", "PASSED", 6.1, 5.9, 6.3, false},
                   {"Plan: Blocked rows", "COMPILE_ERROR", 0, 0, 0, false},
                   {"Plan: Prefetch", "PASSED", 5.0, 4.8, 5.2, false}};
  EXPECT_FALSE(make_llm_summarizer(*models, agent_options())->summarize(pair));
  std::vector<Call> calls = server.calls();
  ASSERT_EQ(calls.size(), 1u);
  const std::string& user = calls[0].user;
  EXPECT_NE(user.find("**this rewrite**: Plan: Unroll by 4: 4.39x (4.2–4.6)"), std::string::npos)
      << user;
  EXPECT_NE(user.find("- Plan: Polynomial exp: 6.1x (5.9–6.3)"), std::string::npos);
  EXPECT_NE(user.find("- Plan: Blocked rows: COMPILE_ERROR"), std::string::npos);
  EXPECT_NE(user.find("This rewrite was the slowest of the 3 timed siblings"), std::string::npos);
}

// A model error leaves an agent as a role outcome naming the role, the model and why: the search
// needs no llm type.
TEST_F(LlmAgents, ModelErrorsBecomeAgentUnavailable) {
  RoleServer server(
      [](const std::string&, const std::string&, int) { return std::string("HTTP 400"); });
  auto models = models_for(server.url());
  try {
    make_llm_planner(*models, agent_options())->propose(baseline_, {}, 3);
    FAIL();
  } catch (const roles::AgentUnavailable& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("the planner got no answer from model local"), std::string::npos)
        << message;
    EXPECT_NE(message.find("bad request"), std::string::npos) << message;
  }
  EXPECT_THROW(make_llm_executor(*models, agent_options())->implement(baseline_, {"p", ""}, 1),
               roles::AgentUnavailable);
  std::string closed_url;
  {
    RoleServer closed([](const std::string&, const std::string&, int) { return std::string(); });
    closed_url = closed.url();
  }
  auto unreachable = models_for(closed_url);
  EXPECT_THROW(make_llm_executor(*unreachable, agent_options())->implement(baseline_, {"p", ""}, 1),
               roles::AgentUnavailable);
}

TEST_F(LlmAgents, SpentBudgetBecomesBudgetExhausted) {
  RoleServer server(
      [](const std::string&, const std::string&, int) { return std::string("Plan"); });
  auto models = models_for(server.url(), "[budget]\ncalls = 1\n");
  auto planner = make_llm_planner(*models, agent_options());
  EXPECT_EQ(planner->propose(baseline_, {}, 1).size(), 1u);
  EXPECT_THROW(planner->propose(baseline_, {}, 1), roles::BudgetExhausted);
}

kernel::Verdict timed_verdict(double speedup, kernel::Status status = kernel::Status::kPassed) {
  kernel::Verdict verdict;
  verdict.status = status;
  verdict.message = "correct on 3 seeds; " + std::to_string(speedup) + "x the baseline";
  kernel::Timing timing;
  timing.anchor = "baseline";
  timing.speedup = speedup;
  timing.speedup_low = speedup * 0.95;
  timing.speedup_high = speedup * 1.05;
  timing.latency_seconds = 1e-3 / speedup;
  timing.latency_low = timing.latency_seconds * 0.95;
  timing.latency_high = timing.latency_seconds * 1.05;
  verdict.timing = timing;
  kernel::RooflineScore score;
  score.percent_of_peak = 10 * speedup;
  score.bound = "memory";
  score.gbytes_per_second = 20 * speedup;
  verdict.roofline = score;
  return verdict;
}

// Record a run's calls through all four agents, then replay them with other measured figures
// (latencies, speedups, % of peak, the memory's speedups): every call is found, none is sent.
TEST_F(LlmAgents, ReplayFindsEveryCallWhenTheMeasuredFiguresDiffer) {
  TempDir cassettes;
  std::string replay_dir = "dir = \"" + cassettes.path().string() + "\"\n";
  auto run_all_roles = [&](llm::ModelSet& models, double speedup) {
    roles::KernelView parent = baseline_;
    parent.verdict = timed_verdict(speedup);
    parent.place = "i1/b0";
    parent.seed = 42;
    roles::Insight insight{"Fuse passes", "One pass.", "", "", speedup, speedup, speedup, true};
    std::vector<std::string> answers;
    for (const roles::Plan& plan :
         make_llm_planner(models, agent_options())->propose(parent, {insight}, 2)) {
      answers.push_back(plan.text);
    }
    roles::Plan plan{"PLAN: vectorize", "llm:x"};
    for (const roles::Implementation& kernel :
         make_llm_executor(models, agent_options())->implement(parent, plan, 2)) {
      answers.push_back(kernel.source);
    }
    roles::KernelView failed = parent;
    failed.verdict = timed_verdict(speedup * 50, kernel::Status::kRejectedPhysics);
    failed.verdict->message = "measured " + std::to_string(speedup) + " ms, but …";
    answers.push_back(make_llm_fixer(models, agent_options())->fix(failed, plan)->source);
    roles::RewritePair pair{parent, parent, plan, speedup, speedup * 0.9, speedup * 1.1};
    pair.fast.source = kFast;
    auto insight_found = make_llm_summarizer(models, agent_options())->summarize(pair);
    answers.push_back(insight_found ? insight_found->title : "none");
    return answers;
  };
  std::vector<std::string> recorded;
  std::string url;
  {
    RoleServer server([](const std::string& role, const std::string&, int n) -> std::string {
      if (role == "planner") {
        return n == 0 ? "## Plan: Polynomial exp\nReplace std::exp so the loop vectorizes."
                      : "## Plan: Larger chunks\nRaise CHUNK to 4096 for the buffer loop.";
      }
      if (role == "summarizer") return R"({"title": "Polynomial exp", "description": "d"})";
      return fenced(kFast);
    });
    url = server.url();
    auto models = models_for(url, "[replay]\nmode = \"record\"\n" + replay_dir);
    recorded = run_all_roles(*models, 1.5);
    ASSERT_EQ(server.calls().size(), 6u);
  }
  auto models = models_for(url, "[replay]\nmode = \"replay\"\n" + replay_dir);
  EXPECT_EQ(run_all_roles(*models, 1.9), recorded);  // the server is gone: all from cassettes
}

}  // namespace
}  // namespace accelopt::agents
