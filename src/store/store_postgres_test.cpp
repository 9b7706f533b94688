// The kernel database on PostgreSQL keeps the SQLite database's promises: the same schema and
// migrations, refusal of foreign and newer databases, records read back as written, units of work
// that survive a SIGKILLed writer, and one memory shared by every connection, with its origin.
// Each test gets a fresh database on one throwaway server (store/postgres_cluster.h).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "common/error.h"
#include "store/postgres_cluster.h"
#include "store/store.h"

namespace accelopt::store {
namespace {

// One server for the whole executable; nullptr (and the reason) when it cannot start.
PostgresCluster* cluster(std::string* why = nullptr) {
  static std::string reason;
  static std::unique_ptr<PostgresCluster> instance = PostgresCluster::start(reason);
  if (why != nullptr) *why = reason;
  return instance.get();
}

class StorePostgres : public testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (cluster(&why) == nullptr) GTEST_SKIP() << why;
    std::string name = testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& character : name) character = static_cast<char>(std::tolower(character));
    url_ = cluster()->create_database(name);
  }
  std::string url_;
};

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
  record.source = "int x; // it's a '?' in a kernel";
  record.source_hash = "h" + key;
  record.normalized_hash = "n" + key;
  record.author = "tuner";
  record.kind = CandidateKind::kTuner;
  return record;
}

TEST_F(StorePostgres, CreatesTheLatestSchemaAndReadsBackWhatItWrote) {
  int64_t run = 0;
  int64_t first = 0;
  {
    auto store = Store::open(url_);
    EXPECT_EQ(store->schema_version(), Store::latest_schema_version());
    run = store->create_run(Json{{"preset", "quick"}});
    first = store->record_evaluation(candidate(run, "i1/b0/p0/k0"), passed_verdict(1.5));
    EXPECT_EQ(store->record_evaluation(candidate(run, "i1/b0/p0/k0"), passed_verdict(9.0)), first);
    CandidateRecord child = candidate(run, "i1/b0/p0/k1");
    child.parent = first;
    store->record_evaluation(child, passed_verdict(1.5), first);
  }
  auto store = Store::open(url_);
  EXPECT_EQ(store->schema_version(), Store::latest_schema_version());
  ASSERT_TRUE(store->run(run).has_value());
  EXPECT_EQ(store->run(run)->config["preset"], "quick");
  EXPECT_EQ(store->run(run)->state, "running");
  EXPECT_NE(store->run(run)->origin.find('@'), std::string::npos);
  auto candidates = store->candidates(run);
  ASSERT_EQ(candidates.size(), 2u);
  EXPECT_EQ(candidates[0].source, "int x; // it's a '?' in a kernel");
  EXPECT_EQ(candidates[1].parent, first);
  EXPECT_FALSE(candidates[0].parent.has_value());
  EXPECT_DOUBLE_EQ(store->trace(first)->verdict.timing->speedup, 1.5);
  EXPECT_EQ(store->traces(run)[1].reused_from, first);
  EXPECT_EQ(store->evaluation_count(run), 1);

  std::vector<MemoryEntryRecord> entries(2);
  entries[0].run_id = entries[1].run_id = run;
  entries[0].task = "axpy";
  entries[1].task = "silu";
  entries[0].knobs = {"CHUNK"};
  entries[1].positive = false;
  entries[1].speedup = 0.123456789012345;
  store->commit_iteration(Checkpoint{run, 1, Json{{"beam", {1, 2}}}, ""}, entries);
  store->commit_iteration(Checkpoint{run, 1, Json{{"beam", {3}}}, ""}, entries = {});
  EXPECT_EQ(store->last_checkpoint(run)->state["beam"][0], 3);
  auto memory = store->memory_entries();
  ASSERT_EQ(memory.size(), 2u);
  EXPECT_EQ(memory[0].knobs, std::vector<std::string>{"CHUNK"});
  EXPECT_FALSE(memory[1].positive);
  EXPECT_DOUBLE_EQ(memory[1].speedup, 0.123456789012345);
  EXPECT_EQ(store->clear_memory("silu"), 1);
  EXPECT_EQ(store->max_memory_id(), memory[0].id);

  store->put_answer(run, "i1/b0/plans", Json{{"plans", 3}});
  store->put_answer(run, "i1/b0/plans", Json{{"plans", 4}});
  EXPECT_EQ((*store->answer(run, "i1/b0/plans"))["plans"], 4);
  StoreLedger ledger(*store);
  llm::CallRecord call;
  call.run_id = std::to_string(run);
  call.role = "planner";
  call.cost_usd = 0.25;
  ledger.record(call);
  EXPECT_DOUBLE_EQ(ledger.records(std::to_string(run)).at(0).cost_usd, 0.25);
}

