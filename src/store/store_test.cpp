// What the kernel database promises, on each engine it runs on (SQLite, and PostgreSQL where a
// throwaway server can start): a versioned schema that refuses foreign and newer databases, records
// that read back as written, units of work that survive a SIGKILL of the writer whole or not at
// all, and one memory shared by every connection, with its origin; and a SQLite file cut short or
// not SQLite's refused as damaged, with the ways out.
#include "store/store.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <thread>

#include "common/error.h"
#include "common/files.h"
#include "store/postgres_test_fixture.h"
#include "store/sqlite_file.h"

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
  record.source = "int x; // it's a '?' in a kernel";
  record.source_hash = "h" + key;
  record.normalized_hash = "n" + key;
  record.author = "tuner";
  record.kind = CandidateKind::kTuner;
  return record;
}

// The first column of the first row of `sql`, run on the SQLite file behind the Store's back.
std::string sqlite_sql(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) throw InternalError("opening " + path.string());
  std::string first;
  auto keep_first = [](void* out, int columns, char** values, char**) {
    auto* text = static_cast<std::string*>(out);
    if (text->empty() && columns > 0 && values[0] != nullptr) *text = values[0];
    return 0;
  };
  int code = sqlite3_exec(db, sql.c_str(), keep_first, &first, nullptr);
  sqlite3_close(db);
  if (code != SQLITE_OK) throw InternalError("running " + sql + " on " + path.string());
  return first;
}

enum class Engine { kSqlite, kPostgres };

// A fresh database of the engine under test: a file in a temporary folder, or a database on the
// executable's one throwaway PostgreSQL server (skipped, saying why, when it cannot start).
class StoreTest : public testing::TestWithParam<Engine> {
 protected:
  void SetUp() override {
    if (GetParam() == Engine::kSqlite) {
      location_ = (dir_.path() / "ws" / "accelopt.db").string();
      return;
    }
    std::string why;
    if (!postgres_.create(why)) GTEST_SKIP() << why;
    location_ = postgres_.url();
  }

  // One statement run behind the Store's back; the first column of its first row.
  std::string raw_sql(const std::string& sql) {
    if (GetParam() == Engine::kPostgres) return postgres_.psql(sql);
    std::filesystem::create_directories(std::filesystem::path(location_).parent_path());
    return sqlite_sql(location_, sql);
  }

  std::unique_ptr<Store> open() { return Store::open(location_); }

  TempDir dir_;
  PostgresDatabase postgres_;
  std::string location_;
};

INSTANTIATE_TEST_SUITE_P(Engines, StoreTest, testing::Values(Engine::kSqlite, Engine::kPostgres),
                         [](const testing::TestParamInfo<Engine>& info) {
                           return info.param == Engine::kSqlite ? "sqlite" : "postgres";
                         });

TEST_P(StoreTest, CreatesTheLatestSchemaAndReadsBackWhatItWrote) {
  int64_t run = 0;
  int64_t first = 0;
  {
    auto store = open();
    EXPECT_EQ(store->schema_version(), Store::latest_schema_version());
    run = store->create_run(Json{{"preset", "quick"}});
    first = store->record_evaluation(candidate(run, "i1/b0/p0/k0"), passed_verdict(1.5));
    CandidateRecord child = candidate(run, "i1/b0/p0/k1");
    child.parent = first;
    store->record_evaluation(child, passed_verdict(1.5), first);
  }
  auto store = open();
  EXPECT_EQ(store->schema_version(), Store::latest_schema_version());
  ASSERT_TRUE(store->run(run).has_value());
  EXPECT_EQ(store->run(run)->config["preset"], "quick");
  EXPECT_EQ(store->run(run)->state, "running");
  EXPECT_NE(store->run(run)->origin.find('@'), std::string::npos);
  auto candidates = store->candidates(run);
  ASSERT_EQ(candidates.size(), 2u);
  EXPECT_EQ(candidates[0].source, "int x; // it's a '?' in a kernel");
  EXPECT_EQ(candidates[0].kind, CandidateKind::kTuner);
  EXPECT_EQ(candidates[1].parent, first);
  EXPECT_FALSE(candidates[0].parent.has_value());
  EXPECT_DOUBLE_EQ(store->trace(first)->verdict.timing->speedup, 1.5);
  EXPECT_EQ(store->traces(run)[1].reused_from, first);
}

