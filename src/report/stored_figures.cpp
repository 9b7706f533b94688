#include "report/stored_figures.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/hash.h"
#include "report/run_text.h"
#include "report/run_view.h"
#include "search/kept_baseline.h"

namespace accelopt::report {

std::vector<StoredFigure> stored_figures(const store::Store& store, const std::string& task,
                                         const std::string& workload, const std::string& source,
                                         const std::string& anchor_source) {
  std::vector<StoredFigure> found;
  for (const store::RunRecord& run : store.runs()) {
    search::RunSettings settings = search::RunSettings::from_json(run.config);
    if (settings.task != task || settings.workload != workload) continue;
    std::vector<store::CandidateRecord> candidates = store.candidates(run.id);
    auto same = std::find_if(candidates.begin(), candidates.end(),
                             [&](const auto& candidate) { return candidate.source == source; });
    if (same == candidates.end()) continue;
    RunView view = load_run_view(store, run.id);
    StoredFigure stored;
    stored.run = run.id;
    stored.candidate = same->id;
    stored.figures = view.figures(same->id);
    if (stored.figures.speedup <= 0) continue;  // failed or not timed there
    auto told = view.kernel_figures(same->id);
    stored.origin = same->id == view.baseline_id() ? "the run's baseline"
                    : told                         ? told->origin
                                                   : "";
    const store::CandidateRecord* baseline = view.candidate(view.baseline_id());
    stored.same_baseline = baseline != nullptr && baseline->source == anchor_source;
    found.push_back(stored);
  }
  return found;
}

std::string stored_figures_text(const std::vector<StoredFigure>& stored,
                                const kernel::Verdict& verdict) {
  std::string text;
  bool timed = verdict.passed() && verdict.timing.has_value();
  for (const StoredFigure& one : stored) {
    text += fmt::format("stored     run {} #{}: {} ({})\n", one.run, one.candidate,
                        figures_text(one.figures), one.origin);
    if (!timed) continue;
    if (!one.same_baseline) {
      text += "           that run timed it against another baseline: the two do not compare\n";
      continue;
    }
    roles::NamedSpeedup now{"this evaluation", verdict.timing->speedup, verdict.timing->speedup_low,
                            verdict.timing->speedup_high, verdict.timing->busy()};
    roles::NamedSpeedup then{"stored", one.figures.speedup, one.figures.speedup_low,
                             one.figures.speedup_high, one.figures.busy};
    if (search::disjoint(now, then)) {
      text += fmt::format(
          "           DISJOINT: this evaluation's {:.2f}x [{:.2f}, {:.2f}] and run {}'s {:.2f}x "
          "[{:.2f}, {:.2f}] do not overlap; {}\n",
          now.speedup, now.speedup_low, now.speedup_high, one.run, then.speedup, then.speedup_low,
          then.speedup_high, search::moved_text(then, now));
    } else {
      text += "           agrees with this evaluation (their intervals overlap)\n";
    }
  }
  return text;
}

std::string kept_baseline_text(const std::optional<store::KeptBaseline>& kept,
                               const std::string& anchor_source, const kernel::Verdict& verdict) {
  if (!kept || !verdict.passed() || !verdict.timing || !verdict.roofline) return {};
  if (kept->baseline_hash != sha256_hex(anchor_source) ||
      kept->probe != search::probe_identity(*verdict.roofline)) {
    return {};
  }
  search::RunScale scale(kept->latency_seconds, kept->percent_of_peak);
  const kernel::Timing& timing = *verdict.timing;
  search::Figures figures = scale.of(timing.speedup, timing.speedup_low, timing.speedup_high);
  return fmt::format(
      "kept       baseline {} measured quietly by run {} at {}: at this speedup {}, {:.1f} % of "
      "peak, as a run in this workspace derives them (the lines above rest on this evaluation's "
      "reading of the baseline, {})\n",
      kernel::latency_text(kept->latency_seconds), kept->run_id, kept->measured_at,
      kernel::latency_text(figures.latency_seconds), figures.percent_of_peak,
      kernel::latency_text(timing.anchor_latency_seconds));
}

}  // namespace accelopt::report
