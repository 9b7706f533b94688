// The tuner's agents: neighbouring moves only, bandit priors from memory, determinism from the
// seed, edits that apply the plan, and insights with statistics.
#include "tuner/tuner_agents.h"

#include <gtest/gtest.h>

#include <set>

#include "kernel/knobs.h"
#include "tuner/bandit.h"

namespace accelopt::tuner {
namespace {

const char* const kSource =
    "constexpr int TILE = 64;  // knob: 16 32 64 128 256\n"
    "constexpr int UNROLL = 1;  // knob: 1 2 4\n"
    "extern \"C\" void kernel() {}\n";

task::Task matmul_task() {
  task::Task task;
  task.name = "matmul";
  task.op_type = "matmul";
  task.tags = {"gemm"};
  return task;
}

roles::Insight tuner_insight(const std::string& knob, int from, int to, double speedup,
                             const std::string& op_type) {
  roles::Insight insight;
  insight.speedup = speedup;
  insight.positive = speedup > 1;
  insight.detail = Json{{"moves", {{{"knob", knob}, {"from", from}, {"to", to}}}},
                        {"op_type", op_type},
                        {"tries", 3},
                        {"faster", 2}};
  return insight;
}

TEST(Bandit, EvidenceMovesTheBeliefAndDrawsAreSeeded) {
  ThompsonBandit a(7), b(7);
  a.add_evidence("X:up", 9, 1);
  b.add_evidence("X:up", 9, 1);
  EXPECT_NEAR(a.mean("X:up"), 10.0 / 12.0, 1e-12);
  EXPECT_DOUBLE_EQ(a.mean("unknown"), 0.5);
  double mean_draw = 0;
  for (int index = 0; index < 200; ++index) {
    double draw = a.sample("X:up");
    EXPECT_DOUBLE_EQ(draw, b.sample("X:up"));
    mean_draw += draw / 200;
  }
  EXPECT_NEAR(mean_draw, 10.0 / 12.0, 0.05);
}

TEST(TunerPlanner, ProposesNeighbouringMovesThenPairs) {
  task::Task task = matmul_task();
  roles::KernelView view{&task, "small", kSource, std::nullopt, 1};
  TunerPlanner planner;
  auto plans = planner.propose(view, {}, 3);
  ASSERT_EQ(plans.size(), 3u);  // TILE up/down, UNROLL up (UNROLL=1 cannot go down)
  std::set<std::string> texts;
  for (const auto& plan : plans) {
    EXPECT_EQ(plan.author, "tuner");
    ASSERT_EQ(plan.detail["moves"].size(), 1u);
    const Json& move = plan.detail["moves"][0];
    if (move["knob"] == "TILE") {
      EXPECT_TRUE(move["to"] == 32 || move["to"] == 128);
    } else {
      EXPECT_EQ(move["to"], 2);
    }
    texts.insert(plan.text);
  }
  EXPECT_EQ(texts.size(), 3u);
  auto more = planner.propose(view, {}, 10);
  ASSERT_EQ(more.size(), 8u);  // + TILE up & UNROLL up, TILE down & UNROLL up; + jumps of two
  EXPECT_EQ(more[3].detail["moves"].size(), 2u);
  EXPECT_EQ(more[4].detail["moves"].size(), 2u);
  std::set<int> jumps;  // TILE 64 → 16 or 256, UNROLL 1 → 4
  for (size_t index = 5; index < 8; ++index)
    jumps.insert(more[index].detail["moves"][0]["to"].get<int>());
  EXPECT_EQ(jumps, (std::set<int>{16, 256, 4}));
}

TEST(TunerPlanner, DeterministicBySeedAndSteeredByMemory) {
  task::Task task = matmul_task();
  roles::KernelView view{&task, "small", kSource, std::nullopt, 42};
  TunerPlanner planner;
  auto first = planner.propose(view, {}, 3);
  auto second = planner.propose(view, {}, 3);
  for (size_t index = 0; index < first.size(); ++index)
    EXPECT_EQ(first[index].text, second[index].text);

  std::vector<roles::Insight> memory;
  for (int index = 0; index < 30; ++index)
    memory.push_back(tuner_insight("TILE", 64, 128, 1.3, "matmul"));
  for (int index = 0; index < 30; ++index)
    memory.push_back(tuner_insight("UNROLL", 1, 2, 0.7, "matmul"));
  int tile_up_first = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    view.seed = seed;
    auto plans = planner.propose(view, memory, 1);
    if (plans[0].detail["moves"][0]["knob"] == "TILE" && plans[0].detail["moves"][0]["to"] == 128) {
      ++tile_up_first;
    }
  }
  EXPECT_GE(tile_up_first, 18);
  // The exact move's prior evidence travels in the plan for the summarizer.
  auto plans = planner.propose(view, memory, 1);
  EXPECT_EQ(plans[0].detail["prior"]["tries"], 3);
}

TEST(TunerPlanner, NoKnobsNoPlans) {
  task::Task task = matmul_task();
  roles::KernelView view{&task, "small", "extern \"C\" void kernel() {}", std::nullopt, 1};
  EXPECT_TRUE(TunerPlanner().propose(view, {}, 5).empty());
}

TEST(TunerExecutorAndSummarizer, EditAndWriteStatistics) {
  task::Task task = matmul_task();
  roles::KernelView view{&task, "small", kSource, std::nullopt, 1};
  roles::Plan plan;
  plan.author = "tuner";
  plan.detail = Json{{"moves", {{{"knob", "TILE"}, {"from", 64}, {"to", 128}}}},
                     {"op_type", "matmul"},
                     {"prior", {{"tries", 5}, {"faster", 4}}}};
  auto implementations = TunerExecutor().implement(view, plan, 2);
  ASSERT_EQ(implementations.size(), 1u);
  EXPECT_EQ(kernel::parse_knobs(implementations[0].source)[0].value, 128);

  roles::RewritePair pair;
  pair.slow = view;
  pair.fast = view;
  pair.fast.source = implementations[0].source;
  pair.plan = plan;
  pair.speedup = 1.31;
  pair.speedup_low = 1.27;
  pair.speedup_high = 1.35;
  auto insight = TunerSummarizer().summarize(pair);
  ASSERT_TRUE(insight.has_value());
  EXPECT_EQ(insight->title,
            "TILE 64 → 128 on matmul kernels: 1.31× [1.27, 1.35], 5 of 6 tries faster");
  EXPECT_EQ(insight->before_snippet, "constexpr int TILE = 64;  // knob: 16 32 64 128 256");
  EXPECT_EQ(insight->detail["tries"], 6);
  EXPECT_TRUE(insight->positive);

  plan.detail["moves"][0]["to"] = 100;
  EXPECT_FALSE(TunerExecutor().implement(view, plan, 1)[0].parse_error.empty());
  pair.plan.author = "llm:m";
  EXPECT_FALSE(TunerSummarizer().summarize(pair).has_value());
}

}  // namespace
}  // namespace accelopt::tuner
