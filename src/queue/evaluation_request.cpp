#include "queue/evaluation_request.h"

#include <fmt/format.h>

#include "common/error.h"

namespace accelopt::queue {

Json request_to_json(const platform::EvalRequest& request) {
  if (request.task == nullptr) throw InternalError("an evaluation request without a task");
  const platform::TimingOptions& timing = request.timing;
  return Json{{"task_directory", std::filesystem::absolute(request.task->directory).string()},
              {"kernel_extension", request.task->kernel_extension},
              {"workload", request.workload},
              {"source", request.source},
              {"anchor_source", request.anchor_source},
              {"anchor_name", request.anchor_name},
              {"measure_time", request.measure_time},
              {"timing",
               {{"target_half_width", timing.target_half_width},
                {"budget_seconds", timing.budget_seconds},
                {"min_pairs", timing.min_pairs},
                {"max_pairs", timing.max_pairs},
                {"warmup_turns", timing.warmup_turns},
                {"min_turn_seconds", timing.min_turn_seconds}}}};
}

LoadedRequest request_from_json(const Json& json) {
  LoadedRequest loaded;
  try {
    loaded.task = std::make_shared<const task::Task>(
        task::load_task(json.at("task_directory").get<std::string>(),
                        json.value("kernel_extension", std::string(".cpp"))));
    platform::EvalRequest& request = loaded.request;
    request.task = loaded.task.get();
    request.workload = json.at("workload").get<std::string>();
    request.source = json.at("source").get<std::string>();
    request.anchor_source = json.value("anchor_source", "");
    request.anchor_name = json.value("anchor_name", "baseline");
    request.measure_time = json.value("measure_time", true);
    const Json& timing = json.at("timing");
    request.timing.target_half_width = timing.at("target_half_width").get<double>();
    request.timing.budget_seconds = timing.at("budget_seconds").get<double>();
    request.timing.min_pairs = timing.at("min_pairs").get<int>();
    request.timing.max_pairs = timing.at("max_pairs").get<int>();
    request.timing.warmup_turns = timing.at("warmup_turns").get<int>();
    request.timing.min_turn_seconds = timing.at("min_turn_seconds").get<double>();
  } catch (const Json::exception& error) {
    throw UserError(fmt::format("a malformed evaluation request: {}", error.what()));
  }
  return loaded;
}

}  // namespace accelopt::queue
