// The schema, and why it is what it is.
//
// One SQLite file per workspace, in WAL mode with synchronous=FULL: a run writes while it goes on
// and may be killed at any moment, and WAL makes each committed transaction durable and each torn
// one invisible, so the file always holds exactly the units of work that finished. Readers
// (`accelopt show` during a run) never block the writer.
//
// The file is marked as ours by PRAGMA application_id ('ACOP') and carries its schema version in
// the table schema_version (one row). Opening applies the pending migrations of kMigrations in
// order, each in its own transaction with the version bump; a file with a newer version than this
// build knows, or a non-empty SQLite file that is not ours, is refused with a message saying so.
// Migrations are only ever appended: a released migration is never edited.
//
// Statuses are stored by name (kernel::status_name), candidate kinds by their fixed numbers, and
// the records that other tools read (verdicts, plans, insights, checkpoints) as JSON text beside
// the columns queries need.
#include "store/store.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <mutex>

#include "common/error.h"
#include "task/task.h"

namespace accelopt::store {
namespace {

constexpr int32_t kApplicationId = 0x41434F50;  // "ACOP"

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
};

constexpr int kLatestVersion = static_cast<int>(std::size(kMigrations));

// A prepared statement; binds by position from 1, reads columns from 0.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
        SQLITE_OK) {
      throw InternalError(fmt::format("preparing SQL: {}: {}", sqlite3_errmsg(db), sql));
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, int64_t value) {
    sqlite3_bind_int64(stmt_, index, value);
    return *this;
  }
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value) {
    sqlite3_bind_double(stmt_, index, value);
    return *this;
  }
  Statement& bind(int index, std::string_view value) {
    sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int index, const std::string& value) {
    return bind(index, std::string_view(value));
  }
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, std::optional<int64_t> value) {
    if (value) return bind(index, *value);
    sqlite3_bind_null(stmt_, index);
    return *this;
  }

  // True while a row is available.
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw InternalError(fmt::format("database: {}", sqlite3_errmsg(db_)));
  }
  void run() {
    while (step()) {
    }
  }

  int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }
  double real(int column) const { return sqlite3_column_double(stmt_, column); }
  bool is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  std::string text(int column) const {
    const unsigned char* data = sqlite3_column_text(stmt_, column);
    if (data == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(data),
                       static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
  }
  std::optional<int64_t> optional_integer(int column) const {
    if (is_null(column)) return std::nullopt;
    return integer(column);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

std::vector<std::string> string_list(const std::string& json_text) {
  return Json::parse(json_text).get<std::vector<std::string>>();
}

}  // namespace

struct Store::Impl {
  sqlite3* db = nullptr;
  std::filesystem::path path;
  mutable std::mutex mutex;
  int version = 0;

  ~Impl() {
    if (db != nullptr) sqlite3_close_v2(db);
  }

  void exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      std::string message = error != nullptr ? error : "unknown error";
      sqlite3_free(error);
      throw InternalError(fmt::format("database {}: {}", path.string(), message));
    }
  }

  // Runs `body` in one IMMEDIATE transaction; rolls back if it throws. Caller must hold mutex.
  template <typename Body>
  auto transaction(Body&& body) {
    exec("BEGIN IMMEDIATE");
    try {
      if constexpr (std::is_void_v<decltype(body())>) {
        body();
        exec("COMMIT");
      } else {
        auto result = body();
        exec("COMMIT");
        return result;
      }
    } catch (...) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  int64_t single_integer(const std::string& sql) {
    Statement statement(db, sql);
    return statement.step() ? statement.integer(0) : 0;
  }

  CandidateRecord read_candidate(const Statement& row) const {
    CandidateRecord record;
    record.id = row.integer(0);
    record.run_id = row.integer(1);
    record.key = row.text(2);
    record.task = row.text(3);
    record.workload = row.text(4);
    record.source = row.text(5);
    record.source_hash = row.text(6);
    record.normalized_hash = row.text(7);
    record.parent = row.optional_integer(8);
    record.plan = Json::parse(row.text(9));
    record.iteration = static_cast<int>(row.integer(10));
    record.author = row.text(11);
    record.kind = static_cast<CandidateKind>(row.integer(12));
    return record;
  }

  MemoryEntryRecord read_entry(const Statement& row) const {
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
    return entry;
  }

  int64_t insert_entry(MemoryEntryRecord& entry) {
    Statement insert(db,
                     "INSERT INTO memory_entries (run_id, task, op_type, tags, knobs, "
                     "slow_candidate, fast_candidate, positive, speedup, speedup_low, "
                     "speedup_high, iteration, insight, created_at) "
                     "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (entry.created_at.empty()) entry.created_at = llm::utc_timestamp();
    insert.bind(1, entry.run_id)
        .bind(2, entry.task)
        .bind(3, entry.op_type)
        .bind(4, Json(entry.tags).dump())
        .bind(5, Json(entry.knobs).dump())
        .bind(6, entry.slow_candidate)
        .bind(7, entry.fast_candidate)
        .bind(8, entry.positive ? 1 : 0)
        .bind(9, entry.speedup)
        .bind(10, entry.speedup_low)
        .bind(11, entry.speedup_high)
        .bind(12, entry.iteration)
        .bind(13, entry.insight.dump())
        .bind(14, entry.created_at);
    insert.run();
    entry.id = sqlite3_last_insert_rowid(db);
    return entry.id;
  }
};

namespace {

constexpr std::string_view kCandidateColumns =
    "id, run_id, key, task, workload, source, source_hash, normalized_hash, parent_id, plan, "
    "iteration, author, kind";
constexpr std::string_view kEntryColumns =
    "id, run_id, task, op_type, tags, knobs, slow_candidate, fast_candidate, positive, speedup, "
    "speedup_low, speedup_high, iteration, insight, created_at";

}  // namespace

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
  impl->path = path;
  bool in_memory = path == ":memory:";
  if (!in_memory && path.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(path.parent_path(), error);
    if (error) {
      throw UserError(fmt::format("creating the workspace {}: {}", path.parent_path().string(),
                                  error.message()));
    }
  }
  int rc =
      sqlite3_open_v2(path.c_str(), &impl->db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = impl->db != nullptr ? sqlite3_errmsg(impl->db) : "out of memory";
    throw UserError(fmt::format("opening the database {}: {}", path.string(), message));
  }
  sqlite3_busy_timeout(impl->db, 10000);
  const std::string where = "opening the database " + path.string();
  int32_t application_id = 0;
  int64_t table_count = 0;
  try {
    application_id = static_cast<int32_t>(impl->single_integer("PRAGMA application_id"));
    table_count = impl->single_integer("SELECT count(*) FROM sqlite_master");
  } catch (const InternalError&) {
    throw UserError(
        fmt::format("{}: not a SQLite database (is it another program's file?)", where));
  }
  if (table_count > 0 && application_id != kApplicationId) {
    throw UserError(fmt::format(
        "{}: this SQLite file is not an accelopt database (application_id {:#x}); choose another "
        "--workspace",
        where, application_id));
  }
  if (!in_memory) impl->exec("PRAGMA journal_mode=WAL");
  impl->exec("PRAGMA synchronous=FULL");
  impl->exec("PRAGMA foreign_keys=ON");
  if (table_count == 0) {
    impl->transaction([&] {
      impl->exec(fmt::format("PRAGMA application_id={}", kApplicationId));
      impl->exec("CREATE TABLE schema_version (version INTEGER NOT NULL)");
      impl->exec("INSERT INTO schema_version VALUES (0)");
    });
  }
  impl->version = static_cast<int>(impl->single_integer("SELECT version FROM schema_version"));
  if (impl->version > kLatestVersion) {
    throw UserError(fmt::format(
        "{}: written by a newer accelopt (schema version {}; this build knows up to {}); upgrade "
        "accelopt or use another --workspace",
        where, impl->version, kLatestVersion));
  }
  while (impl->version < kLatestVersion) {
    int next = impl->version + 1;
    impl->transaction([&] {
      impl->exec(kMigrations[next - 1]);
      impl->exec(fmt::format("UPDATE schema_version SET version={}", next));
    });
    impl->version = next;
  }
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

int64_t Store::create_run(const Json& config) {
  std::lock_guard lock(impl_->mutex);
  return impl_->transaction([&] {
    std::string now = llm::utc_timestamp();
    Statement insert(impl_->db,
                     "INSERT INTO runs (config, state, created_at, updated_at) VALUES (?,?,?,?)");
    insert.bind(1, config.dump()).bind(2, "running").bind(3, now).bind(4, now).run();
    return static_cast<int64_t>(sqlite3_last_insert_rowid(impl_->db));
  });
}

void Store::set_run_state(int64_t run_id, const std::string& state) {
  std::lock_guard lock(impl_->mutex);
  Statement update(impl_->db, "UPDATE runs SET state=?, updated_at=? WHERE id=?");
  update.bind(1, state).bind(2, llm::utc_timestamp()).bind(3, run_id).run();
}

namespace {
RunRecord read_run(const Statement& row) {
  RunRecord record;
  record.id = row.integer(0);
  record.config = Json::parse(row.text(1));
  record.state = row.text(2);
  record.created_at = row.text(3);
  record.updated_at = row.text(4);
  return record;
}
}  // namespace

std::optional<RunRecord> Store::run(int64_t run_id) const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db,
                   "SELECT id, config, state, created_at, updated_at FROM runs WHERE id=?");
  select.bind(1, run_id);
  if (!select.step()) return std::nullopt;
  return read_run(select);
}

