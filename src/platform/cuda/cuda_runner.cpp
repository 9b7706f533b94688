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
  if (const char* explicit_path = std::getenv("ACCELOPT_CUDA_RUNNER");
      explicit_path && *explicit_path) {
    return explicit_path;
  }
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error && std::filesystem::exists(self.parent_path() / "accelopt-cuda-runner")) {
    return self.parent_path() / "accelopt-cuda-runner";
  }
#ifdef ACCELOPT_CUDA_RUNNER_BUILD_PATH
  if (std::filesystem::exists(ACCELOPT_CUDA_RUNNER_BUILD_PATH)) {
    return ACCELOPT_CUDA_RUNNER_BUILD_PATH;
  }
#endif
  return std::nullopt;
}

CudaRunner::CudaRunner(CudaRunnerOptions options, const cpu::SharedBuffers& buffers)
    : options_(std::move(options)), buffers_(buffers), home_("accelopt-cuda-runner") {}

CudaRunner::~CudaRunner() {
  if (process_) {
    process_->continue_group();
    process_->kill_group();
  }
  if (command_fd_ >= 0) ::close(command_fd_);
  if (reply_fd_ >= 0) ::close(reply_fd_);
}

std::optional<std::string> CudaRunner::start() {
  int command_pipe[2], reply_pipe[2];
  if (::pipe2(command_pipe, O_CLOEXEC) != 0 || ::pipe2(reply_pipe, O_CLOEXEC) != 0) {
    throw InternalError(errno_message("pipe for the CUDA runner"));
  }
  int library_fd = ::open(options_.library.c_str(), O_RDONLY | O_CLOEXEC);
  if (library_fd < 0) throw InternalError(errno_message("open " + options_.library.string()));
  std::filesystem::path work = home_.path() / "work";
  std::filesystem::create_directories(work);

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
  spawn.environment = clean_environment(work);
  spawn.working_directory = work;
  spawn.output_file = home_.path() / "output.txt";
  // No address-space limit: a CUDA process maps the device's memory into its address space.
  spawn.limits.cpu_seconds = options_.cpu_seconds;
  spawn.limits.file_size_bytes = 1 << 20;
  spawn.pass_fds = {{command_pipe[0], kCommandFd},
                    {reply_pipe[1], kReplyFd},
                    {buffers_.fd(), kSharedMemoryFd},
                    {library_fd, kLibraryFd}};
  process_.emplace(Process::spawn(spawn));
  ::close(command_pipe[0]);
  ::close(reply_pipe[1]);
  ::close(library_fd);
  command_fd_ = command_pipe[1];
  reply_fd_ = reply_pipe[0];
  replies_.emplace(reply_fd_, "the CUDA runner");

  bool timed_out = false;
  auto line =
      replies_->read_line(std::chrono::steady_clock::now() + options_.start_timeout, timed_out);
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
  sigset_t pipe_signal, previous;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  std::string message = command + "\n";
  bool sent =
      ::write(command_fd_, message.data(), message.size()) == static_cast<ssize_t>(message.size());
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  bool timed_out = false;
  auto line = sent ? replies_->read_line(start + timeout, timed_out) : std::nullopt;
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!line) {
    if (timed_out) {
      process_->kill_group();
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
    process_->kill_group();
    result.outcome = StepOutcome::kEnded;
    result.message = "the runner's reply channel carried '" + line->substr(0, 80) + "'";
    return result;
  }
  result.event_seconds = reply->seconds;
  return result;
}

std::string CudaRunner::describe_end() {
  ExitStatus status = process_->wait(std::chrono::milliseconds(5000));
  if (!status.exited && status.signal == SIGSYS) {
    return "the kernel made a forbidden system call and was killed";
  }
  return "the CUDA runner " + status.describe();
}

void CudaRunner::pause() {
  process_->stop_group();
}
void CudaRunner::resume() {
  process_->continue_group();
}

std::string CudaRunner::output() const {
  std::filesystem::path file = home_.path() / "output.txt";
  if (!std::filesystem::exists(file)) return "";
  std::string text = read_file(file);
  return text.size() <= 8000 ? text : "[...]\n" + text.substr(text.size() - 8000);
}

}  // namespace accelopt::platform::cuda