TEST_P(StoreTest, RefusesAForeignDatabase) {
  raw_sql("CREATE TABLE songs (title TEXT)");
  try {
    open();
    FAIL() << "opened a foreign database";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("not an accelopt database"), std::string::npos);
  }
}

TEST_P(StoreTest, RefusesANewerSchema) {
  open();
  raw_sql("UPDATE schema_version SET version = 99");
  try {
    open();
    FAIL() << "opened a newer database";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("newer accelopt"), std::string::npos);
  }
}

TEST_P(StoreTest, AnEvaluationIsRecordedOncePerKey) {
  auto store = open();
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

TEST_P(StoreTest, MemoryEntriesCheckpointsAnswersAndCalls) {
  auto store = open();
  int64_t run = store->create_run(Json::object());
  std::vector<MemoryEntryRecord> entries(2);
  entries[0].run_id = entries[1].run_id = run;
  entries[0].task = "axpy";
  entries[1].task = "silu";
  entries[0].knobs = {"CHUNK"};
  entries[1].positive = false;
  entries[1].speedup = 0.123456789012345;
  store->commit_iteration(Checkpoint{run, 1, Json{{"beam", {1, 2}}}, ""}, entries);
  EXPECT_GT(entries[1].id, entries[0].id);
  EXPECT_EQ(store->last_checkpoint(run)->state["beam"][1], 2);
  store->commit_iteration(Checkpoint{run, 1, Json{{"beam", {3}}}, ""}, entries = {});
  EXPECT_EQ(store->last_checkpoint(run)->state["beam"][0], 3);
  auto memory = store->memory_entries();
  ASSERT_EQ(memory.size(), 2u);
  EXPECT_EQ(store->memory_entry(memory[0].id)->knobs, std::vector<std::string>{"CHUNK"});
  EXPECT_FALSE(memory[1].positive);
  EXPECT_DOUBLE_EQ(memory[1].speedup, 0.123456789012345);
  EXPECT_EQ(store->clear_memory("silu"), 1);
  EXPECT_EQ(store->max_memory_id(), memory[0].id);

  store->put_answer(run, "i1/b0/plans", Json{{"plans", 3}});
  store->put_answer(run, "i1/b0/plans", Json{{"plans", 4}});
  EXPECT_EQ((*store->answer(run, "i1/b0/plans"))["plans"], 4);
  EXPECT_FALSE(store->answer(run, "nope").has_value());

  StoreLedger ledger(*store);
  CallRecord call;
  call.run_id = std::to_string(run);
  call.role = "planner";
  call.model = "m";
  call.cost_usd = 0.25;
  ledger.record(call);
  ASSERT_EQ(ledger.records(std::to_string(run)).size(), 1u);
  EXPECT_DOUBLE_EQ(ledger.records("")[0].cost_usd, 0.25);
}

// NaN and ±inf in a verdict (outputs that overflowed) read back as they were written, as does text
// that is not UTF-8 (a Latin-1 comment in a kernel, its compiler log, a model's answer).
TEST_P(StoreTest, NonFiniteFiguresAndNonUtf8TextReadBackAsWritten) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::string latin1 = "// caf\xe9 \xff\xfe end";
  auto store = open();
  int64_t run = store->create_run(Json{{"start_kernel", latin1}, {"target", inf}});
  kernel::Verdict verdict = passed_verdict(inf);
  verdict.status = kernel::Status::kIncorrectNumerical;
  verdict.correctness.rel_l2_error = nan;
  verdict.correctness.max_abs_error = inf;
  verdict.correctness.max_rel_error = -inf;
  verdict.timing->speedup_low = nan;
  verdict.timing->ratios = {1.0, nan, -inf};
  verdict.log = "k.cpp:1: " + latin1;
  CandidateRecord record = candidate(run, "i1/b0/p0/k0");
  record.source = latin1 + "\nint x;\n";
  int64_t id = store->record_evaluation(record, verdict);
  store->put_answer(run, "i1/b0/k0", Json{{"kernel", latin1}, {"score", nan}});
  std::vector<MemoryEntryRecord> none;
  store->commit_iteration(Checkpoint{run, 1, Json{{"best", nan}, {"worst", -inf}}, ""}, none);

  auto reopened = open();
  kernel::Verdict back = reopened->trace(id)->verdict;
  EXPECT_TRUE(std::isnan(back.correctness.rel_l2_error));
  EXPECT_EQ(back.correctness.max_abs_error, inf);
  EXPECT_EQ(back.correctness.max_rel_error, -inf);
  EXPECT_EQ(back.timing->speedup, inf);
  EXPECT_TRUE(std::isnan(back.timing->speedup_low));
  ASSERT_EQ(back.timing->ratios.size(), 3u);
  EXPECT_TRUE(std::isnan(back.timing->ratios[1]));
  EXPECT_EQ(back.timing->ratios[2], -inf);
  EXPECT_EQ(back.log, "k.cpp:1: " + latin1);
  EXPECT_EQ(reopened->candidate(id)->source, latin1 + "\nint x;\n");
  EXPECT_EQ(reopened->run(run)->config["start_kernel"].get<std::string>(), latin1);
  EXPECT_EQ(reopened->run(run)->config["target"].get<double>(), inf);
  Json answer = *reopened->answer(run, "i1/b0/k0");
  EXPECT_EQ(answer["kernel"].get<std::string>(), latin1);
  EXPECT_TRUE(std::isnan(answer["score"].get<double>()));
  Json state = reopened->last_checkpoint(run)->state;
  EXPECT_TRUE(std::isnan(state.value("best", 0.0)));
  EXPECT_EQ(state.value("worst", 0.0), -inf);
}

