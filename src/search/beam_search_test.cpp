// The loop on a fake platform (verdicts computed from the source, no compiler) with the tuner's
// agents and scripted "LLM" agents: it improves the kernel, evaluates identical sources once,
// repairs failures through the fixer, writes memory, stops at a budget, and a run crashed
// mid-iteration and resumed ends exactly where an uninterrupted run ends, without evaluating
// anything twice.
#include "search/beam_search.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "common/files.h"
#include "kernel/knobs.h"
#include "search/checkpoint.h"
#include "search/figures.h"
#include "tuner/tuner_agents.h"

namespace accelopt::search {
namespace {

const char* const kBaseline =
    "constexpr int A = 1;  // knob: 1 2 3 4 5 6\n"
    "constexpr int B = 1;  // knob: 1 2 3 4\n"
    "extern \"C\" void kernel() {}\n";

class CrashNow : public std::runtime_error {
 public:
  CrashNow() : std::runtime_error("injected crash") {}
};

// speed = 1 + 0.15 (A - 1) - 0.1 ((B - 3)^2 - 4) + 0.4 (a "FAST" line); the speedup is the
// source's speed over the anchor's (the baseline's unless the request names another), ±`noise`.
// "BROKEN" fails to compile; "BUSY" finds the machine too busy to judge it, every time. The
// machine's speed drifts by `drift` per call: each verdict's own latency and % of peak are those of
// its moment. A "LUCKY" source is measured twice as fast as it is the first time it is timed, and
// as it is afterwards.
class FakePlatform : public platform::Platform {
 public:
  std::string name() const override { return "fake"; }
  static double speed_of(const std::string& source) {
    double a = 1, b = 1;
    for (const auto& knob : kernel::parse_knobs(source)) {
      if (knob.name == "A") a = knob.value;
      if (knob.name == "B") b = knob.value;
    }
    double speed = 1 + 0.15 * (a - 1) - 0.1 * ((b - 3) * (b - 3) - 4);
    if (source.find("FAST") != std::string::npos) speed += 0.4;
    return speed;
  }
  kernel::Verdict evaluate(const platform::EvalRequest& request) override {
    int call = ++calls;
    if (crash_at > 0 && call == crash_at) throw CrashNow();
    bool careful = request.timing.budget_seconds > candidate_budget;
    {
      std::unique_lock lock(mutex);
      most_in_flight = std::max(most_in_flight, ++in_flight);
      for (int core : request.cores) {
        if (!busy_cores.insert(core).second) ++shared_cores;
      }
      if (!request.cores.empty()) core_sets.insert(request.cores);
      if (careful) {
        most_careful_in_flight = std::max(most_careful_in_flight, ++careful_in_flight);
        met.notify_all();
        // Waits (a while) for a second careful timing to start beside it: two re-timings asked
        // together meet here whatever the machine's load; asked one after another, they never do.
        met.wait_for(lock, std::chrono::duration<double>(careful_rendezvous_seconds),
                     [&] { return careful_in_flight >= 2; });
      }
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds_each));
    std::lock_guard lock(mutex);  // the evaluations of a parallel run come from several threads
    --in_flight;
    if (careful) --careful_in_flight;
    for (int core : request.cores) busy_cores.erase(core);
    moment *= drift;
    kernel::Verdict verdict;
    verdict.task = request.task->name;
    if (request.source.find("BUSY") != std::string::npos) {
      ++busy_calls;
      verdict.status = kernel::Status::kMachineBusy;
      verdict.message = "the machine was busy: the compiler had 240 s of wall time for 3 s of CPU";
      return verdict;
    }
    if (request.source.find("BROKEN") != std::string::npos) {
      verdict.status = kernel::Status::kCompileError;
      verdict.message = "error: BROKEN";
      return verdict;
    }
    std::string anchor = request.anchor_source.empty() ? kBaseline : request.anchor_source;
    double speedup = speed_of(request.source) / speed_of(anchor);
    if (request.source.find("LUCKY") != std::string::npos &&
        lucky_moments.insert(request.source).second) {
      speedup *= 2;
    }
    double spread = noise;
    if (request.source.find("NUDGED") != std::string::npos) {
      if (nudged_moments.insert(request.source).second) {
        speedup *= 1.1;
      } else {
        spread = 5 * noise;
      }
    }
    if (!request.anchor_source.empty()) ++head_to_head;
    kernel::Timing timing;
    timing.anchor = request.anchor_name;
    timing.speedup = speedup;
    timing.speedup_low = speedup * (1 - spread);
    timing.speedup_high = speedup * (1 + spread);
    timing.latency_seconds = 1e-3 * moment / speed_of(request.source);
    timing.pairs = request.timing.min_pairs;
    if (busy_timings) {
      timing.load = kernel::MachineLoad{};
      timing.load->other_cores_busy = 0.9;
      timing.load->busy = true;
    }
    verdict.timing = timing;
    kernel::RooflineScore roofline;
    roofline.percent_of_peak = 10 * speed_of(request.source) / moment;
    verdict.roofline = roofline;
    budgets.push_back(request.timing.budget_seconds);
    return verdict;
  }
  std::atomic<int> calls{0};
  int crash_at = 0;
  double seconds_each = 0;  // how long each evaluation takes
  double noise = 0.01;
  double drift = 1, moment = 1;
  bool busy_timings = false;            // every timing says the machine was busy
  int head_to_head = 0;                 // timings against another beam kernel
  int busy_calls = 0;                   // evaluations of a BUSY source
  std::set<std::string> lucky_moments;  // the LUCKY sources timed once already
  // A NUDGED source is measured 1.1 times as fast as it is, and precisely, the first time it is
  // timed; afterwards as fast as it is, with five times the noise.
  std::set<std::string> nudged_moments;
  std::vector<double> budgets;  // the timing budget of each timed request
  std::mutex mutex;             // guards the members above and below
  int in_flight = 0, most_in_flight = 0;
  // Timings with a budget above `candidate_budget` are careful ones (the baseline's, the memory's
  // re-timings, the confirmation's): each waits up to careful_rendezvous_seconds for another.
  double candidate_budget = 1e9, careful_rendezvous_seconds = 0;
  int careful_in_flight = 0, most_careful_in_flight = 0;
  std::condition_variable met;
  std::set<int> busy_cores;              // the cores of the evaluations in flight
  int shared_cores = 0;                  // times an evaluation got a core another one held
  std::set<std::vector<int>> core_sets;  // the sets evaluations were given
};

// The confirmation the run ended with (empty JSON when none).
Json confirmation_of(store::Store& store, int64_t run) {
  auto last = store.last_checkpoint(run);
  return last && last->state.contains("confirmation") ? last->state["confirmation"] : Json();
}

// The head-to-head timings a run took after its evaluations (memory re-timings, confirmation), from
// the notes the run wrote for each.
int64_t head_to_head_notes(const RecordingSink& sink) {
  return std::count_if(sink.events.begin(), sink.events.end(), [](const SearchEvent& event) {
    return event.kind == EventKind::kNote && event.message.rfind("  #", 0) == 0 &&
           event.message.find(" against ") != std::string::npos;
  });
}

// An "LLM" that answers plans with a FAST kernel, a BROKEN one (the fixer removes BROKEN), and a
// duplicate of the first that differs only in spacing and comments.
class ScriptedAgents : public roles::Planner, public roles::Executor, public roles::Fixer {
 public:
  std::vector<roles::Plan> propose(const roles::KernelView&, const std::vector<roles::Insight>&,
                                   int count) override {
    std::vector<roles::Plan> plans;
    for (int index = 0; index < count; ++index) {
      plans.push_back(roles::Plan{"plan " + std::to_string(index % 3), "llm:fake", Json::object()});
    }
    return plans;
  }
  std::vector<roles::Implementation> implement(const roles::KernelView& kernel,
                                               const roles::Plan& plan, int) override {
    std::string source = kernel.source;
    if (plan.text == "plan 0") source += "int FAST = 1;\n";
    if (plan.text == "plan 1") source += "BROKEN\n";
    if (plan.text == "plan 2") source += "int  FAST=1;  // the same kernel, other spacing\n";
    return {roles::Implementation{source, "", "llm:fake"}};
  }
  std::optional<roles::Implementation> fix(const roles::KernelView& failed,
                                           const roles::Plan&) override {
    ++fixes;
    std::string source = std::regex_replace(failed.source, std::regex("BROKEN\n"), "");
    return roles::Implementation{source, "", "llm:fake"};
  }
  int fixes = 0;
};

class SearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file_atomic(dir_.path() / "baseline.cpp", kBaseline);
    task_.name = "toy";
    task_.op_type = "elementwise";
    task_.tags = {"toy"};
    task_.directory = dir_.path();
    task::Workload small;
    small.name = "small";
    small.is_default = true;
    task_.workloads.push_back(small);
    config_ = preset("quick");
    config_.beam_width = 2;
    config_.plans = 3;
    config_.implementations = 1;
    config_.iterations = 4;
    config_.agent_concurrency = 1;
    config_.memory.top_k = 2;
  }

  // A run whose plans and kernels come from "LLM" agents, with no fixer and no summarizer unless
  // the test adds them.
  SearchContext llm_context(store::Store& store, platform::Platform& platform,
                            roles::Planner& planner, roles::Executor& executor) {
    SearchContext context = tuner_context(store, platform);
    context.agents.planner = &planner;
    context.agents.executor = &executor;
    context.agents.summarizer = nullptr;
    context.agents.proposes = store::CandidateKind::kExecutor;
    return context;
  }

  SearchContext tuner_context(store::Store& store, platform::Platform& platform) {
    SearchContext context;
    context.task = &task_;
    context.platform = &platform;
    context.store = &store;
    context.agents.planner = &planner_;
    context.agents.executor = &executor_;
    context.agents.summarizer = &summarizer_;
    context.agents.proposes = store::CandidateKind::kTuner;
    context.events = &sink_;
    return context;
  }

  TempDir dir_;
  task::Task task_;
  SearchConfig config_;
  tuner::TunerPlanner planner_;
  tuner::TunerExecutor executor_;
  tuner::TunerSummarizer summarizer_;
  RecordingSink sink_;
};

