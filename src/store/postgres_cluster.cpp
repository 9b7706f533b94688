#include "store/postgres_cluster.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "common/error.h"
#include "common/subprocess.h"

namespace accelopt::store {
namespace {

constexpr int kPort = 5432;  // only names the socket file; the server listens on no TCP port
constexpr const char* kSuperuser = "accelopt";

// The newest /usr/lib/postgresql/<version>/bin holding initdb and pg_ctl; empty when none.
std::filesystem::path postgres_bin() {
  std::vector<std::filesystem::path> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", error)) {
    if (std::filesystem::exists(entry.path() / "bin" / "initdb") &&
        std::filesystem::exists(entry.path() / "bin" / "pg_ctl")) {
      found.push_back(entry.path() / "bin");
    }
  }
  if (found.empty()) return {};
  return *std::max_element(found.begin(), found.end(), [](const auto& left, const auto& right) {
    return std::stoi(left.parent_path().filename().string()) <
           std::stoi(right.parent_path().filename().string());
  });
}

// Runs `argv`, as `nobody` when we are root; the combined output, or throws with it.
std::string run_as_server_user(std::vector<std::string> argv, const std::string& what) {
  if (::geteuid() == 0) argv.insert(argv.begin(), {"/usr/sbin/runuser", "-u", "nobody", "--"});
  SpawnOptions options;
  options.argv = std::move(argv);
  options.environment = {"PATH=/usr/bin:/bin", "LANG=C", "LC_ALL=C"};
  options.working_directory = "/";
  CommandResult result = run_command(options, std::chrono::seconds(60));
  if (!result.status.exited || result.status.exit_code != 0) {
    throw InternalError(fmt::format("{}: {}: {}", what, result.status.describe(), result.output));
  }
  return result.output;
}

}  // namespace

std::unique_ptr<PostgresCluster> PostgresCluster::start(std::string& why) {
  std::filesystem::path bin = postgres_bin();
  if (bin.empty()) {
    why = "no PostgreSQL server binaries under /usr/lib/postgresql (install `postgresql`)";
    return nullptr;
  }
  if (::geteuid() == 0 && !std::filesystem::exists("/usr/sbin/runuser")) {
    why = "running as root and /usr/sbin/runuser is missing: PostgreSQL refuses to run as root";
    return nullptr;
  }
  std::unique_ptr<PostgresCluster> cluster(new PostgresCluster());
  cluster->bin_ = bin;
  const std::filesystem::path& root = cluster->directory_.path();
  try {
    if (::geteuid() == 0 && ::chown(root.c_str(), 65534, 65534) != 0) {
      throw InternalError("cannot give " + root.string() + " to nobody");
    }
    run_as_server_user({(bin / "initdb").string(), "-D", (root / "data").string(), "-U", kSuperuser,
                        "--auth=trust", "-E", "UTF8", "--no-sync"},
                       "initdb");
    cluster->start_server();
  } catch (const std::exception& error) {
    why = fmt::format("the test PostgreSQL server would not start: {}", error.what());
    return nullptr;
  }
  return cluster;
}

void PostgresCluster::start_server() {
  const std::filesystem::path& root = directory_.path();
  // -F: no fsync, a test cluster need not survive a power cut; -h '': no TCP.
  run_as_server_user(
      {(bin_ / "pg_ctl").string(), "-D", (root / "data").string(), "-l",
       (root / "server.log").string(), "-w", "-t", "60", "-o",
       fmt::format("-k {} -h '' -p {} -F -c max_connections=200", root.string(), kPort), "start"},
      "pg_ctl start");
  started_ = true;
}

void PostgresCluster::stop_server() {
  run_as_server_user({(bin_ / "pg_ctl").string(), "-D", (directory_.path() / "data").string(), "-m",
                      "fast", "-w", "stop"},
                     "pg_ctl stop");
  started_ = false;
}

PostgresCluster::~PostgresCluster() {
  if (!started_) return;
  try {
    run_as_server_user({(bin_ / "pg_ctl").string(), "-D", (directory_.path() / "data").string(),
                        "-m", "immediate", "-w", "stop"},
                       "pg_ctl stop");
  } catch (const std::exception&) {  // the directory goes anyway; nothing else to do in a test
  }
}

std::string PostgresCluster::url(const std::string& database) const {
  return fmt::format("postgresql:///{}?host={}&port={}&user={}", database,
                     directory_.path().string(), kPort, kSuperuser);
}

std::string PostgresCluster::psql(const std::string& database, const std::string& sql) const {
  SpawnOptions options;
  options.argv = {(bin_ / "psql").string(), "-X", "-q",          "-t", "-A", "-v",
                  "ON_ERROR_STOP=1",        "-d", url(database), "-c", sql};
  options.environment = {"PATH=/usr/bin:/bin", "LANG=C"};
  CommandResult result = run_command(options, std::chrono::seconds(60));
  if (!result.status.exited || result.status.exit_code != 0) {
    throw InternalError(fmt::format("psql {}: {}", sql, result.output));
  }
  std::string output = result.output;
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  return output;
}

std::string PostgresCluster::password_url(const std::string& database, const std::string& role,
                                          const std::string& password) {
  psql("postgres", fmt::format("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = "
                               "'{0}') THEN CREATE ROLE \"{0}\" LOGIN SUPERUSER; END IF; END $$",
                               role));
  psql("postgres", fmt::format("ALTER ROLE \"{}\" PASSWORD '{}'", role, password));
  // The first matching line of pg_hba.conf decides: this role's goes first.
  std::filesystem::path hba = directory_.path() / "data" / "pg_hba.conf";
  std::string rule = fmt::format("local all {} scram-sha-256\n", role);
  std::string rules = read_file(hba);
  if (!rules.starts_with(rule)) {
    write_file_atomic(hba, rule + rules);
    if (::geteuid() == 0 && ::chown(hba.c_str(), 65534, 65534) != 0) {
      throw InternalError("cannot give " + hba.string() + " to nobody");
    }
    psql("postgres", "SELECT pg_reload_conf()");
  }
  return fmt::format("postgresql:///{}?host={}&port={}&user={}", database,
                     directory_.path().string(), kPort, role);
}

std::string PostgresCluster::create_database(const std::string& name) {
  // Fresh each time: a test run again (--gtest_repeat) meets its database of the first run.
  psql("postgres", fmt::format("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", name));
  psql("postgres", fmt::format("CREATE DATABASE \"{}\"", name));
  return url(name);
}

}  // namespace accelopt::store
