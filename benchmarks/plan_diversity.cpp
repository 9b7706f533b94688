// Plan diversity: the LLM planner's ways of drawing N plans for one kernel, against the scripted
// model server (tests/e2e), which stands in for a model that favours the obvious idea.
//
//   independent  the old way: N draws at once, none seeing another (N calls of one plan each)
//   sequential   the default: N draws one after another, each shown the plans drawn before it
//   one call     plans_in_one_call: one call asking for N distinct plans
//
// The simulated model knows eight ideas with falling odds (Zipf, s = 1.2) and never proposes one
// that its prompt already lists; asked for N plans in one call it writes the N likeliest. Each
// answer takes `--latency-ms` (default 40). Printed per mode over `--kernels` kernels (default 40)
// with `--plans` N (default 4): calls, prompt and completion tokens (characters / 4, as the server
// counts), distinct plans kept after the planner's near-duplicate filter, and wall time.
//
//   build/benchmarks/plan_diversity [--plans 4] [--kernels 40] [--latency-ms 40]
//
// With `--iteration`, the wall time of one beam-search iteration instead: the LLM planner and
// executor (no fixer, no summarizer) against the scripted server answering every call after
// `--latency-ms` (its delay; a hosted model's 30 s: 30000), with the sequential draws and with one
// call, from silu's baseline: N = `--plans` plans, K = `--implementations` (default 2) kernels
// each, agent_concurrency 4, 4 evaluations at once on a platform that sleeps `--eval-ms` (default
// 2000) and answers a fixed speedup per source (no compiler, no core used). Timed from the
// iteration's start to its end (its memory re-timings included).
//
//   build/benchmarks/plan_diversity --iteration [--plans 4] [--latency-ms 30000] [--eval-ms 2000]
//
// With `--model FILE` (an llm.toml whose planner is a real model), the diversity a real model
// keeps: for each task of `--tasks` (default silu,matmul,adamw,rmsnorm_matmul), N plans for its
// baseline in the mode `--mode` (sequential or one-call), each plan written to
// `--out`/<mode>/<task>/plan<i>.md for a person to read. Printed per task: plans kept after the
// near-duplicate filter, and the mean and least pairwise distance between them (1 - the filter's
// shingle similarity: 0 the same text, 1 nothing in common).
//
//   build/benchmarks/plan_diversity --model llm.toml --mode one-call [--plans 4] [--out DIR]
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <iostream>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "agents/answer_parsing.h"
#include "agents/llm_agents.h"
#include "common/files.h"
#include "common/hash.h"
#include "llm/config.h"
#include "llm/models.h"
#include "roles/roles.h"
#include "scripted_model_server.h"
#include "search/beam_search.h"
#include "store/store.h"
#include "task/task.h"

