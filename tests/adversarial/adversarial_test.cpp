// Hostile kernels: each must be refused with the status its header names, with a clear message, and
// leave the machine as it was. Each file in kernels/ declares what the harness must say:
//   // expect: STATUS          the verdict's status
//   // message: text           a phrase the message (or the log) must contain
//   // time: yes               evaluate with timing (the physics check needs it)
//   // unharmed: /path         a file the kernel tries to create, which must not exist afterwards
//   // victim: yes             the test starts a process outside the evaluation, with the runner's
//                             uid, and writes its pid where the source says ACCELOPT_VICTIM_PID;
//                             that process must still be alive after the verdict
// New tricks join the folder; the test picks them up.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>

#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/files.h"
#include "platform/cpu/cpu_platform.h"
#include "task/task.h"

namespace accelopt {
namespace {

const std::filesystem::path kKernels =
    std::filesystem::path(ACCELOPT_SOURCE_DIR) / "tests/adversarial/kernels";

struct Expectation {
  std::string status, message, unharmed;
  bool time = false;
  bool victim = false;
};

Expectation read_expectation(const std::string& source) {
  Expectation expectation;
  auto field = [&](const std::string& name) {
    std::smatch match;
    std::regex pattern("// " + name + ": (.*)");
    return std::regex_search(source, match, pattern) ? match[1].str() : std::string();
  };
  expectation.status = field("expect");
  expectation.message = field("message");
  if (expectation.message.empty()) expectation.message = field("log");
  expectation.unharmed = field("unharmed");
  expectation.time = field("time") == "yes";
  expectation.victim = field("victim") == "yes";
  return expectation;
}

// A process outside any evaluation with the uid runners get (nobody when the test is root, the
// test's own otherwise), for a kernel to aim at; ended and reaped by the destructor.
class Victim {
 public:
  Victim() {
    pid_ = ::fork();
    if (pid_ == 0) {
      if (::geteuid() == 0 &&
          (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 ||
           ::setresuid(65534, 65534, 65534) != 0)) {
        ::_exit(3);
      }
      ::execl("/bin/sleep", "sleep", "120", static_cast<char*>(nullptr));
      ::_exit(4);
    }
  }
  ~Victim() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  Victim(const Victim&) = delete;
  Victim& operator=(const Victim&) = delete;

  pid_t pid() const { return pid_; }
  // "alive", or how it ended.
  std::string state() {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == 0) return "alive";
    pid_t ended = pid_;
    pid_ = -1;
    return "process " + std::to_string(ended) +
           (WIFSIGNALED(status) ? " killed by signal " + std::to_string(WTERMSIG(status))
                                : " exited with " + std::to_string(WEXITSTATUS(status)));
  }

 private:
  pid_t pid_ = -1;
};

// The first line of each secret file the kernels reach for, as this machine has it: no verdict
// field may hold any of them, whatever the kernel printed or made the compiler say.
std::vector<std::string> secret_lines() {
  std::vector<std::string> lines;
  for (const char* path : {"/etc/passwd", "/etc/shadow"}) {
    std::ifstream file(path);
    std::string line;
    if (std::getline(file, line) && line.size() >= 8) lines.push_back(line.substr(0, 24));
  }
  return lines;
}

// This process's children still alive after a verdict (runners, compilers, anything they started
// and orphaned to us): there must be none.
int children_left() {
  int count = 0;
  std::string parent = "PPid:\t" + std::to_string(::getpid());
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream status(entry.path() / "status");
    std::string line;
    while (std::getline(status, line)) {
      if (line == parent) ++count;
    }
  }
  return count;
}

class AdversarialTest : public testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    task_ = std::make_unique<task::Task>(
        task::load_task(std::filesystem::path(ACCELOPT_SOURCE_DIR) / "tests/data/tasks/axpy"));
    platform::cpu::CpuPlatformOptions options;
    options.compiler.cpu_limit = std::chrono::seconds(20);
    options.compiler.cpus = platform::cpu::compile_cpus();
    options.call_timeout = std::chrono::milliseconds(3000);
    platform_ = std::make_unique<platform::cpu::CpuPlatform>(
        options, platform::cpu::load_or_probe_machine(false, nullptr));
  }
  static void TearDownTestSuite() {
    platform_.reset();
    task_.reset();
  }

  static std::unique_ptr<task::Task> task_;
  static std::unique_ptr<platform::cpu::CpuPlatform> platform_;
};

std::unique_ptr<task::Task> AdversarialTest::task_;
std::unique_ptr<platform::cpu::CpuPlatform> AdversarialTest::platform_;