TEST_F(SearchTest, TunerImprovesTheKernelAndWritesMemory) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  SearchContext context = tuner_context(*store, platform);
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "finished");
  EXPECT_EQ(summary.iterations_done, 4);
  EXPECT_GT(summary.best_speedup, 1.5);
  EXPECT_GT(summary.best_percent_of_peak, summary.baseline_percent_of_peak);
  // Every evaluation ran once: the platform saw the baseline, the counted evaluations and the
  // confirmation's re-timings.
  Json confirmation = confirmation_of(*store, summary.run_id);
  ASSERT_TRUE(confirmation.value("done", false));
  EXPECT_TRUE(summary.confirmed);
  EXPECT_TRUE(summary.significant);
  EXPECT_EQ(summary.outcome.rfind("confirmed: ", 0), 0u) << summary.outcome;
  EXPECT_EQ(platform.calls.load(), summary.evaluations + 1 + head_to_head_notes(sink_));
  EXPECT_GT(head_to_head_notes(sink_),
            static_cast<int64_t>(confirmation["measurements"].size()));  // memory re-timings
  auto entries = store->memory_entries();
  ASSERT_FALSE(entries.empty());
  for (const auto& entry : entries) {
    EXPECT_EQ(entry.run_id, summary.run_id);
    EXPECT_FALSE(entry.knobs.empty());
    EXPECT_NE(entry.insight["title"].get<std::string>().find("tries faster"), std::string::npos);
    EXPECT_TRUE(entry.speedup > 1.04 || entry.speedup < 1 / 1.15);
  }
  EXPECT_LE(entries.size(), 2u * 4u);  // TopK per iteration
  ASSERT_FALSE(sink_.events.empty());
  EXPECT_EQ(sink_.events.back().kind, EventKind::kRunFinished);
  EXPECT_EQ(store->checkpoints(summary.run_id).size(), 5u);  // iterations 0..4
  auto best = store->candidate(summary.best_candidate);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->kind, store::CandidateKind::kTuner);
}

TEST_F(SearchTest, FixerRepairsAndDuplicatesAreEvaluatedOnce) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  ScriptedAgents llm;
  SearchContext context = llm_context(*store, platform, llm, llm);
  context.agents.fixer = &llm;
  config_.iterations = 1;
  config_.beam_width = 1;
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "finished");
  EXPECT_EQ(llm.fixes, 1);
  auto candidates = store->candidates(summary.run_id);
  // baseline, plan 0 (FAST), plan 1 (BROKEN), its fix, plan 2 (FAST again, other comments)
  ASSERT_EQ(candidates.size(), 5u);
  EXPECT_EQ(candidates[3].kind, store::CandidateKind::kFixer);
  EXPECT_EQ(candidates[3].parent, candidates[2].id);
  EXPECT_EQ(store->trace(candidates[2].id)->verdict.status, kernel::Status::kCompileError);
  EXPECT_TRUE(store->trace(candidates[3].id)->verdict.passed());
  EXPECT_EQ(store->trace(candidates[4].id)->reused_from, candidates[1].id);
  // The fix gives back the baseline's source: reused too. Real evaluations: baseline, FAST, BROKEN;
  // then the memory re-times the rewrite baseline → FAST, and the confirmation the final beam
  // (FAST) against the baseline.
  EXPECT_EQ(platform.calls.load(), 3 + 1 + 1);
  EXPECT_EQ(confirmation_of(*store, summary.run_id)["measurements"].size(), 1u);
  EXPECT_NEAR(summary.best_speedup, 1.4, 1e-9);
}

TEST_F(SearchTest, HybridRefinesEachLlmKernelEnteringTheBeamWithTheTuner) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  ScriptedAgents llm;
  SearchContext context = llm_context(*store, platform, llm, llm);
  context.agents.fixer = &llm;
  context.agents.refine_planner = &planner_;
  context.agents.refine_executor = &executor_;
  context.agents.refine_summarizer = &summarizer_;
  config_.iterations = 1;
  config_.hybrid_tuner_evals = 2;
  RunSummary summary = start_run(config_, "", context);
  int refined = 0;
  for (const auto& candidate : store->candidates(summary.run_id)) {
    if (candidate.kind != store::CandidateKind::kTuner) continue;
    ++refined;
    EXPECT_EQ(store->candidate(*candidate.parent)->author, "llm:fake");
    EXPECT_NE(candidate.key.find("/refine/"), std::string::npos);
  }
  EXPECT_EQ(refined, 2);  // the FAST kernel entered the beam; the tuner tried 2 moves on it
  EXPECT_GT(summary.best_speedup, 1.4);           // FAST plus a better knob
  EXPECT_FALSE(store->memory_entries().empty());  // the tuner summarized its own moves
}

// Plans "lucky" (no faster than its parent, but timed in a lucky moment) and "fast" (40 % faster);
// summarizes any rewrite it is given.
class LuckyAgents : public roles::Planner, public roles::Executor, public roles::Summarizer {
 public:
  std::vector<roles::Plan> propose(const roles::KernelView&, const std::vector<roles::Insight>&,
                                   int) override {
    return {roles::Plan{"lucky", "llm:fake", Json::object()},
            roles::Plan{"fast", "llm:fake", Json::object()}};
  }
  std::vector<roles::Implementation> implement(const roles::KernelView& kernel,
                                               const roles::Plan& plan, int) override {
    std::string line = plan.text == "lucky" ? "int LUCKY = 1;\n" : "int FAST = 1;\n";
    return {roles::Implementation{kernel.source + line, "", "llm:fake"}};
  }
  std::optional<roles::Insight> summarize(const roles::RewritePair& pair) override {
    roles::Insight insight;
    insight.title = pair.plan.text;
    insight.speedup = pair.speedup;
    insight.speedup_low = pair.speedup_low;
    insight.speedup_high = pair.speedup_high;
    return insight;
  }
};

