// The schema, and why it is what it is.
//
// One database per workspace: a SQLite file by default (sqlite_backend.cpp says how it stays whole
// when a run is killed), or a PostgreSQL database that many machines share (postgres_backend.cpp).
// Both carry the same tables and the same migrations, and every unit of work is one transaction in
// either.
//
// The database carries its schema version in the table schema_version (one row). Opening applies
// the pending migrations of kMigrations in order, each in its own transaction with the version
// bump; a database with a newer version than this build knows, or one that is not ours, is refused
// with a message saying so. Migrations are only ever appended: a released migration is never
// edited.
//
// Statuses are stored by name (kernel::status_name), candidate kinds by their fixed numbers, and
// the records that other tools read (verdicts, plans, insights, checkpoints) as JSON text beside
// the columns queries need. Runs and memory entries carry their origin (user@host): with a shared
// PostgreSQL database the memory is every user's, and an insight says whose run made it.
//
// Every TEXT column holds UTF-8 (PostgreSQL accepts nothing else): a kernel's source that is not
// UTF-8 is kept escaped by common/utf8.h's lossless scheme and read back as the bytes it was; the
// JSON records are escaped the same way by Json itself, which also writes NaN and ±inf as the
// strings "NaN", "Infinity" and "-Infinity" and reads null (older rows' NaN) as NaN
// (common/json.h).
#include "store/store.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <mutex>

#include "common/error.h"
#include "common/hash.h"
#include "common/timestamp.h"
#include "common/utf8.h"
#include "store/backend.h"
#include "task/task.h"

namespace accelopt::store {
namespace {

const char* const kMigrations[] = {
    // 1: the first schema.
    R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  config TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL);
CREATE TABLE tasks (
  name TEXT PRIMARY KEY,
  directory TEXT NOT NULL,
  op_type TEXT NOT NULL,
  tags TEXT NOT NULL,
  definition TEXT NOT NULL,
  updated_at TEXT NOT NULL);
CREATE TABLE candidates (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  key TEXT NOT NULL,
  task TEXT NOT NULL,
  workload TEXT NOT NULL,
  source TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  normalized_hash TEXT NOT NULL,
  parent_id INTEGER REFERENCES candidates(id),
  plan TEXT NOT NULL,
  iteration INTEGER NOT NULL,
  author TEXT NOT NULL,
  kind INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (run_id, key));
CREATE INDEX candidates_by_hash ON candidates(run_id, normalized_hash);
CREATE TABLE traces (
  candidate_id INTEGER PRIMARY KEY REFERENCES candidates(id),
  status TEXT NOT NULL,
  speedup REAL,
  percent_of_peak REAL,
  latency_seconds REAL,
  reused_from INTEGER,
  verdict TEXT NOT NULL,
  created_at TEXT NOT NULL);
CREATE TABLE model_calls (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL,
  role TEXT NOT NULL,
  model TEXT NOT NULL,
  status TEXT NOT NULL,
  cost_usd REAL NOT NULL,
  record TEXT NOT NULL);
CREATE INDEX model_calls_by_run ON model_calls(run_id);
CREATE TABLE agent_answers (
  run_id INTEGER NOT NULL,
  key TEXT NOT NULL,
  answer TEXT NOT NULL,
  PRIMARY KEY (run_id, key));
CREATE TABLE memory_entries (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  task TEXT NOT NULL,
  op_type TEXT NOT NULL,
  tags TEXT NOT NULL,
  knobs TEXT NOT NULL,
  slow_candidate INTEGER NOT NULL,
  fast_candidate INTEGER NOT NULL,
  positive INTEGER NOT NULL,
  speedup REAL NOT NULL,
  speedup_low REAL NOT NULL,
  speedup_high REAL NOT NULL,
  iteration INTEGER NOT NULL,
  insight TEXT NOT NULL,
  created_at TEXT NOT NULL);
CREATE TABLE checkpoints (
  run_id INTEGER NOT NULL,
  iteration INTEGER NOT NULL,
  state TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, iteration));
)sql",
    // 2: provenance: who (user@host) made each run and each memory entry, for a database that many
    // users and machines share.
    R"sql(
ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT '';
ALTER TABLE memory_entries ADD COLUMN origin TEXT NOT NULL DEFAULT '';
)sql",
    // 3: a lesson stored once: the rewrite's identity (its normalized sources' hash), and each
    // later finding of the same lesson as evidence on the first entry instead of a copy.
    R"sql(
