// The PostgreSQL backend, through libpqxx: one server holds the kernel databases of many machines,
// so that runs on different hosts share one optimization memory and one evaluation queue.
//
// The Store's SQL is written once. Here `?` placeholders become `$1, $2, …`, and the migrations,
// written in SQLite's dialect, get PostgreSQL's column types: SQLite's INTEGER is 64-bit and REAL
// is a double, PostgreSQL's are 32-bit and single precision, so INTEGER PRIMARY KEY becomes
// BIGSERIAL PRIMARY KEY, INTEGER becomes BIGINT and REAL becomes DOUBLE PRECISION. Nothing else
// differs.
//
// The database is marked as ours by the comment 'accelopt' on its schema_version table; a database
// with other tables and no such mark is refused. Migrations take an advisory lock, so that workers
// starting together on a new database migrate it once.
//
// A server restart breaks the connection; the next transaction (or lone statement) reconnects,
// retrying with backoff for reconnect_window(), so a run or a worker carries on across a restart.
// A transaction cut in the middle throws ConnectionLost, and the Store runs it again whole.
#include <fmt/format.h>

#include <thread>

#include <pqxx/pqxx>
#include <regex>

#include "common/error.h"
#include "store/backend.h"
#include "store/store.h"

namespace accelopt::store {
namespace {

constexpr int64_t kSchemaLock = 0x41434F50;  // "ACOP": the advisory lock taken while migrating
constexpr int64_t kMemoryLock = 0x41434F4D;  // "ACOM": taken while a memory entry is written

// `?` → `$n`, outside quoted literals.
std::string numbered_placeholders(std::string_view sql) {
  std::string result;
  bool quoted = false;
  int next = 1;
  for (char character : sql) {
    if (character == '\'') quoted = !quoted;
    if (character == '?' && !quoted) {
      result += "$" + std::to_string(next++);
    } else {
      result += character;
    }
  }
  return result;
}

std::string postgres_dialect(std::string_view migration) {
  std::string sql(migration);
  sql = std::regex_replace(sql, std::regex(R"(\bINTEGER PRIMARY KEY\b)"), "BIGSERIAL PRIMARY KEY");
  sql = std::regex_replace(sql, std::regex(R"(\bINTEGER\b)"), "BIGINT");
  return std::regex_replace(sql, std::regex(R"(\bREAL\b)"), "DOUBLE PRECISION");
}

class PostgresBackend : public Backend {
 public:
  explicit PostgresBackend(std::string url) : url_(std::move(url)), window_(reconnect_window()) {}

  void connect();

  std::string describe() const override { return "the PostgreSQL database " + redact_url(url_); }
  void begin() override {
    if (work_) throw InternalError("database: a transaction is already open");
    if (!connection_->is_open()) reconnect();
    try {
      guarded("BEGIN", [&] { work_ = std::make_unique<pqxx::work>(*connection_); });
    } catch (const ConnectionLost&) {
      reconnect();
      guarded("BEGIN", [&] { work_ = std::make_unique<pqxx::work>(*connection_); });
    }
  }
  void commit() override {
    guarded("COMMIT", [&] { work_->commit(); });
    work_.reset();
  }
  void rollback() noexcept override {
    if (!work_) return;
    try {
      work_->abort();
    } catch (...) {  // the connection is gone; the server rolls back by itself
    }
    work_.reset();
  }
  void lock_schema() override { query("SELECT pg_advisory_xact_lock(?)", {Value(kSchemaLock)}); }
  void lock_memory() override { query("SELECT pg_advisory_xact_lock(?)", {Value(kMemoryLock)}); }

  std::vector<Row> query(std::string_view sql, const std::vector<Value>& parameters) override {
    pqxx::result result = run(numbered_placeholders(sql), parameters);
    std::vector<Row> rows;
    rows.reserve(result.size());
    for (const pqxx::row& row : result) {
      std::vector<Value> values;
      for (const pqxx::field& field : row) {
        if (field.is_null()) {
          values.emplace_back(std::monostate{});
        } else {
          values.emplace_back(std::string(field.c_str(), field.size()));
        }
      }
      rows.emplace_back(std::move(values));
    }
    return rows;
  }
  int64_t execute(std::string_view sql, const std::vector<Value>& parameters) override {
    return static_cast<int64_t>(run(numbered_placeholders(sql), parameters).affected_rows());
  }
  void run_migration(std::string_view sql) override {
    std::string statements = postgres_dialect(sql);
    guarded(statements, [&] { transaction().exec(statements); });
  }

 private:
  // The open transaction, or an autocommit one for a single statement.
  pqxx::transaction_base& transaction() {
    if (work_) return *work_;
    autocommit_ = std::make_unique<pqxx::nontransaction>(*connection_);
    return *autocommit_;
  }

