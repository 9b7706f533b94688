// End to end (slow): Ctrl-C and SIGTERM sent to the real `accelopt` binary in the middle of a run
// on the real CPU platform. Each ends the run "interrupted" with 128 + the signal and a line saying
// how to resume, leaves no process of its session behind (no orphaned or zombie runner), and
// `accelopt resume` then completes the run.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/files.h"
#include "store/store.h"

namespace accelopt::cli {
namespace {

const std::string kBinary = std::string(ACCELOPT_BINARY_DIR) + "/src/cli/accelopt";

// Starts `accelopt ARGS...` in a session of its own, output to `log`.
pid_t start(const std::vector<std::string>& arguments, const std::string& log) {
  pid_t child = ::fork();
  if (child != 0) return child;
  ::setsid();
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(fd, 1);
  ::dup2(fd, 2);
  std::vector<char*> argv{const_cast<char*>(kBinary.c_str())};
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  ::execv(kBinary.c_str(), argv.data());
  ::_exit(127);
}

// Waits until run 1 of `workspace` holds more than `count` candidates; false after two minutes.
bool wait_for_candidates(const std::filesystem::path& workspace, size_t count) {
  auto database = store::database_path(workspace);
  for (int wait = 0; wait < 1200; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!std::filesystem::exists(database)) continue;
    try {
      if (store::Store::open(database)->candidates(1).size() > count) return true;
    } catch (const std::exception&) {
      // The binary is still creating the database: look again.
    }
  }
  return false;
}

// Ends the binary if a check failed while it ran: SIGTERM (a clean interrupt), SIGKILL after a
// minute, so that a failing test leaves no process behind.
class Reaper {
 public:
  explicit Reaper(pid_t& child) : child_(child) {}
  ~Reaper() {
    if (child_ <= 0) return;
    ::kill(child_, SIGTERM);
    for (int wait = 0; wait < 600; ++wait) {
      if (::waitpid(child_, nullptr, WNOHANG) == child_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::kill(child_, SIGKILL);
    ::waitpid(child_, nullptr, 0);
  }

 private:
  pid_t& child_;
};

// The processes, zombies included, still in session `session`.
std::vector<std::string> left_in_session(pid_t session) {
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid pgrp session ...: comm may hold spaces, so read after its ')'.
    std::istringstream fields(line.substr(line.rfind(')') + 2));
    std::string state;
    long parent = 0, group = 0, sid = 0;
    fields >> state >> parent >> group >> sid;
    if (sid == session) left.push_back(line);
  }
  return left;
}

struct Ended {
  int code = -1;
  std::string output;
};

// Sends `signal` and waits for the binary; `child` is 0 afterwards (nothing left to reap).
Ended interrupt(pid_t& child, int signal, const std::string& log) {
  ::kill(child, signal);
  int status = 0;
  ::waitpid(child, &status, 0);
  child = 0;
  Ended ended;
  ended.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  ended.output = read_file(log);
  return ended;
}

TEST(SignalsEndToEnd, CtrlCAndSigtermInterruptCleanlyAndResumeCompletes) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 3\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n");
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/matmul";
  std::string log = (dir.path() / "run.txt").string();

  pid_t child = 0;
  Reaper reaper(child);
  child = start({"optimize", "--task", task, "--workload", "small", "--config", config.string(),
                 "--workspace", workspace.string()},
                log);
  ASSERT_TRUE(wait_for_candidates(workspace, 2)) << read_file(log);
  pid_t session = child;
  Ended first = interrupt(child, SIGINT, log);
  EXPECT_EQ(first.code, 130) << first.output;
  EXPECT_NE(first.output.find("stopping: the work in flight finishes first"), std::string::npos)
      << first.output;
  EXPECT_NE(first.output.find("run 1: interrupted"), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("accelopt resume 1"), std::string::npos) << first.output;
  EXPECT_EQ(left_in_session(session), std::vector<std::string>{});
  auto store = store::Store::open(store::database_path(workspace));
  EXPECT_EQ(store->run(1)->state, "interrupted");
  size_t recorded = store->candidates(1).size();

  child = start({"resume", "1", "--workspace", workspace.string()}, log);
  ASSERT_TRUE(wait_for_candidates(workspace, recorded + 1)) << read_file(log);
  session = child;
  Ended second = interrupt(child, SIGTERM, log);
  EXPECT_EQ(second.code, 143) << second.output;
  EXPECT_NE(second.output.find("accelopt resume 1"), std::string::npos) << second.output;
  EXPECT_EQ(left_in_session(session), std::vector<std::string>{});
  EXPECT_EQ(store->run(1)->state, "interrupted");

  child = start({"resume", "1", "--workspace", workspace.string()}, log);
  int status = 0;
  ::waitpid(child, &status, 0);
  child = 0;
  std::string output = read_file(log);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 0) << output;
  EXPECT_EQ(store->run(1)->state, "finished") << output;
  EXPECT_GE(store->last_checkpoint(1)->iteration, 1);
}

}  // namespace
}  // namespace accelopt::cli