TEST_F(StorePostgres, RefusesADatabaseThatIsNotOurs) {
  cluster()->psql("refusesadatabasethatisnotours", "CREATE TABLE songs (title TEXT)");
  try {
    Store::open(url_);
    FAIL() << "opened a foreign database";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("not an accelopt database"), std::string::npos);
  }
}

TEST_F(StorePostgres, RefusesANewerSchema) {
  Store::open(url_);
  cluster()->psql("refusesanewerschema", "UPDATE schema_version SET version = 99");
  try {
    Store::open(url_);
    FAIL() << "opened a newer database";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("newer accelopt"), std::string::npos);
  }
}

TEST_F(StorePostgres, AnUnreachableServerIsAUserError) {
  EXPECT_THROW(Store::open("postgresql:///nothing?host=/nonexistent&user=nobody"), UserError);
}

// Workers starting together on a new database: each opens it, one migrates, none fails.
TEST_F(StorePostgres, ProcessesOpeningANewDatabaseTogetherMigrateItOnce) {
  std::vector<pid_t> children;
  for (int index = 0; index < 6; ++index) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int code = 0;
      try {
        code = Store::open(url_)->schema_version() == Store::latest_schema_version() ? 0 : 2;
      } catch (const std::exception&) {
        code = 1;
      }
      _exit(code);  // no static destructors: the cluster belongs to the parent
    }
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  EXPECT_EQ(cluster()->psql("processesopeninganewdatabasetogethermigrateitonce",
                            "SELECT count(*) FROM schema_version"),
            "1");
}

// Two users' runs share one memory, and each entry says whose run made it.
TEST_F(StorePostgres, TheMemoryIsSharedWithProvenance) {
  auto alice = Store::open(url_);
  auto bob = Store::open(url_);
  MemoryEntryRecord entry;
  entry.run_id = alice->create_run(Json::object());
  entry.task = "axpy";
  entry.origin = "alice@host-a";
  alice->add_memory_entry(entry);
  auto seen = bob->memory_entries();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].origin, "alice@host-a");
  EXPECT_EQ(seen[0].run_id, entry.run_id);
  MemoryEntryRecord own;
  own.task = "silu";
  bob->add_memory_entry(own);
  EXPECT_NE(alice->memory_entry(own.id)->origin.find('@'), std::string::npos);
}

// A forked writer commits evaluations as fast as it can and is SIGKILLed: every evaluation it
// finished is there whole, and the database takes writes afterwards.
TEST_F(StorePostgres, SurvivesAKilledWriter) {
  int64_t run = Store::open(url_)->create_run(Json::object());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto store = Store::open(url_);
    for (int index = 0;; ++index) {
      store->record_evaluation(candidate(run, "k" + std::to_string(index)), passed_verdict(1.1));
    }
  }
  auto store = Store::open(url_);
  for (int wait = 0; wait < 500 && store->candidates(run).size() < 20; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  auto candidates = store->candidates(run);
  EXPECT_GE(candidates.size(), 20u);
  for (size_t index = 0; index < candidates.size(); ++index) {
    EXPECT_EQ(candidates[index].key, "k" + std::to_string(index));
    EXPECT_TRUE(store->trace(candidates[index].id).has_value());
  }
  store->record_evaluation(candidate(run, "after"), passed_verdict(1.2));
}

}  // namespace
}  // namespace accelopt::store
