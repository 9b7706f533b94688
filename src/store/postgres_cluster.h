// A throwaway PostgreSQL server for tests: initdb into a temporary directory, started by pg_ctl on
// a unix socket in that directory (no TCP port), stopped and removed when the object goes. Run as
// root, the server runs as `nobody` through runuser, since PostgreSQL refuses to run as root.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "common/files.h"

namespace accelopt::store {

class PostgresCluster {
 public:
  // The running cluster, or nullptr with `why` saying what is missing (no PostgreSQL binaries
  // under /usr/lib/postgresql, or a server that would not start) so a test can skip saying so.
  static std::unique_ptr<PostgresCluster> start(std::string& why);
  ~PostgresCluster();  // pg_ctl stop -m immediate
  PostgresCluster(const PostgresCluster&) = delete;
  PostgresCluster& operator=(const PostgresCluster&) = delete;

  // Creates an empty database (dropping one of that name first) and returns its URL
  // ("postgresql:///name?host=<socket dir>&…").
  std::string create_database(const std::string& name);
  std::string url(const std::string& database) const;
  // Runs a statement through psql on `database`; its output. Throws InternalError on failure.
  std::string psql(const std::string& database, const std::string& sql) const;

  // The URL of `database` for a login role `role` (a superuser) that must give `password`
  // (scram-sha-256 on the socket, every other role still trusted), for the tests of how a password
  // travels: without the password, connecting fails. Made once per role and password.
  std::string password_url(const std::string& database, const std::string& role,
                           const std::string& password);

  // A server outage for the tests of reconnection: stop (`pg_ctl stop -m fast`: sessions are
  // ended, the socket goes) and start again on the same socket and data.
  void stop_server();
  void start_server();

 private:
  PostgresCluster() = default;

  TempDir directory_{"accelopt-postgres"};
  std::filesystem::path bin_;
  bool started_ = false;
};

}  // namespace accelopt::store
