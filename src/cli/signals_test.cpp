// End to end (slow): Ctrl-C and SIGTERM sent to the real `accelopt` binary in the middle of a run
// on the real CPU platform. Each ends the run "interrupted" with 128 + the signal and a line saying
// how to resume, leaves no process of its session behind (no orphaned or zombie runner), and
// `accelopt resume` then completes the run. Ctrl-C stops a run within seconds even while a kernel
// hangs inside a timed turn, and a binary killed outright takes its runner with it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>
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

struct SessionProcess {
  pid_t pid = 0;
  std::string name;
  char state = '?';
  double cpu_seconds = 0;
};

// The processes of session `session`, zombies included.
std::vector<SessionProcess> processes_in_session(pid_t session) {
  std::vector<SessionProcess> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    size_t open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream fields(line.substr(close + 2));
    SessionProcess process;
    long parent = 0, group = 0, sid = 0, ignored = 0, user_ticks = 0, system_ticks = 0;
    fields >> process.state >> parent >> group >> sid;
    for (int skip = 0; skip < 7; ++skip) fields >> ignored;  // tty_nr … cmajflt
    fields >> user_ticks >> system_ticks;
    if (sid != session) continue;
    process.pid = static_cast<pid_t>(std::stol(line.substr(0, open)));
    process.name = line.substr(open + 1, close - open - 1);
    process.cpu_seconds = static_cast<double>(user_ticks + system_ticks) /
                          static_cast<double>(::sysconf(_SC_CLK_TCK));
    found.push_back(process);
  }
  return found;
}

// A runner of session `session` that has used `cpu_seconds` of CPU time (a kernel spinning in
// it); nullopt after three minutes.
std::optional<pid_t> wait_for_spinning_runner(pid_t session, double cpu_seconds) {
  for (int wait = 0; wait < 1800; ++wait) {
    for (const SessionProcess& process : processes_in_session(session)) {
      if (process.name == "accelopt-runner" && process.state != 'Z' &&
          process.cpu_seconds >= cpu_seconds) {
        return process.pid;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return std::nullopt;
}

bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  return std::getline(stat, line) && line.substr(line.rfind(')') + 2, 1) != "Z";
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A silu kernel (the baseline's loop, with its knob for the tuner) that is right on its first
// `calls` calls and then spins forever.
std::string silu_hanging_after(int calls) {
  return "#include <cmath>\n#include \"accelopt_task.h\"\n"
         "constexpr int CHUNK = 1024;  // knob: 256 1024\n"
         "extern \"C\" void kernel(const float* __restrict x, float* __restrict out) {\n"
         "  static long calls = 0;\n"
         "  if (++calls > " +
         std::to_string(calls) +
         ") {\n"
         "    volatile bool forever = true;\n"
         "    while (forever) out[0] = 1.0f;\n"
         "  }\n"
         "  for (std::int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));\n"
         "}\n";
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
  EXPECT_NE(first.output.find("stopping: the evaluation in flight is abandoned"), std::string::npos)
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

// A kernel that hangs inside a timed turn: Ctrl-C abandons the evaluation (its runners killed) and
// the binary ends within seconds, the run "interrupted"; resuming it then ends in a TIMEOUT, not in
// a second hang.
TEST(SignalsEndToEnd, CtrlCStopsAKernelHangingInATimedTurnAndResumeTimesItOut) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 1\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n");
  std::filesystem::path kernel = dir.path() / "hang.cpp";
  write_file_atomic(kernel, silu_hanging_after(40));
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu";
  std::string log = (dir.path() / "run.txt").string();

  pid_t child = 0;
  Reaper reaper(child);
  child = start({"optimize", "--task", task, "--workload", "small", "--kernel", kernel.string(),
                 "--config", config.string(), "--workspace", workspace.string()},
                log);
  pid_t session = child;
  ASSERT_TRUE(wait_for_candidates(workspace, 0)) << read_file(log);  // the baseline is timed
  ASSERT_TRUE(wait_for_spinning_runner(session, 0.5)) << read_file(log);
  auto signalled = std::chrono::steady_clock::now();
  ::kill(child, SIGINT);
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) != child) {
    ASSERT_LT(seconds_since(signalled), 30) << "Ctrl-C did not stop it:\n" << read_file(log);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  child = 0;
  EXPECT_LT(seconds_since(signalled), 5.0);
  Ended ended{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), read_file(log)};
  EXPECT_EQ(ended.code, 130) << ended.output;
  EXPECT_NE(ended.output.find("run 1: interrupted"), std::string::npos) << ended.output;
  EXPECT_EQ(left_in_session(session), std::vector<std::string>{});
  auto store = store::Store::open(store::database_path(workspace));
  EXPECT_EQ(store->run(1)->state, "interrupted");

  child = start({"resume", "1", "--workspace", workspace.string()}, log);
  auto resumed = std::chrono::steady_clock::now();
  while (::waitpid(child, &status, WNOHANG) != child && seconds_since(resumed) < 180) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_LT(seconds_since(resumed), 180) << "resume hung again:\n" << read_file(log);
  child = 0;
  std::string state = store->run(1)->state;
  EXPECT_EQ(state.rfind("failed: your kernel does not pass (TIMEOUT", 0), 0) << state;
}

// A binary killed outright (kill -9 of eval, optimize or resume) takes its runner with it: the
// runner dies with its parent instead of spinning on as an orphan up to its CPU limit.
TEST(SignalsEndToEnd, AKilledBinaryLeavesNoRunnerBehind) {
  TempDir dir;
  std::filesystem::path kernel = dir.path() / "spin.cpp";
  write_file_atomic(kernel, silu_hanging_after(0));
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu";
  std::string log = (dir.path() / "eval.txt").string();

  pid_t child = 0;
  Reaper reaper(child);
  child = start({"eval", "--task", task, "--workload", "small", "--kernel", kernel.string()}, log);
  pid_t session = child;
  std::optional<pid_t> runner = wait_for_spinning_runner(session, 0.3);
  ASSERT_TRUE(runner) << read_file(log);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  child = 0;
  auto killed = std::chrono::steady_clock::now();
  while (alive(*runner) && seconds_since(killed) < 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  bool orphaned = alive(*runner);
  if (orphaned) ::kill(*runner, SIGKILL);  // this test's own leftover, not someone else's
  EXPECT_FALSE(orphaned) << "the runner outlived the killed binary by 5 s";
  for (const SessionProcess& process : processes_in_session(session)) {
    EXPECT_EQ(process.state, 'Z') << process.name << " (" << process.pid << ") is still running";
  }
}

}  // namespace
}  // namespace accelopt::cli