std::vector<RunRecord> Store::runs() const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db,
                   "SELECT id, config, state, created_at, updated_at FROM runs ORDER BY id");
  std::vector<RunRecord> result;
  while (select.step()) result.push_back(read_run(select));
  return result;
}

void Store::upsert_task(const task::Task& task) {
  std::lock_guard lock(impl_->mutex);
  Statement upsert(
      impl_->db,
      "INSERT INTO tasks (name, directory, op_type, tags, definition, updated_at) "
      "VALUES (?,?,?,?,?,?) ON CONFLICT(name) DO UPDATE SET directory=excluded.directory, "
      "op_type=excluded.op_type, tags=excluded.tags, definition=excluded.definition, "
      "updated_at=excluded.updated_at");
  upsert.bind(1, task.name)
      .bind(2, task.directory.string())
      .bind(3, task.op_type)
      .bind(4, Json(task.tags).dump())
      .bind(5, task.definition.dump())
      .bind(6, llm::utc_timestamp())
      .run();
}

int64_t Store::record_evaluation(CandidateRecord candidate, const kernel::Verdict& verdict,
                                 std::optional<int64_t> reused_from) {
  std::lock_guard lock(impl_->mutex);
  return impl_->transaction([&]() -> int64_t {
    Statement existing(impl_->db, "SELECT id FROM candidates WHERE run_id=? AND key=?");
    existing.bind(1, candidate.run_id).bind(2, candidate.key);
    if (existing.step()) return existing.integer(0);
    std::string now = llm::utc_timestamp();
    Statement insert(impl_->db,
                     "INSERT INTO candidates (run_id, key, task, workload, source, source_hash, "
                     "normalized_hash, parent_id, plan, iteration, author, kind, created_at) "
                     "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
    insert.bind(1, candidate.run_id)
        .bind(2, candidate.key)
        .bind(3, candidate.task)
        .bind(4, candidate.workload)
        .bind(5, candidate.source)
        .bind(6, candidate.source_hash)
        .bind(7, candidate.normalized_hash)
        .bind(8, candidate.parent)
        .bind(9, candidate.plan.dump())
        .bind(10, candidate.iteration)
        .bind(11, candidate.author)
        .bind(12, static_cast<int64_t>(candidate.kind))
        .bind(13, now)
        .run();
    int64_t id = sqlite3_last_insert_rowid(impl_->db);
    Statement trace(impl_->db,
                    "INSERT INTO traces (candidate_id, status, speedup, percent_of_peak, "
                    "latency_seconds, reused_from, verdict, created_at) VALUES (?,?,?,?,?,?,?,?)");
    trace.bind(1, id).bind(2, kernel::status_name(verdict.status));
    if (verdict.timing) {
      trace.bind(3, verdict.timing->speedup).bind(5, verdict.timing->latency_seconds);
    }
    if (verdict.roofline) trace.bind(4, verdict.roofline->percent_of_peak);
    trace.bind(6, reused_from).bind(7, verdict.to_json().dump()).bind(8, now).run();
    return id;
  });
}

std::optional<CandidateRecord> Store::candidate(int64_t id) const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db,
                   fmt::format("SELECT {} FROM candidates WHERE id=?", kCandidateColumns));
  select.bind(1, id);
  if (!select.step()) return std::nullopt;
  return impl_->read_candidate(select);
}