ALTER TABLE memory_entries ADD COLUMN rewrite_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE memory_entries ADD COLUMN evidence TEXT NOT NULL DEFAULT '[]';
CREATE INDEX memory_entries_by_task ON memory_entries(task);
)sql",
    // 4: studies (accelopt study): the study file as it was given, and its cells, each an ordinary
    // run, by the cell's key ("beam/silu/seed1/cold"), so a resumed study finds its runs again.
    R"sql(
CREATE TABLE studies (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  content TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  state TEXT NOT NULL,
  detail TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL);
CREATE TABLE study_cells (
  study_id INTEGER NOT NULL REFERENCES studies(id),
  key TEXT NOT NULL,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  PRIMARY KEY (study_id, key));
)sql",
    // 5: the kept baselines: one quiet latency of a task's baseline per (task, workload, platform,
    // machine), from which every later run's latencies and % of peak derive
    // (search/kept_baseline.h).
    R"sql(
CREATE TABLE kept_baselines (
  task TEXT NOT NULL,
  workload TEXT NOT NULL,
  platform TEXT NOT NULL,
  machine TEXT NOT NULL,
  baseline_hash TEXT NOT NULL,
  probe TEXT NOT NULL,
  latency REAL NOT NULL,
  latency_low REAL NOT NULL,
  latency_high REAL NOT NULL,
  percent_of_peak REAL NOT NULL,
  run_id INTEGER NOT NULL,
  candidate_id INTEGER NOT NULL,
  measured_at TEXT NOT NULL,
  PRIMARY KEY (task, workload, platform, machine));
)sql",
};

constexpr int kLatestVersion = static_cast<int>(std::size(kMigrations));

constexpr std::string_view kCandidateColumns =
    "id, run_id, key, task, workload, source, source_hash, normalized_hash, parent_id, plan, "
    "iteration, author, kind";
constexpr std::string_view kEntryColumns =
    "id, run_id, task, op_type, tags, knobs, slow_candidate, fast_candidate, positive, speedup, "
    "speedup_low, speedup_high, iteration, insight, created_at, origin, rewrite_hash, evidence";

std::vector<std::string> string_list(const std::string& json_text) {
  return Json::parse(json_text).get<std::vector<std::string>>();
}

Value optional_value(std::optional<int64_t> value) {
  if (value) return *value;
  return std::monostate{};
}

std::string this_host() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "unknown-host";
  return host;
}

// user@host of this process, for provenance.
std::string this_origin() {
  const char* user = std::getenv("USER");
  if (user == nullptr) user = std::getenv("LOGNAME");
  return fmt::format("{}@{}", user != nullptr ? user : std::to_string(::getuid()), this_host());
}

RunRecord read_run(const Row& row) {
  RunRecord record;
  record.id = row.integer(0);
  record.config = Json::parse(row.text(1));
  record.state = row.text(2);
  record.created_at = row.text(3);
  record.updated_at = row.text(4);
  record.origin = row.text(5);
  return record;
}
constexpr std::string_view kRunColumns = "id, config, state, created_at, updated_at, origin";

CandidateRecord read_candidate(const Row& row) {
  CandidateRecord record;
  record.id = row.integer(0);
  record.run_id = row.integer(1);
  record.key = row.text(2);
  record.task = row.text(3);
  record.workload = row.text(4);
  record.source = unescape_utf8(row.text(5));
  record.source_hash = row.text(6);
  record.normalized_hash = row.text(7);
  record.parent = row.optional_integer(8);
  record.plan = Json::parse(row.text(9));
  record.iteration = static_cast<int>(row.integer(10));
  record.author = row.text(11);
  record.kind = static_cast<CandidateKind>(row.integer(12));
  return record;
}