// Plans one kernel that is 40 % faster and measured 10 % faster still the first time it is timed;
// summarizes it, keeping every figure of the pair it was given.
class NudgedAgents : public roles::Planner, public roles::Executor, public roles::Summarizer {
 public:
  std::vector<roles::Plan> propose(const roles::KernelView&, const std::vector<roles::Insight>&,
                                   int) override {
    return {roles::Plan{"fast", "llm:fake", Json::object()}};
  }
  std::vector<roles::Implementation> implement(const roles::KernelView& kernel, const roles::Plan&,
                                               int) override {
    return {roles::Implementation{kernel.source + "int FAST = 1, NUDGED = 1;\n", "", "llm:fake"}};
  }
  std::optional<roles::Insight> summarize(const roles::RewritePair& pair) override {
    told = pair.speedup;
    if (pair.fast.figures) profile = pair.fast.figures->speedup;
    for (const roles::Sibling& sibling : pair.siblings) {
      if (sibling.rewrite) listed = sibling.speedup;
    }
    roles::Insight insight;
    insight.title = pair.plan.text;
    insight.description = "fast";
    insight.speedup = pair.speedup;
    insight.speedup_low = pair.speedup_low;
    insight.speedup_high = pair.speedup_high;
    return insight;
  }
  double told = 0, profile = 0, listed = 0;
};

// A rewrite of the baseline has two measurements of the pair: the child's evaluation, timed paired
// against the baseline, and the memory's re-timing. The summarizer is given one figure, the most
// precise (here the evaluation's: the re-timing reads wider), wherever it is shown, and the entry
// keeps that figure (issue 48, item 3: a lesson showed 9.48x where its summarizer was told 9.27x).
TEST_F(SearchTest, TheMemoryKeepsTheOneFigureItsSummarizerWasGiven) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  NudgedAgents llm;
  SearchContext context = llm_context(*store, platform, llm, llm);
  context.agents.summarizer = &llm;
  config_.iterations = 1;
  config_.beam_width = 1;
  RunSummary summary = start_run(config_, "", context);
  ASSERT_EQ(summary.state, "finished");
  auto entries = store->memory_entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_NEAR(llm.told, 1.54, 1e-9);  // the evaluation's 1.4 × 1.1, the narrower interval
  EXPECT_DOUBLE_EQ(llm.profile, llm.told);
  EXPECT_DOUBLE_EQ(llm.listed, llm.told);
  EXPECT_DOUBLE_EQ(entries[0].speedup, llm.told);
  EXPECT_DOUBLE_EQ(entries[0].insight["speedup"].get<double>(), llm.told);
}

// Both children's medians clear the memory's threshold as the search measured them; re-timed head
// to head against their parent, only the real one's interval does, and only it is remembered, with
// the re-timed figures.
TEST_F(SearchTest, ARewriteMeasuredInALuckyMomentIsNotRemembered) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  LuckyAgents llm;
  SearchContext context = llm_context(*store, platform, llm, llm);
  context.agents.summarizer = &llm;
  config_.iterations = 1;
  config_.beam_width = 1;
  RunSummary summary = start_run(config_, "", context);
  ASSERT_EQ(summary.state, "finished");
  auto candidates = store->candidates(summary.run_id);
  ASSERT_EQ(candidates.size(), 3u);  // baseline, lucky, fast
  EXPECT_NEAR(store->trace(candidates[1].id)->verdict.timing->speedup, 2.0, 1e-9);
  auto entries = store->memory_entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].insight["title"], "fast");
  EXPECT_EQ(entries[0].fast_candidate, candidates[2].id);
  EXPECT_NEAR(entries[0].speedup, 1.4, 1e-9);
  // Both rewrites were re-timed with the careful timing, as the baseline was.
  ASSERT_GE(platform.budgets.size(), 5u);
  EXPECT_DOUBLE_EQ(platform.budgets[3], 3 * config_.timing.budget_seconds);
  EXPECT_DOUBLE_EQ(platform.budgets[4], 3 * config_.timing.budget_seconds);
  bool noted = std::any_of(sink_.events.begin(), sink_.events.end(), [&](const SearchEvent& e) {
    return e.message.find(fmt::format("#{} over #{} measured 2.00x", candidates[1].id,
                                      candidates[0].id)) != std::string::npos &&
           e.message.find("not remembered") != std::string::npos;
  });
  EXPECT_TRUE(noted);
  // The two measurements of the lucky kernel against the baseline disagree: the run says so, and
  // the re-timing, as precise and taken later, is its figure: the real rewrite takes its place in
  // the beam and wins.
  bool moved = std::any_of(sink_.events.begin(), sink_.events.end(), [&](const SearchEvent& e) {
    return e.message.find(fmt::format("#{} against the baseline: figures moved between "
                                      "measurements (2.00x → 1.00x): the machine's load changed",
                                      candidates[1].id)) != std::string::npos;
  });
  EXPECT_TRUE(moved);
  EXPECT_EQ(summary.best_candidate, candidates[2].id);
  EXPECT_NEAR(summary.best_speedup, 1.4, 1e-9);
  // The lucky kernel's re-timing, not remembered, is kept with the checkpoint.
  auto checkpoint = SearchCheckpoint::from_store(*store->last_checkpoint(summary.run_id));
  ASSERT_EQ(checkpoint.retimings.size(), 2u);
  EXPECT_EQ(checkpoint.retimings[0].name, "memory re-timing, iteration 1");
}

TEST_F(SearchTest, StopsCleanlyAtTheEvaluationBudget) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  SearchContext context = tuner_context(*store, platform);
  config_.max_evaluations = 5;
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "stopped: the evaluation budget (5) is spent");
  EXPECT_EQ(summary.evaluations, 5);
  // The baseline, 5 evaluations, and the head-to-head re-timings (memory, then the confirmation of
  // the final beam: a budget stop ends too).
  EXPECT_TRUE(summary.confirmed);
  EXPECT_EQ(platform.calls.load(), 6 + head_to_head_notes(sink_));
  EXPECT_EQ(store->run(summary.run_id)->state, summary.state);
}

// An executor that spends an LLM budget: the third call is refused.
class BudgetedExecutor : public roles::Executor {
 public:
  std::vector<roles::Implementation> implement(const roles::KernelView& kernel,
                                               const roles::Plan& plan, int count) override {
    if (++calls > 2) throw roles::BudgetExhausted("the run's $0.01 is spent");
    return inner.implement(kernel, plan, count);
  }
  tuner::TunerExecutor inner;
  int calls = 0;
};

TEST_F(SearchTest, StopsCleanlyAtTheLlmBudget) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  BudgetedExecutor executor;
  SearchContext context = tuner_context(*store, platform);
  context.agents.executor = &executor;
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "stopped: the LLM budget is spent (the run's $0.01 is spent)");
  EXPECT_EQ(summary.iterations_done, 1);  // the iteration in progress was finished and checkpointed
  EXPECT_EQ(summary.evaluations, 2);
  EXPECT_EQ(executor.calls, 3);  // no call after the refused one
}

TEST_F(SearchTest, RepeatedSamplingSamplesTheBaselineOnly) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  SearchContext context = tuner_context(*store, platform);
  config_.strategy = Strategy::kRepeatedSampling;
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "finished");
  for (const auto& candidate : store->candidates(summary.run_id)) {
    if (candidate.kind != store::CandidateKind::kBaseline) {
      EXPECT_EQ(candidate.parent, summary.baseline_candidate);
    }
  }
  EXPECT_TRUE(store->memory_entries().empty());
  EXPECT_GT(summary.best_speedup, 1.0);
}

