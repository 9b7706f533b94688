#include "tuner/tuner_agents.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/error.h"
#include "kernel/knobs.h"
#include "tuner/bandit.h"

namespace accelopt::tuner {
namespace {

struct Move {
  std::string knob;
  int from = 0, to = 0;
  std::string arm() const { return knob + (to > from ? ":up" : ":down"); }
  Json to_json() const { return Json{{"knob", knob}, {"from", from}, {"to", to}}; }
};

struct Proposal {
  std::vector<Move> moves;
  double score = 0;
};

double relatedness(const Json& detail, const task::Task* task) {
  if (task == nullptr) return 0.25;
  if (detail.value("task", "") == task->name) return 1.0;
  if (!task->op_type.empty() && detail.value("op_type", "") == task->op_type) return 0.75;
  if (detail.contains("tags")) {
    for (const Json& tag : detail["tags"]) {
      if (std::find(task->tags.begin(), task->tags.end(), tag.get<std::string>()) !=
          task->tags.end()) {
        return 0.5;
      }
    }
  }
  return 0.25;
}

Json moves_json(const std::vector<Move>& moves) {
  Json result = Json::array();
  for (const Move& move : moves) result.push_back(move.to_json());
  return result;
}

std::string knob_line(const std::string& source, const std::string& name) {
  for (const kernel::Knob& knob : kernel::parse_knobs(source)) {
    if (knob.name != name) continue;
    std::string::size_type start = 0;
    for (int line = 1; line < knob.line; ++line) start = source.find('\n', start) + 1;
    return source.substr(start, source.find('\n', start) - start);
  }
  return {};
}

}  // namespace

std::string describe_moves(const Json& moves) {
  std::vector<std::string> parts;
  for (const Json& move : moves) {
    parts.push_back(fmt::format("{} {} → {}", move.value("knob", "?"), move.value("from", 0),
                                move.value("to", 0)));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::vector<roles::Plan> TunerPlanner::propose(const roles::KernelView& kernel,
                                               const std::vector<roles::Insight>& memory,
                                               int count) {
  std::vector<kernel::Knob> knobs = kernel::parse_knobs(kernel.source);
  if (knobs.empty() || count <= 0) return {};
  ThompsonBandit bandit(kernel.seed);
  for (const roles::Insight& insight : memory) {
    if (!insight.detail.contains("moves")) continue;
    double weight = relatedness(insight.detail, kernel.task);
    bool faster = insight.speedup > 1;
    for (const Json& move : insight.detail["moves"]) {
      Move parsed{move.value("knob", ""), move.value("from", 0), move.value("to", 0)};
      bandit.add_evidence(parsed.arm(), faster ? weight : 0, faster ? 0 : weight);
    }
  }
  std::vector<Proposal> singles;
  for (const kernel::Knob& knob : knobs) {
    int index = knob.index();
    if (index < 0) continue;
    for (int step : {1, -1}) {
      int next = index + step;
      if (next < 0 || next >= static_cast<int>(knob.allowed.size())) continue;
      Move move{knob.name, knob.value, knob.allowed[static_cast<size_t>(next)]};
      singles.push_back(Proposal{{move}, bandit.sample(move.arm())});
    }
  }
  auto by_score = [](const Proposal& a, const Proposal& b) { return a.score > b.score; };
  std::stable_sort(singles.begin(), singles.end(), by_score);
  std::vector<Proposal> chosen(singles.begin(),
                               singles.begin() + std::min<std::ptrdiff_t>(count, singles.size()));
  if (static_cast<int>(chosen.size()) < count) {
    std::vector<Proposal> pairs;
    for (size_t first = 0; first < singles.size(); ++first) {
      for (size_t second = first + 1; second < singles.size(); ++second) {
        const Move& a = singles[first].moves[0];
        const Move& b = singles[second].moves[0];
        if (a.knob == b.knob) continue;
        pairs.push_back(Proposal{{a, b}, (singles[first].score + singles[second].score) / 2});
      }
    }
    std::stable_sort(pairs.begin(), pairs.end(), by_score);
    for (const Proposal& pair : pairs) {
      if (static_cast<int>(chosen.size()) >= count) break;
      chosen.push_back(pair);
    }
  }
  if (static_cast<int>(chosen.size()) < count) {
    // Then jumps of two steps, for kernels whose neighbours have all been tried.
    std::vector<Proposal> jumps;
    for (const kernel::Knob& knob : knobs) {
      int index = knob.index();
      if (index < 0) continue;
      for (int step : {2, -2}) {
        int next = index + step;
        if (next < 0 || next >= static_cast<int>(knob.allowed.size())) continue;
        Move move{knob.name, knob.value, knob.allowed[static_cast<size_t>(next)]};
        jumps.push_back(Proposal{{move}, bandit.sample(move.arm()) * 0.9});
      }
    }
    std::stable_sort(jumps.begin(), jumps.end(), by_score);
    for (const Proposal& jump : jumps) {
      if (static_cast<int>(chosen.size()) >= count) break;
      chosen.push_back(jump);
    }
  }

  std::vector<roles::Plan> plans;
  for (const Proposal& proposal : chosen) {
    Json moves = moves_json(proposal.moves);
    // The prior evidence for exactly these moves on this op_type: the most-tried matching insight
    // (insights carry cumulative counts, so the largest is the latest).
    int prior_tries = 0, prior_faster = 0;
    for (const roles::Insight& insight : memory) {
      const Json& detail = insight.detail;
      if (!detail.contains("moves") || detail["moves"] != moves) continue;
      if (kernel.task != nullptr && detail.value("op_type", "") != kernel.task->op_type) continue;
      if (detail.value("tries", 0) > prior_tries) {
        prior_tries = detail.value("tries", 0);
        prior_faster = detail.value("faster", 0);
      }
    }
    roles::Plan plan;
    plan.author = "tuner";
    plan.text = fmt::format("Set {}.", describe_moves(moves));
    plan.detail =
        Json{{"moves", moves},
             {"task", kernel.task != nullptr ? kernel.task->name : ""},
             {"op_type", kernel.task != nullptr ? kernel.task->op_type : ""},
             {"tags", kernel.task != nullptr ? kernel.task->tags : std::vector<std::string>{}},
             {"prior", {{"tries", prior_tries}, {"faster", prior_faster}}},
             {"draw", proposal.score}};
    plans.push_back(std::move(plan));
  }
  return plans;
}

std::vector<roles::Implementation> TunerExecutor::implement(const roles::KernelView& kernel,
                                                            const roles::Plan& plan, int count) {
  if (count <= 0) return {};
  roles::Implementation implementation;
  implementation.author = "tuner";
  if (!plan.detail.contains("moves") || plan.detail["moves"].empty()) {
    implementation.parse_error = "the tuner can only apply plans that move knobs";
    return {implementation};
  }
  std::string source = kernel.source;
  try {
    for (const Json& move : plan.detail["moves"]) {
      source =
          kernel::set_knob(source, move.at("knob").get<std::string>(), move.at("to").get<int>());
    }
    implementation.source = std::move(source);
  } catch (const UserError& error) {
    implementation.parse_error = error.what();
  }
  return {implementation};
}

std::optional<roles::Insight> TunerSummarizer::summarize(const roles::RewritePair& pair) {
  const Json& detail = pair.plan.detail;
  if (pair.plan.author != "tuner" || !detail.contains("moves") || detail["moves"].empty()) {
    return std::nullopt;
  }
  int tries = detail.value("/prior/tries"_json_pointer, 0) + 1;
  int faster = detail.value("/prior/faster"_json_pointer, 0) + (pair.speedup > 1 ? 1 : 0);
  std::string op_type = detail.value("op_type", "");
  std::string moves = describe_moves(detail["moves"]);
  roles::Insight insight;
  insight.title = fmt::format("{} on {} kernels: {:.2f}× [{:.2f}, {:.2f}], {} of {} tries faster",
                              moves, op_type.empty() ? "these" : op_type, pair.speedup,
                              pair.speedup_low, pair.speedup_high, faster, tries);
  insight.description =
      pair.speedup > 1
          ? fmt::format(
                "Changing {} made a {} kernel faster ({:.2f}×). Try the same knob move on "
                "kernels of this kind first.",
                moves, op_type, pair.speedup)
          : fmt::format(
                "Changing {} made a {} kernel slower ({:.2f}×). Avoid this move on kernels "
                "of this kind.",
                moves, op_type, pair.speedup);
  std::vector<std::string> before, after;
  for (const Json& move : detail["moves"]) {
    std::string knob = move.value("knob", "");
    before.push_back(knob_line(pair.slow.source, knob));
    after.push_back(knob_line(pair.fast.source, knob));
  }
  insight.before_snippet = fmt::format("{}", fmt::join(before, "\n"));
  insight.after_snippet = fmt::format("{}", fmt::join(after, "\n"));
  insight.speedup = pair.speedup;
  insight.speedup_low = pair.speedup_low;
  insight.speedup_high = pair.speedup_high;
  insight.positive = pair.speedup > 1;
  insight.detail = detail;
  insight.detail.erase("prior");
  insight.detail.erase("draw");
  insight.detail["tries"] = tries;
  insight.detail["faster"] = faster;
  insight.detail["speedup"] = pair.speedup;
  insight.detail["speedup_low"] = pair.speedup_low;
  insight.detail["speedup_high"] = pair.speedup_high;
  return insight;
}

}  // namespace accelopt::tuner