  pqxx::result run(const std::string& sql, const std::vector<Value>& parameters) {
    std::vector<std::string> texts(parameters.size());
    std::vector<const char*> pointers(parameters.size(), nullptr);
    for (size_t index = 0; index < parameters.size(); ++index) {
      const Value& value = parameters[index];
      if (std::holds_alternative<std::monostate>(value)) continue;
      if (const auto* text = std::get_if<std::string>(&value)) {
        texts[index] = *text;
      } else if (const auto* number = std::get_if<int64_t>(&value)) {
        texts[index] = std::to_string(*number);
      } else {
        texts[index] = fmt::format("{}", std::get<double>(value));  // shortest exact form
      }
      pointers[index] = texts[index].c_str();
    }
    pqxx::result result;
    auto exec = [&] {
      result = transaction().exec_params(sql, pqxx::prepare::make_dynamic_params(pointers));
    };
    if (work_) {
      guarded(sql, exec);
    } else {
      // A lone statement: on a broken connection, once more on a new one.
      if (!connection_->is_open()) reconnect();
      try {
        guarded(sql, exec);
      } catch (const ConnectionLost&) {
        reconnect();
        guarded(sql, exec);
      }
    }
    autocommit_.reset();
    return result;
  }

  template <typename Body>
  void guarded(const std::string& what, Body&& body) {
    try {
      body();
    } catch (const pqxx::broken_connection& error) {
      autocommit_.reset();
      throw ConnectionLost(
          fmt::format("{}: the connection was lost: {}", describe(), redact(error.what(), url_)));
    } catch (const pqxx::sql_error& error) {
      autocommit_.reset();
      // A server shutting down ends sessions with an error (57P01) before the socket closes.
      if (error.sqlstate().starts_with("57P") || error.sqlstate().starts_with("08")) {
        throw ConnectionLost(
            fmt::format("{}: the connection was lost: {}", describe(), redact(error.what(), url_)));
      }
      throw InternalError(
          fmt::format("{}: {} (in: {})", describe(), redact(error.what(), url_), what));
    }
  }

  // A new connection, tried with backoff until one opens or the window has passed.
  void reconnect();
  void open_connection() {
    connection_ = std::make_unique<pqxx::connection>(with_connect_timeout(url_));
    // Keep the server's notices (e.g. "relation already exists, skipping") off our stderr.
    pqxx::nontransaction(*connection_).exec("SET client_min_messages = warning");
  }

  std::string url_;
  std::chrono::milliseconds window_;
  std::unique_ptr<pqxx::connection> connection_;
  std::unique_ptr<pqxx::work> work_;
  std::unique_ptr<pqxx::nontransaction> autocommit_;
};

void PostgresBackend::reconnect() {
  work_.reset();
  autocommit_.reset();
  auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::milliseconds(100);
  for (;;) {
    try {
      open_connection();
      return;
    } catch (const std::exception& error) {
      if (std::chrono::steady_clock::now() - start + pause > window_) {
        throw ConnectionLost(
            fmt::format("{} could not be reached again for {} s: {}", describe(),
                        std::chrono::duration_cast<std::chrono::seconds>(window_).count(),
                        redact(error.what(), url_)));
      }
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(5000));
  }
}

void PostgresBackend::connect() {
  // The first connection is not retried: a wrong URL should fail at once.
  try {
    open_connection();
  } catch (const std::exception& error) {
    throw UserError(fmt::format("connecting to {}: {}", describe(), redact(error.what(), url_)));
  }
  begin();
  try {
    lock_schema();
    int64_t tables =
        query(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()",
            {})[0]
            .integer(0);
    std::vector<Row> mark = query(
        "SELECT obj_description(c.oid, 'pg_class') FROM pg_class c JOIN pg_namespace n "
        "ON n.oid = c.relnamespace WHERE c.relname = 'schema_version' AND n.nspname = "
        "current_schema()",
        {});
    bool ours = !mark.empty() && mark[0].text(0) == "accelopt";
    if (tables > 0 && !ours) {
      throw UserError(fmt::format(
          "opening {}: it holds tables but is not an accelopt database; choose another database",
          describe()));
    }
    if (tables == 0) {
      execute("CREATE TABLE schema_version (version BIGINT NOT NULL)", {});
      execute("INSERT INTO schema_version VALUES (0)", {});
      execute("COMMENT ON TABLE schema_version IS 'accelopt'", {});
    }
    commit();
  } catch (...) {
    rollback();
    throw;
  }
}

}  // namespace

std::unique_ptr<Backend> open_postgres(const std::string& url) {
  auto backend = std::make_unique<PostgresBackend>(url);
  backend->connect();
  return backend;
}

}  // namespace accelopt::store
