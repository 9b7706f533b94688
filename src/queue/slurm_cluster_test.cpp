// The test Slurm cluster itself: it starts with its node idle, runs a batch job, and leaves no
// process behind when it goes, not even a job still running. Skips, saying why, where Slurm
// cannot start (not root, slurm-wlm or munge not installed).
#include "queue/slurm_cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "common/files.h"

namespace accelopt::queue {
namespace {

using namespace std::chrono_literals;

// The pids of processes whose environment holds `entry` (NAME=value).
std::vector<int> processes_with(const std::string& entry) {
  std::vector<int> found;
  std::error_code error;
  for (const auto& process : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = process.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::string environment;
    try {
      environment = read_file(process.path() / "environ");
    } catch (const std::exception&) {
      continue;
    }
    const std::string separator(1, '\0');
    if ((separator + environment).find(separator + entry + separator) != std::string::npos) {
      found.push_back(std::stoi(name));
    }
  }
  return found;
}

TEST(SlurmCluster, RunsABatchJobOnItsIdleNode) {
  std::string why;
  std::unique_ptr<SlurmCluster> cluster = SlurmCluster::start(why);
  if (cluster == nullptr) GTEST_SKIP() << why;
  EXPECT_EQ(cluster->command({"sinfo", "-h", "-o", "%P %T"}).output,
            cluster->partition() + "* idle");
  TempDir dir;
  std::filesystem::path output = dir.path() / "job.out";
  CommandResult submitted =
      cluster->command({"sbatch", "--parsable", "--output=" + output.string(),
                        "--wrap=echo ran in job $SLURM_JOB_ID of $SLURM_CLUSTER_NAME"});
  ASSERT_EQ(submitted.status.exit_code, 0) << submitted.output;
  std::string text;
  for (int wait = 0; wait < 150 && text.find('\n') == std::string::npos; ++wait) {
    std::this_thread::sleep_for(200ms);
    if (std::filesystem::exists(output)) text = read_file(output);
  }
  EXPECT_EQ(text, "ran in job " + submitted.output + " of accelopt-test\n");
}

TEST(SlurmCluster, EndsItsJobsAndDaemonsWhenItGoes) {
  std::string why;
  std::unique_ptr<SlurmCluster> cluster = SlurmCluster::start(why);
  if (cluster == nullptr) GTEST_SKIP() << why;
  std::string entry = cluster->environment_entry();
  std::filesystem::path root =
      std::filesystem::path(entry.substr(entry.find('=') + 1)).parent_path();
  CommandResult submitted =
      cluster->command({"sbatch", "--parsable", "--output=/dev/null", "--wrap=sleep 300"});
  ASSERT_EQ(submitted.status.exit_code, 0) << submitted.output;
  std::string state;
  for (int wait = 0; wait < 150 && state != "RUNNING"; ++wait) {
    std::this_thread::sleep_for(200ms);
    state = cluster->command({"squeue", "-h", "-j", submitted.output, "-o", "%T"}).output;
  }
  ASSERT_EQ(state, "RUNNING");
  // slurmctld, slurmd and the job's processes (its step daemon, shell, sleep) carry SLURM_CONF.
  EXPECT_GE(processes_with(entry).size(), 3u);
  cluster.reset();
  std::vector<int> left;
  for (int wait = 0; wait < 25; ++wait) {  // SIGKILL is sent; the kernel takes a moment
    left = processes_with(entry);
    if (left.empty()) break;
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_TRUE(left.empty()) << left.size() << " processes left, the first " << left.front();
  EXPECT_FALSE(std::filesystem::exists(root));
}

}  // namespace
}  // namespace accelopt::queue
