// The memory's rules: which rewrites enter (thresholds, TopK, half positive), how long they stay
// (ExpN per task, oldest out), and who sees them (scope, visibility horizon of a run).
#include "memory/memory.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/files.h"

namespace accelopt::memory {
namespace {

std::vector<Rewrite> rewrites(const std::vector<double>& speedups) {
  std::vector<Rewrite> result;
  for (double speedup : speedups) result.push_back(Rewrite{1, 2, speedup, speedup, speedup});
  return result;
}

TEST(SelectRewrites, KeepsOnlyThoseBeyondTheThresholds) {
  MemoryOptions options;
  auto chosen = select_rewrites(rewrites({1.03, 1.05, 0.9, 0.86, 1.0}), options);
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(chosen[0], 1u);  // 1.05 > 1.04
  EXPECT_EQ(chosen[1], 3u);  // 0.86 < 1/1.15; 0.9 is not
}

TEST(SelectRewrites, TopKHalfPositiveWhenBothKindsExist) {
  MemoryOptions options;
  options.top_k = 4;
  auto chosen = select_rewrites(rewrites({1.5, 1.2, 1.3, 1.1, 1.6, 0.5, 0.6, 0.7}), options);
  ASSERT_EQ(chosen.size(), 4u);
  EXPECT_EQ(chosen[0], 4u);  // 1.6
  EXPECT_EQ(chosen[1], 0u);  // 1.5
  EXPECT_EQ(chosen[2], 5u);  // 0.5
  EXPECT_EQ(chosen[3], 6u);  // 0.6
}

TEST(SelectRewrites, FillsWithTheOtherKind) {
  MemoryOptions options;
  options.top_k = 4;
  auto chosen = select_rewrites(rewrites({1.5, 1.2, 1.3, 0.5}), options);
  ASSERT_EQ(chosen.size(), 4u);
  EXPECT_EQ(chosen[3], 3u);
  options.top_k = 3;
  EXPECT_EQ(select_rewrites(rewrites({1.5, 1.2, 1.3, 1.4}), options).size(), 3u);
  EXPECT_EQ(select_rewrites(rewrites({0.1, 0.2, 0.3, 0.4}), options).size(), 3u);
}

// Issue 11: a median beyond the threshold is not enough to be remembered; the whole interval (of
// the re-timing) must clear it. The median makes a rewrite worth re-timing, the surest first.
TEST(SelectRewrites, TheMedianSelectsForRetimingTheIntervalAdmits) {
  MemoryOptions options;
  std::vector<Rewrite> measured = {
      Rewrite{1, 2, 1.10, 1.02, 1.18},  // median above 1.04, low end below
      Rewrite{1, 3, 1.10, 1.05, 1.15},  // the whole interval above 1.04
      Rewrite{1, 4, 0.80, 0.70, 0.90},  // median below 1/1.15, high end above
      Rewrite{1, 5, 0.80, 0.75, 0.85},  // the whole interval below 1/1.15
      Rewrite{1, 6, 1.03, 0.99, 1.07},  // the median clears nothing
  };
  EXPECT_EQ(classify(measured[0], options), RewriteKind::kNoise);
  EXPECT_EQ(classify(measured[1], options), RewriteKind::kPositive);
  EXPECT_EQ(classify(measured[2], options), RewriteKind::kNoise);
  EXPECT_EQ(classify(measured[3], options), RewriteKind::kNegative);
  EXPECT_EQ(classify_median(measured[0], options), RewriteKind::kPositive);
  EXPECT_EQ(classify_median(measured[2], options), RewriteKind::kNegative);
  EXPECT_EQ(classify_median(measured[4], options), RewriteKind::kNoise);
  auto chosen = select_rewrites(measured, options);
  EXPECT_EQ(chosen, (std::vector<size_t>{1, 0, 3, 2}));
}

task::Task make_task(const std::string& name, const std::string& op_type,
                     std::vector<std::string> tags) {
  task::Task task;
  task.name = name;
  task.op_type = op_type;
  task.tags = std::move(tags);
  return task;
}

store::MemoryEntryRecord entry(int64_t id, int64_t run, const task::Task& task) {
  roles::Insight insight;
  insight.title = "entry " + std::to_string(id);
  auto record = make_entry(insight, Rewrite{1, 2, 1.2, 1.1, 1.3}, task, run, 1);
  record.id = id;
  return record;
}

TEST(Retrieve, ScopesQueuesAndHorizon) {
  auto silu = make_task("silu", "elementwise", {"activation"});
  auto gelu = make_task("gelu", "elementwise", {"activation"});
  auto matmul = make_task("matmul", "matmul", {"gemm"});
  auto softmax = make_task("softmax", "reduction", {"activation"});
  std::vector<store::MemoryEntryRecord> all;
  int64_t id = 0;
  for (int index = 0; index < 5; ++index) all.push_back(entry(++id, 1, silu));  // ids 1..5
  all.push_back(entry(++id, 1, gelu));                                          // 6
  all.push_back(entry(++id, 1, matmul));                                        // 7
  all.push_back(entry(++id, 1, softmax));                                       // 8
  all.push_back(entry(++id, 2, silu));  // 9: made by run 2 after run 3 began
  MemoryOptions options;
  options.exp_n = 3;

  options.scope = Scope::kTask;
  auto own = retrieve(all, silu, options, 3, Visibility::up_to(8));
  ASSERT_EQ(own.size(), 3u);  // the queue holds the newest 3 of silu's 5; 9 is beyond the horizon
  EXPECT_EQ(own[0].id, 5);
  EXPECT_EQ(own[2].id, 3);
  EXPECT_EQ(retrieve(all, silu, options, 2, Visibility::up_to(8))[0].id,
            9);  // run 2 sees its own entry

  options.scope = Scope::kRelated;
  auto related = retrieve(all, silu, options, 3, Visibility::up_to(8));
  ASSERT_EQ(related.size(), 5u);  // + gelu (op_type) and softmax (tag), not matmul
  EXPECT_EQ(related[3].id, 8);
  EXPECT_EQ(related[4].id, 6);

  options.scope = Scope::kAll;
  EXPECT_EQ(retrieve(all, silu, options, 3, Visibility::up_to(8)).size(), 6u);
  options.retrieve_limit = 2;
  EXPECT_EQ(retrieve(all, silu, options, 3, Visibility::up_to(8)).size(), 2u);
}

// The leave-one-out rule on entries a SQLite database holds: a warm run on silu reads what the cold
// runs it names made on the other tasks, never an entry about silu (not even one those runs made),
// nothing from a run it does not name, nothing beyond its horizon; and always its own run's.
TEST(Retrieve, LeaveOneOutReadsTheNamedRunsOtherTasksAndItsOwnRunsLessonsOnly) {
  TempDir directory("memory-test");
  auto store = store::Store::open(directory.path() / "accelopt.db");
  auto silu = make_task("silu", "elementwise", {"activation"});
  auto gelu = make_task("gelu", "elementwise", {"activation"});
  auto matmul = make_task("matmul", "matmul", {"gemm"});
  int64_t cold_silu = store->create_run(Json::object());
  int64_t cold_gelu = store->create_run(Json::object());
  int64_t other_variant = store->create_run(Json::object());
  auto add = [&](int64_t run, const task::Task& task, const std::string& title) {
    roles::Insight insight;
    insight.title = title;
    auto record = make_entry(insight, Rewrite{0, 0, 1.2, 1.1, 1.3}, task, run, 1);
    return store->add_memory_entry(record);
  };
  add(cold_silu, silu, "cold silu on silu");
  add(cold_silu, matmul, "cold silu run's lesson about matmul");
  add(cold_gelu, gelu, "cold gelu on gelu");
  add(other_variant, gelu, "another variant on gelu");
  int64_t horizon = store->max_memory_id();
  int64_t warm = store->create_run(Json::object());
  add(warm, silu, "the warm run's own lesson on silu");
  add(cold_gelu, gelu, "cold gelu, after the horizon");

  MemoryOptions options;
  options.scope = Scope::kAll;
  Visibility leave_one_out{horizon, {cold_silu, cold_gelu}, {"silu"}};
  std::vector<std::string> titles;
  for (const auto& insight : planner_insights(*store, silu, options, warm, leave_one_out)) {
    titles.push_back(insight.title);
  }
  EXPECT_EQ(titles,
            (std::vector<std::string>{"the warm run's own lesson on silu", "cold gelu on gelu",
                                      "cold silu run's lesson about matmul"}));

  // The same database under a plain horizon: every entry up to it, silu's own included.
  auto pooled = planner_insights(*store, silu, options, warm, Visibility::up_to(horizon));
  EXPECT_EQ(pooled.size(), 5u);
}

TEST(Memory, EntryKeepsTheHarnessSpeedupAndRoundTrips) {
  auto silu = make_task("silu", "elementwise", {"activation"});
  roles::Insight insight;
  insight.title = "unroll";
  insight.speedup = 3;  // what the agent claimed
  insight.detail = Json{{"moves", {{{"knob", "UNROLL"}, {"from", 1}, {"to", 2}}}}};
  auto record = make_entry(insight, Rewrite{4, 5, 1.2, 1.1, 1.3}, silu, 7, 2);
  EXPECT_EQ(record.knobs, std::vector<std::string>{"UNROLL"});
  auto back = insight_from_json(record.insight);
  EXPECT_DOUBLE_EQ(back.speedup, 1.2);
  EXPECT_DOUBLE_EQ(back.speedup_low, 1.1);
  EXPECT_EQ(back.detail["moves"][0]["to"], 2);
  EXPECT_THROW(parse_scope("everything"), UserError);
}

TEST(ImportEntries, TheSameMemoryTwiceAddsNothingTheSecondTime) {
  auto store = store::Store::open(":memory:");
  task::Task silu = make_task("silu", "elementwise", {"activation"});
  std::vector<store::MemoryEntryRecord> file = {entry(0, 0, silu), entry(1, 0, silu)};
  EXPECT_EQ(import_entries(*store, file), 2);
  EXPECT_EQ(import_entries(*store, file), 0);
  EXPECT_EQ(store->memory_entries().size(), 2u);
  file.push_back(entry(2, 0, silu));  // one new entry beside the two known ones
  EXPECT_EQ(import_entries(*store, file), 1);
  EXPECT_EQ(store->memory_entries().size(), 3u);
}

}  // namespace
}  // namespace accelopt::memory