std::optional<CandidateRecord> Store::candidate_by_key(int64_t run_id,
                                                       const std::string& key) const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db, fmt::format("SELECT {} FROM candidates WHERE run_id=? AND key=?",
                                          kCandidateColumns));
  select.bind(1, run_id).bind(2, key);
  if (!select.step()) return std::nullopt;
  return impl_->read_candidate(select);
}

std::vector<CandidateRecord> Store::candidates(int64_t run_id) const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db, fmt::format("SELECT {} FROM candidates WHERE run_id=? ORDER BY id",
                                          kCandidateColumns));
  select.bind(1, run_id);
  std::vector<CandidateRecord> result;
  while (select.step()) result.push_back(impl_->read_candidate(select));
  return result;
}

namespace {
TraceRecord read_trace(const Statement& row) {
  TraceRecord record;
  record.candidate_id = row.integer(0);
  record.reused_from = row.optional_integer(1);
  record.verdict = kernel::Verdict::from_json(Json::parse(row.text(2)));
  return record;
}
}  // namespace

std::optional<TraceRecord> Store::trace(int64_t candidate_id) const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db,
                   "SELECT candidate_id, reused_from, verdict FROM traces WHERE candidate_id=?");
  select.bind(1, candidate_id);
  if (!select.step()) return std::nullopt;
  return read_trace(select);
}