// What must be equal between a crashed-and-resumed run and an uninterrupted one.
Json run_state(store::Store& store, int64_t run) {
  Json state;
  for (const auto& candidate : store.candidates(run)) {
    auto trace = store.trace(candidate.id);
    state["candidates"].push_back(Json{{"id", candidate.id},
                                       {"key", candidate.key},
                                       {"source", candidate.source_hash},
                                       {"parent", candidate.parent ? *candidate.parent : 0},
                                       {"status", kernel::status_name(trace->verdict.status)},
                                       {"reused", trace->reused_from.has_value()}});
  }
  for (const auto& entry : store.memory_entries()) {
    if (entry.run_id != run) continue;
    state["memory"].push_back(Json{{"slow", entry.slow_candidate},
                                   {"fast", entry.fast_candidate},
                                   {"title", entry.insight["title"]},
                                   {"iteration", entry.iteration}});
  }
  for (const auto& checkpoint : store.checkpoints(run)) {
    state["beams"].push_back(checkpoint.state["beam"]);
  }
  Json confirmation = confirmation_of(store, run);
  state["confirmation"] =
      Json{{"winner", confirmation.value("winner", int64_t{0})},
           {"measured", confirmation.value("measurements", Json::array()).size()}};
  state["state"] = store.run(run)->state;
  return state;
}

TEST_F(SearchTest, ResumeAfterACrashReachesTheUninterruptedState) {
  Json expected;
  int uninterrupted_calls = 0;
  {
    auto store = store::Store::open(":memory:");
    FakePlatform platform;
    SearchContext context = tuner_context(*store, platform);
    RunSummary summary = start_run(config_, "", context);
    expected = run_state(*store, summary.run_id);
    uninterrupted_calls = platform.calls.load();
  }
  ASSERT_GT(uninterrupted_calls, 8);
  // The last calls are the confirmation's: a crash there resumes into it.
  for (int crash_at : {2, uninterrupted_calls / 2, uninterrupted_calls - 1, uninterrupted_calls}) {
    TempDir workspace;
    auto path = store::database_path(workspace.path());
    int calls = 0;
    {
      auto store = store::Store::open(path);
      FakePlatform platform;
      platform.crash_at = crash_at;
      SearchContext context = tuner_context(*store, platform);
      EXPECT_THROW(start_run(config_, "", context), CrashNow);
      calls += platform.calls.load() - 1;  // the crashed call did not evaluate
    }
    auto store = store::Store::open(path);  // a new process opens the database
    ASSERT_EQ(store->runs().size(), 1u);
    EXPECT_EQ(store->runs()[0].state, "running");
    FakePlatform platform;
    SearchContext context = tuner_context(*store, platform);
    RunSummary summary = resume_run(store->runs()[0].id, context);
    calls += platform.calls.load();
    EXPECT_EQ(summary.state, "finished");
    EXPECT_EQ(run_state(*store, summary.run_id), expected) << "crash at evaluation " << crash_at;
    EXPECT_EQ(calls, uninterrupted_calls) << "an evaluation was repeated or lost";
  }
}

// The "LLM" agents across a crash: answers recorded before it are read back, not asked again.
TEST_F(SearchTest, ResumeDoesNotRepeatARecordedAgentCall) {
  TempDir workspace;
  auto path = store::database_path(workspace.path());
  config_.iterations = 2;
  config_.beam_width = 2;
  int calls_before = 0;
  {
    auto store = store::Store::open(path);
    FakePlatform platform;
    platform.crash_at = 4;  // baseline, FAST, BROKEN; the fix's evaluation crashes
    ScriptedAgents llm;
    SearchContext context = llm_context(*store, platform, llm, llm);
    context.agents.fixer = &llm;
    context.agents.summarizer = &summarizer_;
    EXPECT_THROW(start_run(config_, "", context), CrashNow);
    EXPECT_EQ(llm.fixes, 1);
    calls_before = platform.calls.load() - 1;
  }
  auto store = store::Store::open(path);
  FakePlatform platform;
  ScriptedAgents llm;
  SearchContext context = llm_context(*store, platform, llm, llm);
  context.agents.fixer = &llm;
  context.agents.summarizer = &summarizer_;
  RunSummary summary = resume_run(1, context);
  EXPECT_EQ(summary.state, "finished");
  EXPECT_EQ(calls_before, 3);
  // The fix of iteration 1 was recorded before the crash: the resumed run does not ask for it
  // again; iteration 2's BROKEN kernel gets its own fix.
  EXPECT_EQ(llm.fixes, 1);
  EXPECT_EQ(store->candidate_by_key(1, "i1/b0/p1/k0/f1")->kind, store::CandidateKind::kFixer);
}

TEST_F(SearchTest, StopsCleanlyAtTheWallTimeBudget) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  SearchContext context = tuner_context(*store, platform);
  config_.max_wall_seconds = 0;
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "stopped: the wall-time budget (0 s) is spent");
  EXPECT_EQ(summary.evaluations, 0);
  EXPECT_EQ(summary.iterations_done, 1);
}

// The re-timings (memory, confirmation) fit in what is left of the wall-time budget: once it is
// spent they get no timing budget of their own, and the outcome says so.
TEST_F(SearchTest, TheReTimingsKeepToTheWallTimeBudget) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  platform.seconds_each = 0.02;
  SearchContext context = tuner_context(*store, platform);
  config_.max_wall_seconds = 0.2;
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "stopped: the wall-time budget (0 s) is spent");
  ASSERT_GT(head_to_head_notes(sink_), 0);
  // The careful timing (12 s) went to the baseline only; the confirmation's re-timings, the last
  // requests, came after the budget was spent.
  double careful = careful_timing(config_.timing).budget_seconds;
  EXPECT_EQ(std::count(platform.budgets.begin(), platform.budgets.end(), careful), 1);
  size_t confirming = confirmation_of(*store, summary.run_id)["measurements"].size();
  ASSERT_GT(confirming, 0u);
  ASSERT_GE(platform.budgets.size(), confirming);
  for (size_t index = platform.budgets.size() - confirming; index < platform.budgets.size();
       ++index) {
    EXPECT_EQ(platform.budgets[index], 0) << index;
  }
  EXPECT_NE(summary.outcome.find("(shortened: re-timed within what was left of the wall-time "
                                 "budget)"),
            std::string::npos)
      << summary.outcome;
}

TEST_F(SearchTest, NoIterationsKeepTheBaselineAndSaySo) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  SearchContext context = tuner_context(*store, platform);
  config_.iterations = 0;
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "finished");
  EXPECT_EQ(summary.outcome, "the run made no iterations: the baseline stays");
}

TEST_F(SearchTest, ResumeRefusesAFinishedOrUnknownRun) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  SearchContext context = tuner_context(*store, platform);
  config_.iterations = 1;
  RunSummary summary = start_run(config_, "", context);
  EXPECT_THROW(resume_run(summary.run_id, context), UserError);
  EXPECT_THROW(resume_run(99, context), UserError);
}

TEST_F(SearchTest, MemoryFromAnEarlierRunSteersTheNextOne) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  SearchContext context = tuner_context(*store, platform);
  RunSummary first = start_run(config_, "", context);
  size_t entries = store->memory_entries().size();
  ASSERT_GT(entries, 0u);
  RunSummary second = start_run(config_, "", context);
  EXPECT_EQ(store->run(second.run_id)->config["memory_horizon"],
            store->memory_entries()[entries - 1].id);
  EXPECT_GE(second.best_speedup, first.best_speedup * 0.99);
}

// Agents whose model cannot be reached while `down` is set: every call fails as an LLM agent's
// does after its retries (a closed port, an unknown model, a hanging server, unusable answers).
class Unreachable : public roles::Planner, public roles::Executor, public roles::Fixer {
 public:
  std::vector<roles::Plan> propose(const roles::KernelView& kernel,
                                   const std::vector<roles::Insight>& memory, int count) override {
    check();
    return inner.propose(kernel, memory, count);
  }
  std::vector<roles::Implementation> implement(const roles::KernelView& kernel,
                                               const roles::Plan& plan, int count) override {
    check();
    return inner.implement(kernel, plan, count);
  }
  std::optional<roles::Implementation> fix(const roles::KernelView& failed,
                                           const roles::Plan& plan) override {
    check();
    return inner.fix(failed, plan);
  }
  void check() {
    ++calls;
    if (down) throw roles::AgentUnavailable("http://127.0.0.1:9: connection refused");
  }
  ScriptedAgents inner;
  bool down = false;
  int calls = 0;
};