// Two users' runs share one memory, and each entry says whose run made it.
TEST_P(StoreTest, TheMemoryIsSharedWithProvenance) {
  auto alice = open();
  auto bob = open();
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

// A rewrite slow → fast recorded in `run` with the given normalized sources, as an entry for task
// axpy titled `title`.
MemoryEntryRecord lesson(Store& store, int64_t run, const std::string& slow_source,
                         const std::string& fast_source, const std::string& title, double speedup) {
  static int serial = 0;
  CandidateRecord slow = candidate(run, "i1/b0/p0/k" + std::to_string(++serial));
  slow.normalized_hash = slow_source;
  CandidateRecord fast = candidate(run, "i1/b0/p0/k" + std::to_string(++serial));
  fast.normalized_hash = fast_source;
  MemoryEntryRecord entry;
  entry.run_id = run;
  entry.task = "axpy";
  entry.slow_candidate = store.record_evaluation(slow, passed_verdict(1));
  entry.fast_candidate = store.record_evaluation(fast, passed_verdict(speedup));
  entry.speedup = speedup;
  entry.speedup_low = speedup * 0.98;
  entry.speedup_high = speedup * 1.02;
  entry.iteration = 1;
  entry.insight = Json{{"title", title}, {"description", "CHUNK 1024 -> 64 fits in L1"}};
  return entry;
}

// Issue 25: the same lesson found again (the same rewrite, or the same words) is stored once, with
// the later findings as its evidence.
TEST_P(StoreTest, ALessonFoundAgainIsStoredOnceWithItsEvidence) {
  auto store = open();
  int64_t first_run = store->create_run(Json::object());
  int64_t second_run = store->create_run(Json::object());
  std::vector<MemoryEntryRecord> entries = {
      lesson(*store, first_run, "nA", "nB", "CHUNK 1024 -> 64: 1.38x", 1.38)};
  store->commit_iteration(Checkpoint{first_run, 1, Json::object(), ""}, entries);
  int64_t kept = entries[0].id;
  EXPECT_FALSE(entries[0].rewrite_hash.empty());

  // The same rewrite in another run, summarized in other words: evidence, not a copy.
  entries = {lesson(*store, second_run, "nA", "nB", "Smaller chunks: 1.35x", 1.35)};
  store->commit_iteration(Checkpoint{second_run, 1, Json::object(), ""}, entries);
  EXPECT_EQ(entries[0].id, kept);
  // Another rewrite, the same words up to case and spacing: evidence too.
  MemoryEntryRecord same_words =
      lesson(*store, second_run, "nC", "nD", "  chunk 1024 ->   64: 1.38X", 1.2);
  int64_t same_words_fast = same_words.fast_candidate;
  store->add_memory_entry(same_words);
  EXPECT_EQ(same_words.id, kept);
  // A new lesson, and the same words as a negative one, are entries of their own.
  MemoryEntryRecord other = lesson(*store, second_run, "nC", "nE", "unrolled by 4", 1.1);
  store->add_memory_entry(other);
  MemoryEntryRecord negative =
      lesson(*store, second_run, "nF", "nG", "CHUNK 1024 -> 64: 1.38x", 0.8);
  negative.positive = false;
  store->add_memory_entry(negative);
  // The first rewrite measured the other way by a third run (it sat near 1x): evidence against it.
  MemoryEntryRecord other_way = lesson(*store, second_run, "nA", "nB", "No faster at all", 0.97);
  other_way.positive = false;
  store->add_memory_entry(other_way);
  EXPECT_EQ(other_way.id, kept);

  auto memory = store->memory_entries();
  ASSERT_EQ(memory.size(), 3u);
  EXPECT_EQ(memory[0].id, kept);
  EXPECT_EQ(memory[0].run_id, first_run);
  EXPECT_DOUBLE_EQ(memory[0].speedup, 1.38);
  ASSERT_EQ(memory[0].evidence.size(), 3u);
  EXPECT_EQ(memory[0].evidence[0]["run"], second_run);
  EXPECT_DOUBLE_EQ(memory[0].evidence[0]["speedup"].get<double>(), 1.35);
  EXPECT_EQ(memory[0].evidence[1]["fast"], same_words_fast);
  EXPECT_DOUBLE_EQ(memory[0].evidence[1]["speedup"].get<double>(), 1.2);
  EXPECT_EQ(memory[0].evidence[2]["positive"], false);
  EXPECT_DOUBLE_EQ(memory[0].evidence[2]["speedup"].get<double>(), 0.97);
  EXPECT_TRUE(memory[1].evidence.empty());
  EXPECT_FALSE(memory[2].positive);
}

// Runs sharing one memory that find the same lesson at the same moment store it once: each
// connection commits its iteration at once, and one entry holds every other finding as evidence.
TEST_P(StoreTest, ConcurrentRunsStoreALessonOnce) {
  constexpr int kRuns = 6;
  std::vector<std::unique_ptr<Store>> stores;
  std::vector<std::vector<MemoryEntryRecord>> entries(kRuns);
  std::vector<int64_t> runs;
  for (int index = 0; index < kRuns; ++index) {
    stores.push_back(open());
    runs.push_back(stores.back()->create_run(Json::object()));
    entries[index] = {lesson(*stores.back(), runs.back(), "nA", "nB",
                             fmt::format("words of run {}", index), 1.3 + 0.01 * index)};
  }
  std::atomic<int> ready = 0;
  std::vector<std::thread> writers;
  for (int index = 0; index < kRuns; ++index) {
    writers.emplace_back([&, index] {
      ++ready;
      while (ready.load() < kRuns) std::this_thread::yield();
      stores[index]->commit_iteration(Checkpoint{runs[index], 1, Json::object(), ""},
                                      entries[index]);
    });
  }
  for (auto& writer : writers) writer.join();
  auto memory = open()->memory_entries();
  ASSERT_EQ(memory.size(), 1u);
  EXPECT_EQ(memory[0].evidence.size(), static_cast<size_t>(kRuns - 1));
  std::set<int64_t> found = {memory[0].run_id};
  for (const Json& item : memory[0].evidence) found.insert(item["run"].get<int64_t>());
  EXPECT_EQ(found.size(), static_cast<size_t>(kRuns));
  for (int index = 0; index < kRuns; ++index) EXPECT_EQ(entries[index][0].id, memory[0].id);
}

// Workers starting together on a new database: each opens it, one migrates, none fails.
TEST_P(StoreTest, ProcessesOpeningANewDatabaseTogetherMigrateItOnce) {
  std::vector<pid_t> children;
  for (int index = 0; index < 6; ++index) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int code = 0;
      try {
        code = open()->schema_version() == Store::latest_schema_version() ? 0 : 2;
      } catch (const std::exception& error) {
        std::fprintf(stderr, "child %d: %s\n", index, error.what());
        code = 1;
      }
      _exit(code);  // no static destructors: the server belongs to the parent
    }
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  EXPECT_EQ(raw_sql("SELECT count(*) FROM schema_version"), "1");
}