TraceRecord read_trace(const Row& row) {
  TraceRecord record;
  record.candidate_id = row.integer(0);
  record.reused_from = row.optional_integer(1);
  record.verdict = kernel::Verdict::from_json(Json::parse(row.text(2)));
  record.created_at = row.text(3);
  return record;
}

// An insight's words, for telling one lesson from another: title and description, lower case,
// spacing collapsed; empty when it has neither.
std::string lesson_text(const Json& insight) {
  std::string words =
      insight.value("title", std::string()) + "\n" + insight.value("description", std::string());
  std::string text;
  bool space = false;
  for (char c : words) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !text.empty();
      continue;
    }
    if (space) text += ' ';
    space = false;
    text += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return text;
}

MemoryEntryRecord read_entry(const Row& row) {
  MemoryEntryRecord entry;
  entry.id = row.integer(0);
  entry.run_id = row.integer(1);
  entry.task = row.text(2);
  entry.op_type = row.text(3);
  entry.tags = string_list(row.text(4));
  entry.knobs = string_list(row.text(5));
  entry.slow_candidate = row.integer(6);
  entry.fast_candidate = row.integer(7);
  entry.positive = row.integer(8) != 0;
  entry.speedup = row.real(9);
  entry.speedup_low = row.real(10);
  entry.speedup_high = row.real(11);
  entry.iteration = static_cast<int>(row.integer(12));
  entry.insight = Json::parse(row.text(13));
  entry.created_at = row.text(14);
  entry.origin = row.text(15);
  entry.rewrite_hash = row.text(16);
  entry.evidence = Json::parse(row.text(17));
  return entry;
}

Checkpoint read_checkpoint(const Row& row) {
  Checkpoint checkpoint;
  checkpoint.run_id = row.integer(0);
  checkpoint.iteration = static_cast<int>(row.integer(1));
  checkpoint.state = Json::parse(row.text(2));
  checkpoint.created_at = row.text(3);
  return checkpoint;
}

}  // namespace

struct Store::Impl {
  std::unique_ptr<Backend> db;
  mutable std::mutex mutex;
  int version = 0;
  std::string origin = this_origin();

  // Runs `body` in one transaction; rolls back if it throws. A transaction cut by a lost
  // connection (a server restart) runs again whole on the next one; the backend gives up with
  // ConnectionLost once its reconnection window has passed. Caller must hold mutex.
  template <typename Body>
  auto transaction(Body&& body) {
    for (int attempt = 1;; ++attempt) {
      try {
        return transaction_once(body);
      } catch (const ConnectionLost&) {
        if (attempt == 3) throw;
      }
    }
  }
  template <typename Body>
  auto transaction_once(Body& body) {
    db->begin();
    try {
      if constexpr (std::is_void_v<decltype(body())>) {
        body();
        db->commit();
      } else {
        auto result = body();
        db->commit();
        return result;
      }
    } catch (...) {
      db->rollback();
      throw;
    }
  }

  int64_t single_integer(std::string_view sql, const std::vector<Value>& parameters = {}) {
    std::vector<Row> rows = db->query(sql, parameters);
    return rows.empty() ? 0 : rows[0].integer(0);
  }

  template <typename Record, typename Read>
  std::vector<Record> all(std::string_view sql, const std::vector<Value>& parameters, Read read) {
    std::vector<Record> result;
    for (const Row& row : db->query(sql, parameters)) result.push_back(read(row));
    return result;
  }

  template <typename Record, typename Read>
  std::optional<Record> first(std::string_view sql, const std::vector<Value>& parameters,
                              Read read) {
    std::vector<Row> rows = db->query(sql, parameters);
    if (rows.empty()) return std::nullopt;
    return read(rows[0]);
  }