namespace {

using namespace accelopt;

const std::filesystem::path kSourceDir = ACCELOPT_SOURCE_DIR;

const std::vector<std::string> kIdeas = {
    "Polynomial exp", "Wider vectors",      "Unroll the loop", "Fuse the passes",
    "Prefetch ahead", "Tile for the cache", "Aligned stores",  "Split the reduction"};

std::string idea_answer(size_t idea) {
  return fmt::format("## Plan: {}\nApply {} where the kernel spends its time (idea {}).",
                     kIdeas[idea], kIdeas[idea], idea);
}

// The simulated model's answer for one planner prompt; `draw` seeds its choice.
std::string answer(const std::string& user, uint64_t draw) {
  size_t asked = 0;
  static const std::regex one_call(R"(Propose (\d+) distinct plans)");
  if (std::smatch match; std::regex_search(user, match, one_call)) {
    asked = std::stoul(match[1].str());
  }
  std::vector<size_t> open;
  for (size_t idea = 0; idea < kIdeas.size(); ++idea) {
    if (user.find("- ## Plan: " + kIdeas[idea]) == std::string::npos) open.push_back(idea);
  }
  if (asked > 0) {
    std::string text;
    for (size_t i = 0; i < asked && i < open.size(); ++i) {
      text += fmt::format("## Plan {}: {}\nApply {} where the kernel spends its time.\n", i + 1,
                          kIdeas[open[i]], kIdeas[open[i]]);
    }
    return text;
  }
  std::vector<double> weights;
  for (size_t idea : open) weights.push_back(1 / std::pow(static_cast<double>(idea + 1), 1.2));
  std::mt19937_64 random(draw);
  std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
  return idea_answer(open[pick(random)]);
}

struct Figures {
  int calls = 0;
  int64_t prompt_tokens = 0, completion_tokens = 0;
  int kept = 0;
  double seconds = 0;
};

enum class Mode { kIndependent, kSequential, kOneCall };

Figures measure(Mode mode, int plans, int kernels, int latency_ms) {
  testing::ScriptedModelServer server;
  std::atomic<uint64_t> draws{0};
  server.set_responder([&](const testing::ScriptedRequest& request) -> std::optional<std::string> {
    std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms));
    return answer(request.user, 1000003 * ++draws);
  });
  llm::ModelSetOptions model_options;
  std::string toml = server.config_toml() + "\n";
  auto models = std::make_unique<llm::ModelSet>(
      llm::parse_llm_config(toml, "bench.toml", roles::kRoleNames), std::move(model_options));
  agents::LlmAgentOptions options;
  options.builtin_prompts_dir = kSourceDir / "prompts";
  options.plans_in_one_call = mode == Mode::kOneCall;
  auto planner = agents::make_llm_planner(*models, options);
  task::Task task = task::load_task(kSourceDir / "bench" / "cpu" / "silu");
  roles::KernelView kernel{&task, "", read_file(task.baseline_path()), std::nullopt};

  Figures figures;
  auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < kernels; ++k) {
    kernel.seed = static_cast<uint64_t>(k);
    std::vector<roles::Plan> got;
    if (mode == Mode::kIndependent) {
      std::vector<std::future<std::vector<roles::Plan>>> draws_of;
      for (int i = 0; i < plans; ++i) {
        draws_of.push_back(std::async(std::launch::async, [&, i] {
          roles::KernelView mine = kernel;
          mine.place = fmt::format("k{}/p{}", k, i);
          return planner->propose(mine, {}, 1);
        }));
      }
      for (auto& draw : draws_of) {
        for (auto& plan : draw.get()) got.push_back(std::move(plan));
      }
    } else {
      got = planner->propose(kernel, {}, plans);
    }
    std::set<std::string> distinct;  // what the search keeps: exact duplicates dropped too
    for (const roles::Plan& plan : got) distinct.insert(plan.text.substr(0, plan.text.find('\n')));
    figures.kept += static_cast<int>(distinct.size());
  }
  figures.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const testing::ScriptedRequest& request : server.requests("planner")) {
    ++figures.calls;
    figures.prompt_tokens +=
        static_cast<int64_t>((request.system.size() + request.user.size()) / 4);
    figures.completion_tokens += static_cast<int64_t>(request.answer.size() / 4);
  }
  return figures;
}

// A platform that takes `seconds` for each evaluation and uses no core: every source passes, its
// speed fixed by its text (0.5-1.5 of the baseline's).
class SleepingPlatform : public platform::Platform {
 public:
  SleepingPlatform(double seconds, std::string baseline)
      : seconds_(seconds), baseline_(std::move(baseline)) {}
  std::string name() const override { return "sleeping"; }
  kernel::Verdict evaluate(const platform::EvalRequest& request) override {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds_));
    kernel::Verdict verdict;
    verdict.task = request.task->name;
    verdict.workload = request.workload;
    kernel::Timing timing;
    timing.anchor = request.anchor_name;
    timing.speedup = speed(request.source) / speed(request.anchor_source);
    timing.speedup_low = timing.speedup * 0.99;
    timing.speedup_high = timing.speedup * 1.01;
    timing.latency_seconds = 1e-3 / timing.speedup;
    timing.pairs = request.timing.min_pairs;
    if (request.measure_time) verdict.timing = timing;
    return verdict;
  }

 private:
  double speed(const std::string& source) const {
    if (source.empty() || source == baseline_) return 1;
    return 0.5 + static_cast<double>(std::stoull(sha256_hex(source).substr(0, 8), nullptr, 16)) /
                     4294967296.0;
  }
  double seconds_;
  std::string baseline_;
};

