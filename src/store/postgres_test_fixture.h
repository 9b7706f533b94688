// What every test that needs PostgreSQL shares: one throwaway server per test executable
// (postgres_cluster.h), started on first use, and a fresh database per test named after it. When
// the server cannot start, the test skips saying why. Linked only by tests.
//
// The server belongs to the process that started it: a forked child must leave with _exit.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "store/postgres_cluster.h"

namespace accelopt::store {

// The executable's one server; nullptr, with `why`, when it cannot start.
PostgresCluster* shared_postgres_cluster(std::string& why);

// A name PostgreSQL accepts for the running test's database: its suite and name (a parameterized
// test's included) in lower case, other characters as '_', at most 63 characters.
std::string current_test_database_name();

// A fresh database on the shared server for the running test.
class PostgresDatabase {
 public:
  // Creates it; false, with `why`, when there is no server (the caller skips).
  bool create(std::string& why);
  const std::string& url() const { return url_; }
  const std::string& name() const { return name_; }
  // A statement run through psql on this database; its output.
  std::string psql(const std::string& sql) const;
  PostgresCluster& cluster() const { return *cluster_; }

 private:
  PostgresCluster* cluster_ = nullptr;
  std::string name_, url_;
};

// A test on its own fresh database, skipped (saying why) when no server can start.
class PostgresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!database_.create(why)) GTEST_SKIP() << why;
  }
  const std::string& url() const { return database_.url(); }
  std::string psql(const std::string& sql) const { return database_.psql(sql); }
  PostgresCluster& cluster() const { return database_.cluster(); }

 private:
  PostgresDatabase database_;
};

}  // namespace accelopt::store