  // The hash of the rewrite slow → fast by their normalized sources; empty when either is unknown.
  std::string rewrite_hash(int64_t slow, int64_t fast) {
    std::vector<Row> rows =
        db->query("SELECT id, normalized_hash FROM candidates WHERE id IN (?, ?)", {slow, fast});
    std::string slow_hash, fast_hash;
    for (const Row& row : rows) {
      (row.integer(0) == slow ? slow_hash : fast_hash) = row.text(1);
    }
    if (slow_hash.empty() || fast_hash.empty()) return {};
    return sha256_hex(slow_hash + " -> " + fast_hash);
  }

  // Inside a transaction: stores `entry`, or adds it as evidence to the same lesson stored before.
  int64_t insert_entry(MemoryEntryRecord& entry) {
    if (entry.created_at.empty()) entry.created_at = utc_timestamp();
    if (entry.origin.empty()) entry.origin = origin;
    if (entry.rewrite_hash.empty()) {
      entry.rewrite_hash = rewrite_hash(entry.slow_candidate, entry.fast_candidate);
    }
    db->lock_memory();
    std::string lesson = lesson_text(entry.insight);
    for (const Row& row : db->query(
             fmt::format("SELECT {} FROM memory_entries WHERE task=? ORDER BY id", kEntryColumns),
             {entry.task})) {
      MemoryEntryRecord held = read_entry(row);
      // The same rewrite is one lesson whichever way a run measured it (two runs may find it on
      // either side of the thresholds): a finding the other way is kept as evidence against it.
      bool same_rewrite = !entry.rewrite_hash.empty() && held.rewrite_hash == entry.rewrite_hash;
      bool same_words =
          held.positive == entry.positive && !lesson.empty() && lesson_text(held.insight) == lesson;
      if (!same_rewrite && !same_words) continue;
      held.evidence.push_back(Json{{"run", entry.run_id},
                                   {"positive", entry.positive},
                                   {"iteration", entry.iteration},
                                   {"slow", entry.slow_candidate},
                                   {"fast", entry.fast_candidate},
                                   {"speedup", entry.speedup},
                                   {"speedup_low", entry.speedup_low},
                                   {"speedup_high", entry.speedup_high},
                                   {"origin", entry.origin},
                                   {"created_at", entry.created_at}});
      db->execute("UPDATE memory_entries SET evidence=? WHERE id=?",
                  {held.evidence.dump(), held.id});
      entry = std::move(held);
      return entry.id;
    }
    entry.id = single_integer(
        "INSERT INTO memory_entries (run_id, task, op_type, tags, knobs, slow_candidate, "
        "fast_candidate, positive, speedup, speedup_low, speedup_high, iteration, insight, "
        "created_at, origin, rewrite_hash, evidence) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
        "RETURNING id",
        {entry.run_id, entry.task, entry.op_type, Json(entry.tags).dump(), Json(entry.knobs).dump(),
         entry.slow_candidate, entry.fast_candidate, int64_t{entry.positive ? 1 : 0}, entry.speedup,
         entry.speedup_low, entry.speedup_high, int64_t{entry.iteration}, entry.insight.dump(),
         entry.created_at, entry.origin, entry.rewrite_hash, entry.evidence.dump()});
    return entry.id;
  }

  void migrate(const std::string& where) {
    version = static_cast<int>(single_integer("SELECT version FROM schema_version"));
    if (version > kLatestVersion) {
      throw UserError(fmt::format(
          "{}: written by a newer accelopt (schema version {}; this build knows up to {}); "
          "upgrade accelopt or use another --workspace",
          where, version, kLatestVersion));
    }
    while (version < kLatestVersion) {
      transaction([&] {
        db->lock_schema();
        // Another process may have migrated while this one waited for the lock.
        version = static_cast<int>(single_integer("SELECT version FROM schema_version"));
        if (version >= kLatestVersion) return;
        db->run_migration(kMigrations[version]);
        db->execute("UPDATE schema_version SET version=?", {int64_t{version + 1}});
        ++version;
      });
    }
  }
};