std::vector<TraceRecord> Store::traces(int64_t run_id) const {
  std::lock_guard lock(impl_->mutex);
  Statement select(
      impl_->db,
      "SELECT t.candidate_id, t.reused_from, t.verdict FROM traces t JOIN candidates c "
      "ON c.id = t.candidate_id WHERE c.run_id=? ORDER BY t.candidate_id");
  select.bind(1, run_id);
  std::vector<TraceRecord> result;
  while (select.step()) result.push_back(read_trace(select));
  return result;
}

int64_t Store::evaluation_count(int64_t run_id) const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db,
                   "SELECT count(*) FROM traces t JOIN candidates c ON c.id = t.candidate_id "
                   "WHERE c.run_id=? AND t.reused_from IS NULL AND c.kind != 0");
  select.bind(1, run_id);
  select.step();
  return select.integer(0);
}

std::optional<Json> Store::answer(int64_t run_id, const std::string& key) const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db, "SELECT answer FROM agent_answers WHERE run_id=? AND key=?");
  select.bind(1, run_id).bind(2, key);
  if (!select.step()) return std::nullopt;
  return Json::parse(select.text(0));
}

void Store::put_answer(int64_t run_id, const std::string& key, const Json& answer) {
  std::lock_guard lock(impl_->mutex);
  Statement insert(impl_->db,
                   "INSERT OR REPLACE INTO agent_answers (run_id, key, answer) VALUES (?,?,?)");
  insert.bind(1, run_id).bind(2, key).bind(3, answer.dump()).run();
}

void Store::commit_iteration(const Checkpoint& checkpoint,
                             std::vector<MemoryEntryRecord>& entries) {
  std::lock_guard lock(impl_->mutex);
  impl_->transaction([&] {
    for (MemoryEntryRecord& entry : entries) impl_->insert_entry(entry);
    Statement insert(impl_->db,
                     "INSERT OR REPLACE INTO checkpoints (run_id, iteration, state, created_at) "
                     "VALUES (?,?,?,?)");
    insert.bind(1, checkpoint.run_id)
        .bind(2, checkpoint.iteration)
        .bind(3, checkpoint.state.dump())
        .bind(4, llm::utc_timestamp())
        .run();
    Statement touch(impl_->db, "UPDATE runs SET updated_at=? WHERE id=?");
    touch.bind(1, llm::utc_timestamp()).bind(2, checkpoint.run_id).run();
  });
}