// DuckDB's persistence test, for us: a forked writer commits evaluations as fast as it can and is
// SIGKILLed; every evaluation it finished is there whole (candidate with its trace), nothing torn,
// and the database takes writes afterwards.
TEST_P(StoreTest, SurvivesAKilledWriter) {
  int64_t run = open()->create_run(Json::object());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto store = open();
    for (int index = 0;; ++index) {
      store->record_evaluation(candidate(run, "k" + std::to_string(index)), passed_verdict(1.1));
    }
  }
  auto store = open();
  for (int wait = 0; wait < 500 && store->candidates(run).size() < 20; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  auto reopened = open();
  auto candidates = reopened->candidates(run);
  EXPECT_GE(candidates.size(), 20u);
  for (size_t index = 0; index < candidates.size(); ++index) {
    EXPECT_EQ(candidates[index].key, "k" + std::to_string(index));
    EXPECT_TRUE(reopened->trace(candidates[index].id).has_value());
  }
  reopened->record_evaluation(candidate(run, "after"), passed_verdict(1.2));
}

// A closed SQLite database of one run with many candidates: several pages, no write-ahead log.
std::filesystem::path written_database(const TempDir& dir) {
  auto path = dir.path() / "accelopt.db";
  auto store = Store::open(path);
  int64_t run = store->create_run(Json{{"task", "axpy"}});
  for (int index = 0; index < 40; ++index) {
    CandidateRecord record = candidate(run, "k" + std::to_string(index));
    record.source = std::string(1000, 'a' + index % 26);
    store->record_evaluation(record, passed_verdict(1.1));
  }
  return path;
}