std::string_view kind_name(CandidateKind kind) {
  switch (kind) {
    case CandidateKind::kBaseline:
      return "baseline";
    case CandidateKind::kExecutor:
      return "executor";
    case CandidateKind::kFixer:
      return "fixer";
    case CandidateKind::kTuner:
      return "tuner";
  }
  return "unknown";
}

std::filesystem::path database_path(const std::filesystem::path& workspace) {
  if (is_postgres_url(workspace.string())) return workspace;
  return workspace / "accelopt.db";
}

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;

int Store::latest_schema_version() {
  return kLatestVersion;
}
int Store::schema_version() const {
  return impl_->version;
}

std::unique_ptr<Store> Store::open(const std::filesystem::path& path) {
  auto impl = std::make_unique<Impl>();
  impl->db = is_postgres_url(path.string()) ? open_postgres(path.string()) : open_sqlite(path);
  impl->migrate("opening " + impl->db->describe());
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

int64_t Store::create_run(const Json& config) {
  std::lock_guard lock(impl_->mutex);
  return impl_->transaction([&] {
    std::string now = utc_timestamp();
    return impl_->single_integer(
        "INSERT INTO runs (config, state, created_at, updated_at, origin) VALUES (?,?,?,?,?) "
        "RETURNING id",
        {config.dump(), "running", now, now, impl_->origin});
  });
}

void Store::set_run_state(int64_t run_id, const std::string& state) {
  std::lock_guard lock(impl_->mutex);
  impl_->db->execute("UPDATE runs SET state=?, updated_at=? WHERE id=?",
                     {state, utc_timestamp(), run_id});
}

void Store::set_trace_figures(int64_t candidate_id, const TraceFigures& figures) {
  std::lock_guard lock(impl_->mutex);
  impl_->db->execute(
      "UPDATE traces SET speedup=?, latency_seconds=?, percent_of_peak=? WHERE candidate_id=?",
      {figures.speedup, figures.latency_seconds, figures.percent_of_peak, candidate_id});
}

std::optional<RunRecord> Store::run(int64_t run_id) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->first<RunRecord>(fmt::format("SELECT {} FROM runs WHERE id=?", kRunColumns),
                                 {run_id}, read_run);
}

void Store::set_run_config(int64_t run_id, const Json& config) {
  std::lock_guard lock(impl_->mutex);
  impl_->db->execute("UPDATE runs SET config=?, updated_at=? WHERE id=?",
                     {config.dump(), utc_timestamp(), run_id});
}

std::vector<RunRecord> Store::runs() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->all<RunRecord>(fmt::format("SELECT {} FROM runs ORDER BY id", kRunColumns), {},
                               read_run);
}

void Store::upsert_task(const task::Task& task) {
  std::lock_guard lock(impl_->mutex);
  impl_->db->execute(
      "INSERT INTO tasks (name, directory, op_type, tags, definition, updated_at) "
      "VALUES (?,?,?,?,?,?) ON CONFLICT(name) DO UPDATE SET directory=excluded.directory, "
      "op_type=excluded.op_type, tags=excluded.tags, definition=excluded.definition, "
      "updated_at=excluded.updated_at",
      {task.name, task.directory.string(), task.op_type, Json(task.tags).dump(),
       task.definition.dump(), utc_timestamp()});
}