namespace {
Checkpoint read_checkpoint(const Statement& row) {
  Checkpoint checkpoint;
  checkpoint.run_id = row.integer(0);
  checkpoint.iteration = static_cast<int>(row.integer(1));
  checkpoint.state = Json::parse(row.text(2));
  checkpoint.created_at = row.text(3);
  return checkpoint;
}
}  // namespace

std::optional<Checkpoint> Store::last_checkpoint(int64_t run_id) const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db,
                   "SELECT run_id, iteration, state, created_at FROM checkpoints WHERE run_id=? "
                   "ORDER BY iteration DESC LIMIT 1");
  select.bind(1, run_id);
  if (!select.step()) return std::nullopt;
  return read_checkpoint(select);
}

std::vector<Checkpoint> Store::checkpoints(int64_t run_id) const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db,
                   "SELECT run_id, iteration, state, created_at FROM checkpoints WHERE run_id=? "
                   "ORDER BY iteration");
  select.bind(1, run_id);
  std::vector<Checkpoint> result;
  while (select.step()) result.push_back(read_checkpoint(select));
  return result;
}

int64_t Store::add_memory_entry(MemoryEntryRecord& entry) {
  std::lock_guard lock(impl_->mutex);
  return impl_->transaction([&] { return impl_->insert_entry(entry); });
}

std::vector<MemoryEntryRecord> Store::memory_entries() const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db,
                   fmt::format("SELECT {} FROM memory_entries ORDER BY id", kEntryColumns));
  std::vector<MemoryEntryRecord> result;
  while (select.step()) result.push_back(impl_->read_entry(select));
  return result;
}

std::optional<MemoryEntryRecord> Store::memory_entry(int64_t id) const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db,
                   fmt::format("SELECT {} FROM memory_entries WHERE id=?", kEntryColumns));
  select.bind(1, id);
  if (!select.step()) return std::nullopt;
  return impl_->read_entry(select);
}

int64_t Store::max_memory_id() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->single_integer("SELECT coalesce(max(id), 0) FROM memory_entries");
}

int64_t Store::clear_memory(const std::string& task) {
  std::lock_guard lock(impl_->mutex);
  return impl_->transaction([&] {
    Statement remove(impl_->db, task.empty() ? "DELETE FROM memory_entries"
                                             : "DELETE FROM memory_entries WHERE task=?");
    if (!task.empty()) remove.bind(1, task);
    remove.run();
    return static_cast<int64_t>(sqlite3_changes(impl_->db));
  });
}

void Store::record_call(const llm::CallRecord& record) {
  std::lock_guard lock(impl_->mutex);
  Statement insert(impl_->db,
                   "INSERT INTO model_calls (run_id, role, model, status, cost_usd, record) "
                   "VALUES (?,?,?,?,?,?)");
  insert.bind(1, record.run_id)
      .bind(2, record.role)
      .bind(3, record.model)
      .bind(4, std::string(llm::to_string(record.status)))
      .bind(5, record.cost_usd)
      .bind(6, record.to_json().dump())
      .run();
}

std::vector<llm::CallRecord> Store::calls(const std::string& run_id) const {
  std::lock_guard lock(impl_->mutex);
  Statement select(impl_->db, run_id.empty()
                                  ? "SELECT record FROM model_calls ORDER BY id"
                                  : "SELECT record FROM model_calls WHERE run_id=? ORDER BY id");
  if (!run_id.empty()) select.bind(1, run_id);
  std::vector<llm::CallRecord> result;
  while (select.step()) result.push_back(llm::CallRecord::from_json(Json::parse(select.text(0))));
  return result;
}

}  // namespace accelopt::store
