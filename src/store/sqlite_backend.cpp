// The SQLite backend: one file per workspace, in WAL mode with synchronous=FULL. A run writes while
// it goes on and may be killed at any moment; WAL makes each committed transaction durable and each
// torn one invisible, and readers (`accelopt show` during a run) never block the writer. The file
// is marked as ours by PRAGMA application_id ('ACOP').
#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <thread>

#include "common/error.h"
#include "store/backend.h"
#include "store/store.h"

namespace accelopt::store {
namespace {

constexpr int32_t kApplicationId = 0x41434F50;  // "ACOP"

// A prepared statement; binds by position from 1.
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

  void bind(int index, const Value& value) {
    if (const auto* number = std::get_if<int64_t>(&value)) {
      sqlite3_bind_int64(stmt_, index, *number);
    } else if (const auto* real = std::get_if<double>(&value)) {
      sqlite3_bind_double(stmt_, index, *real);
    } else if (const auto* text = std::get_if<std::string>(&value)) {
      sqlite3_bind_text(stmt_, index, text->data(), static_cast<int>(text->size()),
                        SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_null(stmt_, index);
    }
  }

  // True while a row is available.
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw InternalError(fmt::format("database: {}", sqlite3_errmsg(db_)));
  }

  Row row() const {
    std::vector<Value> values;
    int count = sqlite3_column_count(stmt_);
    for (int column = 0; column < count; ++column) {
      switch (sqlite3_column_type(stmt_, column)) {
        case SQLITE_INTEGER:
          values.emplace_back(static_cast<int64_t>(sqlite3_column_int64(stmt_, column)));
          break;
        case SQLITE_FLOAT:
          values.emplace_back(sqlite3_column_double(stmt_, column));
          break;
        case SQLITE_NULL:
          values.emplace_back(std::monostate{});
          break;
        default: {
          const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
          values.emplace_back(
              std::string(data, static_cast<size_t>(sqlite3_column_bytes(stmt_, column))));
        }
      }
    }
    return Row(std::move(values));
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class SqliteBackend : public Backend {
 public:
  explicit SqliteBackend(std::filesystem::path path) : path_(std::move(path)) {}
  ~SqliteBackend() override {
    if (db_ != nullptr) sqlite3_close_v2(db_);
  }

  void connect();

  std::string describe() const override { return "the database " + path_.string(); }
  void begin() override { exec("BEGIN IMMEDIATE"); }
  void commit() override { exec("COMMIT"); }
  void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }
  void lock_schema() override {}  // BEGIN IMMEDIATE already holds every other writer back
  void lock_memory() override {}

  std::vector<Row> query(std::string_view sql, const std::vector<Value>& parameters) override {
    Statement statement(db_, sql);
    bind_all(statement, parameters);
    std::vector<Row> rows;
    while (statement.step()) rows.push_back(statement.row());
    return rows;
  }
  int64_t execute(std::string_view sql, const std::vector<Value>& parameters) override {
    Statement statement(db_, sql);
    bind_all(statement, parameters);
    while (statement.step()) {
    }
    return sqlite3_changes64(db_);
  }
  void run_migration(std::string_view sql) override { exec(std::string(sql)); }

 private:
  static void bind_all(Statement& statement, const std::vector<Value>& parameters) {
    for (size_t index = 0; index < parameters.size(); ++index) {
      statement.bind(static_cast<int>(index + 1), parameters[index]);
    }
  }
  // Switching the journal mode needs the file to itself, and SQLite answers "locked" at once
  // rather than waiting while other processes open the same new database: retry for a while.
  void enter_wal_mode() {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (true) {
      int code = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
      if (code == SQLITE_OK) return;
      if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) ||
          std::chrono::steady_clock::now() > deadline) {
        throw InternalError(fmt::format("database {}: cannot enter WAL mode: {}", path_.string(),
                                        sqlite3_errmsg(db_)));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  void exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      std::string message = error != nullptr ? error : "unknown error";
      sqlite3_free(error);
      throw InternalError(
          fmt::format("database {}: {} (running: {})", path_.string(), message, sql.substr(0, 80)));
    }
  }
  int64_t single_integer(const std::string& sql) {
    std::vector<Row> rows = query(sql, {});
    return rows.empty() ? 0 : rows[0].integer(0);
  }

  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
};

void SqliteBackend::connect() {
  bool in_memory = path_ == ":memory:";
  if (!in_memory && path_.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(path_.parent_path(), error);
    if (error) {
      throw UserError(fmt::format("creating the workspace {}: {}", path_.parent_path().string(),
                                  error.message()));
    }
  }
  int rc =
      sqlite3_open_v2(path_.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    throw UserError(fmt::format("opening the database {}: {}", path_.string(), message));
  }
  sqlite3_busy_timeout(db_, 10000);
  const std::string where = "opening the database " + path_.string();
  int32_t application_id = 0;
  int64_t table_count = 0;
  try {
    // Both from one snapshot: another process may be creating this database right now, and its
    // tables must not be seen without its mark.
    exec("BEGIN");
    application_id = static_cast<int32_t>(single_integer("PRAGMA application_id"));
    table_count = single_integer("SELECT count(*) FROM sqlite_master");
    exec("COMMIT");
  } catch (const InternalError&) {
    std::string why = sqlite3_errmsg(db_);
    rollback();
    throw DamagedDatabase(
        path_, fmt::format("SQLite cannot read it ({}; is it another program's file?)", why));
  }
  if (table_count > 0 && application_id != kApplicationId) {
    throw UserError(fmt::format(
        "{}: this SQLite file is not an accelopt database (application_id {:#x}); choose another "
        "--workspace",
        where, application_id));
  }
  if (!in_memory) enter_wal_mode();
  exec("PRAGMA synchronous=FULL");
  exec("PRAGMA foreign_keys=ON");
  if (table_count == 0) {
    begin();
    try {
      exec(fmt::format("PRAGMA application_id={}", kApplicationId));
      exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
      if (single_integer("SELECT count(*) FROM schema_version") == 0) {
        exec("INSERT INTO schema_version VALUES (0)");
      }
      commit();
    } catch (...) {
      rollback();
      throw;
    }
  }
}

}  // namespace

std::unique_ptr<Backend> open_sqlite(const std::filesystem::path& path) {
  auto backend = std::make_unique<SqliteBackend>(path);
  backend->connect();
  return backend;
}

}  // namespace accelopt::store