// Issue 12: a run whose agents cannot be reached fails (it does not "converge"), and once they are
// back, resume completes it as if nothing had happened.
TEST_F(SearchTest, UnreachableAgentsFailTheRunAndResumeCompletesIt) {
  config_.iterations = 2;
  Json expected;
  {
    auto store = store::Store::open(":memory:");
    FakePlatform platform;
    Unreachable agents;
    SearchContext context = tuner_context(*store, platform);
    context.agents = AgentSet{&agents, &agents, &agents};
    RunSummary summary = start_run(config_, "", context);
    ASSERT_EQ(summary.state, "finished");
    expected = run_state(*store, summary.run_id);
  }
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  Unreachable agents;
  agents.down = true;
  SearchContext context = tuner_context(*store, platform);
  context.agents = AgentSet{&agents, &agents, &agents};
  RunSummary failed = start_run(config_, "", context);
  EXPECT_EQ(failed.state.rfind("failed: the agents could not be reached in iteration 1", 0), 0u)
      << failed.state;
  EXPECT_NE(failed.state.find("connection refused"), std::string::npos);
  EXPECT_EQ(failed.iterations_done, 0);
  EXPECT_TRUE(worth_resuming(failed.state));
  EXPECT_EQ(store->run(failed.run_id)->state, failed.state);
  EXPECT_EQ(store->checkpoints(failed.run_id).size(), 1u);  // the baseline's only
  agents.down = false;
  RunSummary resumed = resume_run(failed.run_id, context);
  EXPECT_EQ(resumed.state, "finished");
  EXPECT_EQ(run_state(*store, resumed.run_id), expected);
}

// A platform that raises the interrupt flag (as Ctrl-C does) once it has evaluated `at` kernels.
class InterruptingPlatform : public FakePlatform {
 public:
  kernel::Verdict evaluate(const platform::EvalRequest& request) override {
    kernel::Verdict verdict = FakePlatform::evaluate(request);
    if (calls.load() == at) interrupt->store(true);
    return verdict;
  }
  int at = 0;
  std::atomic<bool>* interrupt = nullptr;
};

// Issue 12: a stop request ends the run "interrupted" without losing or repeating work: the
// evaluation in flight is kept, nothing new starts, the iteration is not checkpointed, and resume
// reaches the state of an uninterrupted run.
TEST_F(SearchTest, InterruptEndsTheRunAndResumeReachesTheUninterruptedState) {
  Json expected;
  int uninterrupted_calls = 0;
  {
    auto store = store::Store::open(":memory:");
    FakePlatform platform;
    SearchContext context = tuner_context(*store, platform);
    expected = run_state(*store, start_run(config_, "", context).run_id);
    uninterrupted_calls = platform.calls.load();
  }
  auto store = store::Store::open(":memory:");
  std::atomic<bool> interrupt{false};
  InterruptingPlatform platform;
  platform.at = uninterrupted_calls / 2;
  platform.interrupt = &interrupt;
  SearchContext context = tuner_context(*store, platform);
  context.interrupt = &interrupt;
  RunSummary interrupted = start_run(config_, "", context);
  EXPECT_EQ(interrupted.state, "interrupted");
  EXPECT_EQ(store->run(interrupted.run_id)->state, "interrupted");
  EXPECT_EQ(platform.calls.load(), uninterrupted_calls / 2);  // nothing started after the request
  EXPECT_EQ(store->checkpoints(interrupted.run_id).size(),
            static_cast<size_t>(interrupted.iterations_done + 1));
  interrupt = false;
  FakePlatform fresh;
  context.platform = &fresh;
  RunSummary resumed = resume_run(interrupted.run_id, context);
  EXPECT_EQ(resumed.state, "finished");
  EXPECT_EQ(run_state(*store, resumed.run_id), expected);
  EXPECT_EQ(platform.calls.load() + fresh.calls.load(), uninterrupted_calls);
}

TEST_F(SearchTest, ResumeWithMoreIterationsExtendsAFinishedRun) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  SearchContext context = tuner_context(*store, platform);
  config_.iterations = 2;
  RunSummary first = start_run(config_, "", context);
  ASSERT_EQ(first.state, "finished");
  ASSERT_EQ(first.iterations_done, 2);
  EXPECT_THROW(resume_run(first.run_id, context), UserError);
  RunSummary extended = resume_run(first.run_id, context, 2);
  EXPECT_EQ(extended.state, "finished");
  EXPECT_EQ(extended.iterations_done, 4);
  EXPECT_GE(extended.best_speedup, first.best_speedup);
  auto last = store->last_checkpoint(first.run_id);
  EXPECT_EQ(last->iteration, 4);
  EXPECT_EQ(last->state["iterations"], 4);  // an interrupted extension resumes to its own end
}

TEST_F(SearchTest, StartsFromTheUsersKernelTimedAgainstTheBaseline) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  SearchContext context = tuner_context(*store, platform);
  config_.iterations = 1;
  std::string mine = std::regex_replace(kBaseline, std::regex("A = 1"), "A = 4");
  RunSummary summary = start_run(config_, "", context, mine);
  EXPECT_EQ(summary.state, "finished");
  auto start = store->candidate_by_key(summary.run_id, "i0/start");
  ASSERT_TRUE(start.has_value());
  EXPECT_EQ(start->author, "user");
  EXPECT_EQ(start->parent, summary.baseline_candidate);
  EXPECT_NEAR(store->trace(start->id)->verdict.timing->speedup, 1.45, 1e-9);
  EXPECT_EQ(store->checkpoints(summary.run_id)[0].state["beam"], Json::array({start->id}));
  EXPECT_GE(summary.best_speedup, 1.45);

  RunSummary broken = start_run(config_, "", context, mine + "BROKEN\n");
  EXPECT_EQ(broken.state.rfind("failed: your kernel does not pass (COMPILE_ERROR", 0), 0u)
      << broken.state;
}

// Issue 12: a failing source met again keeps the verdict and the repair it got the first time.
class SameBrokenKernel : public ScriptedAgents {
 public:
  std::vector<roles::Implementation> implement(const roles::KernelView& kernel, const roles::Plan&,
                                               int) override {
    return {roles::Implementation{kernel.source + "BROKEN\n", "", "llm:fake"}};
  }
};

TEST_F(SearchTest, AReusedFailingSourceIsNotSentToTheFixerAgain) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  SameBrokenKernel llm;
  SearchContext context = tuner_context(*store, platform);
  context.agents = AgentSet{&llm, &llm, &llm};
  config_.iterations = 1;
  config_.beam_width = 1;
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "finished");
  EXPECT_EQ(llm.fixes, 1);  // three plans, one broken source, one repair
  for (int plan = 0; plan < 3; ++plan) {
    auto repair = store->candidate_by_key(summary.run_id, fmt::format("i1/b0/p{}/k0/f1", plan));
    ASSERT_TRUE(repair.has_value()) << plan;
    EXPECT_EQ(repair->kind, store::CandidateKind::kFixer);
  }
}

// Issue 45: a kernel the machine was too busy to judge is not the kernel's failure. Plans 1 and 2
// make the same BUSY source: each is evaluated, and again once after the pause; neither goes to
// the fixer, counts as failed, or stands for the other.
class BusyKernelAgents : public ScriptedAgents {
 public:
  std::vector<roles::Implementation> implement(const roles::KernelView& kernel,
                                               const roles::Plan& plan, int) override {
    std::string source = kernel.source + (plan.text == "plan 0" ? "int FAST = 1;\n" : "BUSY\n");
    return {roles::Implementation{source, "", "llm:fake"}};
  }
};

