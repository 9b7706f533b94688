// What the kernel database promises: a versioned schema that refuses foreign and newer files,
// records that read back as written, and units of work that survive a SIGKILL of the writer whole
// or not at all.
#include "store/store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "common/error.h"
#include "common/files.h"

namespace accelopt::store {
namespace {

kernel::Verdict passed_verdict(double speedup) {
  kernel::Verdict verdict;
  verdict.status = kernel::Status::kPassed;
  kernel::Timing timing;
  timing.anchor = "baseline";
  timing.speedup = speedup;
  timing.speedup_low = speedup * 0.98;
  timing.speedup_high = speedup * 1.02;
  timing.latency_seconds = 1e-3 / speedup;
  verdict.timing = timing;
  return verdict;
}

CandidateRecord candidate(int64_t run, const std::string& key) {
  CandidateRecord record;
  record.run_id = run;
  record.key = key;
  record.task = "axpy";
  record.workload = "small";
  record.source = "int x;";
  record.source_hash = "h" + key;
  record.normalized_hash = "n" + key;
  record.author = "tuner";
  record.kind = CandidateKind::kTuner;
  return record;
}

void raw_sql(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

TEST(Store, CreatesTheLatestSchemaAndReopensIt) {
  TempDir dir;
  auto path = dir.path() / "ws" / "accelopt.db";
  int64_t run = 0;
  {
    auto store = Store::open(path);
    EXPECT_EQ(store->schema_version(), Store::latest_schema_version());
    run = store->create_run(Json{{"preset", "quick"}});
    store->record_evaluation(candidate(run, "i0/base"), passed_verdict(1.0));
  }
  auto store = Store::open(path);
  ASSERT_TRUE(store->run(run).has_value());
  EXPECT_EQ(store->run(run)->config["preset"], "quick");
  EXPECT_EQ(store->run(run)->state, "running");
  ASSERT_EQ(store->candidates(run).size(), 1u);
  EXPECT_EQ(store->candidates(run)[0].kind, CandidateKind::kTuner);
}

TEST(Store, RefusesAForeignDatabase) {
  TempDir dir;
  auto path = dir.path() / "other.db";
  raw_sql(path, "CREATE TABLE songs (title TEXT)");
  try {
    Store::open(path);
    FAIL() << "opened a foreign database";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("not an accelopt database"), std::string::npos);
  }
}

TEST(Store, RefusesANonSqliteFile) {
  TempDir dir;
  auto path = dir.path() / "notes.db";
  write_file_atomic(path, std::string(4096, 'x'));
  EXPECT_THROW(Store::open(path), UserError);
}

TEST(Store, RefusesANewerSchema) {
  TempDir dir;
  auto path = dir.path() / "accelopt.db";
  Store::open(path);
  raw_sql(path, "UPDATE schema_version SET version = 99");
  try {
    Store::open(path);
    FAIL() << "opened a newer database";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("newer accelopt"), std::string::npos);
  }
}

TEST(Store, AnEvaluationIsRecordedOncePerKey) {
  auto store = Store::open(":memory:");
  int64_t run = store->create_run(Json::object());
  int64_t first = store->record_evaluation(candidate(run, "i1/b0/p0/k0"), passed_verdict(1.5));
  int64_t again = store->record_evaluation(candidate(run, "i1/b0/p0/k0"), passed_verdict(9.0));
  EXPECT_EQ(first, again);
  auto trace = store->trace(first);
  ASSERT_TRUE(trace.has_value());
  EXPECT_DOUBLE_EQ(trace->verdict.timing->speedup, 1.5);
  EXPECT_EQ(store->evaluation_count(run), 1);
  store->record_evaluation(candidate(run, "i1/b0/p0/k1"), passed_verdict(1.5), first);
  EXPECT_EQ(store->evaluation_count(run), 1);  // a reused verdict is not an evaluation
  EXPECT_EQ(store->candidate_by_key(run, "i1/b0/p0/k1")->id, first + 1);
}

TEST(Store, MemoryEntriesCheckpointsAnswersAndCalls) {
  auto store = Store::open(":memory:");
  int64_t run = store->create_run(Json::object());
  std::vector<MemoryEntryRecord> entries(2);
  entries[0].run_id = entries[1].run_id = run;
  entries[0].task = "axpy";
  entries[1].task = "silu";
  entries[0].knobs = {"CHUNK"};
  entries[1].positive = false;
  Checkpoint checkpoint{run, 1, Json{{"beam", {1, 2}}}, ""};
  store->commit_iteration(checkpoint, entries);
  EXPECT_GT(entries[1].id, entries[0].id);
  EXPECT_EQ(store->memory_entries().size(), 2u);
  EXPECT_EQ(store->memory_entry(entries[0].id)->knobs, std::vector<std::string>{"CHUNK"});
  EXPECT_EQ(store->last_checkpoint(run)->state["beam"][1], 2);
  EXPECT_EQ(store->clear_memory("silu"), 1);
  EXPECT_EQ(store->max_memory_id(), entries[0].id);

  store->put_answer(run, "i1/b0/plans", Json{{"plans", 3}});
  EXPECT_EQ((*store->answer(run, "i1/b0/plans"))["plans"], 3);
  EXPECT_FALSE(store->answer(run, "nope").has_value());

  StoreLedger ledger(*store);
  llm::CallRecord call;
  call.run_id = std::to_string(run);
  call.role = "planner";
  call.model = "m";
  call.cost_usd = 0.25;
  ledger.record(call);
  ASSERT_EQ(ledger.records(std::to_string(run)).size(), 1u);
  EXPECT_DOUBLE_EQ(ledger.records("")[0].cost_usd, 0.25);
}

// DuckDB's persistence test, for us: a forked writer commits evaluations as fast as it can and is
// SIGKILLed; every evaluation it finished is there whole (candidate with its trace), nothing torn.
TEST(Store, SurvivesAKilledWriter) {
  TempDir dir;
  auto path = dir.path() / "accelopt.db";
  int64_t run = Store::open(path)->create_run(Json::object());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto store = Store::open(path);
    for (int index = 0;; ++index) {
      store->record_evaluation(candidate(run, "k" + std::to_string(index)), passed_verdict(1.1));
    }
  }
  auto store = Store::open(path);
  for (int wait = 0; wait < 200 && store->candidates(run).size() < 20; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  auto reopened = Store::open(path);
  auto candidates = reopened->candidates(run);
  EXPECT_GE(candidates.size(), 20u);
  for (size_t index = 0; index < candidates.size(); ++index) {
    EXPECT_EQ(candidates[index].key, "k" + std::to_string(index));
    EXPECT_TRUE(reopened->trace(candidates[index].id).has_value());
  }
  // The database still takes writes after the crash.
  reopened->record_evaluation(candidate(run, "after"), passed_verdict(1.2));
}

}  // namespace
}  // namespace accelopt::store
