#include "platform/command/command_platform.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>

#include "common/error.h"
#include "common/files.h"
#include "common/subprocess.h"
#include "platform/checker.h"
#include "platform/evaluation.h"
#include "task/abi.h"

namespace accelopt::platform::command {
namespace {

// A descriptor that closes itself.
class FileDescriptor {
 public:
  FileDescriptor(const std::filesystem::path& path, int flags)
      : fd_(::open(path.c_str(), flags, 0600)) {
    if (fd_ < 0) throw InternalError(errno_message("open " + path.string()));
  }
  ~FileDescriptor() { ::close(fd_); }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string tail(const std::string& text, size_t limit) {
  return text.size() <= limit ? text : "[...]\n" + text.substr(text.size() - limit);
}

// Necessary conditions of ‖out − ref‖₂ ≤ tol·‖ref‖₂: by the triangle inequality the norms differ
// by at most tol·‖ref‖₂, and by Cauchy–Schwarz the sums by at most √n·tol·‖ref‖₂. A correct kernel
// always passes; a wrong one usually fails.
std::optional<std::string> check_checksum(const std::string& name, const OutputChecksum& got,
                                          const std::vector<float>& reference, double tolerance) {
  double sum = 0, squares = 0;
  for (float value : reference) {
    sum += value;
    squares += static_cast<double>(value) * value;
  }
  double l2 = std::sqrt(squares);
  double slack = tolerance * l2 + 1e-30;
  if (!std::isfinite(got.l2) || std::abs(got.l2 - l2) > slack) {
    return fmt::format("output '{}': L2 norm {:.9g}, the reference's is {:.9g}", name, got.l2, l2);
  }
  if (!std::isfinite(got.sum) ||
      std::abs(got.sum - sum) > std::sqrt(static_cast<double>(reference.size())) * slack) {
    return fmt::format("output '{}': sum {:.9g}, the reference's is {:.9g}", name, got.sum, sum);
  }
  return std::nullopt;
}

// Compares what the evaluator returned with the reference, seed by seed; fills `verdict` and
// returns false on the first failure.
bool check_outputs(const task::Task& task, const std::vector<ReferenceCase>& cases,
                   const std::vector<SeedOutputs>& outputs, Verdict& verdict) {
  for (const ReferenceCase& reference_case : cases) {
    std::string when = reference_case.label.empty() ? "seed " + std::to_string(reference_case.seed)
                                                    : reference_case.label;
    const SeedOutputs* got = nullptr;
    for (const SeedOutputs& seed_outputs : outputs) {
      if (seed_outputs.seed == reference_case.seed) got = &seed_outputs;
    }
    if (got == nullptr) {
      throw UserError("the evaluator's reply has no outputs for " + when);
    }
    const task::InputSet* set =
        reference_case.set.empty() ? nullptr : &task.input_set(reference_case.set);
    if (!got->values.empty()) {
      std::vector<const float*> values;
      for (const std::vector<float>& output : got->values) values.push_back(output.data());
      if (!record_output_check(platform::check_outputs(task, set, values, reference_case.outputs),
                               when, verdict)) {
        return false;
      }
      ++verdict.correctness.seeds_checked;
      continue;
    }
    for (size_t o = 0; o < task.outputs.size(); ++o) {
      const std::vector<float>& reference = reference_case.outputs[o];
      task::Tolerance tolerance = task.tolerance(task.outputs[o].name, set);
      if (auto failure = check_checksum(task.outputs[o].name, got->checksums[o], reference,
                                        tolerance.rel_l2)) {
        verdict.status = Status::kIncorrectNumerical;
        verdict.message = when + ": " + *failure;
        return false;
      }
    }
    ++verdict.correctness.seeds_checked;
  }
  return true;
}

}  // namespace

CommandPlatform::CommandPlatform(CommandPlatformOptions options, ReferenceCases reference_cases)
    : options_(std::move(options)), reference_cases_(std::move(reference_cases)) {
  if (options_.argv.empty()) throw UserError("the evaluator command is empty");
}

EvaluatorReply CommandPlatform::ask(const Json& request, const task::Task& task,
                                    const task::Workload& workload) {
  TempDir scratch("accelopt-evaluator");
  std::filesystem::path request_file = scratch.path() / "request.json";
  std::filesystem::path reply_file = scratch.path() / "reply.json";
  write_file_atomic(request_file, request.dump());
  FileDescriptor request_fd(request_file, O_RDONLY | O_CLOEXEC);
  FileDescriptor reply_fd(reply_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);

  SpawnOptions spawn;
  spawn.argv = options_.argv;
  spawn.environment = clean_environment(scratch.path());
  spawn.environment.insert(spawn.environment.end(), options_.environment.begin(),
                           options_.environment.end());
  spawn.working_directory = scratch.path();
  spawn.output_file = scratch.path() / "stderr.txt";
  spawn.pass_fds = {{request_fd.get(), 0}, {reply_fd.get(), 1}};
  CommandResult result = run_command(spawn, options_.timeout);
  std::string evaluator = options_.argv.front();
  if (result.status.timed_out) {
    throw UserError(fmt::format("the evaluator {} gave no answer within {} s; its stderr:\n{}",
                                evaluator, options_.timeout.count() / 1000,
                                tail(result.output, 4000)));
  }
  if (!result.status.exited || result.status.exit_code != 0) {
    throw UserError(
        fmt::format("the evaluator {} {} (a kernel's failure is a reply, not an exit "
                    "status); its stderr:\n{}",
                    evaluator, result.status.describe(), tail(result.output, 4000)));
  }
  try {
    EvaluatorReply reply = parse_reply(read_file(reply_file), task, workload);
    if (reply.log.empty()) reply.log = tail(result.output, 16000);
    return reply;
  } catch (const UserError& error) {
    throw UserError(fmt::format("evaluator {}: {}; its stderr:\n{}", evaluator, error.what(),
                                tail(result.output, 4000)));
  }
}

Verdict CommandPlatform::evaluate(const EvalRequest& request) {
  const task::Task& task = *request.task;
  // Its wire protocol carries float32 values (evaluator_protocol.h).
  require_float32_tensors(task, "command");
  const task::Workload& workload = task.workload_or_default(request.workload);
  VerdictStart started(request, workload);
  Verdict& verdict = started.verdict;

  EvaluatorRequest message;
  message.task = &task;
  message.workload = &workload;
  message.header = task::generate_kernel_header(task, workload);
  message.source = request.source;
  message.anchor_name = request.anchor_name;
  message.anchor_source =
      request.anchor_source.empty() ? read_file(task.baseline_path()) : request.anchor_source;
  message.reference_source = read_file(task.reference_path());
  message.correctness = options_.correctness;
  message.measure_time = request.measure_time;
  message.timing = request.timing;
  std::vector<ReferenceCase> cases;
  if (options_.correctness == CorrectnessMode::kEvaluator) {
    for (int seed = 1; seed <= task.seeds; ++seed) {
      message.cases.push_back({static_cast<uint64_t>(seed), {}});
    }
  } else {
    try {
      cases = reference_cases_(task, workload);
    } catch (const MachineBusy& busy) {  // the CPU's reference: not the kernel's failure
      return started.finish(Status::kMachineBusy, busy.what());
    }
    for (const ReferenceCase& reference_case : cases) {  // the protocol sends float32 values
      RequestCase request_case{reference_case.seed, {}};
      for (const task::TensorValues& input : reference_case.inputs) {
        request_case.inputs.push_back(input.floats());
      }
      message.cases.push_back(std::move(request_case));
    }
  }

  EvaluatorReply reply = ask(request_to_json(message), task, workload);
  verdict.log = reply.log;
  verdict.compile_seconds = reply.compile_seconds;
  verdict.sandbox = reply.sandbox;
  verdict.profile["platform"] = options_.name;
  verdict.profile["device"] = reply.device;
  if (reply.status != Status::kPassed) return started.finish(reply.status, reply.message);

  if (options_.correctness == CorrectnessMode::kEvaluator) {
    if (!reply.correctness) {
      throw UserError("evaluator " + options_.argv.front() +
                      " answered PASSED without its correctness figures");
    }
    verdict.correctness = *reply.correctness;
  } else if (!check_outputs(task, cases, reply.outputs, verdict)) {
    return started.finish(verdict.status, "");
  }
  if (!request.measure_time)
    return started.finish(Status::kPassed, "correct on every case (not timed)");
  if (!reply.turns) {
    throw UserError("evaluator " + options_.argv.front() + " answered PASSED without timing");
  }

  verdict.timing =
      timing_from_reported(*reply.turns, request.anchor_name, request.timing.target_half_width);
  return finish_timed(started, task, workload, options_.ceilings, "the evaluator's device");
}

}  // namespace accelopt::platform::command
