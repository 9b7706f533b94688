// The kernel database: every run, task, candidate, trace, model call, memory entry and checkpoint
// of a workspace, in one SQLite file (default ./.accelopt/accelopt.db) or, when the location is a
// "postgresql://…" URL, in a PostgreSQL database that many machines and users share. The schema and
// its migrations are described in store.cpp. ":memory:" opens a private in-memory database (tests).
//
// Every method is thread-safe: one connection, one mutex. Each method that records a finished unit
// of work (an evaluation, an iteration, a model call) is one transaction, so a run killed at any
// moment (kill -9 included) leaves the database as it was after its last finished unit.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/call_record.h"
#include "common/error.h"
#include "common/json.h"
#include "kernel/verdict.h"

namespace accelopt::task {
struct Task;
}

namespace accelopt::store {

// Stored by number; the numbers never change meaning.
enum class CandidateKind : uint8_t { kBaseline = 0, kExecutor = 1, kFixer = 2, kTuner = 3 };
std::string_view kind_name(CandidateKind kind);  // "baseline", "executor", "fixer", "tuner"

struct RunRecord {
  int64_t id = 0;
  Json config = Json::object();  // the effective search configuration, task directory included
  std::string state;             // "running", "finished", "stopped: <why>", "failed: <why>"
  std::string created_at, updated_at;
  std::string origin;  // user@host that created the run
};

// A study (accelopt study): the study file's text as it was first given, its hash, and a state
// ("running", "finished", "interrupted", "failed: why"); `detail` holds what the study keeps beside
// (the memory horizon its cells were pinned to). Its cells are runs, by cell key.
struct StudyRecord {
  int64_t id = 0;
  std::string name, path, content, content_hash, state;
  Json detail = Json::object();
  std::string created_at, updated_at;
};

struct CandidateRecord {
  int64_t id = 0;
  int64_t run_id = 0;
  std::string key;  // unique in its run, fixed by the search: "i3/b1/p4/k0/f1"
  std::string task, workload;
  std::string source, source_hash, normalized_hash;
  std::optional<int64_t> parent;
  Json plan = Json::object();  // the plan's text, author and detail
  int iteration = 0;
  std::string author;  // "tuner", "llm:<model>", "baseline"
  CandidateKind kind = CandidateKind::kExecutor;
};

struct TraceRecord {
  int64_t candidate_id = 0;
  kernel::Verdict verdict;
  std::optional<int64_t> reused_from;  // the candidate whose evaluation this copies (same source)
  std::string created_at;              // when the evaluation was recorded
};

// What a trace's row says of a kernel's speed, for a reader of the table: the run's one figure
// (search/figures.h: its speedup over the run's baseline, and the latency and % of peak derived
// from it and the baseline's careful timing), not the verdict's own moment, which the verdict's
// JSON keeps.
struct TraceFigures {
  double speedup = 0, latency_seconds = 0, percent_of_peak = 0;
};

struct MemoryEntryRecord {
  int64_t id = 0;
  int64_t run_id = 0;
  std::string task, op_type;
  std::vector<std::string> tags, knobs;
  int64_t slow_candidate = 0, fast_candidate = 0;
  bool positive = true;
  double speedup = 1, speedup_low = 1, speedup_high = 1;
  int iteration = 0;
  Json insight = Json::object();  // roles::Insight as JSON
  std::string created_at;
  std::string origin;  // user@host whose run made it; empty: this process's, on insert
  // The rewrite's identity: the hash of its slow and fast sources, normalized; set on insert from
  // the candidates (empty when they are not in this database).
  std::string rewrite_hash;
  // Each later finding of the same lesson, recorded here instead of a second entry (see
  // add_memory_entry): {run, iteration, slow, fast, speedup, speedup_low, speedup_high, origin,
  // created_at}. The lesson was found 1 + evidence.size() times.
  Json evidence = Json::array();
};

struct Checkpoint {
  int64_t run_id = 0;
  int iteration = 0;
  Json state = Json::object();  // the search's state after the iteration (beam, counters)
  std::string created_at;
};

// A baseline's latency measured on a quiet machine, kept for every later run of its (task,
// workload, platform, machine): their latencies and % of peak derive from it
// (search/kept_baseline.h). It holds while the baseline's source (`baseline_hash`) and the probe's
// ceilings (`probe`) stay as they were.
struct KeptBaseline {
  std::string task, workload, platform, machine;
  std::string baseline_hash, probe;
  double latency_seconds = 0, latency_low = 0, latency_high = 0;
  double percent_of_peak = 0;  // at that latency
  int64_t run_id = 0;          // the run that measured it
  int64_t candidate_id = 0;    // its baseline candidate
  std::string measured_at;     // UTC
};

// A database file that cannot be read as a whole database: cut short, or not a SQLite file at all.
// Its message names the file, what is wrong with it and the ways out (a copy, `sqlite3 .recover`,
// another workspace).
class DamagedDatabase : public UserError {
 public:
  DamagedDatabase(const std::filesystem::path& path, const std::string& damage);
  const std::filesystem::path& path() const { return path_; }
  // What is wrong: "it is truncated: 50 bytes, less than a SQLite header".
  const std::string& damage() const { return damage_; }