// Records when the first iteration starts and ends.
class IterationClock : public search::EventSink {
 public:
  void on_event(const search::SearchEvent& event) override {
    if (event.kind == search::EventKind::kIterationStarted) started = Clock::now();
    if (event.kind == search::EventKind::kIterationFinished) finished = Clock::now();
  }
  double seconds() const { return std::chrono::duration<double>(finished - started).count(); }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point started, finished;
};

// One iteration's wall time, with the plans drawn one after another or in one call.
double iteration_seconds(bool one_call, int plans, int implementations, int latency_ms,
                         int eval_ms) {
  testing::ScriptedModelServer server;
  server.set_delay(std::chrono::milliseconds(latency_ms));
  std::atomic<int> kernels{0};
  task::Task task = task::load_task(kSourceDir / "bench" / "cpu" / "silu");
  std::string baseline = read_file(task.baseline_path());
  server.set_responder([&](const testing::ScriptedRequest& request) -> std::optional<std::string> {
    if (request.role != "executor") return std::nullopt;  // the server's distinct plans
    return testing::kernel_answer(baseline +
                                  fmt::format("static int variant_{} = 0;\n", ++kernels));
  });
  std::string toml = server.config_toml() + "\n";
  toml.replace(toml.find("timeout_s = 60"), 14, "timeout_s = 600");
  llm::ModelSet models(llm::parse_llm_config(toml, "bench.toml", roles::kRoleNames), {});
  agents::LlmAgentOptions options;
  options.builtin_prompts_dir = kSourceDir / "prompts";
  options.plans_in_one_call = one_call;
  auto planner = agents::make_llm_planner(models, options);
  auto executor = agents::make_llm_executor(models, options);
  auto store = store::Store::open(":memory:");
  SleepingPlatform platform(eval_ms / 1000.0, baseline);
  IterationClock clock;
  search::SearchContext context;
  context.task = &task;
  context.platform = &platform;
  context.store = store.get();
  context.agents.planner = planner.get();
  context.agents.executor = executor.get();
  context.events = &clock;
  search::SearchConfig config = search::preset("quick");
  config.iterations = 1;
  config.plans = plans;
  config.implementations = implementations;
  config.plans_in_one_call = one_call;
  config.fix_rounds = 0;
  config.agent_concurrency = 4;
  config.eval_concurrency = 4;
  search::RunSummary summary = search::start_run(config, "small", context);
  if (summary.iterations_done != 1) {
    throw std::runtime_error("the iteration did not finish: " + summary.state);
  }
  return clock.seconds();
}

int flag(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::stoi(argv[i + 1]);
  }
  return fallback;
}

bool has(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return true;
  }
  return false;
}

