// The evaluator-command platform: accelopt hands an external program the task, the workload and the
// kernel (evaluator_protocol.h), and turns its reply into a verdict. The program may run the kernel
// anywhere: another host over ssh (evaluators/ssh-cpu), a Trainium host through the Neuron SDK
// (evaluators/nki). Correctness is checked here against the task's CPU reference when the
// evaluator returns outputs; the statistics and the roofline score are always computed here.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "platform/checker.h"
#include "platform/command/evaluator_protocol.h"
#include "platform/platform.h"
#include "platform/roofline.h"

namespace accelopt::platform::command {

struct CommandPlatformOptions {
  std::string name = "command";               // how verdicts and reports name this platform
  std::vector<std::string> argv;              // the evaluator; argv[0] is a path
  std::vector<std::string> environment;       // added to a clean environment (PATH, HOME, LANG)
  std::chrono::milliseconds timeout{900000};  // for one request, compile and timing included
  CorrectnessMode correctness = CorrectnessMode::kEvaluator;
  // The kind of source the evaluator takes; a task's baseline is baseline<kernel_extension>.
  std::string kernel_extension = ".cpp";
  // The agents' prompt fragment, prompts/platform/<prompt_fragment>.mustache; empty: "cuda" for
  // ".cu" kernels, else "command" (a description that claims no particular device).
  std::string prompt_fragment;
  // What the configuration says of the evaluator's device, free-form, for the agents and
  // `accelopt machine`: "name", "kind" ("Trainium 2", "x86 CPU", ...), "toolchain" ("Neuron SDK
  // 2.21"). Empty when not given. (Protocol 1 has no handshake before the first kernel; each
  // reply's `device` comes too late for the agents' first prompt.)
  std::string device_name, device_kind, toolchain;
  int devices_per_worker = 0;  // accelerators one worker holds (Slurm's --gres=gpu:N)
  // The ceilings of the device the evaluator runs on; all zero: no roofline score, no physics
  // check.
  Peaks ceilings;
};

class CommandPlatform : public Platform {
 public:
  CommandPlatform(CommandPlatformOptions options, ReferenceCases reference_cases);

  std::string name() const override { return options_.name; }
  Verdict evaluate(const EvalRequest& request) override;

 private:
  // Runs the evaluator on one request; throws UserError when it fails or answers off-protocol.
  EvaluatorReply ask(const Json& request, const task::Task& task, const task::Workload& workload);

  CommandPlatformOptions options_;
  ReferenceCases reference_cases_;
};

}  // namespace accelopt::platform::command
