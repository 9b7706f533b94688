#include "platform/cpu/compiler.h"

#include <fmt/format.h>

#include <sstream>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/json.h"
#include "common/subprocess.h"
#include "task/abi.h"

namespace accelopt::platform::cpu {
namespace {

std::string resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  for (const char* directory : {"/usr/local/bin", "/usr/bin", "/bin"}) {
    std::filesystem::path candidate = std::filesystem::path(directory) / program;
    if (std::filesystem::exists(candidate)) return candidate.string();
  }
  throw UserError("compiler '" + program + "' not found in /usr/local/bin, /usr/bin or /bin");
}

}  // namespace

std::string trim_diagnostics(const std::string& log, int max_errors, size_t max_bytes) {
  std::istringstream lines(log);
  std::string line, trimmed;
  int errors = 0;
  bool keeping = false;
  while (std::getline(lines, line)) {
    bool is_error =
        line.find("error:") != std::string::npos || line.find("fatal error") != std::string::npos;
    if (is_error) {
      if (++errors > max_errors) break;
      keeping = true;
    } else if (line.find("warning:") != std::string::npos ||
               line.find("note:") != std::string::npos) {
      keeping = line.find("note:") != std::string::npos && keeping;
      if (!keeping) continue;
    } else if (line.find("In function") != std::string::npos ||
               line.find("In instantiation") != std::string::npos) {
      continue;
    }
    if (keeping) trimmed += line + "\n";
    if (trimmed.size() > max_bytes) {
      trimmed.resize(max_bytes);
      trimmed += "\n[diagnostics truncated]\n";
      return trimmed;
    }
  }
  if (errors > max_errors)
    trimmed += fmt::format("[{} more errors not shown]\n", errors - max_errors);
  if (trimmed.empty()) {
    trimmed = log.substr(0, max_bytes);
  }
  return trimmed;
}

Compiler::Compiler(CompilerOptions options) : options_(std::move(options)) {
  options_.compiler = resolve_program(options_.compiler);
  TempDir scratch("accelopt-version");
  SpawnOptions spawn;
  spawn.argv = {options_.compiler, "--version"};
  spawn.environment = clean_environment(scratch.path());
  CommandResult result = run_command(spawn, std::chrono::seconds(30));
  if (!result.status.exited || result.status.exit_code != 0) {
    throw UserError("cannot run " + options_.compiler + " --version: " + result.status.describe());
  }
  version_ = result.output.substr(0, result.output.find('\n'));
  is_clang_ = version_.find("clang") != std::string::npos;
  cache_ =
      options_.cache_directory.empty() ? cache_directory() / "compile" : options_.cache_directory;
  std::filesystem::create_directories(cache_);
}

