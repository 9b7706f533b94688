// A throwaway one-node Slurm cluster for tests, beside store/postgres_cluster.h: a munge key and
// munged on a socket of its own, a slurm.conf naming this host as controller and as its only node
// (high free ports, state, spool and logs in a temporary directory), and slurmctld -D and
// slurmd -D as child processes. Slurm commands find it through SLURM_CONF (environment_entry()).
// When the object goes, its jobs are cancelled and every process it started (daemons, job steps,
// the jobs' own processes) is ended, even when a test fails.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/files.h"
#include "common/subprocess.h"

namespace accelopt::queue {

class SlurmCluster {
 public:
  // The running cluster with its node idle, or nullptr with `why` saying why not (not root, a
  // binary missing, a daemon that exited or never answered: with the last lines of its log) so a
  // test can skip saying so.
  static std::unique_ptr<SlurmCluster> start(std::string& why);
  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  // "SLURM_CONF=<dir>/slurm.conf": add it to the environment of a command that should use this
  // cluster (sbatch, squeue, `accelopt slurm`).
  std::string environment_entry() const;
  std::string partition() const { return "accelopt"; }
  // Runs a Slurm client command (argv[0] a name such as "squeue") against this cluster.
  CommandResult command(std::vector<std::string> argv,
                        std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;

 private:
  SlurmCluster() = default;
  void launch();
  void start_munge();
  void write_config();
  void start_daemons();
  std::vector<std::string> daemon_environment() const;
  void stop_jobs() const;
  void end_stray_processes() const;

  TempDir directory_{"accelopt-slurm"};
  std::optional<Process> munged_, slurmctld_, slurmd_;
};

}  // namespace accelopt::queue
