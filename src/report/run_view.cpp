#include "report/run_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "common/error.h"
#include "memory/memory.h"
#include "search/checkpoint.h"
#include "task/task.h"

namespace accelopt::report {

const store::CandidateRecord* RunView::candidate(int64_t id) const {
  auto found = index_.find(id);
  return found == index_.end() ? nullptr : &candidates[found->second];
}

const kernel::Verdict* RunView::verdict(int64_t id) const {
  auto found = traces.find(id);
  return found == traces.end() ? nullptr : &found->second.verdict;
}

const kernel::Verdict* RunView::baseline() const {
  int64_t id = baseline_id();
  return id == 0 ? nullptr : verdict(id);
}

int64_t RunView::baseline_id() const {
  for (const auto& candidate : candidates) {
    if (candidate.kind == store::CandidateKind::kBaseline) return candidate.id;
  }
  return 0;
}

search::Figures RunView::figures(int64_t id) const {
  if (id == baseline_id()) return scale.baseline();
  auto figures = kernel_figures(id);
  if (!figures) return {};
  return scale.of(figures->speedup, figures->speedup_low, figures->speedup_high, figures->busy);
}

std::vector<roles::NamedSpeedup> RunView::retimings(int64_t id) const {
  std::vector<roles::NamedSpeedup> measured;
  if (id == baseline_id()) return measured;
  for (const search::BaselineRetiming& retiming : search::baseline_retimings(
           run.id, baseline_id(), memory_written, confirmation, memory_retimings)) {
    if (retiming.candidate == id) measured.push_back(retiming.measured);
  }
  return measured;
}

std::optional<roles::KernelFigures> RunView::kernel_figures(int64_t id) const {
  const kernel::Verdict* found = verdict(id);
  const store::CandidateRecord* record = candidate(id);
  if (found == nullptr || record == nullptr) return std::nullopt;
  return search::kernel_figures(scale, *found, id == baseline_id(), record->iteration,
                                retimings(id));
}

std::optional<RunView::Best> RunView::best() const {
  int64_t id = 0;
  bool confirmed = confirmation && confirmation->done;
  if (confirmed) {
    id = confirmation->winner;
  } else if (!final_beam.empty()) {
    id = final_beam.front().candidate;
  } else {
    return std::nullopt;
  }
  Best best;
  best.candidate = id;
  best.figures = figures(id);
  best.confirmed = confirmed;
  if (id == baseline_id()) {
    best.origin = "the baseline, timed carefully at the start of the run";
  } else if (auto told = kernel_figures(id)) {
    best.origin = told->origin;
    best.disagreeing = told->disagreeing;
  }
  return best;
}

std::vector<search::Scored> RunView::beam_of(const store::Checkpoint& checkpoint) const {
  std::vector<search::Scored> beam;
  if (!checkpoint.state.contains("beam")) return beam;
  for (const Json& id : checkpoint.state["beam"]) {
    if (const kernel::Verdict* found = verdict(id.get<int64_t>()))
      beam.push_back({id.get<int64_t>(), *found});
  }
  std::stable_sort(beam.begin(), beam.end(), [this](const auto& a, const auto& b) {
    return search::rank_value(a, comparisons) > search::rank_value(b, comparisons);
  });
  return beam;
}

int64_t RunView::evaluations(int iteration) const {
  int64_t count = 0;
  for (const auto& candidate : candidates) {
    if (candidate.iteration > iteration || candidate.kind == store::CandidateKind::kBaseline)
      continue;
    auto trace = traces.find(candidate.id);
    if (trace != traces.end() && !trace->second.reused_from) ++count;
  }
  return count;
}

std::string RunView::label() const {
  return fmt::format("run {} ({}, {})", run.id, task(), or_unknown(settings.agents));
}

namespace {

// The entries the run's planner could see: those visible at its start for its task (the memory's
// own retrieval when the task can still be loaded, else the entries of the same task).
std::vector<store::MemoryEntryRecord> memory_seen(const std::vector<store::MemoryEntryRecord>& all,
                                                  int64_t run_id,
                                                  const search::RunSettings& settings) {
  memory::Visibility visibility = settings.memory_visibility();
  std::vector<store::MemoryEntryRecord> seen;
  try {
    task::Task task = task::load_task(settings.task_directory);
    memory::MemoryOptions options = settings.search.memory;
    options.retrieve_limit = std::max<int>(options.retrieve_limit, 1);
    for (auto& entry : memory::retrieve(all, task, options, run_id, visibility)) {
      if (entry.run_id != run_id) seen.push_back(std::move(entry));
    }
    return seen;
  } catch (const std::exception&) {
    // The task folder moved: fall back to the task's name.
  }
  for (const auto& entry : all) {
    if (visibility.visible(entry, run_id) && entry.run_id != run_id && entry.task == settings.task)
      seen.push_back(entry);
  }
  return seen;
}

}  // namespace

RunView load_run_view(const store::Store& store, int64_t run_id) {
  RunView view;
  auto run = store.run(run_id);
  if (!run) {
    throw UserError(
        fmt::format("there is no run {} in this workspace (see `accelopt runs`)", run_id));
  }
  view.run = *run;
  view.settings = search::RunSettings::from_json(run->config);
  view.candidates = store.candidates(run_id);
  for (size_t index = 0; index < view.candidates.size(); ++index)
    view.index_[view.candidates[index].id] = index;
  for (auto& trace : store.traces(run_id)) view.traces[trace.candidate_id] = std::move(trace);
  view.checkpoints = store.checkpoints(run_id);
  if (!view.checkpoints.empty()) {
    const Json& state = view.checkpoints.back().state;
    if (state.contains("confirmation")) {
      view.confirmation = search::Confirmation::from_json(state["confirmation"]);
    }
    view.memory_retimings = search::SearchCheckpoint::retimings_of(state);
  }
  if (const kernel::Verdict* baseline = view.baseline()) view.scale = search::RunScale(*baseline);
  // The scale the run itself used (a kept baseline's, search/kept_baseline.h), where it says.
  if (!view.checkpoints.empty() && view.checkpoints.back().state.contains("scale")) {
    search::ScaleSource used =
        search::ScaleSource::from_json(view.checkpoints.back().state["scale"]);
    view.scale = used.scale;
    view.scale_origin = used.origin;
  }
  auto entries = store.memory_entries();
  view.comparisons = search::Comparisons(view.baseline_id());
  for (const search::PairRetiming& retiming :
       search::run_retimings(run_id, entries, view.confirmation, view.memory_retimings)) {
    view.comparisons.add(retiming.candidate, retiming.against, retiming.measured);
  }
  if (!view.checkpoints.empty()) view.final_beam = view.beam_of(view.checkpoints.back());

  for (const auto& entry : entries) {
    if (entry.run_id == run_id) view.memory_written.push_back(entry);
  }
  view.memory_used = memory_seen(entries, run_id, view.settings);
  view.calls = store.calls(std::to_string(run_id));
  return view;
}

std::string one_line(std::string_view text, size_t width) {
  std::string result;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos) continue;
    line = line.substr(start);
    bool heading = line[0] == '#';
    if (heading) line.erase(0, line.find_first_not_of("# "));
    if (line.rfind("- ", 0) == 0 || line.rfind("* ", 0) == 0) line.erase(0, 2);
    if (line.empty()) continue;
    if (!result.empty()) result += ' ';
    result += line;
    if (heading && std::string_view(":.;!?").find(line.back()) == std::string_view::npos)
      result += ':';
  }
  std::string collapsed;
  for (char c : result) {
    if (c == '\t' || c == '\r') c = ' ';
    if (c == ' ' && !collapsed.empty() && collapsed.back() == ' ') continue;
    collapsed += c;
  }
  if (collapsed.size() <= width) return collapsed;
  // Cut between words; a single word longer than half the room is cut where the room ends, on a
  // character's first byte.
  size_t room = width > 3 ? width - 3 : 0;
  size_t space = collapsed.rfind(' ', room);
  size_t cut = space != std::string::npos && space >= room / 2 ? space : room;
  while (cut > 0 && (static_cast<unsigned char>(collapsed[cut]) & 0xC0) == 0x80) --cut;
  collapsed.resize(cut);
  while (!collapsed.empty() &&
         std::string_view(" ,;:").find(collapsed.back()) != std::string_view::npos)
    collapsed.pop_back();
  return collapsed + "...";
}

}  // namespace accelopt::report
