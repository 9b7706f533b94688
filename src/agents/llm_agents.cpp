#include "agents/llm_agents.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <future>

#include "agents/answer_parsing.h"
#include "agents/prompt_variables.h"
#include "agents/prompts.h"
#include "common/error.h"
#include "llm/models.h"
#include "platform/machine_prompt.h"

namespace accelopt::agents {
namespace {

// Runs fn(0) … fn(count-1) concurrently (the ModelSet enforces each model's concurrency limit)
// and returns their results in order. Waits for all before rethrowing the first failure, so no
// call outlives the agent that made it.
template <typename Result>
std::vector<Result> run_concurrently(int count, const std::function<Result(int)>& fn) {
  std::vector<std::future<Result>> futures;
  futures.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) futures.push_back(std::async(std::launch::async, fn, i));
  std::vector<Result> results;
  std::exception_ptr failure;
  for (auto& future : futures) {
    try {
      results.push_back(future.get());
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return results;
}

class LlmAgent {
 public:
  // `models` null: an agent that only renders its prompts (the previews below).
  // `templates`: the name of the agent's two templates (<templates>.system, .user); empty: the
  // role's.
  LlmAgent(llm::ModelSet* models, LlmAgentOptions options, std::string_view role,
           std::string_view templates = {})
      : models_(models),
        options_(std::move(options)),
        role_(role),
        templates_(templates.empty() ? role : templates),
        prompts_(options_.prompts_dir, options_.builtin_prompts_dir, options_.platform) {}

 protected:
  // The variables every template of this agent gets: platform, machine, options, task.
  Json common_variables(const roles::KernelView& kernel) const {
    if (kernel.task == nullptr) {
      throw InternalError("the " + role_ + " was given a kernel without its task");
    }
    return {
        {"role", role_},
        // The executor and the fixer get the rule table whole; the others, what a plan needs.
        {"writes_code", role_ == roles::kExecutor || role_ == roles::kFixer},
        // The allowed headers listed one by one: for the fixer (a refused include is repaired
        // there) and the baseline's writer (once per task); every executor call gets a summary.
        {"header_list", role_ == roles::kFixer || templates_ == "baseline"},
        {"platform", options_.platform},
        {"machine", platform::machine_variables(options_.machine, *kernel.task,
                                                kernel.task->workload_or_default(kernel.workload))},
        {"options",
         {{"plans_in_one_call", options_.plans_in_one_call},
          {"structural_only", options_.structural_only}}},
        {"task", task_variables(*kernel.task, kernel.workload)}};
  }

  // One call: the role's system and user templates rendered from `variables`. `key_variables` are
  // the same with the run's measured figures left out: with the role and the kernel's place and
  // seed they identify the call for record/replay. Model errors leave as role outcomes: a spent
  // budget as BudgetExhausted, any other as AgentUnavailable. (thread-safe)
  llm::ChatResponse ask(const Json& variables, const Json& key_variables,
                        const roles::KernelView& kernel) const {
    if (models_ == nullptr) throw InternalError("the " + role_ + " renders prompts only");
    RolePrompt prompt = render(variables), key_prompt = render(key_variables);
    llm::ChatRequest request;
    request.messages = {{"system", prompt.system}, {"user", prompt.user}};
    Json key = {{"role", role_},
                {"place", kernel.place},
                {"seed", kernel.seed},
                {"system", key_prompt.system},
                {"user", key_prompt.user}};
    request.replay_key = key.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (options_.max_tokens > 0) request.options.max_tokens = options_.max_tokens;
    try {
      return models_->chat(role_, request);
    } catch (const llm::BudgetExceeded& error) {
      throw roles::BudgetExhausted(
          fmt::format("the {} (model {}) may not call: {}", role_, model_name(), error.what()));
    } catch (const llm::LlmError& error) {
      throw roles::AgentUnavailable(
          fmt::format("the {} got no answer from model {}: {}", role_, model_name(), error.what()));
    }
  }

  // The role's system and user messages, rendered from `variables`.
  RolePrompt render(const Json& variables) const {
    return {prompts_.render(templates_ + ".system", variables),
            prompts_.render(templates_ + ".user", variables)};
  }

  std::string model_name() const {
    if (models_ == nullptr) return "(none)";
    try {
      return models_->config().model_for_role(role_).name;
    } catch (const std::exception&) {
      return "(none configured)";
    }
  }

  std::string author(const llm::ChatResponse& response) const {
    if (!response.model.empty()) return "llm:" + response.model;
    if (models_ == nullptr) return "llm:" + role_;
    try {
      return "llm:" + models_->config().model_for_role(role_).model;
    } catch (const std::exception&) {
      return "llm:" + role_;
    }
  }

  roles::Implementation read_kernel(const llm::ChatResponse& response,
                                    const task::Task& task) const {
    roles::Implementation implementation =
        extract_kernel(response.content, task.entry_point, response.truncated);
    implementation.author = author(response);
    return implementation;
  }

  llm::ModelSet* models_;
  const LlmAgentOptions options_;
  const std::string role_;
  const std::string templates_;
  const PromptLibrary prompts_;
};

Json plan_variables(const roles::Plan& plan) {
  return {{"text", plan.text}, {"author", plan.author}};
}

class LlmPlanner final : public roles::Planner, LlmAgent {
 public:
  LlmPlanner(llm::ModelSet* models, LlmAgentOptions options)
      : LlmAgent(models, std::move(options), roles::kPlanner) {}

  std::vector<roles::Plan> propose(const roles::KernelView& kernel,
                                   const std::vector<roles::Insight>& memory, int count) override {
    std::vector<roles::Plan> plans;
    propose_each(kernel, memory, count,
                 [&](roles::Plan plan) { plans.push_back(std::move(plan)); });
    return plans;
  }

  // Each plan handed over as its call answers, unless it is empty or near an earlier one; at most
  // `count`.
  void propose_each(const roles::KernelView& kernel, const std::vector<roles::Insight>& memory,
                    int count, const std::function<void(roles::Plan)>& each) override {
    if (count <= 0) return;
    Json variables = planner_variables(kernel, memory, count);
    Json key_variables =
        planner_variables(without_measurements(kernel), without_measurements(memory), count);
    std::vector<roles::Plan> kept;
    auto offer = [&](roles::Plan plan) {
      if (static_cast<int>(kept.size()) >= count) return;
      std::vector<roles::Plan> with = kept;
      with.push_back(plan);
      if (drop_near_duplicates(std::move(with), options_.dedup_similarity).size() == kept.size()) {
        return;  // empty, or near a plan handed over before
      }
      kept.push_back(plan);
      each(std::move(plan));
    };
    if (options_.plans_in_one_call) {
      llm::ChatResponse response = ask(variables, key_variables, kernel);
      int index = 0;
      for (std::string& text : split_plans(response.content)) {
        offer({std::move(text), author(response), {{"index", index++}}});
      }
      return;
    }
    // One draw after another, each shown the plans drawn before it for this kernel, so that the
    // draws spread over ideas instead of repeating the likeliest one (costs N calls' latency in
    // a row, which the search overlaps with the executors of the plans drawn so far;
    // plans_in_one_call is the one-call alternative).
    roles::KernelView seen = kernel;
    for (int index = 0; index < count; ++index) {
      Json mine = index == 0 ? variables : planner_variables(seen, memory, count);
      Json my_key = index == 0 ? key_variables
                               : planner_variables(without_measurements(seen),
                                                   without_measurements(memory), count);
      mine["plan_index"] = my_key["plan_index"] = index + 1;
      llm::ChatResponse response = ask(mine, my_key, kernel);
      roles::Plan plan{clean_plan(response.content), author(response), {{"index", index}}};
      seen.plans_this_iteration.push_back(plan.text);
      offer(std::move(plan));
    }
  }

  // The first draw's messages (the only call's, when the plans come in one call).
  RolePrompt preview(const roles::KernelView& kernel, const std::vector<roles::Insight>& memory,
                     int count) const {
    Json variables = planner_variables(kernel, memory, count);
    if (!options_.plans_in_one_call) variables["plan_index"] = 1;
    return render(variables);
  }

 private:
  Json planner_variables(const roles::KernelView& kernel, const std::vector<roles::Insight>& memory,
                         int count) const {
    Json variables = common_variables(kernel);
    variables["kernel"] = kernel_variables(kernel);
    variables["memory"] = memory_variables(memory);
    variables["plan_count"] = count;
    return variables;
  }
};

class LlmExecutor final : public roles::Executor, LlmAgent {
 public:
  LlmExecutor(llm::ModelSet* models, LlmAgentOptions options)
      : LlmAgent(models, std::move(options), roles::kExecutor) {}

  std::vector<roles::Implementation> implement(const roles::KernelView& kernel,
                                               const roles::Plan& plan, int count) override {
    if (count <= 0) return {};
    Json variables = executor_variables(kernel, plan, count);
    Json key_variables = executor_variables(without_measurements(kernel), plan, count);
    return run_concurrently<roles::Implementation>(count, [&](int index) {
      Json mine = variables, my_key = key_variables;
      mine["attempt_index"] = my_key["attempt_index"] = index + 1;
      return read_kernel(ask(mine, my_key, kernel), *kernel.task);
    });
  }

  // The first implementation's messages.
  RolePrompt preview(const roles::KernelView& kernel, const roles::Plan& plan, int count) const {
    Json variables = executor_variables(kernel, plan, count);
    variables["attempt_index"] = 1;
    return render(variables);
  }

 private:
  Json executor_variables(const roles::KernelView& kernel, const roles::Plan& plan,
                          int count) const {
    Json variables = common_variables(kernel);
    variables["kernel"] = kernel_variables(kernel);
    variables["plan"] = plan_variables(plan);
    variables["attempt_count"] = count;
    variables["attempt_count_many"] = count > 1;
    return variables;
  }
};

class LlmFixer final : public roles::Fixer, LlmAgent {
 public:
  LlmFixer(llm::ModelSet* models, LlmAgentOptions options)
      : LlmAgent(models, std::move(options), roles::kFixer) {}

  std::optional<roles::Implementation> fix(const roles::KernelView& failed,
                                           const roles::Plan& plan) override {
    if (!failed.verdict || failed.verdict->passed()) return std::nullopt;  // nothing to repair
    return read_kernel(ask(fixer_variables(failed, plan),
                           fixer_variables(without_measurements(failed), plan), failed),
                       *failed.task);
  }

  RolePrompt preview(const roles::KernelView& failed, const roles::Plan& plan) const {
    if (!failed.verdict || failed.verdict->passed()) {
      throw UserError("the fixer is asked only about a kernel that failed");
    }
    return render(fixer_variables(failed, plan));
  }

 private:
  Json fixer_variables(const roles::KernelView& failed, const roles::Plan& plan) const {
    Json variables = common_variables(failed);
    variables["kernel"] = kernel_variables(failed);
    variables["plan"] = plan_variables(plan);
    variables["failure"] = failure_variables(*failed.verdict, options_.max_log_chars);
    return variables;
  }
};

// The executor writing a task's first kernel (its baseline is a stub): its own templates
// (baseline.system, baseline.user), the executor's model, and "executor" in the ledger.
class LlmBaselineWriter final : public roles::BaselineWriter, LlmAgent {
 public:
  LlmBaselineWriter(llm::ModelSet* models, LlmAgentOptions options)
      : LlmAgent(models, std::move(options), roles::kExecutor, "baseline") {}

  roles::Implementation write(const roles::KernelView& task, int attempt) override {
    Json variables = baseline_variables(task, attempt);
    return read_kernel(ask(variables, variables, task), *task.task);
  }

  RolePrompt preview(const roles::KernelView& task) const {
    return render(baseline_variables(task, 1));
  }

 private:
  Json baseline_variables(const roles::KernelView& task, int attempt) const {
    Json variables = common_variables(task);
    variables["stub"] = task.source;
    variables["attempt_index"] = attempt;
    variables["retry"] = attempt > 1;
    return variables;
  }
};

// The kernels made for the same parent in the same iteration, with their speedups over the
// baseline, and the rewrite's rank among those timed (1: the fastest).
Json sibling_variables(const std::vector<roles::Sibling>& siblings) {
  Json list = Json::array();
  double rewrite_speedup = 0;
  for (const roles::Sibling& sibling : siblings) {
    if (sibling.rewrite) rewrite_speedup = sibling.speedup;
  }
  int timed = 0, faster = 0;
  for (const roles::Sibling& sibling : siblings) {
    bool is_timed = sibling.speedup > 0;
    timed += is_timed ? 1 : 0;
    faster += is_timed && sibling.speedup > rewrite_speedup ? 1 : 0;
    list.push_back({{"plan", sibling.plan},
                    {"status", sibling.status},
                    {"timed", is_timed},
                    {"rewrite", sibling.rewrite},
                    {"speedup", fmt::format("{:.3g}", sibling.speedup)},
                    {"speedup_low", fmt::format("{:.3g}", sibling.speedup_low)},
                    {"speedup_high", fmt::format("{:.3g}", sibling.speedup_high)}});
  }
  return {{"list", list},
          {"count", siblings.size()},
          {"timed", timed},
          {"rewrite_rank", faster + 1},
          {"rewrite_slowest", timed > 1 && faster + 1 == timed}};
}

class LlmSummarizer final : public roles::Summarizer, LlmAgent {
 public:
  LlmSummarizer(llm::ModelSet* models, LlmAgentOptions options)
      : LlmAgent(models, std::move(options), roles::kSummarizer) {}

  std::optional<roles::Insight> summarize(const roles::RewritePair& pair) override {
    roles::RewritePair unmeasured = pair;
    unmeasured.slow = without_measurements(pair.slow);
    unmeasured.fast = without_measurements(pair.fast);
    unmeasured.speedup = unmeasured.speedup_low = unmeasured.speedup_high = 0;
    for (roles::Sibling& sibling : unmeasured.siblings) {
      sibling.speedup = sibling.speedup_low = sibling.speedup_high = 0;
    }
    bool negative = pair.speedup < 1;
    llm::ChatResponse response = ask(summarizer_variables(pair, negative),
                                     summarizer_variables(unmeasured, negative), context(pair));
    SummaryAnswer answer = parse_summary(response.content);
    if (!answer.insight) return std::nullopt;  // "no optimization found", or unreadable
    roles::Insight insight = std::move(*answer.insight);
    insight.speedup = pair.speedup;
    insight.speedup_low = pair.speedup_low;
    insight.speedup_high = pair.speedup_high;
    insight.positive = pair.speedup >= 1;
    insight.detail = {{"author", author(response)}};
    return insight;
  }

  RolePrompt preview(const roles::RewritePair& pair) const {
    return render(summarizer_variables(pair, pair.speedup < 1));
  }

 private:
  static const roles::KernelView& context(const roles::RewritePair& pair) {
    return pair.fast.task != nullptr ? pair.fast : pair.slow;
  }

  Json summarizer_variables(const roles::RewritePair& pair, bool negative) const {
    Json variables = common_variables(context(pair));
    variables["slow"] = kernel_variables(pair.slow);
    variables["fast"] = kernel_variables(pair.fast);
    variables["plan"] = plan_variables(pair.plan);
    auto number = [](double value) {
      char text[32];
      std::snprintf(text, sizeof text, "%.3g", value);
      return std::string(text);
    };
    variables["rewrite"] = {{"speedup", number(pair.speedup)},
                            {"speedup_low", number(pair.speedup_low)},
                            {"speedup_high", number(pair.speedup_high)},
                            {"negative", negative}};
    variables["siblings"] = sibling_variables(pair.siblings);
    variables["has_siblings"] = pair.siblings.size() > 1;
    return variables;
  }
};

}  // namespace

std::unique_ptr<roles::Planner> make_llm_planner(llm::ModelSet& models, LlmAgentOptions options) {
  return std::make_unique<LlmPlanner>(&models, std::move(options));
}

std::unique_ptr<roles::Executor> make_llm_executor(llm::ModelSet& models, LlmAgentOptions options) {
  return std::make_unique<LlmExecutor>(&models, std::move(options));
}

std::unique_ptr<roles::Fixer> make_llm_fixer(llm::ModelSet& models, LlmAgentOptions options) {
  return std::make_unique<LlmFixer>(&models, std::move(options));
}

std::unique_ptr<roles::Summarizer> make_llm_summarizer(llm::ModelSet& models,
                                                       LlmAgentOptions options) {
  return std::make_unique<LlmSummarizer>(&models, std::move(options));
}

std::unique_ptr<roles::BaselineWriter> make_llm_baseline_writer(llm::ModelSet& models,
                                                                LlmAgentOptions options) {
  return std::make_unique<LlmBaselineWriter>(&models, std::move(options));
}

RolePrompt baseline_prompt(const LlmAgentOptions& options, const roles::KernelView& task) {
  return LlmBaselineWriter(nullptr, options).preview(task);
}

RolePrompt planner_prompt(const LlmAgentOptions& options, const roles::KernelView& kernel,
                          const std::vector<roles::Insight>& memory, int count) {
  return LlmPlanner(nullptr, options).preview(kernel, memory, count);
}

RolePrompt executor_prompt(const LlmAgentOptions& options, const roles::KernelView& kernel,
                           const roles::Plan& plan, int count) {
  return LlmExecutor(nullptr, options).preview(kernel, plan, count);
}

RolePrompt fixer_prompt(const LlmAgentOptions& options, const roles::KernelView& failed,
                        const roles::Plan& plan) {
  return LlmFixer(nullptr, options).preview(failed, plan);
}

RolePrompt summarizer_prompt(const LlmAgentOptions& options, const roles::RewritePair& pair) {
  return LlmSummarizer(nullptr, options).preview(pair);
}

LlmAgents make_llm_agents(llm::ModelSet& models, const LlmAgentOptions& options) {
  LlmAgents agents;
  agents.planner = make_llm_planner(models, options);
  agents.executor = make_llm_executor(models, options);
  agents.fixer = make_llm_fixer(models, options);
  agents.summarizer = make_llm_summarizer(models, options);
  agents.baseline_writer = make_llm_baseline_writer(models, options);
  return agents;
}

}  // namespace accelopt::agents
