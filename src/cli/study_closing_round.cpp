#include "cli/study_closing_round.h"

#include <fmt/format.h>

#include <iostream>
#include <map>
#include <memory>

#include "cli/workspace.h"
#include "platform/registry.h"
#include "queue/remote_platform.h"
#include "report/run_view.h"
#include "search/beam_search.h"
#include "study/closing_round.h"
#include "task/task.h"

namespace accelopt::cli {
namespace {

// The study's ended cells with a best kernel, in the study's order, and the candidate timing of
// each task's first cell (every cell of a task is timed with it).
struct EndedCells {
  std::vector<study::ClosingCell> cells;
  std::map<std::string, platform::TimingOptions> timing;
};

EndedCells ended_cells(const store::Store& store, int64_t study_id, const Json& detail) {
  EndedCells result;
  std::map<std::string, int64_t> runs = store.study_cells(study_id);
  for (const Json& entry : detail.value("cells", Json::array())) {
    auto run = runs.find(entry.value("key", ""));
    if (run == runs.end()) continue;
    report::RunView view = report::load_run_view(store, run->second);
    auto best = view.best();
    const store::CandidateRecord* candidate = best ? view.candidate(best->candidate) : nullptr;
    if (!cell_ended(view.run.state) || candidate == nullptr) continue;
    study::ClosingCell cell;
    cell.key = run->first;
    cell.task = entry.value("task", "");
    cell.task_directory = view.settings.task_directory;
    cell.workload = view.settings.workload;
    cell.source = candidate->source;
    cell.source_hash = candidate->source_hash;
    cell.baseline = best->candidate == view.baseline_id();
    result.timing.try_emplace(cell.task, view.settings.search.timing);
    result.cells.push_back(std::move(cell));
  }
  return result;
}

// Times turns on the CPU platform, here or through the queue to the workers that evaluated the
// cells (--remote-workers), made when the first turn comes (a round with nothing left to time
// builds none); the tasks are loaded once each.
class TurnTimer {
 public:
  TurnTimer(const EndedCells& cells, const std::string& workspace, bool remote_workers,
            const StopOnSignals& signals)
      : cells_(cells), workspace_(workspace), remote_workers_(remote_workers), signals_(signals) {}

  std::optional<study::RoundMeasurement> operator()(const study::ClosingTurn& turn) {
    if (signals_.requested()) return std::nullopt;
    const study::ClosingCell& cell = *turn.cell;
    platform::EvalRequest request;
    request.task = &task(cell);
    request.workload = cell.workload;
    request.source = cell.source;
    request.timing = cells_.timing.at(cell.task);
    request.abandon = &signals_.requested();
    std::string cells = turn.keys.size() == 1
                            ? turn.keys.front()
                            : fmt::format("{} (and {} other cell(s) with the same best)",
                                          turn.keys.front(), turn.keys.size() - 1);
    std::cerr << fmt::format("closing round {}/{}, {}: the best of {} against the baseline\n",
                             turn.round + 1, turn.rounds, cell.task, cells);
    kernel::Verdict verdict;
    try {
      verdict = platform().evaluate(request);
    } catch (const platform::EvaluationAbandoned&) {
      return std::nullopt;
    }
    return measurement(verdict);
  }

 private:
  static study::RoundMeasurement measurement(const kernel::Verdict& verdict) {
    study::RoundMeasurement m;
    if (verdict.machine_busy()) {  // not judged: no figure, and the cell is marked busy
      m.busy = true;
      std::cerr << "  the machine was too busy to judge it: " << verdict.message << "\n";
    } else if (!verdict.passed() || !verdict.timing) {
      m.failed = verdict.message.empty() ? std::string("not timed") : verdict.message;
      std::cerr << "  it did not pass this time: " << m.failed << "\n";
    } else {
      m.speedup = verdict.timing->speedup;
      m.low = verdict.timing->speedup_low;
      m.high = verdict.timing->speedup_high;
      m.busy = verdict.timing->busy();
      std::cerr << fmt::format("  {:.2f}x [{:.2f}, {:.2f}]{}\n", m.speedup, m.low, m.high,
                               m.busy ? " [busy]" : "");
    }
    return m;
  }

  const task::Task& task(const study::ClosingCell& cell) {
    auto found = tasks_.find(cell.task);
    if (found == tasks_.end()) {
      found = tasks_.emplace(cell.task, task::load_task(cell.task_directory)).first;
    }
    return found->second;
  }

  platform::Platform& platform() {
    if (remote_workers_) {
      if (!remote_) {
        queue::RemotePlatformOptions options;
        options.url = workspace_;
        options.platform = "cpu";
        remote_ = std::make_unique<queue::RemotePlatform>(options);
      }
      return *remote_;
    }
    if (!built_) {
      built_ = std::make_unique<platform::BuiltPlatform>(platform::make_platform(
          platform::parse_platform_choice("cpu"), {.progress = &std::cerr}));
    }
    return built_->get();
  }

  const EndedCells& cells_;
  std::string workspace_;
  bool remote_workers_ = false;
  const StopOnSignals& signals_;
  std::map<std::string, task::Task> tasks_;
  std::unique_ptr<platform::BuiltPlatform> built_;
  std::unique_ptr<platform::Platform> remote_;
};

}  // namespace

bool cell_ended(const std::string& state) {
  if (search::stopped_by_busy_machine(state)) return false;
  return state == "finished" || state.rfind("stopped", 0) == 0;
}

ClosingRoundOutcome run_study_closing_round(const std::string& workspace, int64_t study_id,
                                            Json& detail, int rounds, bool remote_workers,
                                            const StopOnSignals& signals) {
  EndedCells cells = ended_cells(*open_workspace(workspace, Access::kRead), study_id, detail);
  Json state = detail.value("closing_round", Json::object());
  TurnTimer timer(cells, workspace, remote_workers, signals);
  auto save = [&](const Json& now) {
    detail["closing_round"] = now;
    open_workspace(workspace, Access::kWrite)->set_study_state(study_id, "running", detail);
  };
  study::ClosingProgress progress = study::run_closing_round(
      state, cells.cells, rounds, [&](const study::ClosingTurn& turn) { return timer(turn); },
      save);
  detail["closing_round"] = state;
  return ClosingRoundOutcome{progress.taken, progress.kept, progress.stopped};
}

}  // namespace accelopt::cli
