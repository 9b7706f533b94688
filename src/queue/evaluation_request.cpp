#include "queue/evaluation_request.h"

#include <fmt/format.h>

#include "common/error.h"

namespace accelopt::queue {

Json request_to_json(const platform::EvalRequest& request) {
  if (request.task == nullptr) throw InternalError("an evaluation request without a task");
  return Json{{"task_directory", std::filesystem::absolute(request.task->directory).string()},
              {"kernel_extension", request.task->kernel_extension},
              {"workload", request.workload},
              {"source", request.source},
              {"anchor_source", request.anchor_source},
              {"anchor_name", request.anchor_name},
              {"measure_time", request.measure_time},
              {"time_ceiling", request.time_ceiling},
              {"timing", request.timing.to_json()}};
}

LoadedRequest request_from_json(const Json& json) {
  LoadedRequest loaded;
  std::string directory, extension;
  platform::EvalRequest& request = loaded.request;
  try {
    directory = json.at("task_directory").get<std::string>();
    extension = json.value("kernel_extension", std::string(".cpp"));
    request.workload = json.at("workload").get<std::string>();
    request.source = json.at("source").get<std::string>();
    request.anchor_source = json.value("anchor_source", "");
    request.anchor_name = json.value("anchor_name", "baseline");
    request.measure_time = json.value("measure_time", true);
    request.time_ceiling = json.value("time_ceiling", false);
    request.timing = platform::TimingOptions::from_json(json.at("timing"));
  } catch (const Json::exception& error) {
    throw MalformedRequest(fmt::format("a malformed evaluation request: {}", error.what()));
  }
  loaded.task = std::make_shared<const task::Task>(task::load_task(directory, extension));
  request.task = loaded.task.get();
  return loaded;
}

}  // namespace accelopt::queue