// The damage a workspace's opening reports for the file at `path` (the file's check, then
// Store::open); empty when it opens.
std::string damage_on_open(const std::filesystem::path& path) {
  try {
    check_sqlite_file(path);
    Store::open(path);
  } catch (const DamagedDatabase& error) {
    EXPECT_EQ(error.path(), path);
    EXPECT_NE(std::string(error.what()).find("sqlite3 " + path.string() + " .recover"),
              std::string::npos)
        << error.what();
    return error.damage();
  }
  return "";
}

TEST(StoreSqlite, AHealthyDatabaseIsNotDamaged) {
  TempDir dir;
  auto path = written_database(dir);
  EXPECT_EQ(sqlite_file_damage(path), std::nullopt);
  EXPECT_EQ(damage_on_open(path), "");
  EXPECT_EQ(sqlite_file_damage(dir.path() / "missing.db"), std::nullopt);  // a database to come
}

TEST(StoreSqlite, ATruncatedFileIsDamaged) {
  TempDir dir;
  auto path = written_database(dir);
  auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 8192u);
  std::filesystem::resize_file(path, size / 2);
  EXPECT_EQ(damage_on_open(path).rfind("it is truncated: ", 0), 0u);
  EXPECT_NE(damage_on_open(path).find("where its header counts"), std::string::npos);
  std::filesystem::resize_file(path, 50);
  EXPECT_EQ(damage_on_open(path), "it is truncated: 50 bytes, less than a SQLite header");
}

TEST(StoreSqlite, RefusesANonSqliteFile) {
  TempDir dir;
  auto path = dir.path() / "notes.db";
  write_file_atomic(path, std::string(4096, 'x'));
  EXPECT_THROW(Store::open(path), UserError);  // DamagedDatabase is what a person is told
  EXPECT_EQ(damage_on_open(path).rfind("it is not a SQLite file", 0), 0u);
}

