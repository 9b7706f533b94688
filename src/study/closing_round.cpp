#include "study/closing_round.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace accelopt::study {
namespace {

// The distinct best sources of one task, in the order of their first cell, with the cells of each.
struct TaskSources {
  std::string task;
  std::vector<std::string> hashes;
  std::map<std::string, std::vector<const ClosingCell*>> cells;
};

std::vector<TaskSources> sources_by_task(const std::vector<ClosingCell>& cells) {
  std::vector<TaskSources> tasks;
  for (const ClosingCell& cell : cells) {
    if (cell.baseline) continue;
    auto found = std::find_if(tasks.begin(), tasks.end(),
                              [&](const TaskSources& entry) { return entry.task == cell.task; });
    if (found == tasks.end()) found = tasks.insert(tasks.end(), TaskSources{cell.task, {}, {}});
    auto& sharing = found->cells[cell.source_hash];
    if (sharing.empty()) found->hashes.push_back(cell.source_hash);
    sharing.push_back(&cell);
  }
  return tasks;
}

// The task's entry in the state, started again when its set of sources is not the one stored.
Json& task_entry(Json& state, const TaskSources& sources) {
  std::vector<std::string> sorted = sources.hashes;
  std::sort(sorted.begin(), sorted.end());
  Json& entry = state["tasks"][sources.task];
  if (!entry.is_object() || entry.value("sources", std::vector<std::string>{}) != sorted) {
    entry = Json{{"sources", sorted}, {"measurements", Json::object()}};
  }
  return entry;
}

bool any_failed(const Json& measured) {
  return std::any_of(measured.begin(), measured.end(),
                     [](const Json& m) { return !m.value("failed", "").empty(); });
}

}  // namespace

Json RoundMeasurement::to_json() const {
  return Json{
      {"speedup", speedup}, {"low", low}, {"high", high}, {"busy", busy}, {"failed", failed}};
}

RoundMeasurement RoundMeasurement::from_json(const Json& json) {
  RoundMeasurement m;
  m.speedup = json.value("speedup", 0.0);
  m.low = json.value("low", 0.0);
  m.high = json.value("high", 0.0);
  m.busy = json.value("busy", false);
  m.failed = json.value("failed", "");
  return m;
}

std::optional<ClosingFigure> combine_rounds(const std::vector<RoundMeasurement>& measured,
                                            int rounds) {
  if (rounds <= 0 || measured.size() < static_cast<size_t>(rounds)) return std::nullopt;
  ClosingFigure figure;
  double log_speedup = 0, log_low = 0, log_high = 0;
  double lowest = 0, highest = 0;
  for (int index = 0; index < rounds; ++index) {
    const RoundMeasurement& m = measured[static_cast<size_t>(index)];
    if (!m.failed.empty()) return std::nullopt;
    figure.busy = figure.busy || m.busy;
    if (m.speedup <= 0 || m.low <= 0 || m.high <= 0) continue;
    log_speedup += std::log(m.speedup);
    log_low += std::log(m.low);
    log_high += std::log(m.high);
    lowest = figure.rounds == 0 ? m.speedup : std::min(lowest, m.speedup);
    highest = figure.rounds == 0 ? m.speedup : std::max(highest, m.speedup);
    ++figure.rounds;
  }
  if (figure.rounds == 0) return std::nullopt;
  double n = figure.rounds;
  figure.speedup = std::exp(log_speedup / n);
  figure.low = std::min(std::exp(log_low / n), lowest);
  figure.high = std::max(std::exp(log_high / n), highest);
  return figure;
}

ClosingProgress run_closing_round(Json& state, const std::vector<ClosingCell>& cells, int rounds,
                                  const MeasureTurn& measure,
                                  const std::function<void(const Json&)>& save) {
  if (!state.is_object()) state = Json::object();
  state["rounds"] = rounds;
  state["skipped"] = false;
  if (!state.contains("tasks")) state["tasks"] = Json::object();
  Json stored_cells = Json::object();
  for (const ClosingCell& cell : cells) {
    stored_cells[cell.key] = Json{{"source_hash", cell.source_hash}, {"baseline", cell.baseline}};
  }
  state["cells"] = stored_cells;
  ClosingProgress progress;
  for (const TaskSources& sources : sources_by_task(cells)) {
    Json& measurements = task_entry(state, sources)["measurements"];
    size_t count = sources.hashes.size();
    for (int round = 0; round < rounds; ++round) {
      for (size_t turn = 0; turn < count; ++turn) {  // rotated: each source leads one round
        const std::string& hash = sources.hashes[(turn + static_cast<size_t>(round)) % count];
        Json& measured = measurements[hash];
        if (!measured.is_array()) measured = Json::array();
        if (measured.size() > static_cast<size_t>(round)) {
          ++progress.kept;
          continue;
        }
        if (any_failed(measured)) continue;  // no figure will come of it
        ClosingTurn request{sources.cells.at(hash).front(), round, rounds, {}};
        for (const ClosingCell* cell : sources.cells.at(hash)) request.keys.push_back(cell->key);
        std::optional<RoundMeasurement> result = measure(request);
        if (!result) {
          progress.stopped = true;
          save(state);
          return progress;
        }
        measured.push_back(result->to_json());
        ++progress.taken;
        save(state);
      }
    }
  }
  save(state);
  return progress;
}

std::optional<ClosingFigure> stored_closing_figure(const Json& state, const std::string& key,
                                                   const std::string& task,
                                                   const std::string& source_hash) {
  if (!state.is_object() || state.value("skipped", false)) return std::nullopt;
  auto cells = state.find("cells");
  if (cells == state.end() || !cells->contains(key)) return std::nullopt;
  const Json& cell = (*cells)[key];
  if (cell.value("source_hash", "") != source_hash) return std::nullopt;
  if (cell.value("baseline", false)) {
    ClosingFigure figure;
    figure.baseline = true;
    return figure;
  }
  const Json* measured = nullptr;
  if (auto tasks = state.find("tasks"); tasks != state.end() && tasks->contains(task)) {
    const Json& entry = (*tasks)[task];
    if (entry.contains("measurements") && entry["measurements"].contains(source_hash)) {
      measured = &entry["measurements"][source_hash];
    }
  }
  if (measured == nullptr) return std::nullopt;
  std::vector<RoundMeasurement> rounds;
  for (const Json& m : *measured) rounds.push_back(RoundMeasurement::from_json(m));
  return combine_rounds(rounds, state.value("rounds", kClosingRounds));
}

}  // namespace accelopt::study
