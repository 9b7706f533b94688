#include "search/selection.h"

#include <algorithm>

namespace accelopt::search {

bool faster_beyond_noise(const kernel::Verdict& a, const kernel::Verdict& b) {
  if (!a.timing || !b.timing) return a.timing.has_value() && !b.timing.has_value();
  if (a.timing->anchor == b.timing->anchor) return a.timing->speedup_low > b.timing->speedup_high;
  return a.timing->latency_high < b.timing->latency_low;
}

double rank_value(const kernel::Verdict& verdict) {
  return verdict.timing ? verdict.timing->speedup : 0;
}

namespace {
bool ranks_before(const Scored& a, const Scored& b) {
  double va = rank_value(a.verdict), vb = rank_value(b.verdict);
  if (va != vb) return va > vb;
  return a.candidate < b.candidate;
}
}  // namespace

std::vector<Scored> update_beam(std::vector<Scored> beam, std::vector<Scored> newcomers,
                                int width) {
  std::sort(newcomers.begin(), newcomers.end(), ranks_before);
  for (Scored& newcomer : newcomers) {
    bool present = std::any_of(beam.begin(), beam.end(), [&](const Scored& kernel) {
      return kernel.candidate == newcomer.candidate;
    });
    if (present) continue;
    if (static_cast<int>(beam.size()) < width) {
      beam.push_back(std::move(newcomer));
      continue;
    }
    auto slowest = std::min_element(beam.begin(), beam.end(), [](const Scored& a, const Scored& b) {
      return ranks_before(b, a);
    });
    if (slowest != beam.end() && faster_beyond_noise(newcomer.verdict, slowest->verdict)) {
      *slowest = std::move(newcomer);
    }
  }
  std::sort(beam.begin(), beam.end(), ranks_before);
  return beam;
}

const Scored& fastest(const std::vector<Scored>& kernels) {
  return *std::min_element(kernels.begin(), kernels.end(), ranks_before);
}

}  // namespace accelopt::search