 private:
  std::filesystem::path path_;
  std::string damage_;
};

class Store {
 public:
  // Opens or creates the database at `path` (parents created) or at a "postgresql://…" URL,
  // applying pending migrations. Throws DamagedDatabase for a SQLite file SQLite cannot read, and
  // UserError for a database that is not accelopt's, was written by a newer accelopt, or cannot be
  // reached. A file cut short is told apart by check_sqlite_file (sqlite_file.h), before opening.
  static std::unique_ptr<Store> open(const std::filesystem::path& path);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  int schema_version() const;
  static int latest_schema_version();

  int64_t create_run(const Json& config);
  void set_run_state(int64_t run_id, const std::string& state);
  std::optional<RunRecord> run(int64_t run_id) const;
  std::vector<RunRecord> runs() const;
  // Replaces a run's settings JSON (a study pins its cells' memory horizon before they run).
  void set_run_config(int64_t run_id, const Json& config);

  int64_t create_study(const StudyRecord& study);  // state and detail as given; returns the id
  void set_study_state(int64_t study_id, const std::string& state, const Json& detail);
  std::optional<StudyRecord> study(int64_t study_id) const;
  std::vector<StudyRecord> studies() const;
  // The run of the study's cell `key` (recorded when the cell's run is created).
  void set_study_cell(int64_t study_id, const std::string& key, int64_t run_id);
  std::map<std::string, int64_t> study_cells(int64_t study_id) const;

  void upsert_task(const task::Task& task);

  // The candidate and its trace in one transaction; returns the candidate's id. A candidate whose
  // (run, key) is already stored is left as it is and its id returned. The row's speedup, latency
  // and % of peak are `figures` when given, else the verdict's own.
  int64_t record_evaluation(CandidateRecord candidate, const kernel::Verdict& verdict,
                            std::optional<int64_t> reused_from = std::nullopt,
                            const std::optional<TraceFigures>& figures = std::nullopt);
  // The row of `candidate_id`'s trace gets `figures` (a more precise measurement became the run's
  // figure for it); the verdict's JSON is left as it was measured.
  void set_trace_figures(int64_t candidate_id, const TraceFigures& figures);
  std::optional<CandidateRecord> candidate(int64_t id) const;
  std::optional<CandidateRecord> candidate_by_key(int64_t run_id, const std::string& key) const;
  std::vector<CandidateRecord> candidates(int64_t run_id) const;
  std::optional<TraceRecord> trace(int64_t candidate_id) const;
  std::vector<TraceRecord> traces(int64_t run_id) const;
  // Evaluations actually run (not reused) in `run_id`.
  int64_t evaluation_count(int64_t run_id) const;

  // Agent answers keyed within a run, so a resumed run reads them instead of asking again.
  std::optional<Json> answer(int64_t run_id, const std::string& key) const;
  void put_answer(int64_t run_id, const std::string& key, const Json& answer);

