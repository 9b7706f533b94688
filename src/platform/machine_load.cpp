#include "platform/machine_load.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

namespace accelopt::platform {

CpuTicks CpuTicks::operator-(const CpuTicks& earlier) const {
  return {other_busy - earlier.other_busy, other_total - earlier.other_total, steal - earlier.steal,
          total - earlier.total};
}

CpuTicks& CpuTicks::operator+=(const CpuTicks& more) {
  other_busy += more.other_busy;
  other_total += more.other_total;
  steal += more.steal;
  total += more.total;
  return *this;
}

double CpuTicks::other_busy_share() const {
  return other_total > 0 ? static_cast<double>(other_busy) / static_cast<double>(other_total) : 0;
}

double CpuTicks::steal_share() const {
  return total > 0 ? static_cast<double>(steal) / static_cast<double>(total) : 0;
}

std::optional<CpuTicks> read_cpu_ticks(const std::vector<int>& timed_cores) {
  std::ifstream stat("/proc/stat");
  if (!stat) return std::nullopt;
  CpuTicks ticks;
  std::string line;
  bool any = false;
  while (std::getline(stat, line)) {
    // "cpuN user nice system idle iowait irq softirq steal guest guest_nice"; "cpu " is the sum.
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] == ' ') continue;
    std::istringstream fields(line.substr(3));
    int core = -1;
    int64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    fields >> core >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    if (fields.fail()) continue;
    int64_t busy = user + nice + system + irq + softirq;
    int64_t total = busy + idle + iowait + steal;
    ticks.steal += steal;
    ticks.total += total;
    if (std::find(timed_cores.begin(), timed_cores.end(), core) == timed_cores.end()) {
      ticks.other_busy += busy;
      ticks.other_total += total;
    }
    any = true;
  }
  if (!any) return std::nullopt;
  return ticks;
}

double wait_for_quiet(const std::vector<int>& timed_cores, double most_seconds,
                      const CpuTicks& seen, double seen_seconds) {
  if (most_seconds <= 0) return 0;
  using Seconds = std::chrono::duration<double>;
  const double sample = Seconds(kQuietSample).count();
  if (seen_seconds >= sample && seen.other_busy_share() < kBusyOtherCores) return 0;
  auto most = Seconds(most_seconds);
  auto start = std::chrono::steady_clock::now();
  std::optional<CpuTicks> before = read_cpu_ticks(timed_cores);
  if (!before) return 0;
  // The first sample: what the turns did not cover, counted with what they saw.
  bool covered = seen_seconds >= sample;  // and busy: a sample of its own
  double first = covered ? sample : sample - std::max(seen_seconds, 0.0);
  CpuTicks carried = covered ? CpuTicks{} : seen;
  Seconds length(first);
  while (std::chrono::steady_clock::now() - start < most) {
    std::this_thread::sleep_for(length);
    std::optional<CpuTicks> after = read_cpu_ticks(timed_cores);
    if (!after) break;
    CpuTicks spell = *after - *before;
    spell += std::exchange(carried, CpuTicks{});
    if (spell.other_busy_share() < kBusyOtherCores) break;
    before = after;
    length = Seconds(sample);
  }
  // The first sample is the check, not a wait: a quiet machine costs at most one kQuietSample.
  return std::max(0.0, Seconds(std::chrono::steady_clock::now() - start).count() - first);
}

kernel::MachineLoad machine_load(const CpuTicks& ticks, int64_t involuntary_switches,
                                 std::optional<double> waited_for_core_share, int pairs,
                                 double waited_seconds) {
  kernel::MachineLoad load;
  load.other_cores_busy = ticks.other_busy_share();
  load.steal = ticks.steal_share();
  load.involuntary_switches = involuntary_switches;
  load.waited_for_core = waited_for_core_share;
  load.waited_seconds = waited_seconds;
  bool core_shared = waited_for_core_share ? *waited_for_core_share > kBusyWaitedForCore
                                           : static_cast<double>(involuntary_switches) >
                                                 kBusyPreemptionsPerPair * pairs;
  load.busy = load.other_cores_busy > kBusyOtherCores || load.steal > kBusySteal || core_shared;
  return load;
}

}  // namespace accelopt::platform
