#include "platform/core_sets.h"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>

#include "common/error.h"

namespace accelopt::platform {

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) {
    long count = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
    for (int cpu = 0; cpu < count; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

std::vector<std::vector<int>> evaluation_cores(int concurrency, int threads,
                                               std::vector<int> cpus) {
  if (cpus.empty()) cpus = allowed_cpus();
  concurrency = std::max(1, concurrency);
  threads = std::max(1, threads);
  int have = static_cast<int>(cpus.size());
  if (concurrency * threads > have) {
    throw UserError(fmt::format(
        "eval_concurrency {} needs {} cores here ({} per evaluation, each timed on cores of its "
        "own); this machine has {}: lower it, or evaluate on workers (--remote-workers)",
        concurrency, concurrency * threads, threads, have));
  }
  std::vector<std::vector<int>> sets(static_cast<size_t>(concurrency));
  int next = have - 1;
  for (auto& set : sets) {
    for (int thread = 0; thread < threads; ++thread) set.insert(set.begin(), cpus[next--]);
  }
  return sets;
}

}  // namespace accelopt::platform
