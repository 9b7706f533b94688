// A run's settings go through the store's JSON and come back equal; a record written by older
// versions (before the typed settings, before baseline_timing carried every timing field, before
// the caller's keys) still reads.
#include "search/run_settings.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace accelopt::search {
namespace {

void expect_same_timing(const platform::TimingOptions& a, const platform::TimingOptions& b) {
  EXPECT_EQ(a.to_json(), b.to_json());
}

TEST(RunSettings, EveryFieldRoundTripsThroughTheStoresJson) {
  RunSettings settings;
  settings.agents = "hybrid";
  settings.platform = "command:/x/eval.json";
  settings.remote_workers = true;
  settings.config_file = "/work/accelopt.toml";
  settings.prompts = "/work/prompts";
  settings.search = preset("paper");
  settings.search.strategy = Strategy::kRepeatedSampling;
  settings.search.max_evaluations = 40;
  settings.search.timing.warmup_turns = 7;
  settings.search.timing.min_turn_seconds = 0.5;
  settings.task = "silu";
  settings.task_directory = "/bench/cpu/silu";
  settings.workload = "small";
  settings.memory_horizon = 12;
  settings.memory_runs = {4, 5};
  settings.memory_excluded_tasks = {"silu"};
  platform::TimingOptions careful;
  careful.budget_seconds = 60;
  careful.warmup_turns = 3;
  careful.min_turn_seconds = 0.25;
  settings.baseline_timing = careful;
  settings.start_kernel = "void kernel() {}\n";
  settings.kernel_extension = ".py";

  Json json = settings.to_json();
  EXPECT_EQ(json["baseline_timing"]["used_for"],
            "the baseline, the memory's re-timing and the final confirmation");
  RunSettings back = RunSettings::from_json(Json::parse(json.dump()));
  EXPECT_EQ(back.agents, "hybrid");
  EXPECT_EQ(back.platform, "command:/x/eval.json");
  EXPECT_TRUE(back.remote_workers);
  EXPECT_EQ(back.config_file, "/work/accelopt.toml");
  EXPECT_EQ(back.prompts, "/work/prompts");
  EXPECT_EQ(back.search.to_json(), settings.search.to_json());
  EXPECT_EQ(back.search.timing.warmup_turns, 7);
  EXPECT_EQ(back.search.timing.min_turn_seconds, 0.5);
  EXPECT_EQ(back.task, "silu");
  EXPECT_EQ(back.task_directory, "/bench/cpu/silu");
  EXPECT_EQ(back.workload, "small");
  EXPECT_EQ(back.memory_horizon, 12);
  EXPECT_EQ(back.memory_runs, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(back.memory_excluded_tasks, (std::vector<std::string>{"silu"}));
  EXPECT_EQ(back.memory_visibility().runs, back.memory_runs);
  EXPECT_EQ(back.kernel_extension, ".py");
  ASSERT_TRUE(back.baseline_timing.has_value());
  expect_same_timing(*back.baseline_timing, careful);
  EXPECT_EQ(back.start_kernel, settings.start_kernel);
  EXPECT_EQ(back.to_json(), json);
}

// Exactly what `accelopt optimize` stored before the settings were typed.
constexpr const char* kOldRecord = R"({
  "agents": "llm", "platform": "cpu", "remote_workers": false,
  "config_file": "/work/accelopt.toml", "prompts": "",
  "search": {"preset": "quick", "strategy": "beam", "beam_width": 2, "plans": 4,
             "implementations": 1, "iterations": 3, "fix_rounds": 1, "seed": 5,
             "agent_concurrency": 4, "eval_concurrency": 1, "hybrid_tuner_evals": 4,
             "timing": {"target_half_width": 0.04, "budget_seconds": 4, "min_pairs": 6,
                        "max_pairs": 400},
             "memory": {"top_k": 4, "exp_n": 16, "positive_threshold": 1.04,
                        "negative_threshold": 1.15, "scope": "task", "retrieve_limit": 16},
             "max_evaluations": 20, "max_wall_seconds": null},
  "task": "silu", "task_directory": "/bench/cpu/silu", "workload": "small",
  "memory_horizon": 3,
  "baseline_timing": {"target_half_width": 0.02, "budget_seconds": 12, "min_pairs": 12,
                      "used_for": "the baseline, the memory's re-timing and the final confirmation"}
})";

TEST(RunSettings, ReadsARecordWrittenBeforeTheSettingsWereTyped) {
  RunSettings settings = RunSettings::from_json(Json::parse(kOldRecord));
  EXPECT_EQ(settings.agents, "llm");
  EXPECT_EQ(settings.config_file, "/work/accelopt.toml");
  EXPECT_EQ(settings.search.preset, "quick");
  EXPECT_EQ(settings.search.seed, 5u);
  EXPECT_EQ(settings.search.max_evaluations, 20);
  EXPECT_FALSE(settings.search.max_wall_seconds.has_value());
  EXPECT_EQ(settings.search.timing.min_pairs, 6);
  platform::TimingOptions defaults;
  EXPECT_EQ(settings.search.timing.warmup_turns, defaults.warmup_turns);
  EXPECT_EQ(settings.search.timing.min_turn_seconds, defaults.min_turn_seconds);
  EXPECT_EQ(settings.task, "silu");
  EXPECT_EQ(settings.workload, "small");
  EXPECT_EQ(settings.memory_horizon, 3);
  ASSERT_TRUE(settings.baseline_timing.has_value());
  EXPECT_EQ(settings.baseline_timing->budget_seconds, 12);
  EXPECT_EQ(settings.baseline_timing->min_pairs, 12);
  EXPECT_EQ(settings.baseline_timing->max_pairs, defaults.max_pairs);
  EXPECT_TRUE(settings.start_kernel.empty());
  EXPECT_EQ(settings.kernel_extension, ".cpp");  // a cpu run's kernels, as it recorded none
  Json cuda = Json::parse(kOldRecord);
  cuda["platform"] = "cuda";
  EXPECT_EQ(RunSettings::from_json(cuda).kernel_extension, ".cu");

  // Written again, it keeps every key the old record had (other readers rely on them).
  Json again = settings.to_json();
  Json old = Json::parse(kOldRecord);
  for (const auto& [key, value] : old.items()) EXPECT_TRUE(again.contains(key)) << key;
  for (const auto& [key, value] : old["search"].items()) {
    EXPECT_TRUE(again["search"].contains(key)) << key;
  }
}

TEST(RunSettings, ARecordOfTheSearchAloneReadsWithDefaults) {
  // A run started by the search without a caller (no agents, platform, baseline timing).
  RunSettings settings = RunSettings::from_json(
      Json{{"search", preset("quick").to_json()}, {"task", "axpy"}, {"workload", "small"}});
  EXPECT_EQ(settings.agents, "");
  EXPECT_EQ(settings.platform, "cpu");
  EXPECT_FALSE(settings.remote_workers);
  EXPECT_EQ(settings.memory_horizon, 0);
  EXPECT_FALSE(settings.baseline_timing.has_value());
  EXPECT_FALSE(settings.to_json().contains("baseline_timing"));
  EXPECT_EQ(RunSettings::from_json(Json::object()).search.preset, "quick");
}

TEST(RunSettings, AValueOfTheWrongTypeIsAnInternalError) {
  EXPECT_THROW(RunSettings::from_json(Json{{"memory_horizon", "three"}}), InternalError);
}

}  // namespace
}  // namespace accelopt::search