int64_t Store::record_evaluation(CandidateRecord candidate, const kernel::Verdict& verdict,
                                 std::optional<int64_t> reused_from,
                                 const std::optional<TraceFigures>& figures) {
  std::lock_guard lock(impl_->mutex);
  return impl_->transaction([&]() -> int64_t {
    std::vector<Row> existing = impl_->db->query(
        "SELECT id FROM candidates WHERE run_id=? AND key=?", {candidate.run_id, candidate.key});
    if (!existing.empty()) return existing[0].integer(0);
    std::string now = utc_timestamp();
    int64_t id = impl_->single_integer(
        "INSERT INTO candidates (run_id, key, task, workload, source, source_hash, "
        "normalized_hash, parent_id, plan, iteration, author, kind, created_at) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id",
        {candidate.run_id, candidate.key, candidate.task, candidate.workload,
         escape_to_utf8(candidate.source), candidate.source_hash, candidate.normalized_hash,
         optional_value(candidate.parent), candidate.plan.dump(), int64_t{candidate.iteration},
         candidate.author, static_cast<int64_t>(candidate.kind), now});
    Value speedup, latency, percent_of_peak;
    if (verdict.timing) {
      speedup = verdict.timing->speedup;
      latency = verdict.timing->latency_seconds;
    }
    if (verdict.roofline) percent_of_peak = verdict.roofline->percent_of_peak;
    if (figures && verdict.timing) {
      speedup = figures->speedup;
      latency = figures->latency_seconds;
      percent_of_peak = figures->percent_of_peak;
    }
    impl_->db->execute(
        "INSERT INTO traces (candidate_id, status, speedup, percent_of_peak, latency_seconds, "
        "reused_from, verdict, created_at) VALUES (?,?,?,?,?,?,?,?)",
        {id, std::string(kernel::status_name(verdict.status)), speedup, percent_of_peak, latency,
         optional_value(reused_from), verdict.to_json().dump(), now});
    return id;
  });
}

std::optional<CandidateRecord> Store::candidate(int64_t id) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->first<CandidateRecord>(
      fmt::format("SELECT {} FROM candidates WHERE id=?", kCandidateColumns), {id}, read_candidate);
}

std::optional<CandidateRecord> Store::candidate_by_key(int64_t run_id,
                                                       const std::string& key) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->first<CandidateRecord>(
      fmt::format("SELECT {} FROM candidates WHERE run_id=? AND key=?", kCandidateColumns),
      {run_id, key}, read_candidate);
}

std::vector<CandidateRecord> Store::candidates(int64_t run_id) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->all<CandidateRecord>(
      fmt::format("SELECT {} FROM candidates WHERE run_id=? ORDER BY id", kCandidateColumns),
      {run_id}, read_candidate);
}

std::optional<TraceRecord> Store::trace(int64_t candidate_id) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->first<TraceRecord>(
      "SELECT candidate_id, reused_from, verdict, created_at FROM traces WHERE candidate_id=?",
      {candidate_id}, read_trace);
}

std::vector<TraceRecord> Store::traces(int64_t run_id) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->all<TraceRecord>(
      "SELECT t.candidate_id, t.reused_from, t.verdict, t.created_at FROM traces t JOIN candidates "
      "c "
      "ON c.id = t.candidate_id WHERE c.run_id=? ORDER BY t.candidate_id",
      {run_id}, read_trace);
}

int64_t Store::evaluation_count(int64_t run_id) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->single_integer(
      "SELECT count(*) FROM traces t JOIN candidates c ON c.id = t.candidate_id "
      "WHERE c.run_id=? AND t.reused_from IS NULL AND c.kind != 0",
      {run_id});
}

std::optional<Json> Store::answer(int64_t run_id, const std::string& key) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->first<Json>("SELECT answer FROM agent_answers WHERE run_id=? AND key=?",
                            {run_id, key}, [](const Row& row) { return Json::parse(row.text(0)); });
}

void Store::put_answer(int64_t run_id, const std::string& key, const Json& answer) {
  std::lock_guard lock(impl_->mutex);
  impl_->db->execute(
      "INSERT INTO agent_answers (run_id, key, answer) VALUES (?,?,?) "
      "ON CONFLICT (run_id, key) DO UPDATE SET answer=excluded.answer",
      {run_id, key, answer.dump()});
}

void Store::commit_iteration(const Checkpoint& checkpoint,
                             std::vector<MemoryEntryRecord>& entries) {
  std::lock_guard lock(impl_->mutex);
  impl_->transaction([&] {
    for (MemoryEntryRecord& entry : entries) impl_->insert_entry(entry);
    std::string now = utc_timestamp();
    impl_->db->execute(
        "INSERT INTO checkpoints (run_id, iteration, state, created_at) VALUES (?,?,?,?) "
        "ON CONFLICT (run_id, iteration) DO UPDATE SET state=excluded.state, "
        "created_at=excluded.created_at",
        {checkpoint.run_id, int64_t{checkpoint.iteration}, checkpoint.state.dump(), now});
    impl_->db->execute("UPDATE runs SET updated_at=? WHERE id=?", {now, checkpoint.run_id});
  });
}

