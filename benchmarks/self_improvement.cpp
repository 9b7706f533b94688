// Does the memory make the tuner better? Runs the built-in tuner on each bench/cpu task with a
// fixed evaluation budget, twice:
//   cold  an empty memory;
//   warm  a memory holding the entries the cold runs of the OTHER tasks made (leave-one-out),
//         retrieved with scope `all` (or `related`), so the tuner's bandit starts from their
//         evidence.
// Per task and run it prints % of peak of the baseline (each run measures its own), the final % of
// peak (the confirmed winner), their ratio, and the evaluations (the baseline's included) until the
// best % of peak seen so far (the run's derived figures, search/figures.h) first reached 95 % of
// that run's final figure; then the geometric means of the ratios, the arithmetic means of the
// evaluations, and on how many tasks warm beat cold. Each memory entry a cold run made is listed on
// the standard error.
//
//   build/benchmarks/self_improvement [--tasks silu,adamw] [--workload small] [--evaluations 24]
//                                     [--preset quick] [--seed 1] [--scope all|related]
//
// The default workload is `small` so that the whole suite finishes in reasonable time; small shapes
// are dominated by overheads, so the figures that mean something are those of `--workload cpu`.
// Each run uses its own in-memory database; the compile cache is the usual one.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "memory/memory.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/cpu/machine.h"
#include "search/beam_search.h"
#include "search/config.h"
#include "search/figures.h"
#include "store/store.h"
#include "task/task.h"
#include "tuner/tuner_agents.h"

namespace {
using namespace accelopt;

struct Options {
  std::vector<std::string> tasks;
  std::string workload = "small";
  int64_t evaluations = 24;
  std::string preset = "quick";
  uint64_t seed = 1;
  std::string scope = "all";
};

struct Outcome {
  double baseline = 0, final = 0;  // % of peak
  double speedup = 0;              // the best over the baseline: final / baseline
  int64_t evaluations = 0;         // real evaluations run
  // Evaluations until 95 % of `final`; 0: never (only the confirmed figure reached it).
  int64_t to_95 = 0;
  int64_t retimed = 0;  // rewrites re-timed before the memory took or refused them
  std::string state;
  std::vector<store::MemoryEntryRecord> entries;  // the memory this run made
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc)
      throw UserError(fmt::format("{}: give a value (see the file's comment)", flag));
    std::string value = argv[++i];
    if (flag == "--tasks") {
      options.tasks = split(value);
    } else if (flag == "--workload") {
      options.workload = value;
    } else if (flag == "--evaluations") {
      options.evaluations = std::max<int64_t>(2, std::stoll(value));
    } else if (flag == "--preset") {
      options.preset = value;
    } else if (flag == "--seed") {
      options.seed = std::stoull(value);
    } else if (flag == "--scope") {
      options.scope = value;
    } else {
      throw UserError(fmt::format("unknown option {}", flag));
    }
  }
  return options;
}

// Counts the rewrites a run re-timed for its memory, from its progress notes.
class RetimingCounter : public search::EventSink {
 public:
  void on_event(const search::SearchEvent& event) override {
    const std::string prefix = "memory: ";
    if (event.kind != search::EventKind::kNote || event.message.rfind(prefix, 0) != 0) return;
    if (event.message.find("re-timed head to head before") != std::string::npos)
      retimed += std::stoll(event.message.substr(prefix.size()));
  }
  int64_t retimed = 0;
};