  // The iteration's memory entries and its checkpoint in one transaction; sets the entries' ids.
  void commit_iteration(const Checkpoint& checkpoint, std::vector<MemoryEntryRecord>& entries);
  std::optional<Checkpoint> last_checkpoint(int64_t run_id) const;
  std::vector<Checkpoint> checkpoints(int64_t run_id) const;

  // Adds `entry`, unless the memory holds the same lesson for its task already: the same rewrite
  // (rewrite_hash, whichever its sign) or the same insight (title and description, case and spacing
  // aside) with the same sign. Then the finding, its sign among it, is appended to that entry's
  // evidence and `entry` becomes it (its id and all). Concurrent writers (runs sharing a PostgreSQL
  // memory) are serialized, so a lesson is stored once. Returns entry.id; commit_iteration adds its
  // entries the same way.
  int64_t add_memory_entry(MemoryEntryRecord& entry);
  std::vector<MemoryEntryRecord> memory_entries() const;  // oldest first
  std::optional<MemoryEntryRecord> memory_entry(int64_t id) const;
  int64_t max_memory_id() const;
  // Deletes the entries of `task` (all when empty); returns how many.
  int64_t clear_memory(const std::string& task);

  void record_call(const CallRecord& record);
  std::vector<CallRecord> calls(const std::string& run_id) const;  // empty: all

  // The machine the kept baselines of this process are keyed by: its host name.
  static std::string this_machine();
  // This machine's kept baseline of (task, workload, platform), whatever its hash and probe.
  std::optional<KeptBaseline> kept_baseline(const std::string& task, const std::string& workload,
                                            const std::string& platform) const;
  // Keeps `kept` for this machine (its `machine` and an empty `measured_at` are filled in),
  // replacing the one kept before for its key.
  void keep_baseline(KeptBaseline& kept);

 private:
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The model-call ledger of llm, kept in the database.
class StoreLedger : public CallLedger {
 public:
  explicit StoreLedger(Store& store) : store_(store) {}
  void record(const CallRecord& record) override { store_.record_call(record); }
  std::vector<CallRecord> records(const std::string& run_id) const override {
    return store_.calls(run_id);
  }

 private:
  Store& store_;
};

// The default database of a workspace directory: <workspace>/accelopt.db; a "postgresql://…"
// workspace is its own database.
std::filesystem::path database_path(const std::filesystem::path& workspace);

// "postgresql://…" or "postgres://…": a shared database rather than a file.
bool is_postgres_url(std::string_view location);

// A database location as messages and logs may show it: a PostgreSQL URL without its password
// (`postgresql://user:secret@host/db?password=secret` → `postgresql://user@host/db?password=…`);
// a path unchanged. Every location that reaches a message or a log line passes through here.
std::string redact_url(std::string_view location);

// Any text about to leave the program (an error, a log line, libpq's own messages, which may quote
// the URL or a piece of it) with `location`'s password removed: the whole URL shown redacted, and
// the password itself, raw or percent-encoded, replaced by "…" wherever else it appears.
std::string redact(std::string_view text, std::string_view location);

// Where a "postgresql://…" URL carries a password: [begin, end) of each, in `user:secret@` and in
// `?password=secret` (as written, percent-encoded or not); none for anything else.
std::vector<std::pair<size_t, size_t>> password_spans(std::string_view url);
// The password `url` carries (its first, percent-decoded); empty when none.
std::string url_password(std::string_view url);
// `url` with every password taken out (`user:secret@` → `user@`, `password=` parameters gone): what
// may be written where others can read it, the password given apart (a file, PGPASSWORD).
std::string without_password(std::string_view url);

// The URL libpq is given: `connect_timeout=10` added unless the URL or PGCONNECT_TIMEOUT sets one,
// so that a host that accepts but never answers fails in seconds instead of hanging.
std::string with_connect_timeout(std::string_view url);

// How long a lost PostgreSQL connection is retried (with backoff) before the operation gives up:
// ACCELOPT_DB_RETRY_SECONDS, else 60 s. Read where a connection is opened.
std::chrono::milliseconds reconnect_window();

}  // namespace accelopt::store