TEST(StorePostgres, AnUnreachableServerIsAUserError) {
  EXPECT_THROW(Store::open("postgresql:///nothing?host=/nonexistent&user=nobody"), UserError);
}

TEST(StoreLocation, MessagesShowAUrlWithoutItsPassword) {
  EXPECT_EQ(redact_url("postgresql://alice:s3cret@db.example/accelopt"),
            "postgresql://alice@db.example/accelopt");
  EXPECT_EQ(redact_url("postgres://alice:p@ss/word@db:5432/a?sslmode=require"),
            "postgres://alice@db:5432/a?sslmode=require");
  EXPECT_EQ(redact_url("postgresql:///a?host=/tmp&password=s3cret&user=bob"),
            "postgresql:///a?host=/tmp&password=…&user=bob");
  EXPECT_EQ(redact_url("postgresql://bob@db/a"), "postgresql://bob@db/a");
  EXPECT_EQ(redact_url("runs/accelopt.db"), "runs/accelopt.db");
}

// Text from anywhere (libpq's own messages quote pieces of the URL) loses the password too.
TEST(StoreLocation, AnyTextLosesTheUrlsPassword) {
  std::string url = "postgresql://alice:pa%zzs%40word@db.example/accelopt";
  EXPECT_EQ(redact("invalid percent-encoded token: \"pa%zzs%40word\"", url),
            "invalid percent-encoded token: \"…\"");
  EXPECT_EQ(redact("connecting to " + url + " failed", url),
            "connecting to postgresql://alice@db.example/accelopt failed");
  EXPECT_EQ(redact("password pa%zzs@word was refused", url), "password … was refused");  // decoded
  EXPECT_EQ(redact("saw s3cretpw", "postgresql:///a?password=s3cretpw"), "saw …");
  EXPECT_EQ(redact("a short pw", "postgresql://u:pw@h/a"), "a short pw");  // too short to hunt
  EXPECT_EQ(redact("plain text", "runs/accelopt.db"), "plain text");
}

// Issue 46: what `slurm` writes for its workers keeps the URL and takes the password out, to be
// given apart (a file); the password itself read back decoded.
TEST(StoreLocation, APasswordIsTakenOutOfTheUrlWhole) {
  EXPECT_EQ(without_password("postgresql://alice:s3cret@db.example/accelopt"),
            "postgresql://alice@db.example/accelopt");
  EXPECT_EQ(without_password("postgres://alice:p@ss/word@db:5432/a?sslmode=require"),
            "postgres://alice@db:5432/a?sslmode=require");
  EXPECT_EQ(without_password("postgresql:///a?password=s3cret&user=bob"),
            "postgresql:///a?user=bob");
  EXPECT_EQ(without_password("postgresql:///a?host=/tmp&password=s3cret&user=bob"),
            "postgresql:///a?host=/tmp&user=bob");
  EXPECT_EQ(without_password("postgresql:///a?host=/tmp&password=s3cret"),
            "postgresql:///a?host=/tmp");
  EXPECT_EQ(without_password("postgresql:///a?password=s3cret"), "postgresql:///a");
  EXPECT_EQ(without_password("postgresql://bob@db/a"), "postgresql://bob@db/a");
  EXPECT_EQ(url_password("postgresql://alice:p%40ss@db/a"), "p@ss");
  EXPECT_EQ(url_password("postgresql:///a?host=/tmp&password=s3cret"), "s3cret");
  EXPECT_EQ(url_password("postgresql://bob@db/a"), "");
  EXPECT_EQ(url_password("runs/accelopt.db"), "");
}

TEST(StoreLocation, ConnectionsGetAConnectTimeoutUnlessOneIsSet) {
  ::unsetenv("PGCONNECT_TIMEOUT");
  EXPECT_EQ(with_connect_timeout("postgresql://h/a"), "postgresql://h/a?connect_timeout=10");
  EXPECT_EQ(with_connect_timeout("postgresql:///a?host=/tmp"),
            "postgresql:///a?host=/tmp&connect_timeout=10");
  EXPECT_EQ(with_connect_timeout("postgresql://h/a?connect_timeout=3"),
            "postgresql://h/a?connect_timeout=3");
}

}  // namespace
}  // namespace accelopt::store