TEST_P(AdversarialTest, IsRefusedWithTheRightStatusAndLeavesTheMachineUnharmed) {
  std::string source = read_file(kKernels / GetParam());
  Expectation expectation = read_expectation(source);
  ASSERT_FALSE(expectation.status.empty()) << GetParam() << " has no '// expect:' line";
  if (!expectation.unharmed.empty()) std::filesystem::remove(expectation.unharmed);
  std::optional<Victim> victim;
  if (expectation.victim) {
    victim.emplace();
    ASSERT_GT(victim->pid(), 0) << "cannot start the victim process";
    std::string placeholder = "ACCELOPT_VICTIM_PID";
    for (size_t at = source.find(placeholder); at != std::string::npos;
         at = source.find(placeholder, at)) {
      source.replace(at, placeholder.size(), std::to_string(victim->pid()));
    }
  }

  platform::EvalRequest request;
  request.task = task_.get();
  request.workload = "small";
  request.source = source;
  request.measure_time = expectation.time;
  request.timing.budget_seconds = 3;
  request.timing.min_pairs = 5;
  request.timing.target_half_width = 0.2;
  kernel::Verdict verdict = platform_->evaluate(request);

  EXPECT_EQ(kernel::status_name(verdict.status), expectation.status)
      << "message: " << verdict.message << "\nlog: " << verdict.log;
  EXPECT_FALSE(verdict.message.empty());
  if (!expectation.message.empty()) {
    EXPECT_NE((verdict.message + "\n" + verdict.log).find(expectation.message), std::string::npos)
        << "message: " << verdict.message << "\nlog: " << verdict.log;
  }
  std::string everything = verdict.to_json().dump();
  for (const std::string& secret : secret_lines()) {
    EXPECT_EQ(everything.find(secret), std::string::npos) << "a verdict quotes a secret file";
  }
  if (!expectation.unharmed.empty()) {
    EXPECT_FALSE(std::filesystem::exists(expectation.unharmed))
        << expectation.unharmed << " was created";
  }
  if (victim) {
    EXPECT_EQ(victim->state(), "alive") << "the kernel reached a process outside its evaluation";
    victim.reset();
  }
  EXPECT_EQ(children_left(), 0) << "a sandboxed process outlived its verdict";
}

std::vector<std::string> kernel_files() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(kKernels)) {
    if (entry.path().extension() == ".cpp") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

INSTANTIATE_TEST_SUITE_P(Kernels, AdversarialTest, testing::ValuesIn(kernel_files()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(0, info.param.size() - 4);
                         });

// Processes that keep one core busy until the object ends, as a loaded machine has them.
class CoreHogs {
 public:
  CoreHogs(int core, int count) {
    for (int i = 0; i < count; ++i) {
      pid_t pid = ::fork();
      if (pid == 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(core, &set);
        ::sched_setaffinity(0, sizeof set, &set);
        volatile unsigned long spin = 0;
        while (true) spin = spin + 1;
      }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  ~CoreHogs() {
    for (pid_t pid : pids_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  CoreHogs(const CoreHogs&) = delete;
  CoreHogs& operator=(const CoreHogs&) = delete;

 private:
  std::vector<pid_t> pids_;
};

// A kernel that never returns is out of time however busy its core: three other processes share
// it, so the runner gets a quarter of it and waits for it longer than it runs. The deadline counts
// the kernel's time on the core (more wall time while it waits, up to a backstop), so the hang is
// TIMEOUT, the kernel's doing, not MACHINE_BUSY.
TEST(AdversarialSanity, AHangOnASharedCoreIsATimeoutNotABusyMachine) {
  task::Task task =
      task::load_task(std::filesystem::path(ACCELOPT_SOURCE_DIR) / "tests/data/tasks/axpy");
  platform::cpu::CpuPlatformOptions options;
  options.compiler.cpus = platform::cpu::compile_cpus();
  options.call_timeout = std::chrono::milliseconds(600);
  platform::cpu::CpuPlatform platform(options,
                                      platform::cpu::load_or_probe_machine(false, nullptr));
  platform::EvalRequest request;
  request.task = &task;
  request.workload = "small";
  request.source = read_file(kKernels / "loops_forever.cpp");
  request.measure_time = false;
  int core = 0;
  request.cores = {core};
  kernel::Verdict verdict;
  {
    CoreHogs hogs(core, 3);
    verdict = platform.evaluate(request);
  }
  EXPECT_EQ(kernel::status_name(verdict.status), "TIMEOUT")
      << "message: " << verdict.message << "\nlog: " << verdict.log;
  EXPECT_EQ(children_left(), 0);
}

TEST(AdversarialSanity, TheBaselineStillPasses) {
  task::Task task =
      task::load_task(std::filesystem::path(ACCELOPT_SOURCE_DIR) / "tests/data/tasks/axpy");
  platform::cpu::CpuPlatform cpu({}, platform::cpu::load_or_probe_machine(false, nullptr));
  platform::EvalRequest request;
  request.task = &task;
  request.workload = "small";
  request.source = read_file(task.baseline_path());
  request.measure_time = false;
  kernel::Verdict verdict = cpu.evaluate(request);
  EXPECT_TRUE(verdict.passed()) << verdict.message << "\n" << verdict.log;
  EXPECT_EQ(verdict.correctness.seeds_checked, 5);
  EXPECT_EQ(verdict.sandbox.value("seccomp", false), true);
}

}  // namespace
}  // namespace accelopt