// One tuner run of `task` in a fresh in-memory database holding `warm` as its memory.
Outcome run_once(const task::Task& task, const Options& options, platform::Platform& platform,
                 const std::vector<store::MemoryEntryRecord>& warm) {
  auto store = store::Store::open(":memory:");
  for (store::MemoryEntryRecord entry : warm) {
    entry.run_id = 0;  // imported: made by no run of this database
    store->add_memory_entry(entry);
  }
  search::SearchConfig config = search::preset(options.preset);
  config.seed = options.seed;
  config.max_evaluations = options.evaluations;
  config.iterations = static_cast<int>(options.evaluations);  // the budget, not T, ends the run
  config.memory.scope = memory::parse_scope(options.scope);
  config.memory.retrieve_limit = 256;  // the bandit weighs every entry by relatedness itself
  tuner::TunerPlanner planner;
  tuner::TunerExecutor executor;
  tuner::TunerSummarizer summarizer;
  search::SearchContext context;
  context.task = &task;
  context.platform = &platform;
  context.store = store.get();
  context.agents.planner = &planner;
  context.agents.executor = &executor;
  context.agents.summarizer = &summarizer;
  context.agents.proposes = store::CandidateKind::kTuner;
  RetimingCounter counter;
  context.events = &counter;
  search::RunSettings settings;
  settings.agents = "tuner";
  settings.search = config;
  settings.workload = options.workload;
  search::RunSummary summary = search::start_run(std::move(settings), context);

  Outcome outcome;
  outcome.baseline = summary.baseline_percent_of_peak;
  outcome.final = summary.best_percent_of_peak;
  outcome.speedup = summary.best_speedup;
  outcome.evaluations = summary.evaluations;
  outcome.state = summary.state;
  outcome.retimed = counter.retimed;
  // The trajectory: candidates in the order they were recorded; reused verdicts cost nothing.
  std::map<int64_t, store::TraceRecord> traces;
  for (auto& trace : store->traces(summary.run_id)) traces[trace.candidate_id] = trace;
  search::RunScale scale;
  if (auto baseline = traces.find(summary.baseline_candidate); baseline != traces.end())
    scale = search::RunScale(baseline->second.verdict);
  auto candidates = store->candidates(summary.run_id);
  std::sort(candidates.begin(), candidates.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  int64_t count = 0;
  double best = 0;
  for (const auto& candidate : candidates) {
    auto found = traces.find(candidate.id);
    if (found == traces.end()) continue;
    if (!found->second.reused_from) ++count;
    double percent = candidate.id == summary.baseline_candidate
                         ? scale.baseline_percent()
                         : scale.of(found->second.verdict).percent_of_peak;
    best = std::max(best, percent);
    if (outcome.to_95 == 0 && best >= 0.95 * outcome.final && best > 0) outcome.to_95 = count;
  }
  for (auto& entry : store->memory_entries()) {
    if (entry.run_id == summary.run_id) outcome.entries.push_back(entry);
  }
  return outcome;
}

double mean(const std::vector<double>& values) {
  double sum = 0;
  for (double value : values) sum += value;
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

double geometric_mean(const std::vector<double>& values) {
  double sum = 0;
  int counted = 0;
  for (double value : values) {
    if (value > 0) {
      sum += std::log(value);
      ++counted;
    }
  }
  return counted > 0 ? std::exp(sum / counted) : 0;
}

int run(int argc, char** argv) {
  Options options = parse(argc, argv);
  std::filesystem::path bench = std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench" / "cpu";
  if (options.tasks.empty()) {
    for (const auto& entry : std::filesystem::directory_iterator(bench)) {
      if (std::filesystem::exists(entry.path() / "definition.json"))
        options.tasks.push_back(entry.path().filename().string());
    }
    std::sort(options.tasks.begin(), options.tasks.end());
  }
  std::vector<task::Task> tasks;
  for (const std::string& name : options.tasks) tasks.push_back(task::load_task(bench / name));

  platform::cpu::CpuPlatformOptions platform_options;
  platform_options.compiler.cpus = platform::cpu::compile_cpus();
  platform::cpu::CpuPlatform platform(platform_options,
                                      platform::cpu::load_or_probe_machine(false, &std::cerr));

  std::vector<Outcome> cold, warm;
  for (const task::Task& task : tasks) {
    cold.push_back(run_once(task, options, platform, {}));
    std::cerr << fmt::format(
        "cold {:<24} {:.1f}% -> {:.1f}% in {} evaluations, {} rewrites re-timed, {} entries ({})\n",
        task.name, cold.back().baseline, cold.back().final, cold.back().evaluations,
        cold.back().retimed, cold.back().entries.size(), cold.back().state);
    for (const auto& entry : cold.back().entries) {
      std::cerr << fmt::format("  {} {}\n", entry.positive ? "+" : "-",
                               entry.insight.value("title", std::string()));
    }
  }
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::vector<store::MemoryEntryRecord> others;  // leave-one-out
    for (size_t j = 0; j < tasks.size(); ++j) {
      if (j != i) others.insert(others.end(), cold[j].entries.begin(), cold[j].entries.end());
    }
    warm.push_back(run_once(tasks[i], options, platform, others));
    std::cerr << fmt::format("warm {:<24} {:.1f}% -> {:.1f}% in {} evaluations, {} entries given\n",
                             tasks[i].name, warm.back().baseline, warm.back().final,
                             warm.back().evaluations, others.size());
  }

  std::cout << fmt::format(
      "\nworkload {}, preset {}, {} evaluations per run, seed {}, warm memory scope {}\n",
      options.workload, options.preset, options.evaluations, options.seed, options.scope);
  // Each run measures its own baseline, and the machine's speed drifts between runs: the speedup
  // over that run's baseline is what compares cold with warm.
  std::cout << fmt::format("{:<24} {:>7} {:>7} {:>6} {:>5} {:>7} {:>7} {:>6} {:>5}\n", "task",
                           "cold b%", "cold %", "cold x", "@95", "warm b%", "warm %", "warm x",
                           "@95");
  std::vector<double> cold_speedups, warm_speedups, cold_evals, warm_evals;
  int warm_ahead = 0;
  auto reached = [](const Outcome& outcome) {
    return outcome.to_95 > 0 ? std::to_string(outcome.to_95) : std::string("-");
  };
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::cout << fmt::format(
        "{:<24} {:>6.1f}% {:>6.1f}% {:>5.3f} {:>5} {:>6.1f}% {:>6.1f}% {:>5.3f} {:>5}\n",
        tasks[i].name, cold[i].baseline, cold[i].final, cold[i].speedup, reached(cold[i]),
        warm[i].baseline, warm[i].final, warm[i].speedup, reached(warm[i]));
    cold_speedups.push_back(cold[i].speedup);
    warm_speedups.push_back(warm[i].speedup);
    if (warm[i].speedup > cold[i].speedup) ++warm_ahead;
    if (cold[i].to_95 > 0) cold_evals.push_back(static_cast<double>(cold[i].to_95));
    if (warm[i].to_95 > 0) warm_evals.push_back(static_cast<double>(warm[i].to_95));
  }
  std::cout << fmt::format("{:<24} {:>7} {:>7} {:>6.3f} {:>5.1f} {:>7} {:>7} {:>6.3f} {:>5.1f}\n",
                           "geomean x / mean @95", "", "", geometric_mean(cold_speedups),
                           mean(cold_evals), "", "", geometric_mean(warm_speedups),
                           mean(warm_evals));
  std::cout << fmt::format("warm ahead of cold on {} of {} tasks\n", warm_ahead, tasks.size());
  std::cout
      << "(b%: the run's baseline, measured by that run; x: final % / b%; @95: evaluations, the\n"
         " baseline's included, until the best % of peak so far reached 95 % of the final "
         "figure;\n - when only the confirmation reached it: left out of the mean)\n";
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "self_improvement: " << error.what() << "\n";
    return 2;
  }
}
