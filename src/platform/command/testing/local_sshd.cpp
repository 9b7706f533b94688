#include "platform/command/testing/local_sshd.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>

namespace accelopt::testing {
namespace {

const char* kEvaluator = ACCELOPT_SOURCE_DIR "/evaluators/ssh-cpu/accelopt-ssh-evaluator";

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
  if (!result.status.exited || result.status.exit_code != 0) {
    throw std::runtime_error("ssh-keygen failed: " + result.output);
  }
}

}  // namespace

std::optional<std::string> LocalSshd::unavailable_reason() {
  for (const char* program :
       {"/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/python3"}) {
    if (!std::filesystem::exists(program)) {
      return std::string(program) +
             " is missing (Debian: openssh-server, openssh-client, python3; scripts/setup.sh)";
    }
  }
  return std::nullopt;
}

LocalSshd::LocalSshd() {
  // sshd running as root insists on its privilege separation directory.
  if (::geteuid() == 0) std::filesystem::create_directories("/run/sshd");
  const std::filesystem::path& dir = directory_.path();
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
  keygen(dir / "host_key");
  keygen(dir / "user_key");
  std::filesystem::copy_file(dir / "user_key.pub", dir / "authorized_keys");
  port_ = free_loopback_port();
  write_file_atomic(dir / "known_hosts",
                    "[127.0.0.1]:" + std::to_string(port_) + " " + read_file(dir / "host_key.pub"));
  write_file_atomic(dir / "sshd_config",
                    "Port " + std::to_string(port_) + "\nListenAddress 127.0.0.1\n" + "HostKey " +
                        (dir / "host_key").string() + "\n" + "AuthorizedKeysFile " +
                        (dir / "authorized_keys").string() + "\n" + "PidFile " +
                        (dir / "sshd.pid").string() + "\n" +
                        "StrictModes no\nPasswordAuthentication no\n"
                        "KbdInteractiveAuthentication no\nUsePAM no\n"
                        "PermitRootLogin prohibit-password\nLogLevel ERROR\n");
  SpawnOptions sshd;
  sshd.argv = {"/usr/sbin/sshd", "-D", "-e", "-f", (dir / "sshd_config").string()};
  sshd.environment = clean_environment(dir);
  sshd.output_file = dir / "sshd.log";
  sshd_.emplace(Process::spawn(sshd));
  for (int attempt = 0; attempt < 100 && !accepts_connections(port_); ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!accepts_connections(port_)) {
    throw std::runtime_error("sshd does not accept connections: " + read_file(dir / "sshd.log"));
  }
}

std::vector<std::string> LocalSshd::evaluator_argv(
    const std::filesystem::path& remote_accelopt,
    const std::vector<std::string>& remote_environment) const {
  const std::filesystem::path& dir = directory_.path();
  std::vector<std::string> argv = {"/usr/bin/python3",
                                   kEvaluator,
                                   "--host",
                                   std::string(::getpwuid(::geteuid())->pw_name) + "@127.0.0.1",
                                   "--port",
                                   std::to_string(port_),
                                   "--identity",
                                   (dir / "user_key").string(),
                                   "--remote-accelopt",
                                   remote_accelopt.string(),
                                   "--ssh-option",
                                   "UserKnownHostsFile=" + (dir / "known_hosts").string(),
                                   "--ssh-option",
                                   "StrictHostKeyChecking=yes"};
  for (const std::string& variable : remote_environment) {
    argv.push_back("--remote-env");
    argv.push_back(variable);
  }
  return argv;
}

}  // namespace accelopt::testing