std::optional<Checkpoint> Store::last_checkpoint(int64_t run_id) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->first<Checkpoint>(
      "SELECT run_id, iteration, state, created_at FROM checkpoints WHERE run_id=? "
      "ORDER BY iteration DESC LIMIT 1",
      {run_id}, read_checkpoint);
}

std::vector<Checkpoint> Store::checkpoints(int64_t run_id) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->all<Checkpoint>(
      "SELECT run_id, iteration, state, created_at FROM checkpoints WHERE run_id=? "
      "ORDER BY iteration",
      {run_id}, read_checkpoint);
}

int64_t Store::add_memory_entry(MemoryEntryRecord& entry) {
  std::lock_guard lock(impl_->mutex);
  return impl_->transaction([&] { return impl_->insert_entry(entry); });
}

std::vector<MemoryEntryRecord> Store::memory_entries() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->all<MemoryEntryRecord>(
      fmt::format("SELECT {} FROM memory_entries ORDER BY id", kEntryColumns), {}, read_entry);
}

std::optional<MemoryEntryRecord> Store::memory_entry(int64_t id) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->first<MemoryEntryRecord>(
      fmt::format("SELECT {} FROM memory_entries WHERE id=?", kEntryColumns), {id}, read_entry);
}

int64_t Store::max_memory_id() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->single_integer("SELECT coalesce(max(id), 0) FROM memory_entries");
}

int64_t Store::clear_memory(const std::string& task) {
  std::lock_guard lock(impl_->mutex);
  return impl_->transaction([&] {
    if (task.empty()) return impl_->db->execute("DELETE FROM memory_entries");
    return impl_->db->execute("DELETE FROM memory_entries WHERE task=?", {task});
  });
}

void Store::record_call(const CallRecord& record) {
  std::lock_guard lock(impl_->mutex);
  impl_->db->execute(
      "INSERT INTO model_calls (run_id, role, model, status, cost_usd, record) "
      "VALUES (?,?,?,?,?,?)",
      {record.run_id, record.role, record.model, std::string(to_string(record.status)),
       record.cost_usd, record.to_json().dump()});
}

std::vector<CallRecord> Store::calls(const std::string& run_id) const {
  std::lock_guard lock(impl_->mutex);
  auto read = [](const Row& row) { return CallRecord::from_json(Json::parse(row.text(0))); };
  if (run_id.empty()) {
    return impl_->all<CallRecord>("SELECT record FROM model_calls ORDER BY id", {}, read);
  }
  return impl_->all<CallRecord>("SELECT record FROM model_calls WHERE run_id=? ORDER BY id",
                                {run_id}, read);
}

std::string Store::this_machine() {
  return this_host();
}

std::optional<KeptBaseline> Store::kept_baseline(const std::string& task,
                                                 const std::string& workload,
                                                 const std::string& platform) const {
  std::lock_guard lock(impl_->mutex);
  auto rows = impl_->db->query(
      "SELECT baseline_hash, probe, latency, latency_low, latency_high, percent_of_peak, run_id, "
      "candidate_id, measured_at, machine FROM kept_baselines WHERE task=? AND workload=? AND "
      "platform=? AND machine=?",
      {task, workload, platform, this_host()});
  if (rows.empty()) return std::nullopt;
  const Row& row = rows.front();
  KeptBaseline kept;
  kept.task = task;
  kept.workload = workload;
  kept.platform = platform;
  kept.baseline_hash = row.text(0);
  kept.probe = row.text(1);
  kept.latency_seconds = row.real(2);
  kept.latency_low = row.real(3);
  kept.latency_high = row.real(4);
  kept.percent_of_peak = row.real(5);
  kept.run_id = row.integer(6);
  kept.candidate_id = row.integer(7);
  kept.measured_at = row.text(8);
  kept.machine = row.text(9);
  return kept;
}

