#include "search/confirmation.h"

#include <fmt/format.h>

#include <algorithm>

namespace accelopt::search {

Json measurement_to_json(const Measurement& m) {
  return Json{
      {"candidate", m.candidate}, {"against", m.against},         {"status", m.status},
      {"speedup", m.speedup},     {"speedup_low", m.speedup_low}, {"speedup_high", m.speedup_high},
      {"pairs", m.pairs},         {"message", m.message},         {"busy", m.busy}};
}

Measurement measurement_from_json(const Json& m) {
  Measurement measurement;
  measurement.candidate = m.value("candidate", int64_t{0});
  measurement.against = m.value("against", int64_t{0});
  measurement.status = m.value("status", "PASSED");
  measurement.speedup = m.value("speedup", 0.0);
  measurement.speedup_low = m.value("speedup_low", 0.0);
  measurement.speedup_high = m.value("speedup_high", 0.0);
  measurement.pairs = m.value("pairs", 0);
  measurement.message = m.value("message", "");
  measurement.busy = m.value("busy", false);  // absent before it was measured
  return measurement;
}

const Measurement* Confirmation::find(int64_t candidate, int64_t against) const {
  for (const Measurement& measurement : measurements) {
    if (measurement.candidate == candidate && measurement.against == against) return &measurement;
  }
  return nullptr;
}

std::string Confirmation::outcome() const {
  if (!done) return "not confirmed yet";
  if (!shortened) return decision();
  return decision() + " (shortened: re-timed within what was left of the wall-time budget)";
}

std::string Confirmation::decision() const {
  if (winner == baseline) {
    const Measurement* best = nullptr;
    for (const Measurement& m : measurements) {
      if (m.against == baseline && m.passed() && (!best || m.speedup > best->speedup)) best = &m;
    }
    bool retimed = std::any_of(measurements.begin(), measurements.end(),
                               [&](const Measurement& m) { return m.against == baseline; });
    if (!retimed && iterations == 0) return "the run made no iterations: the baseline stays";
    if (!retimed) return "no significant improvement: no kernel beat the baseline; it stays";
    if (!best) return "no significant improvement: no kernel passed its re-timing";
    // An interval that holds 1 cannot tell the two apart: "no different", not "slower".
    return fmt::format(
        "no significant improvement: the baseline stays the best; the beam's best, #{} {:.2f}x "
        "[{:.2f}, {:.2f}] re-timed head to head, is {}",
        best->candidate, best->speedup, best->speedup_low, best->speedup_high,
        best->speedup_high < 1 ? "slower" : "no different");
  }
  // The winner's figure is not repeated here: the run's figure of a kernel is the most precise of
  // its measurements (figures.h), which the best's row gives, naming the measurement.
  if (!significant) {
    return fmt::format(
        "no significant improvement: the best, #{}, re-timed head to head against the baseline, "
        "is no different from it",
        winner);
  }
  std::string result = fmt::format(
      "confirmed: #{} is faster than the baseline beyond noise, re-timed head to head", winner);
  if (!tied.empty()) {
    std::vector<std::string> names;
    for (int64_t id : tied) names.push_back(fmt::format("#{}", id));
    result += fmt::format(" (as fast as {} within noise)", fmt::join(names, ", "));
  }
  return result;
}

Json Confirmation::to_json() const {
  Json list = Json::array();
  for (const Measurement& m : measurements) list.push_back(measurement_to_json(m));
  return Json{{"baseline", baseline},
              {"measurements", list},
              {"done", done},
              {"winner", winner},
              {"speedup", speedup},
              {"speedup_low", speedup_low},
              {"speedup_high", speedup_high},
              {"significant", significant},
              {"tied", tied},
              {"iterations", iterations},
              {"shortened", shortened}};
}

Confirmation Confirmation::from_json(const Json& json) {
  Confirmation result;
  result.baseline = json.value("baseline", int64_t{0});
  for (const Json& m : json.value("measurements", Json::array())) {
    result.measurements.push_back(measurement_from_json(m));
  }
  result.done = json.value("done", false);
  result.winner = json.value("winner", int64_t{0});
  result.speedup = json.value("speedup", 1.0);
  result.speedup_low = json.value("speedup_low", 1.0);
  result.speedup_high = json.value("speedup_high", 1.0);
  result.significant = json.value("significant", false);
  result.tied = json.value("tied", std::vector<int64_t>{});
  result.iterations = json.value("iterations", -1);
  result.shortened = json.value("shortened", false);
  return result;
}

namespace {

// `pairs`' measurements: the ones `confirmation` holds, the others taken together through
// `measure`, each kept (and saved) as it comes. nullopt when `measure` was stopped first.
std::optional<std::vector<Measurement>> measured_together(Confirmation& confirmation,
                                                          const std::vector<MeasurePair>& pairs,
                                                          const MeasureAll& measure,
                                                          const SaveConfirmation& save) {
  std::vector<MeasurePair> missing;
  for (const auto& [candidate, against] : pairs) {
    if (!confirmation.find(candidate, against)) missing.emplace_back(candidate, against);
  }
  size_t kept = 0;
  if (!missing.empty()) {
    measure(missing, [&](size_t, const Measurement& measured) {
      confirmation.measurements.push_back(measured);
      ++kept;
      save(confirmation);
    });
  }
  if (kept < missing.size()) return std::nullopt;
  std::vector<Measurement> result;
  for (const auto& [candidate, against] : pairs) {
    result.push_back(*confirmation.find(candidate, against));
  }
  return result;
}

}  // namespace

bool confirm(Confirmation& confirmation, const std::vector<int64_t>& beam,
             const MeasureAll& measure, const SaveConfirmation& save, int places) {
  // Each beam kernel against the baseline, all at once.
  std::vector<MeasurePair> against_baseline;
  std::vector<int64_t> kernels;
  for (int64_t id : beam) {
    if (id == confirmation.baseline) continue;
    against_baseline.emplace_back(id, confirmation.baseline);
    kernels.push_back(id);
  }
  // Where the places allow, the beam's first kernel also meets each other one in the same batch:
  // when it leads, the second batch then finds its pairs measured and waits for nothing.
  std::vector<MeasurePair> first_batch = against_baseline;
  if (kernels.size() > 1 && static_cast<size_t>(places) >= 2 * kernels.size() - 1) {
    for (size_t index = 1; index < kernels.size(); ++index)
      first_batch.emplace_back(kernels.front(), kernels[index]);
  }
  auto first = measured_together(confirmation, first_batch, measure, save);
  if (!first) return false;
  std::vector<Measurement> passed;
  for (size_t index = 0; index < against_baseline.size(); ++index) {
    if ((*first)[index].passed()) passed.push_back((*first)[index]);
  }
  std::stable_sort(passed.begin(), passed.end(),
                   [](const auto& a, const auto& b) { return a.speedup > b.speedup; });
  confirmation.tied.clear();
  if (passed.empty()) {
    confirmation.winner = confirmation.baseline;
    confirmation.speedup = confirmation.speedup_low = confirmation.speedup_high = 1;
  } else {
    // The leader against each kernel it cannot be told apart from by their baseline intervals,
    // all at once.
    std::vector<const Measurement*> close;
    std::vector<MeasurePair> head_to_head;
    for (size_t index = 1; index < passed.size(); ++index) {
      if (passed[index].speedup_high < passed.front().speedup_low) continue;
      close.push_back(&passed[index]);
      head_to_head.emplace_back(passed.front().candidate, passed[index].candidate);
    }
    auto second = measured_together(confirmation, head_to_head, measure, save);
    if (!second) return false;
    const Measurement* winner = &passed.front();
    for (size_t index = 0; index < close.size(); ++index) {
      const Measurement& leader_over_other = (*second)[index];
      if (!leader_over_other.passed()) continue;
      if (leader_over_other.speedup_high < 1) {
        if (winner == &passed.front()) winner = close[index];  // the leader is slower beyond noise
      } else if (leader_over_other.speedup_low <= 1) {
        confirmation.tied.push_back(close[index]->candidate);
      }
    }
    confirmation.winner = winner->candidate;
    confirmation.speedup = winner->speedup;
    confirmation.speedup_low = winner->speedup_low;
    confirmation.speedup_high = winner->speedup_high;
  }
  if (confirmation.speedup < 1) {  // re-timed, the beam's best is slower: keep the baseline
    confirmation.winner = confirmation.baseline;
    confirmation.speedup = confirmation.speedup_low = confirmation.speedup_high = 1;
    confirmation.tied.clear();
  }
  confirmation.significant =
      confirmation.winner != confirmation.baseline && confirmation.speedup_low > 1;
  confirmation.done = true;
  save(confirmation);
  return true;
}

}  // namespace accelopt::search