TEST_F(SearchTest, AKernelTheMachineWasTooBusyToJudgeIsNotItsFailure) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  BusyKernelAgents llm;
  SearchContext context = llm_context(*store, platform, llm, llm);
  context.agents.fixer = &llm;
  context.busy_pause = std::chrono::milliseconds(0);
  config_.iterations = 1;
  config_.beam_width = 1;
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "finished");
  EXPECT_EQ(llm.fixes, 0) << "a busy machine's verdict is no error for the fixer";
  EXPECT_EQ(platform.busy_calls, 4) << "each BUSY candidate tried, then once more";
  auto candidates = store->candidates(summary.run_id);
  ASSERT_EQ(candidates.size(), 4u);  // baseline, FAST, BUSY, BUSY again
  for (size_t busy : {2u, 3u}) {
    auto trace = store->trace(candidates[busy].id);
    EXPECT_EQ(trace->verdict.status, kernel::Status::kMachineBusy);
    EXPECT_FALSE(trace->reused_from.has_value()) << "a busy verdict stands for no source";
  }
  ASSERT_FALSE(sink_.events.empty());
  EXPECT_EQ(sink_.events.back().candidates_failed, 0);
  EXPECT_NEAR(summary.best_speedup, 1.4, 1e-9);
}

// The baseline the machine was too busy to judge stops the run, unrecorded, as one to resume;
// resumed on a quieter machine, it starts from the baseline.
TEST_F(SearchTest, ABaselineTheMachineWasTooBusyToJudgeStopsARunToResume) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  SearchContext context = tuner_context(*store, platform);
  context.busy_pause = std::chrono::milliseconds(0);
  config_.iterations = 1;
  write_file_atomic(dir_.path() / "baseline.cpp", std::string(kBaseline) + "// BUSY\n");
  RunSummary stopped = start_run(config_, "", context);
  EXPECT_TRUE(stopped_by_busy_machine(stopped.state)) << stopped.state;
  EXPECT_TRUE(worth_resuming(stopped.state));
  EXPECT_TRUE(store->candidates(stopped.run_id).empty());
  EXPECT_EQ(platform.busy_calls, 2);
  write_file_atomic(dir_.path() / "baseline.cpp", kBaseline);
  RunSummary resumed = resume_run(stopped.run_id, context);
  EXPECT_EQ(resumed.state, "finished");
}

// Issue 43: latencies and % of peak derive from one quiet reading of the baseline per (task,
// workload, platform, machine), kept in the workspace, not from each run's own reading. The
// machine is made slower and busy for the second run: its figures still rest on the first's.
TEST_F(SearchTest, AbsoluteFiguresDeriveFromTheBaselineKeptByAQuietRun) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  SearchContext context = tuner_context(*store, platform);
  config_.iterations = 1;
  RunSummary first = start_run(config_, "", context);
  ASSERT_EQ(first.state, "finished");
  EXPECT_NE(first.scale_origin.find("measured quietly (kept for later runs)"), std::string::npos)
      << first.scale_origin;
  double kept_latency = first.baseline_latency_seconds;
  double kept_percent = first.baseline_percent_of_peak;
  auto kept = store->kept_baseline("toy", "small", "fake");
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->run_id, first.run_id);
  EXPECT_DOUBLE_EQ(kept->latency_seconds, kept_latency);

  platform.moment = 1.5;  // every latency now reads 1.5 times as long, on a busy machine
  platform.busy_timings = true;
  RunSummary second = start_run(config_, "", context);
  ASSERT_EQ(second.state, "finished");
  EXPECT_DOUBLE_EQ(second.baseline_latency_seconds, kept_latency);
  EXPECT_DOUBLE_EQ(second.baseline_percent_of_peak, kept_percent);
  EXPECT_FALSE(second.baseline_busy) << "the kept baseline was measured quietly";
  EXPECT_NE(second.scale_origin.find(fmt::format("measured quietly by run {}", first.run_id)),
            std::string::npos)
      << second.scale_origin;
  EXPECT_NE(second.scale_origin.find("this run read 1.50 ms"), std::string::npos)
      << second.scale_origin;
  // The best's % of peak is the kept baseline's times its speedup.
  EXPECT_NEAR(second.best_percent_of_peak, kept_percent * second.best_speedup, 1e-9);
  // `show` and `export` read the scale the run used from its checkpoint.
  auto checkpoint = SearchCheckpoint::from_store(*store->last_checkpoint(second.run_id));
  ASSERT_TRUE(checkpoint.scale.has_value());
  EXPECT_DOUBLE_EQ(checkpoint.scale->scale.baseline_latency(), kept_latency);

  // Asked to measure again on a busy machine, the kept one stays; on a quiet one it is replaced.
  RunSettings again;
  again.search = config_;
  again.remeasure_baseline = true;
  RunSummary busy_again = start_run(again, context);
  EXPECT_DOUBLE_EQ(busy_again.baseline_latency_seconds, kept_latency);
  EXPECT_NE(busy_again.scale_origin.find("the kept one stays"), std::string::npos)
      << busy_again.scale_origin;
  platform.busy_timings = false;
  RunSummary quiet_again = start_run(again, context);
  EXPECT_NEAR(quiet_again.baseline_latency_seconds, 1.5 * kept_latency, 1e-12);
  EXPECT_EQ(store->kept_baseline("toy", "small", "fake")->run_id, quiet_again.run_id);

  // Another baseline source is another baseline: its own reading, kept.
  write_file_atomic(dir_.path() / "baseline.cpp", std::string(kBaseline) + "// edited\n");
  platform.busy_timings = true;
  RunSummary edited = start_run(config_, "", context);
  EXPECT_TRUE(edited.baseline_busy) << "no kept baseline holds for the edited source";
  EXPECT_NE(edited.scale_origin.find("read on a busy machine"), std::string::npos)
      << edited.scale_origin;
  EXPECT_EQ(store->kept_baseline("toy", "small", "fake")->run_id, quiet_again.run_id);
}

// Issue 12: a kernel that stays in the beam is not asked about with the same question again: the
// planner is told the plans already tried on it.
class TriedPlansPlanner : public SameBrokenKernel {
 public:
  std::vector<roles::Plan> propose(const roles::KernelView& kernel,
                                   const std::vector<roles::Insight>& memory, int count) override {
    told.push_back(kernel.tried_plans);
    return ScriptedAgents::propose(kernel, memory, count);
  }
  std::vector<std::vector<std::string>> told;
};

TEST_F(SearchTest, APlannerIsToldThePlansTriedOnAKernelThatStays) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  TriedPlansPlanner llm;
  SearchContext context = tuner_context(*store, platform);
  context.agents = AgentSet{&llm, &llm};  // no fixer: every kernel fails, the baseline stays
  config_.iterations = 3;
  config_.beam_width = 1;
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "finished");
  ASSERT_EQ(llm.told.size(), 2u);  // the second iteration got nothing new: converged
  EXPECT_TRUE(llm.told[0].empty());
  EXPECT_EQ(llm.told[1], (std::vector<std::string>{"plan 0", "plan 1", "plan 2"}));
}

}  // namespace
}  // namespace accelopt::search

