#include "search/memory_writer.h"

#include <fmt/format.h>

#include <set>

#include "search/candidate_key.h"
#include "search/normalize.h"
#include "search/proposer.h"

namespace accelopt::search {

namespace {

std::string first_line(const std::string& text) {
  size_t start = text.find_first_not_of(" \t\n");
  if (start == std::string::npos) return {};
  std::string line = text.substr(start, text.find('\n', start) - start);
  while (!line.empty() && (line.front() == '#' || line.front() == ' ')) line.erase(0, 1);
  return line.size() > 120 ? line.substr(0, 117) + "..." : line;
}

// What the other kernels made for `parent` in this iteration reached, the rewrite `fast` among
// them, in the order they were made.
std::vector<roles::Sibling> siblings_of(const std::vector<Attempt>& attempts, int64_t parent,
                                        int64_t fast, const RunScale& scale,
                                        const CandidateBook& book) {
  std::vector<roles::Sibling> siblings;
  for (const Attempt& attempt : attempts) {
    // A kernel the busy machine left unjudged says nothing of its plan.
    if (attempt.beam_parent != parent || attempt.verdict.machine_busy()) continue;
    roles::Sibling sibling;
    sibling.plan = first_line(attempt.plan.text);
    sibling.status = kernel::status_name(attempt.verdict.status);
    // Each kernel's one figure: its most precise measurement against the baseline.
    Figures figures = scale.of(attempt.verdict);
    sibling.speedup = figures.speedup;
    sibling.speedup_low = figures.speedup_low;
    sibling.speedup_high = figures.speedup_high;
    auto record = book.record_of(attempt.candidate);
    if (auto most = kernel_figures(scale, attempt.verdict, false, record ? record->iteration : 0,
                                   book.measurements_of(attempt.candidate))) {
      sibling.speedup = most->speedup;
      sibling.speedup_low = most->speedup_low;
      sibling.speedup_high = most->speedup_high;
    }
    sibling.rewrite = attempt.candidate == fast;
    siblings.push_back(std::move(sibling));
  }
  return siblings;
}

}  // namespace

memory::Rewrite MemoryWriter::one_figure(const memory::Rewrite& retimed,
                                         const RunScale& scale) const {
  auto slow = parts_.book->record_of(retimed.slow_candidate);
  auto fast = parts_.book->record_of(retimed.fast_candidate);
  auto verdict = parts_.book->verdict_of(retimed.fast_candidate);
  if (!slow || slow->kind != store::CandidateKind::kBaseline || !fast || !verdict) return retimed;
  std::optional<roles::KernelFigures> figures =
      kernel_figures(scale, *verdict, false, fast->iteration,
                     parts_.book->measurements_of(retimed.fast_candidate));
  if (!figures) return retimed;
  memory::Rewrite chosen = retimed;
  chosen.speedup = figures->speedup;
  chosen.speedup_low = figures->speedup_low;
  chosen.speedup_high = figures->speedup_high;
  return chosen;
}

std::optional<memory::Rewrite> MemoryWriter::retimed(int iteration, const memory::Rewrite& rewrite,
                                                     const Measurement& measured) {
  memory::Rewrite again = rewrite;
  again.speedup = measured.speedup;
  again.speedup_low = measured.speedup_low;
  again.speedup_high = measured.speedup_high;
  memory::RewriteKind kind = memory::classify_median(rewrite, config_.memory);
  if (measured.passed() && memory::classify(again, config_.memory) == kind) return again;
  std::string figures = measured.passed() ? fmt::format("{:.2f}x [{:.2f}, {:.2f}]", again.speedup,
                                                        again.speedup_low, again.speedup_high)
                                          : measured.status;
  parts_.progress->emit(
      EventKind::kNote, iteration,
      fmt::format("memory: #{} over #{} measured {:.2f}x [{:.2f}, {:.2f}], re-timed head to head "
                  "{}: not remembered",
                  rewrite.fast_candidate, rewrite.slow_candidate, rewrite.speedup,
                  rewrite.speedup_low, rewrite.speedup_high, figures));
  return std::nullopt;
}

std::vector<store::MemoryEntryRecord> MemoryWriter::entries(int iteration,
                                                            const std::vector<Attempt>& attempts,
                                                            const MeasureAll& retime) {
  std::vector<store::MemoryEntryRecord> entries;
  if (config_.strategy != Strategy::kBeam) return entries;
  std::vector<memory::Rewrite> rewrites;
  std::vector<const Attempt*> sources;
  std::set<std::string> seen;
  for (const Attempt& attempt : attempts) {
    // A reused verdict is a source measured before: its rewrite was offered then.
    if (!attempt.verdict.passed() || !attempt.verdict.timing || attempt.reused) continue;
    auto parent = parts_.store->trace(attempt.beam_parent);
    if (!parent || !parent->verdict.timing) continue;
    if (!seen.insert(std::to_string(attempt.beam_parent) + "/" + normalized_hash(attempt.source))
             .second) {
      continue;
    }
    const kernel::Timing& fast = *attempt.verdict.timing;
    const kernel::Timing& slow = *parent->verdict.timing;
    if (slow.speedup <= 0 || slow.speedup_low <= 0) continue;
    rewrites.push_back(memory::Rewrite{
        attempt.beam_parent, attempt.candidate, fast.speedup / slow.speedup,
        fast.speedup_low / slow.speedup_high, fast.speedup_high / slow.speedup_low});
    sources.push_back(&attempt);
  }
  std::vector<size_t> chosen = memory::select_rewrites(rewrites, config_.memory);
  if (parts_.stop->stopped() && parts_.llm) return entries;  // no LLM summaries past the budget
  if (chosen.empty()) return entries;
  parts_.progress->emit(EventKind::kNote, iteration,
                        fmt::format("memory: {} rewrite(s) re-timed head to head before they are "
                                    "remembered",
                                    chosen.size()));
  // All of them at once (on remote workers, as many jobs), then summarized one by one.
  std::vector<MeasurePair> pairs;
  for (size_t index : chosen) {
    pairs.emplace_back(rewrites[index].fast_candidate, rewrites[index].slow_candidate);
  }
  std::vector<std::optional<Measurement>> measured(pairs.size());
  retime(pairs, [&](size_t index, const Measurement& taken) { measured[index] = taken; });
  if (parts_.stop->interrupted()) return entries;
  for (size_t place = 0; place < chosen.size(); ++place) {
    if (parts_.stop->stopped() && parts_.llm) break;  // the budget ran out meanwhile
    size_t index = chosen[place];
    if (!measured.at(place)) continue;
    std::optional<memory::Rewrite> confirmed =
        retimed(iteration, rewrites[index], *measured[place]);
    if (!confirmed) continue;
    RunScale scale = parts_.progress->scale();
    const memory::Rewrite rewrite = one_figure(*confirmed, scale);
    const Attempt& attempt = *sources[index];
    roles::Summarizer* summarizer =
        attempt.kind == store::CandidateKind::kTuner && parts_.tuner_summarizer != nullptr
            ? parts_.tuner_summarizer
            : parts_.summarizer;
    if (summarizer == nullptr) continue;
    roles::RewritePair pair;
    pair.slow.task = pair.fast.task = parts_.task;
    pair.slow.workload = pair.fast.workload = parts_.workload;
    pair.slow.source = parts_.book->source_of(rewrite.slow_candidate);
    pair.slow.verdict = parts_.store->trace(rewrite.slow_candidate)->verdict;
    pair.fast.source = parts_.book->source_of(rewrite.fast_candidate);
    pair.fast.verdict = attempt.verdict;
    pair.slow.timing_target = pair.fast.timing_target = config_.timing.target_half_width;
    pair.slow.place = pair.fast.place =
        summary_answer_key(iteration, rewrite.slow_candidate, rewrite.fast_candidate);
    add_kernel_figures(pair.slow, rewrite.slow_candidate, *parts_.book, scale);
    add_kernel_figures(pair.fast, rewrite.fast_candidate, *parts_.book, scale);
    pair.siblings =
        siblings_of(attempts, attempt.beam_parent, attempt.candidate, scale, *parts_.book);
    pair.plan = attempt.plan;
    pair.speedup = rewrite.speedup;
    pair.speedup_low = rewrite.speedup_low;
    pair.speedup_high = rewrite.speedup_high;
    Json answer;
    try {
      answer = parts_.answers->get_or_ask(
          summary_answer_key(iteration, rewrite.slow_candidate, rewrite.fast_candidate),
          [&]() -> Json {
            auto insight = summarizer->summarize(pair);
            return insight ? memory::insight_to_json(*insight) : Json(nullptr);
          });
    } catch (const roles::BudgetExhausted& error) {
      parts_.stop->stop(fmt::format("the LLM budget is spent ({})", error.what()));
      break;
    } catch (const roles::AgentUnavailable& error) {
      parts_.progress->emit(EventKind::kNote, iteration,
                            fmt::format("summarizer failed: {}", error.what()));
      continue;
    }
    if (answer.is_null()) continue;
    // The entry keeps the figure its summarizer was given: an answer kept from before a resume
    // was given the figure of that moment, not the re-timing done again since.
    roles::Insight insight = memory::insight_from_json(answer);
    memory::Rewrite told = rewrite;
    if (answer.contains("speedup") && insight.speedup > 0) {
      told.speedup = insight.speedup;
      told.speedup_low = insight.speedup_low;
      told.speedup_high = insight.speedup_high;
    }
    entries.push_back(memory::make_entry(insight, told, *parts_.task, parts_.run_id, iteration));
  }
  return entries;
}

}  // namespace accelopt::search
