#include "report/run_text.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "report/line_diff.h"

namespace accelopt::report {

std::string figures_text(const search::Figures& figures) {
  return fmt::format("{:.2f}x [{:.2f}, {:.2f}]{}  {:.1f}% of peak{}", figures.speedup,
                     figures.speedup_low, figures.speedup_high, search::busy_mark(figures.busy),
                     figures.percent_of_peak, kernel::over_ceiling_note(figures.percent_of_peak));
}

std::string candidate_figures(const RunView& view, int64_t id) {
  const kernel::Verdict* verdict = view.verdict(id);
  if (verdict == nullptr) return "";
  if (!verdict->passed()) return std::string(kernel::status_name(verdict->status));
  return figures_text(view.figures(id));
}

namespace {

// Candidate `id`'s measurements against the baseline that disagree with another, in the order
// taken; empty when they agree. `figure` becomes the run's figure: the most precise.
std::vector<roles::NamedSpeedup> moved_measurements(const RunView& view, int64_t id,
                                                    roles::NamedSpeedup& figure) {
  std::vector<roles::NamedSpeedup> moved;
  const kernel::Verdict* verdict = view.verdict(id);
  const store::CandidateRecord* record = view.candidate(id);
  if (verdict == nullptr || record == nullptr || id == view.baseline_id()) return moved;
  std::vector<roles::NamedSpeedup> all = {search::search_measurement(*verdict, record->iteration)};
  for (const roles::NamedSpeedup& other : view.retimings(id)) all.push_back(other);
  if (const roles::NamedSpeedup* chosen = search::most_precise(all)) figure = *chosen;
  for (const roles::NamedSpeedup& one : all) {
    bool disagrees = std::any_of(all.begin(), all.end(), [&](const roles::NamedSpeedup& other) {
      return search::disjoint(one, other);
    });
    if (disagrees) moved.push_back(one);
  }
  return moved;
}

}  // namespace

std::vector<std::string> moved_figures(const RunView& view, int64_t id) {
  roles::NamedSpeedup figure;
  std::vector<std::string> moved;
  for (const roles::NamedSpeedup& one : moved_measurements(view, id, figure)) {
    moved.push_back(fmt::format("{}: {:.2f}x [{:.2f}, {:.2f}]{}{}", one.name, one.speedup,
                                one.speedup_low, one.speedup_high, search::busy_mark(one.busy),
                                one.name == figure.name ? " (the run's figure)" : ""));
  }
  return moved;
}

std::string moved_head(const RunView& view, int64_t id) {
  roles::NamedSpeedup figure;
  std::vector<roles::NamedSpeedup> moved = moved_measurements(view, id, figure);
  if (moved.empty()) return "";
  return search::moved_text(moved.front(), moved.back());
}

std::string moved_line(const RunView& view, int64_t id) {
  std::vector<std::string> moved = moved_figures(view, id);
  if (moved.empty()) return "";
  return moved_head(view, id) + ": " + fmt::format("{}", fmt::join(moved, "; "));
}

namespace {

constexpr size_t kWidth = 100;  // what every table fits

// Under a kernel's row, where its measurements disagree: "! figures moved between measurements:"
// and each, wrapped to the table's width.
void print_moved(std::ostream& out, const RunView& view, int64_t id, const std::string& indent) {
  std::vector<std::string> moved = moved_figures(view, id);
  if (moved.empty()) return;
  std::string line = indent + "! " + moved_head(view, id) + ":";
  for (size_t index = 0; index < moved.size(); ++index) {
    std::string piece = moved[index] + (index + 1 < moved.size() ? ";" : "");
    if (line.size() + 1 + piece.size() > kWidth) {
      out << line << "\n";
      line = indent + "   ";
    }
    line += " " + piece;
  }
  out << line << "\n";
}

// The run's best as `runs` lists it: the kernel's one figure (RunView::best, as `show` and
// `export` give it), a "?" marking a best that nothing beyond noise confirmed (kUnconfirmedLegend);
// and its % of peak, the baseline's times that speedup (search/figures.h).
struct BestFigures {
  std::string speedup = "-";
  std::string percent = "-";
  bool unconfirmed = false;
};

constexpr std::string_view kUnconfirmedLegend =
    "?: not confirmed: no final re-timing yet, or it could not tell the best from the baseline";

BestFigures best_figures(const RunView& view) {
  auto best = view.best();
  if (!best || best->figures.speedup <= 0) return {};
  // The baseline as the best needs no confirming: it is 1x by definition.
  bool significant =
      best->candidate == view.baseline_id() ||
      (view.confirmation && view.confirmation->done && view.confirmation->significant);
  BestFigures figures{fmt::format("{:.2f}x{}", best->figures.speedup, significant ? "" : "?"), "-",
                      !significant};
  if (view.scale.baseline_percent() > 0) {
    figures.percent = fmt::format("{:.1f}", best->figures.percent_of_peak);
  }
  return figures;
}

// Whether any figure of the run was measured on a busy machine: the tables then end with the
// legend of their [busy] mark.
bool any_busy(const RunView& view) {
  for (const auto& [id, trace] : view.traces) {
    if (trace.verdict.timing && trace.verdict.timing->busy()) return true;
  }
  if (!view.confirmation) return false;
  const auto& measured = view.confirmation->measurements;
  return std::any_of(measured.begin(), measured.end(), [](const auto& m) { return m.busy; });
}

// 2026-01-01T12:34:56.789Z as 2026-01-01 12:34.
std::string short_timestamp(const std::string& timestamp) {
  if (timestamp.size() < 16 || timestamp[10] != 'T') return timestamp;
  return timestamp.substr(0, 10) + " " + timestamp.substr(11, 5);
}

std::string confirmation_text(const RunView& view, std::string_view workspace_option) {
  if (view.confirmation) return view.confirmation->outcome();
  const std::string& state = view.run.state;
  std::string resume = fmt::format("`accelopt resume {}{}{}` continues it", view.run.id,
                                   workspace_option.empty() ? "" : " ", workspace_option);
  if (state.rfind("failed", 0) == 0) {
    return fmt::format("not confirmed: the run {}; {}", state, resume);
  }
  if (state == "interrupted") return "not confirmed: the run was interrupted; " + resume;
  if (state.rfind("stopped", 0) == 0) {
    return fmt::format("not confirmed: the run {}; {}", state, resume);
  }
  return "not confirmed (the run has not ended)";
}

// "#5 executor (llm:tiny: Unroll the loop)", its plan cut to keep it within `width`.
std::string describe_candidate(const RunView& view, int64_t id, size_t width = 80) {
  const store::CandidateRecord* candidate = view.candidate(id);
  if (candidate == nullptr) return fmt::format("#{}", id);
  std::string head =
      fmt::format("#{} {} ({}: ", id, store::kind_name(candidate->kind), candidate->author);
  size_t room = width > head.size() + 11 ? width - head.size() - 1 : 10;
  return head + one_line(candidate->plan.value("text", ""), room) + ")";
}

// A run on remote workers: how many evaluations were made on how many workers, and each one that
// was redone (its worker lost, or a harness failure on one) with why the earlier attempts ended.
// Nothing for a local run.
void print_remote(std::ostream& out, const RunView& view) {
  std::vector<std::pair<int64_t, kernel::RemoteEvaluation>> redone;
  std::set<std::string> workers;
  int evaluations = 0;
  for (const auto& [id, trace] : view.traces) {
    if (trace.reused_from || !trace.verdict.remote) continue;
    ++evaluations;
    workers.insert(trace.verdict.remote->worker);
    if (trace.verdict.remote->redone()) redone.emplace_back(id, *trace.verdict.remote);
  }
  if (evaluations == 0) return;
  fmt::print(out, "\nremote evaluations: {} on {} worker{}, {}\n", evaluations, workers.size(),
             workers.size() == 1 ? "" : "s",
             redone.empty() ? "none redone" : fmt::format("{} redone", redone.size()));
  for (const auto& [id, remote] : redone) {
    fmt::print(out, "  #{} redone: attempt {} of job {} on {}; before: {}\n", id, remote.attempt,
               remote.job, remote.worker, remote.earlier.empty() ? "?" : remote.earlier);
  }
}

void print_iterations(std::ostream& out, const RunView& view) {
  fmt::print(out, "{:>9} {:>10} {:>7} {:>8} {:>9} {:>15} {:>7}\n", "iteration", "candidates",
             "failed", "reused", "best", "best % of peak", "memory");
  for (const auto& checkpoint : view.checkpoints) {
    int count = 0, failed = 0, reused = 0;
    for (const auto& candidate : view.candidates) {
      if (candidate.iteration != checkpoint.iteration) continue;
      ++count;
      auto trace = view.traces.find(candidate.id);
      if (trace == view.traces.end()) continue;
      if (trace->second.verdict.failed()) ++failed;
      if (trace->second.reused_from) ++reused;
    }
    auto beam = view.beam_of(checkpoint);
    auto made =
        std::count_if(view.memory_written.begin(), view.memory_written.end(),
                      [&](const auto& entry) { return entry.iteration == checkpoint.iteration; });
    search::Figures best = beam.empty()
                               ? search::Figures{}
                               : view.figures(search::fastest(beam, view.comparisons).candidate);
    fmt::print(out, "{:>9} {:>10} {:>7} {:>8} {:>8.2f}x {:>14.1f}% {:>7}{}{}\n",
               checkpoint.iteration, count, failed, reused, best.speedup, best.percent_of_peak,
               made, search::busy_mark(best.busy), kernel::over_ceiling_note(best.percent_of_peak));
  }
}

void print_cost_by_role(std::ostream& out, const std::vector<llm::CallRecord>& calls) {
  if (calls.empty()) {
    out << "  no model calls (tuner agents)\n";
    return;
  }
  for (const auto& [role, totals] : llm::totals_by_role(calls)) {
    fmt::print(out, "  {:<11} {:>5} calls {:>9} tokens  ${:.4f}\n", role, totals.calls,
               totals.prompt_tokens + totals.completion_tokens, totals.cost_usd);
  }
  auto all = llm::total(calls);
  fmt::print(out, "  {:<11} {:>5} calls {:>9} tokens  ${:.4f}\n", "total", all.calls,
             all.prompt_tokens + all.completion_tokens, all.cost_usd);
}

void print_cost_table(std::ostream& out, std::string_view title,
                      const std::map<std::string, llm::CallTotals>& rows) {
  fmt::print(out, "{:<14} {:>6} {:>6} {:>11} {:>11} {:>10} {:>10} {:>11} {:>9}\n", title, "calls",
             "failed", "prompt", "completion", "reasoning", "cached", "cost_usd", "time_s");
  for (const auto& [name, totals] : rows) {
    fmt::print(out, "{:<14} {:>6} {:>6} {:>11} {:>11} {:>10} {:>10} {:>11.4f} {:>9.1f}\n",
               name.empty() ? "-" : name, totals.calls, totals.failed_calls, totals.prompt_tokens,
               totals.completion_tokens, totals.reasoning_tokens, totals.cached_tokens,
               totals.cost_usd, totals.latency_s);
  }
}

}  // namespace

void print_runs(std::ostream& out, const store::Store& store, const std::string& workspace) {
  auto runs = store.runs();
  if (runs.empty()) {
    out << "no runs in " << store::redact_url(workspace) << "\n";
    return;
  }
  // A state too long for the row's end ("failed: why") goes on a line of its own under it.
  constexpr const char* kRow = "{:>4}  {:<18} {:<8} {:<6} {:<7} {:>4} {:>8} {:>6}  {:<16} {}\n";
  constexpr size_t kStateColumn = 88;
  fmt::print(out, kRow, "run", "task", "workload", "agents", "preset", "iter", "speedup", "% peak",
             "updated", "state");
  bool any_unconfirmed = false;
  for (const auto& run : runs) {
    auto checkpoint = store.last_checkpoint(run.id);
    search::RunSettings settings = search::RunSettings::from_json(run.config);
    BestFigures best = checkpoint ? best_figures(load_run_view(store, run.id)) : BestFigures{};
    any_unconfirmed = any_unconfirmed || best.unconfirmed;
    bool state_fits = run.state.size() <= kWidth - kStateColumn;
    fmt::print(out, kRow, run.id, or_unknown(settings.task), or_unknown(settings.workload),
               or_unknown(settings.agents), settings.search.preset,
               checkpoint ? checkpoint->iteration : 0, best.speedup, best.percent,
               short_timestamp(run.updated_at), state_fits ? run.state : "(below)");
    if (!state_fits) fmt::print(out, "      {}\n", one_line(run.state, kWidth - 6));
  }
  if (any_unconfirmed) fmt::print(out, "{}\n", kUnconfirmedLegend);
}

void print_show(std::ostream& out, const RunView& view, std::string_view workspace_option) {
  const search::RunSettings& settings = view.settings;
  fmt::print(out, "run {}  task {} (workload {})  agents {}  preset {}  strategy {}\n", view.run.id,
             view.task(), or_unknown(settings.workload), or_unknown(settings.agents),
             settings.search.preset, search::strategy_name(settings.search.strategy));
  fmt::print(out, "state {}  evaluations {}  created {}  updated {}\n", view.run.state,
             view.evaluations(), view.run.created_at, view.run.updated_at);
  std::string careful;
  if (settings.baseline_timing) {
    careful = fmt::format(" (timed once, up to {:.0f} s to ±{:.0f} %)",
                          settings.baseline_timing->budget_seconds,
                          100 * settings.baseline_timing->target_half_width);
  }
  fmt::print(out,
             "baseline {:.4g} ms, {:.1f}% of peak{}{}{};\nevery % of peak below is the baseline's "
             "times the speedup\n",
             view.scale.baseline_latency() * 1e3, view.scale.baseline_percent(),
             kernel::over_ceiling_note(view.scale.baseline_percent()),
             search::busy_mark(view.scale.baseline_busy()), careful);
  if (!view.scale_origin.empty()) {
    fmt::print(out, "latencies and % of peak derive from {}\n", view.scale_origin);
  }
  if (const kernel::Verdict* baseline = view.baseline();
      baseline != nullptr && baseline->roofline && baseline->roofline->ceiling_alongside > 0) {
    const kernel::RooflineScore& score = *baseline->roofline;
    fmt::print(out, "its {} ceiling timed alongside it: {:.4g} {} (the probe's {:.4g})\n",
               score.bound, score.ceiling_alongside, score.bound == "memory" ? "GB/s" : "GFLOP/s",
               score.ceiling_probe);
  }
  out << "\n";
  print_iterations(out, view);

  out << "\nbest kernels (the final beam; each one's most precise figure over the baseline)\n";
  fmt::print(out, "  {:<34} {}\n", "speedup [95% CI], % of peak", "kernel");
  for (const auto& kernel : view.final_beam) {
    std::string figures = candidate_figures(view, kernel.candidate);
    fmt::print(out, "  {:<34} {}\n", figures,
               describe_candidate(view, kernel.candidate,
                                  kWidth - 3 - std::max<size_t>(34, figures.size())));
    print_moved(out, view, kernel.candidate, "    ");
  }
  out << "\nconfirmation (the final beam re-timed head to head)\n";
  if (view.confirmation) {
    for (const auto& m : view.confirmation->measurements) {
      std::string against =
          m.against == view.confirmation->baseline ? "the baseline" : fmt::format("#{}", m.against);
      std::string result =
          m.passed() ? fmt::format("{:.2f}x [{:.2f}, {:.2f}]{}, {} pairs", m.speedup, m.speedup_low,
                                   m.speedup_high, search::busy_mark(m.busy), m.pairs)
                     : m.status + ": " + m.message;
      fmt::print(out, "  #{} against {}: {}\n", m.candidate, against, result);
    }
  }
  fmt::print(out, "  {}\n", confirmation_text(view, workspace_option));
  if (auto best = view.best()) {
    fmt::print(out, "  best: #{} {}\n", best->candidate, figures_text(best->figures));
    if (!best->origin.empty()) fmt::print(out, "    its figure: {}\n", best->origin);
  }
  if (auto best = view.best()) {
    out << "\nlineage of the best\n";
    std::optional<int64_t> id = best->candidate;
    std::string indent = "  ";
    while (id) {
      const store::CandidateRecord* candidate = view.candidate(*id);
      if (candidate == nullptr) break;
      const kernel::Verdict* verdict = view.verdict(*id);
      std::string figures = verdict ? candidate_figures(view, *id) : "";
      fmt::print(out, "{}{}  {}\n", indent,
                 describe_candidate(view, *id, kWidth - indent.size() - 2 - figures.size()),
                 figures);
      print_moved(out, view, *id, std::string(indent.size() + 2, ' '));
      id = candidate->parent;
      indent = "  <- ";
    }
  }

  if (any_busy(view)) fmt::print(out, "\n{}\n", search::kBusyLegend);
  print_remote(out, view);

  out << "\nmemory entries made\n";
  for (const auto& entry : view.memory_written) {
    std::string head =
        fmt::format("  #{} it {} {} ", entry.id, entry.iteration, entry.positive ? "+" : "-");
    std::string tail = fmt::format("  (#{} -> #{})", entry.slow_candidate, entry.fast_candidate);
    fmt::print(out, "{}{}{}\n", head,
               one_line(entry.insight.value("title", ""), kWidth - head.size() - tail.size()),
               tail);
  }
  if (view.memory_written.empty()) out << "  none\n";

  out << "\ncost by role\n";
  print_cost_by_role(out, view.calls);
}

int print_cost(std::ostream& out, const std::string& run_id, const std::string& agents,
               const std::vector<llm::CallRecord>& calls) {
  if (calls.empty() && (agents.empty() || agents == "tuner")) {
    fmt::print(out, "run {}: no model calls (the tuner)\n", run_id);
    return 0;
  }
  if (calls.empty()) {
    fmt::print(out, "no LLM calls recorded for run {}\n", run_id);
    return 1;
  }
  fmt::print(out, "run {}\n\n", run_id);
  print_cost_table(out, "role", llm::totals_by_role(calls));
  fmt::print(out, "\n");
  print_cost_table(out, "model", llm::totals_by_model(calls));
  fmt::print(out, "\n");
  print_cost_table(out, "total", {{"all", llm::total(calls)}});
  bool estimated = std::any_of(calls.begin(), calls.end(), [](const llm::CallRecord& record) {
    return record.usage_estimated;
  });
  if (estimated) fmt::print(out, "\nsome usage is estimated: a server sent none\n");
  return 0;
}

void print_compare(std::ostream& out, const RunView& left, const RunView& right) {
  auto column = [](const RunView& view, const std::string& what) -> std::string {
    const search::RunSettings& settings = view.settings;
    if (what == "task") return fmt::format("{} / {}", view.task(), or_unknown(settings.workload));
    if (what == "agents") return or_unknown(settings.agents);
    if (what == "preset") return settings.search.preset;
    if (what == "state") return view.run.state;
    if (what == "iterations")
      return std::to_string(view.checkpoints.empty() ? 0 : view.checkpoints.back().iteration);
    if (what == "candidates") return std::to_string(view.candidates.size());
    if (what == "failed") {
      return std::to_string(std::count_if(view.traces.begin(), view.traces.end(),
                                          [](const auto& t) { return t.second.verdict.failed(); }));
    }
    if (what == "baseline % of peak") return fmt::format("{:.1f}%", view.scale.baseline_percent());
    auto best = view.best();
    if (what == "best % of peak")
      return best ? fmt::format("{:.1f}%", best->figures.percent_of_peak) : "-";
    if (what == "best speedup") {
      if (!best) return "-";
      return fmt::format("{:.2f}x [{:.2f}, {:.2f}]{}", best->figures.speedup,
                         best->figures.speedup_low, best->figures.speedup_high,
                         best->confirmed ? "" : " (not confirmed)");
    }
    if (what == "confirmation") {
      if (!view.confirmation || !view.confirmation->done) return "not confirmed";
      return view.confirmation->significant ? "confirmed" : "no significant improvement";
    }
    if (what == "memory used") return std::to_string(view.memory_used.size());
    if (what == "memory written") return std::to_string(view.memory_written.size());
    if (what == "model calls") return std::to_string(view.calls.size());
    if (what == "cost") return fmt::format("${:.4f}", llm::total(view.calls).cost_usd);
    return "?";
  };
  constexpr size_t kCell = 39;  // 20 + 2 * (1 + 39): 100 columns
  auto cell = [&](const RunView& view, const std::string& what) {
    return one_line(column(view, what), kCell);
  };
  fmt::print(out, "{:<20} {:<39} {}\n", "", fmt::format("run {}", left.run.id),
             fmt::format("run {}", right.run.id));
  for (const char* what :
       {"task", "agents", "preset", "state", "iterations", "candidates", "failed",
        "baseline % of peak", "best % of peak", "best speedup", "confirmation", "memory used",
        "memory written", "model calls", "cost"}) {
    fmt::print(out, "{:<20} {:<39} {}\n", what, cell(left, what), cell(right, what));
  }
  if (left.task() != right.task()) {
    fmt::print(out,
               "\nruns {} and {} are of different tasks ({} and {}): their best kernels are not "
               "diffed\n",
               left.run.id, right.run.id, left.task(), right.task());
    return;
  }
  if (left.final_beam.empty() || right.final_beam.empty()) {
    out << "\none of the runs has no best kernel yet: nothing to diff\n";
    return;
  }
  if (left.run.id != right.run.id) {
    // Each figure is a speedup over its own run's baseline, timed in its own minutes: on a shared
    // machine two runs' figures do not rank them (issue 43's A/A runs differed by 2 %).
    fmt::print(out,
               "\nthe two runs' figures were measured apart, each against its own baseline: they "
               "do not rank\nthe runs; `accelopt compare {} {} --retime` times the two best "
               "kernels head to head\n",
               left.run.id, right.run.id);
  }
  const auto* a = left.candidate(left.best()->candidate);
  const auto* b = right.candidate(right.best()->candidate);
  if (a == nullptr || b == nullptr) return;
  std::string diff =
      unified_diff(a->source, b->source, fmt::format("run {} #{}", left.run.id, a->id),
                   fmt::format("run {} #{}", right.run.id, b->id));
  out << "\nbest kernels: " << (diff.empty() ? "identical\n" : "diff\n") << diff;
}

}  // namespace accelopt::report

namespace accelopt::report {

std::string head_to_head_text(const RunView& left, const RunView& right,
                              const kernel::Verdict& verdict) {
  std::string pair =
      fmt::format("run {}'s best (#{}) against run {}'s best (#{}), head to head", right.run.id,
                  right.best()->candidate, left.run.id, left.best()->candidate);
  if (!verdict.passed() || !verdict.timing) {
    return fmt::format("{}: {}: {}", pair, kernel::status_name(verdict.status), verdict.message);
  }
  const kernel::Timing& timing = *verdict.timing;
  std::string reading = timing.speedup_low > 1    ? fmt::format("run {} ranks first", right.run.id)
                        : timing.speedup_high < 1 ? fmt::format("run {} ranks first", left.run.id)
                                                  : "no different: the runs do not rank";
  return fmt::format("{}: {:.2f}x [{:.2f}, {:.2f}]{}, {} pairs: {}", pair, timing.speedup,
                     timing.speedup_low, timing.speedup_high, search::busy_mark(timing.busy()),
                     timing.pairs, reading);
}

}  // namespace accelopt::report
