// evaluators/ssh-cpu against a real sshd: the test starts one on a free loopback port with a
// throwaway host key and authorized key in a temporary directory, and judges kernels through it
// with this build's accelopt as the "remote" harness.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "common/files.h"
#include "common/subprocess.h"
#include "platform/command/command_platform.h"

namespace accelopt::platform::command {
namespace {

const char* kEvaluator = ACCELOPT_SOURCE_DIR "/evaluators/ssh-cpu/accelopt-ssh-evaluator";
const char* kAccelopt = ACCELOPT_BINARY_DIR "/src/cli/accelopt";

int free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

bool accepts_connections(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return connected;
}

void keygen(const std::filesystem::path& file) {
  SpawnOptions options;
  options.argv = {"/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", file.string()};
  CommandResult result = run_command(options, std::chrono::milliseconds(20000));
  ASSERT_TRUE(result.status.exited && result.status.exit_code == 0) << result.output;
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

class SshEvaluatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* program :
         {"/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/python3"}) {
      if (!std::filesystem::exists(program)) {
        GTEST_SKIP() << program << " is missing (Debian: openssh-server, openssh-client, python3)";
      }
    }
    if (!std::filesystem::exists(kAccelopt)) GTEST_SKIP() << kAccelopt << " is not built";
    // sshd running as root insists on its privilege separation directory.
    if (::geteuid() == 0) std::filesystem::create_directories("/run/sshd");
    const std::filesystem::path& dir = directory_.path();
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
    keygen(dir / "host_key");
    keygen(dir / "user_key");
    std::filesystem::copy_file(dir / "user_key.pub", dir / "authorized_keys");
    port_ = free_loopback_port();
    write_text(dir / "known_hosts",
               "[127.0.0.1]:" + std::to_string(port_) + " " + read_file(dir / "host_key.pub"));
    write_text(dir / "sshd_config",
               "Port " + std::to_string(port_) + "\nListenAddress 127.0.0.1\n" + "HostKey " +
                   (dir / "host_key").string() + "\n" + "AuthorizedKeysFile " +
                   (dir / "authorized_keys").string() + "\n" + "PidFile " +
                   (dir / "sshd.pid").string() + "\n" +
                   "StrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                   "UsePAM no\nPermitRootLogin prohibit-password\nLogLevel ERROR\n");
    SpawnOptions sshd;
    sshd.argv = {"/usr/sbin/sshd", "-D", "-e", "-f", (dir / "sshd_config").string()};
    sshd.environment = clean_environment(dir);
    sshd.output_file = dir / "sshd.log";
    sshd_.emplace(Process::spawn(sshd));
    for (int attempt = 0; attempt < 100 && !accepts_connections(port_); ++attempt) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_TRUE(accepts_connections(port_)) << read_file(dir / "sshd.log");
  }

  Verdict evaluate(const std::string& source, bool measure_time) {
    const std::filesystem::path& dir = directory_.path();
    const char* cache = std::getenv("ACCELOPT_CACHE_DIR");
    CommandPlatformOptions options;
    options.name = "ssh-cpu";
    options.argv = {"/usr/bin/python3",
                    kEvaluator,
                    "--host",
                    std::string(::getpwuid(::geteuid())->pw_name) + "@127.0.0.1",
                    "--port",
                    std::to_string(port_),
                    "--identity",
                    (dir / "user_key").string(),
                    "--remote-accelopt",
                    kAccelopt,
                    "--remote-env",
                    std::string("ACCELOPT_CACHE_DIR=") + (cache ? cache : dir.c_str()),
                    "--ssh-option",
                    "UserKnownHostsFile=" + (dir / "known_hosts").string(),
                    "--ssh-option",
                    "StrictHostKeyChecking=yes"};
    options.correctness = CorrectnessMode::kEvaluator;
    options.timeout = std::chrono::milliseconds(300000);
    CommandPlatform platform(options, [](const task::Task&, const task::Workload&) {
      return std::vector<cpu::ReferenceCase>{};
    });
    EvalRequest request;
    request.task = &task_;
    request.workload = "small";
    request.source = source;
    request.measure_time = measure_time;
    request.timing.budget_seconds = 2;
    request.timing.target_half_width = 0.1;
    return platform.evaluate(request);
  }

  TempDir directory_{"accelopt-sshd"};
  int port_ = 0;
  std::optional<Process> sshd_;
  task::Task task_ = task::load_task(ACCELOPT_SOURCE_DIR "/bench/cpu/silu");
};

TEST_F(SshEvaluatorTest, TheBaselineJudgedOnTheRemoteHostPassesAndIsTimedAgainstItself) {
  Verdict verdict = evaluate(read_file(task_.baseline_path()), true);
  ASSERT_EQ(verdict.status, Status::kPassed) << verdict.message << "\n" << verdict.log;
  EXPECT_EQ(verdict.correctness.seeds_checked, task_.seeds);
  ASSERT_TRUE(verdict.timing);
  EXPECT_GE(verdict.timing->pairs, 10);
  EXPECT_GT(verdict.timing->speedup, 0.5);
  EXPECT_LT(verdict.timing->speedup, 2.0);
  EXPECT_EQ(verdict.profile["device"]["platform"], "cpu");
}

TEST_F(SshEvaluatorTest, ARemoteCompileErrorComesBackWithItsLog) {
  Verdict verdict = evaluate(
      "#include \"accelopt_task.h\"\n"
      "extern \"C\" void kernel(const float* __restrict x, float* __restrict out) {\n"
      "  out[0] = undefined_name;\n"
      "}\n",
      false);
  EXPECT_EQ(verdict.status, Status::kCompileError) << verdict.message;
  EXPECT_NE(verdict.log.find("undefined_name"), std::string::npos) << verdict.log;
}

}  // namespace
}  // namespace accelopt::platform::command