namespace accelopt::search {
namespace {

// The machine slows down by 6 % per evaluation, so each verdict's own % of peak comes from a
// different moment and would contradict the speedups; the run's figures derive from its baseline.
TEST_F(SearchTest, OnePercentOfPeakPerRunEvenWhenTheMachineDrifts) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  platform.drift = 1.06;
  SearchContext context = tuner_context(*store, platform);
  RunSummary summary = start_run(config_, "", context);
  ASSERT_EQ(summary.state, "finished");
  ASSERT_GT(summary.best_speedup, 1.5);
  EXPECT_NEAR(summary.best_percent_of_peak / summary.baseline_percent_of_peak, summary.best_speedup,
              1e-9);
  // The raw verdicts disagree: their moments differ.
  auto baseline = store->trace(summary.baseline_candidate)->verdict;
  auto best = store->trace(summary.best_candidate)->verdict;
  double raw = best.roofline->percent_of_peak / baseline.roofline->percent_of_peak;
  EXPECT_GT(std::abs(raw - summary.best_speedup), 0.3) << "the drift did not show";
  // The progress line follows the speedup too.
  int checked = 0;
  for (const SearchEvent& event : sink_.events) {
    if (event.best_speedup <= 0) continue;
    EXPECT_NEAR(event.best_percent_of_peak, summary.baseline_percent_of_peak * event.best_speedup,
                1e-9);
    ++checked;
  }
  EXPECT_GT(checked, 0);
  // The baseline was timed carefully, and the run record says so.
  ASSERT_FALSE(platform.budgets.empty());
  EXPECT_DOUBLE_EQ(platform.budgets.front(), 3 * config_.timing.budget_seconds);
  EXPECT_DOUBLE_EQ(platform.budgets[1], config_.timing.budget_seconds);
  Json careful = store->run(summary.run_id)->config["baseline_timing"];
  EXPECT_DOUBLE_EQ(careful["budget_seconds"].get<double>(), 3 * config_.timing.budget_seconds);
}

// Every move is within the timing's noise (±40 %): the run's best is no significant improvement.
TEST_F(SearchTest, ABestWithinNoiseIsNoSignificantImprovement) {
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  platform.noise = 0.4;
  config_.iterations = 1;
  SearchContext context = tuner_context(*store, platform);
  RunSummary summary = start_run(config_, "", context);
  ASSERT_EQ(summary.state, "finished");
  ASSERT_NE(summary.best_candidate, summary.baseline_candidate);
  EXPECT_TRUE(summary.confirmed);
  EXPECT_FALSE(summary.significant);
  EXPECT_LE(summary.best_speedup_low, 1.0);
  EXPECT_EQ(summary.outcome.rfind("no significant improvement", 0), 0u) << summary.outcome;
  bool noted = std::any_of(sink_.events.begin(), sink_.events.end(), [](const SearchEvent& e) {
    return e.message.rfind("no significant improvement", 0) == 0;
  });
  EXPECT_TRUE(noted);
}

// A run killed while confirming resumes into the confirmation, measuring only what is missing;
// a finished run keeps its confirmation (resume refuses it, `--iterations` confirms afresh).
TEST_F(SearchTest, AConfirmationKilledHalfwayResumesIntoIt) {
  int uninterrupted_calls = 0;
  size_t measurements = 0;
  {
    auto store = store::Store::open(":memory:");
    FakePlatform platform;
    SearchContext context = tuner_context(*store, platform);
    RunSummary summary = start_run(config_, "", context);
    uninterrupted_calls = platform.calls.load();
    measurements = confirmation_of(*store, summary.run_id)["measurements"].size();
  }
  ASSERT_GE(measurements, 2u);
  TempDir workspace;
  auto path = store::database_path(workspace.path());
  int first_calls = 0;
  {
    auto store = store::Store::open(path);
    FakePlatform platform;
    platform.crash_at = uninterrupted_calls - static_cast<int>(measurements) + 2;  // the second
    SearchContext context = tuner_context(*store, platform);
    EXPECT_THROW(start_run(config_, "", context), CrashNow);
    first_calls = platform.calls.load() - 1;
    Json partial = confirmation_of(*store, 1);
    EXPECT_FALSE(partial.value("done", true));
    EXPECT_EQ(partial["measurements"].size(), 1u);
  }
  auto store = store::Store::open(path);
  FakePlatform platform;
  SearchContext context = tuner_context(*store, platform);
  RunSummary summary = resume_run(1, context);
  EXPECT_EQ(summary.state, "finished");
  EXPECT_TRUE(summary.confirmed);
  EXPECT_EQ(first_calls + platform.calls.load(), uninterrupted_calls);
  EXPECT_EQ(platform.calls.load(), static_cast<int>(measurements) - 1);
  EXPECT_EQ(confirmation_of(*store, 1)["measurements"].size(), measurements);
  EXPECT_THROW(resume_run(1, context), UserError);
  int before = platform.calls.load();
  RunSummary extended = resume_run(1, context, 1);
  EXPECT_TRUE(extended.confirmed);
  EXPECT_GT(platform.calls.load(), before);
  EXPECT_EQ(store->last_checkpoint(1)->iteration, config_.iterations + 1);
}

// The run's state by what it holds, not by row ids (which follow the order evaluations end in when
// they overlap): each candidate by its key, the beams, the memory's rewrites and the winner by
// their sources.
Json keyed_state(store::Store& store, int64_t run) {
  std::map<int64_t, std::string> source_of;
  std::map<std::string, Json> candidates;
  for (const auto& candidate : store.candidates(run)) {
    source_of[candidate.id] = candidate.normalized_hash;
    auto trace = store.trace(candidate.id);
    candidates[candidate.key] =
        Json{candidate.source_hash, kernel::status_name(trace->verdict.status)};
  }
  Json state;
  state["candidates"] = candidates;
  for (const auto& entry : store.memory_entries()) {
    if (entry.run_id != run) continue;
    state["memory"].push_back(Json{source_of[entry.slow_candidate], source_of[entry.fast_candidate],
                                   entry.insight["title"], entry.iteration, entry.evidence.size()});
  }
  for (const auto& checkpoint : store.checkpoints(run)) {
    Json beam = Json::array();
    for (const Json& id : checkpoint.state["beam"]) beam.push_back(source_of[id.get<int64_t>()]);
    state["beams"].push_back(beam);
  }
  Json confirmation = confirmation_of(store, run);
  state["winner"] = source_of[confirmation.value("winner", int64_t{0})];
  state["measured"] = confirmation.value("measurements", Json::array()).size();
  state["state"] = store.run(run)->state;
  return state;
}

// Issue 25: with eval_concurrency above 1 the iteration's candidates are evaluated at once, each in
// a slot with cores of its own, and the run ends where the one-at-a-time run ends.
TEST_F(SearchTest, ParallelEvaluationsOverlapOnCoresOfTheirOwnAndEndAsOneAtATime) {
  config_.implementations = 2;
  config_.iterations = 3;
  Json expected;
  int one_at_a_time = 0;
  {
    auto store = store::Store::open(":memory:");
    FakePlatform platform;
    platform.seconds_each = 0.01;
    SearchContext context = tuner_context(*store, platform);
    expected = keyed_state(*store, start_run(config_, "", context).run_id);
    one_at_a_time = platform.calls.load();
    EXPECT_EQ(platform.most_in_flight, 1);
  }
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  platform.seconds_each = 0.05;
  SearchContext context = tuner_context(*store, platform);
  context.eval_slots = {{3}, {2}, {1}, {0}};
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "finished");
  // With places to spare the confirmation's first batch also times the beam's first kernel
  // against the other (confirmation.h): at most one measurement more, the same decisions.
  Json state = keyed_state(*store, summary.run_id);
  int guessed = state["measured"].get<int>() - expected["measured"].get<int>();
  EXPECT_GE(guessed, 0);
  EXPECT_LE(guessed, 1);
  state.erase("measured");
  expected.erase("measured");
  EXPECT_EQ(state, expected);
  EXPECT_EQ(platform.calls.load(), one_at_a_time + guessed);
  EXPECT_GE(platform.most_in_flight, 3);  // 2 beam kernels × 3 plans × 2 implementations at once
  EXPECT_LE(platform.most_in_flight, 4);
  EXPECT_EQ(platform.shared_cores, 0) << "two evaluations were given one core";
  EXPECT_GE(platform.core_sets.size(), 3u);
}

