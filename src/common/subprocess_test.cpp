#include "common/subprocess.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "common/files.h"

namespace accelopt {
namespace {

SpawnOptions shell(const std::string& script, const TempDir& home) {
  SpawnOptions options;
  options.argv = {"/bin/sh", "-c", script};
  options.environment = clean_environment(home.path());
  return options;
}

TEST(RunCommand, CapturesOutputAndExitCode) {
  TempDir home;
  CommandResult result =
      run_command(shell("echo hello; echo oops >&2; exit 3", home), std::chrono::seconds(10));
  EXPECT_TRUE(result.status.exited);
  EXPECT_EQ(result.status.exit_code, 3);
  EXPECT_NE(result.output.find("hello"), std::string::npos);
  EXPECT_NE(result.output.find("oops"), std::string::npos);
}

TEST(RunCommand, ReportsTheSignalThatEndedIt) {
  TempDir home;
  CommandResult result = run_command(shell("kill -SEGV $$", home), std::chrono::seconds(10));
  EXPECT_FALSE(result.status.exited);
  EXPECT_EQ(result.status.signal, SIGSEGV);
  EXPECT_NE(result.status.describe().find("signal 11"), std::string::npos);
}

// In a PID namespace of its own a child is its init and cannot name, so cannot signal, this test.
TEST(RunCommand, OwnPidNamespaceHidesEveryOtherProcess) {
  TempDir home;
  SpawnOptions options = shell(
      "echo pid=$$; kill -0 " + std::to_string(::getpid()) + " 2>/dev/null && echo reached", home);
  options.own_pid_namespace = true;
  CommandResult result = run_command(options, std::chrono::seconds(10));
  ASSERT_TRUE(result.status.exited) << result.output;
  if (result.output.find("pid=1\n") == std::string::npos) {
    GTEST_SKIP() << "no PID namespace here: " << result.output;
  }
  EXPECT_EQ(result.output.find("reached"), std::string::npos) << result.output;
}

// Issue 45: a compile's limit is judged on its CPU time, cc1plus's included, which its driver
// reaps (wait4's figure) or, killed at a deadline, never does (read from /proc before the kill).
// A fixed amount of work costs the same CPU time however busy the machine is; sleeping costs none.
constexpr const char* kWork = "i=0; while [ $i -lt 500000 ]; do i=$((i+1)); done";

TEST(RunCommand, CountsTheCpuTimeOfAGrandchildItsParentReaped) {
  TempDir home;
  CommandResult worked = run_command(shell(std::string("/bin/sh -c '") + kWork + "'; exit 0", home),
                                     std::chrono::minutes(5));
  ASSERT_TRUE(worked.status.exited && worked.status.exit_code == 0) << worked.output;
  EXPECT_GT(worked.status.cpu_seconds, 0.1);
  CommandResult slept =
      run_command(shell("/bin/sh -c 'sleep 1'; exit 0", home), std::chrono::minutes(5));
  EXPECT_LT(slept.status.cpu_seconds, 0.1) << "a second of sleep is a second of wall time only";
}

TEST(RunCommand, CountsTheCpuTimeOfAGrandchildKilledAtTheDeadline) {
  TempDir home;
  std::filesystem::path done = home.path() / "worked";
  // The grandchild (`; exit 0`: not exec'd in place of its shell) works, says so, then waits to be
  // killed: its parent never reaps it.
  SpawnOptions options = shell(
      std::string("/bin/sh -c '") + kWork + "; touch " + done.string() + "; sleep 60'; exit 0",
      home);
  auto start = std::chrono::steady_clock::now();
  Process process = Process::spawn(options);
  while (!std::filesystem::exists(done) &&
         std::chrono::steady_clock::now() - start < std::chrono::minutes(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(std::filesystem::exists(done));
  EXPECT_GT(process.cpu_seconds(), 0.1);
  ExitStatus status = process.wait(std::chrono::milliseconds(1));
  EXPECT_TRUE(status.timed_out);
  EXPECT_GT(status.cpu_seconds, 0.1);
}

TEST(RunCommand, KillsTheWholeGroupAtTheDeadline) {
  TempDir home;
  std::filesystem::path marker = home.path() / "grandchild-survived";
  // The grandchild would write the marker after the deadline if it outlived its parent's group.
  CommandResult result =
      run_command(shell("(sleep 2; touch " + marker.string() + ") & sleep 30", home),
                  std::chrono::milliseconds(300));
  EXPECT_TRUE(result.status.timed_out);
  EXPECT_LT(result.wall_seconds, 5);
  ::sleep(3);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(RunCommand, GivesTheChildOnlyTheEnvironmentItIsGiven) {
  ::setenv("ACCELOPT_TEST_SECRET_KEY", "sk-do-not-leak", 1);
  TempDir home;
  CommandResult result = run_command(shell("env", home), std::chrono::seconds(10));
  EXPECT_EQ(result.output.find("sk-do-not-leak"), std::string::npos);
  EXPECT_NE(result.output.find("HOME=" + home.path().string()), std::string::npos);
  ::unsetenv("ACCELOPT_TEST_SECRET_KEY");
}

TEST(RunCommand, AppliesResourceLimits) {
  TempDir home;
  SpawnOptions options = shell("ulimit -v; ulimit -c", home);
  options.limits.address_space_bytes = 512ull << 20;
  CommandResult result = run_command(options, std::chrono::seconds(10));
  EXPECT_NE(result.output.find("524288"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("\n0"), std::string::npos) << result.output;
}

TEST(RunCommand, TrimsHugeOutput) {
  TempDir home;
  CommandResult result =
      run_command(shell("yes | head -c 3000000", home), std::chrono::seconds(10), 1000);
  EXPECT_LT(result.output.size(), 1100u);
  EXPECT_NE(result.output.find("[output truncated]"), std::string::npos);
}

TEST(Isolation, ShowsOnlyTheListedPaths) {
  TempDir home, root;
  SpawnOptions options = shell(
      "test ! -e /etc/passwd && test ! -e /root && test ! -e /proc/self && test -x /usr/bin/sh && "
      "echo made > " +
          (home.path() / "written").string() + " && id -u",
      home);
  options.isolation.enabled = true;
  options.isolation.root = root.path();
  options.isolation.read_only = {"/usr", "/bin", "/lib", "/lib64", "/etc/ld.so.cache"};
  options.isolation.writable = {home.path()};
  CommandResult result = run_command(options, std::chrono::seconds(10));
  if (result.status.exited && result.status.exit_code == kIsolationFailed) {
    GTEST_SKIP() << "namespaces are not permitted here: " << result.output;
  }
  EXPECT_TRUE(result.status.exited && result.status.exit_code == 0)
      << result.status.describe() << "\n"
      << result.output;
  EXPECT_TRUE(std::filesystem::exists(home.path() / "written"));
  if (::geteuid() == 0) {
    EXPECT_NE(result.output.find("65534"), std::string::npos) << result.output;
  }
  EXPECT_TRUE(std::filesystem::is_empty(root.path())) << "the view leaked into the host";
}

}  // namespace
}  // namespace accelopt
