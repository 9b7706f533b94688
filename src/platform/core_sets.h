// The cores of evaluations timed at once on one machine: each gets cores of its own, so that two
// timings never share a core (each would measure the other), from the last core down, where the
// single evaluation's timing core is (cpu/machine.h's timing_cpu). The runners of an evaluation are
// pinned to its set (EvalRequest::cores); compiles may use any core that is not timing at the
// moment they start, an evaluation's own claimed cores included while it compiles. Only the
// cores this process may run on count, so a process pinned to some cores (taskset, a worker
// started on a core of its own) keeps its evaluations there.
#pragma once

#include <filesystem>
#include <vector>

namespace accelopt::platform {

// The cores this process may run on (its affinity), in order; all online ones where it cannot be
// read.
std::vector<int> allowed_cpus();

// `concurrency` sets of `threads` cores each out of `cpus` (allowed_cpus() when empty), from the
// last down. UserError when there are fewer than concurrency × threads.
std::vector<std::vector<int>> evaluation_cores(int concurrency, int threads,
                                               std::vector<int> cpus = {});

// Cores an evaluation holds against every other evaluation on this machine, of this process or
// another (two `accelopt eval` in two terminals, tests run side by side): an flock(2) on a file
// per core, released when the claim is dropped or its process dies. Without it every evaluation
// timed on the last core, and two at once each measured the other (issue 22).
class CoreClaim {
 public:
  CoreClaim() = default;
  CoreClaim(std::vector<int> cores, std::vector<int> locks, bool held);
  CoreClaim(CoreClaim&& other) noexcept;
  CoreClaim& operator=(CoreClaim&& other) noexcept;
  CoreClaim(const CoreClaim&) = delete;
  CoreClaim& operator=(const CoreClaim&) = delete;
  ~CoreClaim();

  const std::vector<int>& cores() const { return cores_; }
  // False when every core was held by others: `cores` are then the preferred ones, shared (the
  // timing's load figures will say so).
  bool held() const { return held_; }

 private:
  void release();
  std::vector<int> cores_;
  std::vector<int> locks_;  // open descriptors holding the flocks
  bool held_ = false;
};

// Where the claims' lock files live: /tmp/accelopt-cores, shared by every user.
std::filesystem::path core_claim_directory();

// `preferred` when no other evaluation holds any of them; else as many free cores of `allowed`,
// from the last down; else `preferred`, unclaimed. Never fails: a directory that cannot be used
// leaves the cores unclaimed.
CoreClaim claim_cores(const std::vector<int>& preferred, const std::vector<int>& allowed,
                      const std::filesystem::path& directory = core_claim_directory());

// Marks `cores` as timing now, against compiles of every process on this machine, for as long as
// the mark lives: a second flock per core ("cpuN.timing"), held only while turns are timed, not
// from an evaluation's start as its claim is. held(): every core was marked.
CoreClaim mark_timing(const std::vector<int>& cores,
                      const std::filesystem::path& directory = core_claim_directory());

// The cores of `cores` no evaluation is timing on now (this process's marks included): where a
// compile starting now disturbs no timing.
std::vector<int> untimed_cores(const std::vector<int>& cores,
                               const std::filesystem::path& directory = core_claim_directory());

}  // namespace accelopt::platform