void Store::keep_baseline(KeptBaseline& kept) {
  std::lock_guard lock(impl_->mutex);
  kept.machine = this_host();
  if (kept.measured_at.empty()) kept.measured_at = utc_timestamp();
  impl_->db->execute(
      "INSERT INTO kept_baselines (task, workload, platform, machine, baseline_hash, probe, "
      "latency, latency_low, latency_high, percent_of_peak, run_id, candidate_id, measured_at) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (task, workload, platform, machine) DO "
      "UPDATE SET baseline_hash=excluded.baseline_hash, probe=excluded.probe, "
      "latency=excluded.latency, latency_low=excluded.latency_low, "
      "latency_high=excluded.latency_high, percent_of_peak=excluded.percent_of_peak, "
      "run_id=excluded.run_id, candidate_id=excluded.candidate_id, "
      "measured_at=excluded.measured_at",
      {kept.task, kept.workload, kept.platform, kept.machine, kept.baseline_hash, kept.probe,
       kept.latency_seconds, kept.latency_low, kept.latency_high, kept.percent_of_peak, kept.run_id,
       kept.candidate_id, kept.measured_at});
}

}  // namespace accelopt::store

namespace accelopt::store {
namespace {

constexpr std::string_view kStudyColumns =
    "id, name, path, content, content_hash, state, detail, created_at, updated_at";

StudyRecord read_study(const Row& row) {
  StudyRecord study;
  study.id = row.integer(0);
  study.name = row.text(1);
  study.path = row.text(2);
  study.content = row.text(3);
  study.content_hash = row.text(4);
  study.state = row.text(5);
  study.detail = Json::parse(row.text(6));
  study.created_at = row.text(7);
  study.updated_at = row.text(8);
  return study;
}

}  // namespace

int64_t Store::create_study(const StudyRecord& study) {
  std::lock_guard lock(impl_->mutex);
  return impl_->transaction([&] {
    std::string now = utc_timestamp();
    return impl_->single_integer(
        "INSERT INTO studies (name, path, content, content_hash, state, detail, created_at, "
        "updated_at) VALUES (?,?,?,?,?,?,?,?) RETURNING id",
        {study.name, study.path, study.content, study.content_hash, study.state,
         study.detail.dump(), now, now});
  });
}

void Store::set_study_state(int64_t study_id, const std::string& state, const Json& detail) {
  std::lock_guard lock(impl_->mutex);
  impl_->db->execute("UPDATE studies SET state=?, detail=?, updated_at=? WHERE id=?",
                     {state, detail.dump(), utc_timestamp(), study_id});
}

std::optional<StudyRecord> Store::study(int64_t study_id) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->first<StudyRecord>(fmt::format("SELECT {} FROM studies WHERE id=?", kStudyColumns),
                                   {study_id}, read_study);
}

std::vector<StudyRecord> Store::studies() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->all<StudyRecord>(fmt::format("SELECT {} FROM studies ORDER BY id", kStudyColumns),
                                 {}, read_study);
}

void Store::set_study_cell(int64_t study_id, const std::string& key, int64_t run_id) {
  std::lock_guard lock(impl_->mutex);
  impl_->db->execute(
      "INSERT INTO study_cells (study_id, key, run_id) VALUES (?,?,?) "
      "ON CONFLICT (study_id, key) DO UPDATE SET run_id=excluded.run_id",
      {study_id, key, run_id});
}

std::map<std::string, int64_t> Store::study_cells(int64_t study_id) const {
  std::lock_guard lock(impl_->mutex);
  std::map<std::string, int64_t> cells;
  for (const Row& row :
       impl_->db->query("SELECT key, run_id FROM study_cells WHERE study_id=?", {study_id})) {
    cells[row.text(0)] = row.integer(1);
  }
  return cells;
}

}  // namespace accelopt::store
