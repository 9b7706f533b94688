#include "memory/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/error.h"

namespace accelopt::memory {

std::string_view scope_name(Scope scope) {
  switch (scope) {
    case Scope::kTask:
      return "task";
    case Scope::kRelated:
      return "related";
    case Scope::kAll:
      return "all";
  }
  return "task";
}

Scope parse_scope(std::string_view text) {
  if (text == "task") return Scope::kTask;
  if (text == "related") return Scope::kRelated;
  if (text == "all") return Scope::kAll;
  throw UserError(fmt::format("memory.scope: '{}' is not one of task, related, all", text));
}

RewriteKind classify(const Rewrite& rewrite, const MemoryOptions& options) {
  if (rewrite.speedup_low > options.positive_threshold) return RewriteKind::kPositive;
  if (rewrite.speedup_high < options.negative_threshold) return RewriteKind::kNegative;
  return RewriteKind::kNoise;
}

RewriteKind classify_median(const Rewrite& rewrite, const MemoryOptions& options) {
  if (rewrite.speedup > options.positive_threshold) return RewriteKind::kPositive;
  if (rewrite.speedup < options.negative_threshold) return RewriteKind::kNegative;
  return RewriteKind::kNoise;
}

std::vector<size_t> select_rewrites(const std::vector<Rewrite>& rewrites,
                                    const MemoryOptions& options) {
  std::vector<size_t> positive, negative;
  for (size_t index = 0; index < rewrites.size(); ++index) {
    RewriteKind kind = classify_median(rewrites[index], options);
    if (kind == RewriteKind::kPositive) positive.push_back(index);
    if (kind == RewriteKind::kNegative) negative.push_back(index);
  }
  // Stable sorts keep the search's (deterministic) order among equal speedups.
  std::stable_sort(positive.begin(), positive.end(), [&](size_t a, size_t b) {
    return rewrites[a].speedup_low > rewrites[b].speedup_low;
  });
  std::stable_sort(negative.begin(), negative.end(), [&](size_t a, size_t b) {
    return rewrites[a].speedup_high < rewrites[b].speedup_high;
  });
  size_t limit = static_cast<size_t>(std::max(0, options.top_k));
  size_t take_positive = std::min(positive.size(), limit);
  size_t take_negative = 0;
  if (!positive.empty() && !negative.empty()) {
    take_positive = std::min(positive.size(), (limit + 1) / 2);
    take_negative = std::min(negative.size(), limit - take_positive);
    take_positive = std::min(positive.size(), limit - take_negative);  // fill what negatives left
  } else if (positive.empty()) {
    take_negative = std::min(negative.size(), limit);
  }
  std::vector<size_t> chosen(positive.begin(), positive.begin() + take_positive);
  chosen.insert(chosen.end(), negative.begin(), negative.begin() + take_negative);
  return chosen;
}

Json insight_to_json(const roles::Insight& insight) {
  return Json{{"title", insight.title},
              {"description", insight.description},
              {"before_snippet", insight.before_snippet},
              {"after_snippet", insight.after_snippet},
              {"speedup", insight.speedup},
              {"speedup_low", insight.speedup_low},
              {"speedup_high", insight.speedup_high},
              {"positive", insight.positive},
              {"effect", insight.effect},
              {"detail", insight.detail}};
}

roles::Insight insight_from_json(const Json& json) {
  roles::Insight insight;
  insight.title = json.value("title", "");
  insight.description = json.value("description", "");
  insight.before_snippet = json.value("before_snippet", "");
  insight.after_snippet = json.value("after_snippet", "");
  insight.speedup = json.value("speedup", 1.0);
  insight.speedup_low = json.value("speedup_low", insight.speedup);
  insight.speedup_high = json.value("speedup_high", insight.speedup);
  insight.positive = json.value("positive", insight.speedup >= 1);
  insight.effect = json.value("effect", "");
  insight.detail = json.value("detail", Json::object());
  return insight;
}

bool Visibility::visible(const store::MemoryEntryRecord& entry, int64_t own_run) const {
  if (entry.run_id == own_run) return true;
  if (entry.id > horizon) return false;
  if (!runs.empty() && std::find(runs.begin(), runs.end(), entry.run_id) == runs.end()) {
    return false;
  }
  return std::find(excluded_tasks.begin(), excluded_tasks.end(), entry.task) ==
         excluded_tasks.end();
}

std::vector<store::MemoryEntryRecord> retrieve(const std::vector<store::MemoryEntryRecord>& all,
                                               const task::Task& task, const MemoryOptions& options,
                                               int64_t run_id, const Visibility& visibility) {
  std::set<std::string> own_tags(task.tags.begin(), task.tags.end());
  auto in_scope = [&](const store::MemoryEntryRecord& entry) {
    if (entry.task == task.name) return true;
    switch (options.scope) {
      case Scope::kTask:
        return false;
      case Scope::kAll:
        return true;
      case Scope::kRelated:
        if (!entry.op_type.empty() && entry.op_type == task.op_type) return true;
        for (const std::string& tag : entry.tags) {
          if (own_tags.count(tag) > 0) return true;
        }
        return false;
    }
    return false;
  };
  // The queue of each task: its visible entries, the newest exp_n of them.
  std::map<std::string, std::vector<const store::MemoryEntryRecord*>> queues;
  for (const auto& entry : all) {  // oldest first
    if (visibility.visible(entry, run_id) && in_scope(entry)) queues[entry.task].push_back(&entry);
  }
  std::vector<const store::MemoryEntryRecord*> own, others;
  for (auto& [name, queue] : queues) {
    size_t keep = std::min(queue.size(), static_cast<size_t>(std::max(0, options.exp_n)));
    auto& target = name == task.name ? own : others;
    target.insert(target.end(), queue.end() - static_cast<std::ptrdiff_t>(keep), queue.end());
  }
  auto newest_first = [](const auto* a, const auto* b) { return a->id > b->id; };
  std::sort(own.begin(), own.end(), newest_first);
  std::sort(others.begin(), others.end(), newest_first);
  std::vector<store::MemoryEntryRecord> result;
  for (const auto* list : {&own, &others}) {
    for (const auto* entry : *list) {
      if (static_cast<int>(result.size()) >= options.retrieve_limit) return result;
      result.push_back(*entry);
    }
  }
  return result;
}

namespace {
// What makes two entries the same lesson, wherever they were made: provenance (ids, run) aside.
std::string identity(const store::MemoryEntryRecord& entry) {
  return Json{entry.task, entry.positive, fmt::format("{:.6g}", entry.speedup),
              entry.insight.value("title", ""), entry.insight.value("description", "")}
      .dump();
}
}  // namespace

std::vector<roles::Insight> planner_insights(const store::Store& store, const task::Task& task,
                                             const MemoryOptions& options, int64_t run_id,
                                             const Visibility& visibility) {
  std::vector<roles::Insight> result;
  for (const auto& entry : retrieve(store.memory_entries(), task, options, run_id, visibility)) {
    roles::Insight insight = insight_from_json(entry.insight);
    insight.task = entry.task;
    insight.run = entry.run_id;
    insight.slow_candidate = entry.slow_candidate;
    insight.fast_candidate = entry.fast_candidate;
    insight.iteration = entry.iteration;
    if (auto slow = store.candidate(entry.slow_candidate)) insight.workload = slow->workload;
    insight.detail["task"] = entry.task;
    if (!insight.detail.contains("op_type")) insight.detail["op_type"] = entry.op_type;
    result.push_back(std::move(insight));
  }
  return result;
}

int64_t import_entries(store::Store& store, std::vector<store::MemoryEntryRecord> entries) {
  std::set<std::string> held;
  for (const auto& entry : store.memory_entries()) held.insert(identity(entry));
  int64_t added = 0;
  for (auto& entry : entries) {
    if (!held.insert(identity(entry)).second) continue;
    store.add_memory_entry(entry);
    ++added;
  }
  return added;
}

store::MemoryEntryRecord make_entry(const roles::Insight& insight, const Rewrite& rewrite,
                                    const task::Task& task, int64_t run_id, int iteration) {
  store::MemoryEntryRecord entry;
  entry.run_id = run_id;
  entry.task = task.name;
  entry.op_type = task.op_type;
  entry.tags = task.tags;
  if (insight.detail.contains("moves")) {
    for (const Json& move : insight.detail["moves"]) entry.knobs.push_back(move.value("knob", ""));
  }
  entry.slow_candidate = rewrite.slow_candidate;
  entry.fast_candidate = rewrite.fast_candidate;
  entry.speedup = rewrite.speedup;
  entry.speedup_low = rewrite.speedup_low;
  entry.speedup_high = rewrite.speedup_high;
  entry.positive = rewrite.speedup >= 1;
  entry.iteration = iteration;
  roles::Insight stored = insight;
  stored.speedup = rewrite.speedup;  // the harness's figure, not the agent's
  stored.speedup_low = rewrite.speedup_low;
  stored.speedup_high = rewrite.speedup_high;
  stored.positive = entry.positive;
  entry.insight = insight_to_json(stored);
  return entry;
}

}  // namespace accelopt::memory
