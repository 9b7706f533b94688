#include "platform/core_sets.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

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

CoreClaim::CoreClaim(std::vector<int> cores, std::vector<int> locks, bool held)
    : cores_(std::move(cores)), locks_(std::move(locks)), held_(held) {}

CoreClaim::CoreClaim(CoreClaim&& other) noexcept
    : cores_(std::move(other.cores_)),
      locks_(std::exchange(other.locks_, {})),
      held_(std::exchange(other.held_, false)) {}

CoreClaim& CoreClaim::operator=(CoreClaim&& other) noexcept {
  if (this != &other) {
    release();
    cores_ = std::move(other.cores_);
    locks_ = std::exchange(other.locks_, {});
    held_ = std::exchange(other.held_, false);
  }
  return *this;
}

CoreClaim::~CoreClaim() {
  release();
}

void CoreClaim::release() {
  for (int lock : locks_) ::close(lock);  // closing drops the flock
  locks_.clear();
}

std::filesystem::path core_claim_directory() {
  return "/tmp/accelopt-cores";
}

namespace {

// An open descriptor holding `core`'s lock (`kind`: ".lock" for a claim, ".timing" for a timing
// mark), or -1 when another evaluation holds it or the file cannot be used.
int try_lock(const std::filesystem::path& directory, int core, const char* kind = ".lock") {
  std::string path = (directory / ("cpu" + std::to_string(core) + kind)).string();
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return -1;
  ::fchmod(fd, 0666);  // whoever made it, every user's evaluations share it (umask aside)
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

void make_claim_directory(const std::filesystem::path& directory) {
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error)) {
    std::filesystem::create_directories(directory, error);
    ::chmod(directory.c_str(), 01777);  // like /tmp: anyone may add a file, not remove another's
  }
}

CoreClaim claim_cores(const std::vector<int>& preferred, const std::vector<int>& allowed,
                      const std::filesystem::path& directory) {
  make_claim_directory(directory);
  auto claim = [&](const std::vector<int>& candidates, size_t wanted) {
    std::vector<int> cores, locks;
    for (int core : candidates) {
      if (cores.size() == wanted) break;
      if (int fd = try_lock(directory, core); fd >= 0) {
        cores.push_back(core);
        locks.push_back(fd);
      }
    }
    CoreClaim held(cores, locks, true);  // released again when too few
    if (cores.size() < wanted) return CoreClaim();
    return held;
  };
  if (CoreClaim held = claim(preferred, preferred.size()); held.held()) return held;
  std::vector<int> others(allowed.rbegin(), allowed.rend());
  if (CoreClaim held = claim(others, preferred.size()); held.held()) return held;
  return CoreClaim(preferred, {}, false);
}

CoreClaim mark_timing(const std::vector<int>& cores, const std::filesystem::path& directory) {
  make_claim_directory(directory);
  std::vector<int> marked, locks;
  for (int core : cores) {
    if (int fd = try_lock(directory, core, ".timing"); fd >= 0) {
      marked.push_back(core);
      locks.push_back(fd);
    }
  }
  bool all = marked.size() == cores.size();
  return CoreClaim(std::move(marked), std::move(locks), all);
}

std::vector<int> untimed_cores(const std::vector<int>& cores,
                               const std::filesystem::path& directory) {
  std::vector<int> free;
  for (int core : cores) {
    if (int fd = try_lock(directory, core, ".timing"); fd >= 0) {
      ::close(fd);
      free.push_back(core);
    }
  }
  return free;
}

}  // namespace accelopt::platform
