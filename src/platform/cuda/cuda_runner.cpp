#include "platform/cuda/cuda_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "common/error.h"
#include "platform/cuda/runner_protocol.h"

namespace accelopt::platform::cuda {

std::optional<std::filesystem::path> find_cuda_runner_program() {
#ifdef ACCELOPT_CUDA_RUNNER_BUILD_PATH
  std::string build_path = ACCELOPT_CUDA_RUNNER_BUILD_PATH;
#else
  std::string build_path;
#endif
  return find_runner("ACCELOPT_CUDA_RUNNER", "accelopt-cuda-runner", build_path);
}

CudaRunner::CudaRunner(CudaRunnerOptions options, const SharedBuffers& buffers)
    : options_(std::move(options)), buffers_(buffers) {}

std::optional<std::string> CudaRunner::start() {
  std::string offsets;
  for (size_t i = 0; i < buffers_.count(); ++i) {
    offsets += (i ? "," : "") + std::to_string(buffers_.offset(i));
  }
  SpawnOptions spawn;
  spawn.argv = {options_.program.string(),
                "--entry",
                options_.entry_point,
                "--offsets",
                offsets,
                "--call-before-sandbox",
                options_.call_before_sandbox ? "1" : "0"};
  spawn.environment = clean_environment(process_.work_directory());
  // No address-space limit: a CUDA process maps the device's memory into its address space.
  spawn.limits.cpu_seconds = options_.cpu_seconds;
  spawn.limits.file_size_bytes = 1 << 20;
  process_.start(spawn, buffers_.fd(), options_.library);
  process_.abandon_when(options_.abandon);

  bool timed_out = false;
  auto line =
      process_.read_line(std::chrono::steady_clock::now() + options_.start_timeout, timed_out);
  if (!line) {
    return timed_out ? "the CUDA runner did not start within " +
                           std::to_string(options_.start_timeout.count()) + " ms"
                     : describe_end();
  }
  auto reply = parse_runner_reply(*line);
  if (reply && reply->kind == ReplyKind::kFail) return reply->text;
  if (!reply || reply->kind != ReplyKind::kReady) {
    return "the CUDA runner said '" + *line + "' instead of READY";
  }
  std::istringstream words(reply->text);
  std::string word;
  while (words >> word) {
    size_t equals = word.find('=');
    if (equals == std::string::npos) continue;
    std::string key = word.substr(0, equals), value = word.substr(equals + 1);
    if (key == "device" || key == "sm") {
      sandbox_[key] = value;
    } else {
      sandbox_[key] = value == "1";
    }
  }
  sandbox_["clean_environment"] = true;
  sandbox_["process_group"] = true;
  sandbox_["empty_working_directory"] = true;
  return std::nullopt;
}

StepResult CudaRunner::load(std::chrono::milliseconds timeout) {
  return step("LOAD", timeout);
}
StepResult CudaRunner::fetch(std::chrono::milliseconds timeout) {
  return step("FETCH", timeout);
}
StepResult CudaRunner::call(int count, std::chrono::milliseconds timeout) {
  return step("CALL " + std::to_string(count), timeout);
}

StepResult CudaRunner::step(const std::string& command, std::chrono::milliseconds timeout) {
  StepResult result;
  auto start = std::chrono::steady_clock::now();
  bool sent = process_.send(command);
  bool timed_out = false;
  auto line = sent ? process_.read_line(start + timeout, timed_out) : std::nullopt;
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!line) {
    if (timed_out) {
      process_.kill();
      result.outcome = StepOutcome::kTimedOut;
      result.message = "the kernel ran past its deadline of " + std::to_string(timeout.count()) +
                       " ms and was killed";
    } else {
      result.outcome = StepOutcome::kEnded;
      result.message = describe_end();
    }
    return result;
  }
  auto reply = parse_runner_reply(*line);
  if (reply && reply->kind == ReplyKind::kError) {
    result.outcome = StepOutcome::kCudaError;
    result.message = "CUDA error: " + reply->text;
    return result;
  }
  if (!reply || reply->kind == ReplyKind::kReady || reply->kind == ReplyKind::kFail) {
    // Replies come only from the runner's loop; anything else was written by the kernel.
    process_.kill();
    result.outcome = StepOutcome::kEnded;
    result.message = "the runner's reply channel carried '" + line->substr(0, 80) + "'";
    return result;
  }
  result.event_seconds = reply->seconds;
  return result;
}

std::string CudaRunner::describe_end() {
  ExitStatus status = process_.wait_end(std::chrono::milliseconds(5000));
  if (!status.exited && status.signal == SIGSYS) {
    return "the kernel made a forbidden system call and was killed";
  }
  return "the CUDA runner " + status.describe();
}

}  // namespace accelopt::platform::cuda
