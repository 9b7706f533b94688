// For tests of evaluator commands (a stand-in, the NKI evaluator, ssh-cpu): the silu task, and a
// kernel judged on its "small" workload through the command platform, whose outputs, when the
// platform checks them, are compared with the CPU platform's reference. Linked only by tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "platform/command/command_platform.h"
#include "platform/registry.h"

namespace accelopt::platform::command {

class EvaluatorTest : public ::testing::Test {
 protected:
  EvaluatorTest();

  // A request for `source` on the small workload; the caller sets timing, anchor and the like.
  EvalRequest small_request(const std::string& source) const;
  // `request` judged through the evaluator that `options` describes.
  Verdict evaluate_through(CommandPlatformOptions options, const EvalRequest& request);

  task::Task task_;
  CpuReference reference_ = make_cpu_reference({});
};

}  // namespace accelopt::platform::command
