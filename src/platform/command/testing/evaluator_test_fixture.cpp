#include "platform/command/testing/evaluator_test_fixture.h"

#include <utility>

namespace accelopt::platform::command {

EvaluatorTest::EvaluatorTest() : task_(task::load_task(ACCELOPT_SOURCE_DIR "/bench/cpu/silu")) {}

EvalRequest EvaluatorTest::small_request(const std::string& source) const {
  EvalRequest request;
  request.task = &task_;
  request.workload = "small";
  request.source = source;
  return request;
}

Verdict EvaluatorTest::evaluate_through(CommandPlatformOptions options,
                                        const EvalRequest& request) {
  CommandPlatform platform(std::move(options), reference_.cases);
  return platform.evaluate(request);
}

}  // namespace accelopt::platform::command