CompileResult Compiler::compile(const std::string& source, const std::string& header,
                                const std::vector<std::string>& extra_flags) {
  std::vector<std::string> flags = options_.flags;
  flags.insert(flags.end(), extra_flags.begin(), extra_flags.end());
  std::string key_material = version_ + "\n";
  for (const std::string& flag : flags) key_material += flag + "\n";
  key_material += "--header--\n" + header + "--source--\n" + source;
  CompileResult result;
  result.key = sha256_hex(key_material);
  result.directory = cache_ / result.key.substr(0, 2) / result.key;
  std::filesystem::path record = result.directory / "result.json";

  auto load_cached = [&]() -> bool {
    if (!std::filesystem::exists(record)) return false;
    Json json = Json::parse(read_file(record), nullptr, false);
    if (json.is_discarded()) return false;
    result.ok = json.value("ok", false);
    result.seconds = json.value("seconds", 0.0);
    result.diagnostics = read_file(result.directory / "diagnostics.txt");
    if (std::filesystem::exists(result.directory / "remarks.txt")) {
      result.remarks = read_file(result.directory / "remarks.txt");
    }
    result.library = result.directory / "kernel.so";
    if (result.ok && !std::filesystem::exists(result.library)) return false;
    result.cached = true;
    return true;
  };

  std::lock_guard lock(mutex_);  // one compile at a time: the timing core must stay quiet
  if (load_cached()) return result;

  std::filesystem::create_directories(result.directory.parent_path());
  TempDir work("accelopt-compile");
  write_file_atomic(work.path() / "kernel.cpp", source);
  write_file_atomic(work.path() / task::kKernelHeaderName, header);
  SpawnOptions spawn;
  // Libraries (-l...) go after the source, where the linker looks for what it still needs.
  spawn.argv = {options_.compiler};
  for (const std::string& flag : flags) {
    if (flag.rfind("-l", 0) != 0) spawn.argv.push_back(flag);
  }
  spawn.argv.insert(spawn.argv.end(), {"-I.", "kernel.cpp", "-o", "kernel.so"});
  for (const std::string& flag : flags) {
    if (flag.rfind("-l", 0) == 0) spawn.argv.push_back(flag);
  }
  if (is_clang_) {
    spawn.argv.insert(spawn.argv.end(), {"-Rpass=loop-vectorize", "-Rpass-missed=loop-vectorize",
                                         "-Rpass-analysis=loop-vectorize"});
  } else {
    spawn.argv.push_back("-fopt-info-vec-optimized-missed=remarks.txt");
  }
  spawn.environment = clean_environment(work.path());
  spawn.working_directory = work.path();
  spawn.limits.address_space_bytes = options_.memory_bytes;
  spawn.limits.file_size_bytes = 512ull << 20;
  spawn.limits.cpu_seconds = static_cast<uint64_t>(options_.timeout.count()) + 5;
  spawn.cpus = options_.cpus;
  CommandResult run = run_command(spawn, options_.timeout, 4 << 20);
  // Paths into the scratch directory mean nothing to a reader: keep the file names only.
  std::string scratch_prefix = work.path().string() + "/";
  for (size_t at = run.output.find(scratch_prefix); at != std::string::npos;
       at = run.output.find(scratch_prefix, at)) {
    run.output.erase(at, scratch_prefix.size());
  }
  result.seconds = run.wall_seconds;
  result.ok = run.status.exited && run.status.exit_code == 0;
  if (run.status.timed_out) {
    result.timed_out = true;
    result.diagnostics = fmt::format(
        "the compiler ran past its {} s limit and was stopped (runaway templates or constexpr "
        "evaluation?)",
        options_.timeout.count());
    return result;  // not cached: a busy machine may finish next time
  }
  if (!result.ok) {
    bool out_of_memory = run.status.signal != 0 ||
                         run.output.find("out of memory") != std::string::npos ||
                         run.output.find("virtual memory exhausted") != std::string::npos;
    result.diagnostics = trim_diagnostics(run.output);
    if (out_of_memory && result.diagnostics.find("error:") == std::string::npos) {
      result.diagnostics = "the compiler " + run.status.describe() + " (memory limit " +
                           std::to_string(options_.memory_bytes >> 20) + " MiB)\n" +
                           result.diagnostics;
    }
  } else {
    result.diagnostics = run.output.substr(0, 4000);
  }
  if (is_clang_) {
    result.remarks = run.output;
  } else if (std::filesystem::exists(work.path() / "remarks.txt")) {
    result.remarks = read_file(work.path() / "remarks.txt");
  }

  // Build the entry beside its final place, then rename it in: readers see all of it or nothing.
  std::filesystem::path staging = result.directory;
  staging += ".tmp";
  std::filesystem::remove_all(staging);
  std::filesystem::create_directories(staging);
  std::filesystem::copy_file(work.path() / "kernel.cpp", staging / "kernel.cpp");
  std::filesystem::copy_file(work.path() / task::kKernelHeaderName,
                             staging / task::kKernelHeaderName);
  if (result.ok) std::filesystem::copy_file(work.path() / "kernel.so", staging / "kernel.so");
  write_file_atomic(staging / "diagnostics.txt", result.diagnostics);
  write_file_atomic(staging / "remarks.txt", result.remarks);
  write_file_atomic(staging / "log.txt", run.output);
  Json json = {
      {"ok", result.ok}, {"seconds", result.seconds}, {"compiler", version_}, {"flags", flags}};
  write_file_atomic(staging / "result.json", json.dump(2));
  std::filesystem::remove_all(result.directory);
  std::filesystem::rename(staging, result.directory);
  result.library = result.directory / "kernel.so";
  return result;
}

}  // namespace accelopt::platform::cpu