// Evaluations in flight never take a run past its evaluation budget: the budget counts them as
// they start.
TEST_F(SearchTest, ParallelEvaluationsKeepToTheEvaluationBudget) {
  config_.implementations = 2;
  config_.eval_concurrency = 8;
  config_.max_evaluations = 5;
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  platform.seconds_each = 0.05;
  SearchContext context = tuner_context(*store, platform);
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "stopped: the evaluation budget (5) is spent");
  EXPECT_EQ(summary.evaluations, 5);
  EXPECT_GE(platform.most_in_flight, 2);
  EXPECT_EQ(platform.calls.load(), 6 + head_to_head_notes(sink_));
}

// A parallel run that crashes mid-iteration (one evaluation throws while others are in flight) and
// is resumed ends in the uninterrupted parallel run's state, nothing evaluated twice.
TEST_F(SearchTest, AParallelRunCrashedAndResumedReachesTheUninterruptedState) {
  config_.implementations = 2;
  config_.eval_concurrency = 4;
  Json expected;
  int uninterrupted_calls = 0;
  {
    auto store = store::Store::open(":memory:");
    FakePlatform platform;
    platform.seconds_each = 0.01;
    SearchContext context = tuner_context(*store, platform);
    expected = keyed_state(*store, start_run(config_, "", context).run_id);
    uninterrupted_calls = platform.calls.load();
  }
  for (int crash_at : {3, uninterrupted_calls / 2}) {
    TempDir workspace;
    auto path = store::database_path(workspace.path());
    int calls = 0;
    {
      auto store = store::Store::open(path);
      FakePlatform platform;
      platform.seconds_each = 0.01;
      platform.crash_at = crash_at;
      SearchContext context = tuner_context(*store, platform);
      EXPECT_THROW(start_run(config_, "", context), CrashNow);
      calls += platform.calls.load() - 1;  // the crashed call did not evaluate
    }
    auto store = store::Store::open(path);
    FakePlatform platform;
    platform.seconds_each = 0.01;
    SearchContext context = tuner_context(*store, platform);
    RunSummary summary = resume_run(store->runs()[0].id, context);
    calls += platform.calls.load();
    EXPECT_EQ(summary.state, "finished");
    EXPECT_EQ(keyed_state(*store, summary.run_id), expected) << "crash at evaluation " << crash_at;
    EXPECT_EQ(calls, uninterrupted_calls) << "an evaluation was repeated or lost";
  }
}

// Issue 46: the final beam's kernels are re-timed against the baseline all at once (on remote
// workers, as many jobs in the queue together), not one after another. Top-K 1 keeps the memory's
// re-timings one an iteration, so two careful timings in flight at once are the confirmation's.
TEST_F(SearchTest, TheConfirmationTimesTheBeamAgainstTheBaselineAllAtOnce) {
  config_.iterations = 2;
  config_.memory.top_k = 1;
  config_.eval_concurrency = 4;
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  platform.candidate_budget = config_.timing.budget_seconds;
  platform.careful_rendezvous_seconds = 1;
  SearchContext context = tuner_context(*store, platform);
  RunSummary summary = start_run(config_, "", context);
  ASSERT_EQ(summary.state, "finished");
  Json confirmation = confirmation_of(*store, summary.run_id);
  ASSERT_GE(confirmation["measurements"].size(), 2u);
  // The two beam kernels against the baseline, and with four places the first kernel against the
  // second beside them (confirmation.h): two or three at once, never one after another.
  EXPECT_GE(platform.most_careful_in_flight, 2);
  EXPECT_LE(platform.most_careful_in_flight, 3);
}

// Issue 46: an iteration's memory re-timings go out together. A beam of one makes the
// confirmation a single timing, so two careful timings in flight at once are the memory's.
TEST_F(SearchTest, TheMemorysReTimingsOfAnIterationGoOutTogether) {
  config_.beam_width = 1;
  config_.iterations = 2;
  config_.memory.top_k = 2;
  config_.eval_concurrency = 4;
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  platform.candidate_budget = config_.timing.budget_seconds;
  platform.careful_rendezvous_seconds = 1;
  SearchContext context = tuner_context(*store, platform);
  RunSummary summary = start_run(config_, "", context);
  ASSERT_EQ(summary.state, "finished");
  bool two_at_once = std::any_of(sink_.events.begin(), sink_.events.end(), [](const auto& event) {
    return event.message.find("memory: 2 rewrite(s) re-timed") != std::string::npos;
  });
  ASSERT_TRUE(two_at_once) << "no iteration re-timed two rewrites";
  EXPECT_EQ(platform.most_careful_in_flight, 2);
}

// Issue 46: where the evaluations that may run at once follow the workers connected (remote runs),
// workers that connect after the run started are used: one place while the baseline is evaluated,
// four from then on.
TEST_F(SearchTest, EvaluationsAtOnceFollowThePlacesAsTheyGrow) {
  config_.implementations = 2;
  config_.iterations = 2;
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  platform.seconds_each = 0.05;
  SearchContext context = tuner_context(*store, platform);
  std::atomic<int> asked{0};
  context.eval_places = [&] {
    ++asked;
    return platform.calls.load() >= 1 ? 4 : 1;  // the workers come once the baseline is out
  };
  context.eval_places_refresh = std::chrono::milliseconds(10);
  RunSummary summary = start_run(config_, "", context);
  EXPECT_EQ(summary.state, "finished");
  EXPECT_GT(asked.load(), 1);
  EXPECT_GE(platform.most_in_flight, 3);  // 3 plans × 2 implementations of the baseline at once
  EXPECT_LE(platform.most_in_flight, 4);
}

// A planner that draws one plan a call (as the LLM planner does) and, before each draw after the
// first, waits (a while) for the executor to be asked about a plan drawn earlier.
class DrawByDraw : public roles::Planner, public roles::Executor {
 public:
  std::vector<roles::Plan> propose(const roles::KernelView& kernel,
                                   const std::vector<roles::Insight>& memory, int count) override {
    std::vector<roles::Plan> plans;
    propose_each(kernel, memory, count, [&](roles::Plan plan) { plans.push_back(plan); });
    return plans;
  }
  void propose_each(const roles::KernelView&, const std::vector<roles::Insight>&, int count,
                    const std::function<void(roles::Plan)>& each) override {
    for (int index = 0; index < count; ++index) {
      if (index > 0) {
        std::unique_lock lock(mutex);
        asked.wait_for(lock, std::chrono::seconds(3), [&] { return implemented > 0; });
        implemented_before_draw.push_back(implemented);
      }
      each(roles::Plan{fmt::format("plan {}", index), "llm:fake", Json::object()});
    }
  }
  std::vector<roles::Implementation> implement(const roles::KernelView& kernel,
                                               const roles::Plan& plan, int) override {
    {
      std::lock_guard lock(mutex);
      ++implemented;
    }
    asked.notify_all();
    return {roles::Implementation{kernel.source + "int FAST = 1; // " + plan.text + "\n", "",
                                  "llm:fake"}};
  }
  std::mutex mutex;
  std::condition_variable asked;
  int implemented = 0;
  std::vector<int> implemented_before_draw;  // the executor's calls when each later draw began
};

// Issue 48: the executor starts on a plan as soon as the planner has drawn it, while the next plan
// is drawn, instead of after the planner's last draw.
TEST_F(SearchTest, TheExecutorStartsOnAPlanWhileTheNextIsDrawn) {
  config_.iterations = 1;
  config_.plans = 3;
  config_.agent_concurrency = 2;
  config_.eval_concurrency = 2;
  auto store = store::Store::open(":memory:");
  FakePlatform platform;
  DrawByDraw agents;
  SearchContext context = llm_context(*store, platform, agents, agents);
  RunSummary summary = start_run(config_, "", context);
  ASSERT_EQ(summary.state, "finished");
  ASSERT_EQ(agents.implemented_before_draw.size(), 2u);
  EXPECT_GE(agents.implemented_before_draw[0], 1) << "plan 0 was not implemented before draw 1";
  EXPECT_GE(agents.implemented_before_draw[1], 1);
  EXPECT_EQ(agents.implemented, 3);
}

}  // namespace
}  // namespace accelopt::search
