#include "queue/slurm_cluster.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <thread>

#include "common/error.h"

namespace accelopt::queue {
namespace {

using namespace std::chrono_literals;

constexpr const char* kDaemonPath = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
constexpr const char* kNode = "accelopt-node";

// `name` on $PATH or in the system binary folders (slurmctld, munged live in /usr/sbin, which a
// user's PATH may lack); empty when nowhere.
std::filesystem::path find_program(const std::string& name) {
  std::string folders = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  folders += ":/usr/sbin:/usr/bin:/sbin:/bin";
  std::stringstream stream(folders);
  std::string folder;
  while (std::getline(stream, folder, ':')) {
    if (folder.empty()) continue;
    std::filesystem::path candidate = std::filesystem::path(folder) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// Two distinct TCP ports free on this host now: the kernel hands out unused ones for port 0.
std::array<int, 2> free_ports() {
  std::array<int, 2> sockets{-1, -1};
  std::array<int, 2> ports{};
  for (size_t index = 0; index < sockets.size(); ++index) {
    sockets[index] = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (sockets[index] < 0 ||
        ::bind(sockets[index], reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::getsockname(sockets[index], reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      for (int socket : sockets) {
        if (socket >= 0) ::close(socket);
      }
      throw InternalError("cannot find a free TCP port for Slurm");
    }
    ports[index] = ntohs(address.sin_port);
  }
  for (int socket : sockets) ::close(socket);
  return ports;
}

std::string last_lines(const std::filesystem::path& log, size_t count = 15) {
  std::string text;
  try {
    text = read_file(log);
  } catch (const std::exception&) {
    return "(no log at " + log.string() + ")";
  }
  size_t start = text.size();
  for (size_t lines = 0; start > 0 && lines <= count;) {
    if (text[--start] == '\n') ++lines;
  }
  return text.substr(start);
}

// Polls `ready` every 200 ms until it holds; throws when `daemon` exits first or at `timeout`.
void wait_until(Process& daemon, const std::string& name, const std::filesystem::path& log,
                const std::function<bool()>& ready, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!ready()) {
    if (auto status = daemon.try_wait()) {
      throw InternalError(fmt::format("{} {}; the end of its log ({}):\n{}", name,
                                      status->describe(), log.string(), last_lines(log)));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw InternalError(fmt::format("{} did not answer within {} s; the end of its log ({}):\n{}",
                                      name, timeout.count(), log.string(), last_lines(log)));
    }
    std::this_thread::sleep_for(200ms);
  }
}

std::string host_name() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return "localhost";
  return name.data();
}

}  // namespace

std::unique_ptr<SlurmCluster> SlurmCluster::start(std::string& why) {
  if (::geteuid() != 0) {
    why = "a test Slurm cluster needs root (slurmd starts jobs as their user)";
    return nullptr;
  }
  for (const char* program : {"mungekey", "munged", "slurmctld", "slurmd", "slurmstepd", "sbatch",
                              "scontrol", "sinfo", "squeue", "scancel"}) {
    if (find_program(program).empty()) {
      why = fmt::format("{} is not installed (install slurm-wlm and munge: scripts/setup.sh)",
                        program);
      return nullptr;
    }
  }
  std::unique_ptr<SlurmCluster> cluster(new SlurmCluster());
  try {
    cluster->launch();
  } catch (const std::exception& error) {
    why = fmt::format("the test Slurm cluster would not start: {}", error.what());
    return nullptr;
  }
  return cluster;
}

void SlurmCluster::launch() {
  const std::filesystem::path& root = directory_.path();
  for (const char* folder : {"state", "spool", "log"}) {
    std::filesystem::create_directories(root / folder);
  }
  start_munge();
  write_config();
  start_daemons();
}

void SlurmCluster::start_munge() {
  const std::filesystem::path& root = directory_.path();
  SpawnOptions key;
  key.argv = {find_program("mungekey").string(), "--create",
              "--keyfile=" + (root / "munge.key").string()};
  key.environment = {kDaemonPath, "LANG=C"};
  CommandResult created = run_command(key, 30s);
  if (!created.status.exited || created.status.exit_code != 0) {
    throw InternalError("mungekey " + created.status.describe() + ": " + created.output);
  }
  // -F: a child we can end, logging to its output; -f: run although the temporary folder's parents
  // are world-writable.
  SpawnOptions options;
  options.argv = {find_program("munged").string(),
                  "-F",
                  "-f",
                  "--socket=" + (root / "munge.socket").string(),
                  "--key-file=" + (root / "munge.key").string(),
                  "--pid-file=" + (root / "munged.pid").string(),
                  "--seed-file=" + (root / "munged.seed").string()};
  options.environment = {kDaemonPath, "LANG=C"};
  options.output_file = root / "log" / "munged.log";
  munged_ = Process::spawn(options);
  wait_until(
      *munged_, "munged", options.output_file,
      [&] { return std::filesystem::exists(root / "munge.socket"); }, 20s);
}

void SlurmCluster::write_config() {
  const std::filesystem::path& root = directory_.path();
  auto [controller_port, node_port] = free_ports();
  // Two CPUs at least, so that two one-CPU jobs run at once on a one-core host; config_overrides
  // lets slurmd take these figures rather than drain a node whose hardware differs.
  unsigned cpus = std::max(2u, std::thread::hardware_concurrency());
  std::string config = fmt::format(
      "ClusterName=accelopt-test\n"
      "SlurmctldHost={host}(127.0.0.1)\n"
      "SlurmctldPort={controller_port}\n"
      "SlurmdPort={node_port}\n"
      "SlurmUser=root\n"
      "SlurmdUser=root\n"
      "AuthType=auth/munge\n"
      "CredType=cred/munge\n"
      "AuthInfo=socket={root}/munge.socket\n"
      "StateSaveLocation={root}/state\n"
      "SlurmdSpoolDir={root}/spool\n"
      "SlurmctldPidFile={root}/slurmctld.pid\n"
      "SlurmdPidFile={root}/slurmd.pid\n"
      "ProctrackType=proctrack/linuxproc\n"
      "TaskPlugin=task/none\n"
      "SelectType=select/cons_tres\n"
      "SelectTypeParameters=CR_CPU\n"
      "SchedulerType=sched/backfill\n"
      "JobAcctGatherType=jobacct_gather/none\n"
      "AccountingStorageType=accounting_storage/none\n"
      "JobCompType=jobcomp/none\n"
      "MpiDefault=none\n"
      "ReturnToService=2\n"
      "SlurmdParameters=config_overrides\n"
      "InactiveLimit=0\n"
      "KillWait=5\n"
      "MinJobAge=300\n"
      "NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 State=UNKNOWN\n"
      "PartitionName={partition} Nodes={node} Default=YES MaxTime=INFINITE State=UP\n",
      fmt::arg("host", host_name()), fmt::arg("controller_port", controller_port),
      fmt::arg("node_port", node_port), fmt::arg("root", root.string()), fmt::arg("node", kNode),
      fmt::arg("cpus", cpus), fmt::arg("partition", partition()));
  write_file_atomic(root / "slurm.conf", config);
}

std::vector<std::string> SlurmCluster::daemon_environment() const {
  return {kDaemonPath, "LANG=C", environment_entry()};
}

void SlurmCluster::start_daemons() {
  const std::filesystem::path& logs = directory_.path() / "log";
  SpawnOptions controller;
  controller.argv = {find_program("slurmctld").string(), "-D"};
  controller.environment = daemon_environment();
  controller.working_directory = directory_.path();
  controller.output_file = logs / "slurmctld.log";
  slurmctld_ = Process::spawn(controller);
  wait_until(
      *slurmctld_, "slurmctld", controller.output_file,
      [&] {
        return command({"scontrol", "ping"}, 10s).output.find("is UP") != std::string::npos;
      },
      30s);

  SpawnOptions node;
  node.argv = {find_program("slurmd").string(), "-D", "-N", kNode};
  node.environment = daemon_environment();
  node.working_directory = directory_.path();
  node.output_file = logs / "slurmd.log";
  slurmd_ = Process::spawn(node);
  wait_until(
      *slurmd_, "slurmd", node.output_file,
      [&] {
        return command({"sinfo", "-h", "-n", kNode, "-o", "%T"}, 10s).output == "idle";
      },
      30s);
}

std::string SlurmCluster::environment_entry() const {
  return "SLURM_CONF=" + (directory_.path() / "slurm.conf").string();
}

CommandResult SlurmCluster::command(std::vector<std::string> argv,
                                    std::chrono::milliseconds timeout) const {
  std::filesystem::path program = find_program(argv.at(0));
  if (program.empty()) throw InternalError(argv[0] + " is not installed");
  argv[0] = program.string();
  SpawnOptions options;
  options.argv = std::move(argv);
  options.environment = daemon_environment();
  CommandResult result = run_command(options, timeout);
  while (!result.output.empty() && result.output.back() == '\n') result.output.pop_back();
  return result;
}

SlurmCluster::~SlurmCluster() {
  try {
    stop_jobs();
  } catch (const std::exception&) {  // the daemons and strays are ended below all the same
  }
  slurmd_.reset();  // a Process ends its group with SIGKILL
  slurmctld_.reset();
  munged_.reset();
  end_stray_processes();
}

// Cancels every job and waits (a few seconds) for their steps to end.
void SlurmCluster::stop_jobs() const {
  if (!slurmctld_ || !slurmd_) return;
  command({"scancel", "--partition=" + partition()});
  for (int wait = 0; wait < 50; ++wait) {
    CommandResult queued = command({"squeue", "-h", "-o", "%i"});
    if (queued.status.exit_code == 0 && queued.output.empty()) return;
    std::this_thread::sleep_for(200ms);
  }
}

// slurmd's step daemons and the jobs' processes leave its process group; all of them carry this
// cluster's SLURM_CONF in their environment, so that is how they are found.
void SlurmCluster::end_stray_processes() const {
  std::string marker = environment_entry();
  marker.push_back('\0');
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    pid_t pid = std::stoi(name);
    if (pid == ::getpid()) continue;
    std::string environment;
    try {
      environment = read_file(entry.path() / "environ");
    } catch (const std::exception&) {
      continue;  // gone already, or a kernel thread
    }
    if (environment.starts_with(marker) ||
        environment.find(std::string(1, '\0') + marker) != std::string::npos) {
      ::kill(pid, SIGKILL);
    }
  }
}

}  // namespace accelopt::queue
