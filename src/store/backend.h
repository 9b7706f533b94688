// The one door between the Store and a database engine: SQLite (the default, one file per
// workspace) or PostgreSQL (one server shared by many machines). The Store speaks one SQL text to
// both: `?` placeholders, `RETURNING id`, `ON CONFLICT … DO UPDATE`; the migrations are written in
// SQLite's dialect and the PostgreSQL backend widens their column types (see postgres_backend.cpp).
//
// A backend is one connection and is not thread-safe: the Store serializes calls with its mutex.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/error.h"

namespace accelopt::store {

// The database could not be reached again within store::reconnect_window(), or the connection
// broke inside a transaction (which the Store then runs again on a new connection).
class ConnectionLost : public UserError {
 public:
  explicit ConnectionLost(const std::string& message) : UserError(message) {}
};

// A parameter or a column value. PostgreSQL hands every value back as text; the accessors of Row
// convert, so the Store reads both engines the same way.
using Value = std::variant<std::monostate, int64_t, double, std::string>;

class Row {
 public:
  explicit Row(std::vector<Value> values) : values_(std::move(values)) {}
  bool is_null(size_t column) const;
  int64_t integer(size_t column) const;
  double real(size_t column) const;
  std::string text(size_t column) const;
  std::optional<int64_t> optional_integer(size_t column) const;

 private:
  std::vector<Value> values_;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // For messages: "the database <path>" or "the PostgreSQL database <url without password>".
  virtual std::string describe() const = 0;

  // A PostgreSQL backend whose connection broke reconnects here (and for a statement outside a
  // transaction), retrying with backoff for reconnect_window(); then ConnectionLost.
  virtual void begin() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // Inside a transaction: holds back every other connection that migrates at the same time.
  virtual void lock_schema() = 0;
  // Inside a transaction: holds back every other connection that writes memory entries meanwhile.
  virtual void lock_memory() = 0;

  // One statement with `?` placeholders; its rows.
  virtual std::vector<Row> query(std::string_view sql,
                                 const std::vector<Value>& parameters = {}) = 0;
  // One statement with `?` placeholders; how many rows it changed.
  virtual int64_t execute(std::string_view sql, const std::vector<Value>& parameters = {}) = 0;
  // A migration: several statements in SQLite's dialect, no parameters.
  virtual void run_migration(std::string_view sql) = 0;
};

// Both open (creating if needed) a database that is empty or marked as accelopt's, leave a
// schema_version table in it (version 0 when new) and refuse anything else with a UserError.
std::unique_ptr<Backend> open_sqlite(const std::filesystem::path& path);  // ":memory:" for tests
std::unique_ptr<Backend> open_postgres(const std::string& url);

}  // namespace accelopt::store
