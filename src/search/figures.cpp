#include "search/figures.h"

#include <fmt/format.h>

#include <algorithm>

#include "platform/roofline.h"

namespace accelopt::search {

RunScale::RunScale(const kernel::Verdict& baseline) {
  if (!baseline.passed()) return;
  if (baseline.timing) latency_ = baseline.timing->latency_seconds;
  if (baseline.roofline) percent_ = baseline.roofline->percent_of_peak;
}

Figures RunScale::baseline() const {
  return of(1, 1, 1);
}

Figures RunScale::of(double speedup, double low, double high) const {
  Figures figures;
  if (speedup <= 0) return figures;
  figures.speedup = speedup;
  figures.speedup_low = low;
  figures.speedup_high = high;
  kernel::Timing ratio;
  ratio.speedup = speedup;
  ratio.speedup_low = low;
  ratio.speedup_high = high;
  platform::LatencyInterval latency = platform::derive_latency(latency_, ratio);
  figures.latency_seconds = latency.seconds;
  figures.latency_low = latency.low;
  figures.latency_high = latency.high;
  // % of peak is inversely proportional to latency: the baseline's % scaled by the speedup.
  figures.percent_of_peak = percent_ * speedup;
  figures.percent_low = percent_ * low;
  figures.percent_high = percent_ * high;
  return figures;
}

Figures RunScale::of(const kernel::Verdict& verdict) const {
  if (!verdict.passed() || !verdict.timing) return {};
  return of(verdict.timing->speedup, verdict.timing->speedup_low, verdict.timing->speedup_high);
}

std::optional<roles::KernelFigures> kernel_figures(const RunScale& scale,
                                                   const kernel::Verdict& verdict, bool baseline,
                                                   int iteration,
                                                   const std::vector<roles::NamedSpeedup>& others) {
  if (!verdict.passed() || !verdict.timing) return std::nullopt;
  Figures figures = baseline ? scale.baseline() : scale.of(verdict);
  if (figures.speedup <= 0) return std::nullopt;
  roles::KernelFigures result;
  result.baseline = baseline;
  result.speedup = figures.speedup;
  result.speedup_low = figures.speedup_low;
  result.speedup_high = figures.speedup_high;
  result.latency_seconds = figures.latency_seconds;
  result.latency_low = figures.latency_low;
  result.latency_high = figures.latency_high;
  result.percent_of_peak = figures.percent_of_peak;
  result.percent_low = figures.percent_low;
  result.percent_high = figures.percent_high;
  if (baseline) {
    result.origin = "timed carefully at the start of the run";
    return result;
  }
  result.origin = iteration > 0
                      ? fmt::format("timed paired against the baseline in iteration {}", iteration)
                      : "timed paired against the baseline at the start of the run";
  for (const roles::NamedSpeedup& other : others) {
    if (other.speedup <= 0) continue;
    if (other.speedup_low > result.speedup_high || other.speedup_high < result.speedup_low) {
      result.disagreeing.push_back(other);
    }
  }
  return result;
}

std::vector<BaselineRetiming> baseline_retimings(
    int64_t run_id, int64_t baseline, const std::vector<store::MemoryEntryRecord>& entries,
    const std::optional<Confirmation>& confirmation) {
  std::vector<BaselineRetiming> retimings;
  for (const store::MemoryEntryRecord& entry : entries) {
    if (entry.run_id == run_id && entry.slow_candidate == baseline) {
      retimings.push_back({entry.fast_candidate,
                           {fmt::format("memory re-timing, iteration {}", entry.iteration),
                            entry.speedup, entry.speedup_low, entry.speedup_high}});
    }
    // The run's finding of a lesson stored before (store.h: evidence) is its re-timing too.
    for (const Json& found : entry.evidence) {
      if (found.value("run", int64_t{0}) != run_id || found.value("slow", int64_t{0}) != baseline) {
        continue;
      }
      retimings.push_back(
          {found.value("fast", int64_t{0}),
           {fmt::format("memory re-timing, iteration {}", found.value("iteration", 0)),
            found.value("speedup", 1.0), found.value("speedup_low", 1.0),
            found.value("speedup_high", 1.0)}});
    }
  }
  if (confirmation) {
    std::string name =
        confirmation->iterations >= 0
            ? fmt::format("final confirmation after iteration {}", confirmation->iterations)
            : std::string("final confirmation");
    for (const Measurement& measured : confirmation->measurements) {
      if (measured.against != baseline || !measured.passed()) continue;
      retimings.push_back({measured.candidate,
                           {name, measured.speedup, measured.speedup_low, measured.speedup_high}});
    }
  }
  return retimings;
}

platform::TimingOptions careful_timing(const platform::TimingOptions& candidate) {
  platform::TimingOptions careful = candidate;
  careful.target_half_width = candidate.target_half_width / 2;
  careful.budget_seconds = candidate.budget_seconds * 3;
  careful.min_pairs = candidate.min_pairs * 2;
  careful.max_pairs = std::max(candidate.max_pairs, careful.min_pairs);
  return careful;
}

}  // namespace accelopt::search