std::string text_flag(int argc, char** argv, const char* name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  return fallback;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

int model_main(int argc, char** argv) {
  std::filesystem::path config_path = text_flag(argc, argv, "--model", "");
  std::string mode = text_flag(argc, argv, "--mode", "sequential");
  if (mode != "sequential" && mode != "one-call") {
    std::cerr << "--mode is sequential or one-call, not " << mode << "\n";
    return 2;
  }
  int plans = flag(argc, argv, "--plans", 4);
  std::filesystem::path out = text_flag(argc, argv, "--out", "plan_diversity");
  std::vector<std::string> tasks =
      split_commas(text_flag(argc, argv, "--tasks", "silu,matmul,adamw,rmsnorm_matmul"));
  llm::ModelSet models(llm::load_llm_config(config_path, roles::kRoleNames), {});
  agents::LlmAgentOptions options;
  options.builtin_prompts_dir = kSourceDir / "prompts";
  options.plans_in_one_call = mode == "one-call";
  auto planner = agents::make_llm_planner(models, options);
  std::cout << fmt::format("{} plans a task, {} ({}), plans in {}\n", plans, mode,
                           config_path.string(), (out / mode).string());
  std::cout << fmt::format("{:<24} {:>5} {:>14} {:>14} {:>8}\n", "task", "kept", "mean distance",
                           "least distance", "wall s");
  double distance_sum = 0;
  int pairs = 0, kept = 0;
  for (const std::string& name : tasks) {
    task::Task task = task::load_task(kSourceDir / "bench" / "cpu" / name);
    roles::KernelView kernel{&task, "", read_file(task.baseline_path()), std::nullopt};
    kernel.place = "plan_diversity/" + name;
    auto start = std::chrono::steady_clock::now();
    std::vector<roles::Plan> got = planner->propose(kernel, {}, plans);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::filesystem::path folder = out / mode / name;
    std::filesystem::create_directories(folder);
    double sum = 0, least = 1;
    int task_pairs = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      write_file_atomic(folder / fmt::format("plan{}.md", i + 1), got[i].text);
      for (size_t j = 0; j < i; ++j) {
        double distance = 1 - agents::plan_similarity(got[i].text, got[j].text);
        sum += distance, least = std::min(least, distance), ++task_pairs;
      }
    }
    distance_sum += sum, pairs += task_pairs, kept += static_cast<int>(got.size());
    std::cout << fmt::format("{:<24} {:>5} {:>14.3f} {:>14.3f} {:>8.1f}\n", name, got.size(),
                             task_pairs ? sum / task_pairs : 0.0, task_pairs ? least : 0.0, seconds)
              << std::flush;
  }
  std::cout << fmt::format("{:<24} {:>5} {:>14.3f}\n", "all", kept,
                           pairs ? distance_sum / pairs : 0.0);
  return 0;
}

int iteration_main(int argc, char** argv) {
  int plans = flag(argc, argv, "--plans", 4);
  int implementations = flag(argc, argv, "--implementations", 2);
  int latency_ms = flag(argc, argv, "--latency-ms", 30000);
  int eval_ms = flag(argc, argv, "--eval-ms", 2000);
  std::cout << fmt::format(
      "one iteration from silu's baseline: N = {}, K = {}, {} ms per answer, {} ms per "
      "evaluation, 4 agent calls and 4 evaluations at once\n",
      plans, implementations, latency_ms, eval_ms);
  for (auto [one_call, name] : {std::pair{false, "sequential"}, std::pair{true, "one call"}}) {
    double seconds = iteration_seconds(one_call, plans, implementations, latency_ms, eval_ms);
    std::cout << fmt::format("{:<12} {:>8.1f} s\n", name, seconds) << std::flush;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (has(argc, argv, "--iteration")) return iteration_main(argc, argv);
  if (has(argc, argv, "--model")) return model_main(argc, argv);
  int plans = flag(argc, argv, "--plans", 4);
  int kernels = flag(argc, argv, "--kernels", 40);
  int latency_ms = flag(argc, argv, "--latency-ms", 40);
  std::cout << fmt::format("{} kernels, N = {} plans each, {} ms per answer\n", kernels, plans,
                           latency_ms);
  std::cout << fmt::format("{:<12} {:>6} {:>14} {:>18} {:>22} {:>10}\n", "mode", "calls",
                           "prompt tokens", "completion tokens", "distinct plans kept", "wall s");
  for (auto [mode, name] :
       {std::pair{Mode::kIndependent, "independent"}, std::pair{Mode::kSequential, "sequential"},
        std::pair{Mode::kOneCall, "one call"}}) {
    Figures f = measure(mode, plans, kernels, latency_ms);
    std::cout << fmt::format("{:<12} {:>6} {:>14} {:>18} {:>10} ({:.2f} a kernel) {:>8.2f}\n", name,
                             f.calls, f.prompt_tokens, f.completion_tokens, f.kept,
                             static_cast<double>(f.kept) / kernels, f.seconds);
  }
  return 0;
}
