#include "platform/cpu/compiler.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <regex>
#include <sstream>
#include <thread>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/json.h"
#include "platform/compile_cache.h"
#include "platform/compiler_sandbox.h"
#include "task/abi.h"

namespace accelopt::platform::cpu {
namespace {

using Clock = std::chrono::steady_clock;

// Bumped whenever the stages or their checks change, so that no cached verdict of an older
// pipeline is served.
constexpr const char* kPipelineVersion =
    "pipeline-4 (-E, check (words too), -S, check, link; sandboxed)";

std::string resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  for (const char* directory : {"/usr/local/bin", "/usr/bin", "/bin"}) {
    std::filesystem::path candidate = std::filesystem::path(directory) / program;
    if (std::filesystem::exists(candidate)) return candidate.string();
  }
  throw UserError("compiler '" + program + "' not found in /usr/local/bin, /usr/bin or /bin");
}

// What the compiler's sandbox shows: the system (programs, libraries, headers), the loader's
// cache, /dev/null, and the compiler's own directory when it lives elsewhere.
std::vector<std::filesystem::path> visible_paths(const std::string& compiler) {
  std::vector<std::filesystem::path> paths = compiler_system_paths();
  std::error_code error;
  std::filesystem::path real = std::filesystem::canonical(compiler, error);
  if (!error && !real.string().starts_with("/usr/")) paths.push_back(real.parent_path());
  return paths;
}

// The <...> search list that `compiler -E -v` prints.
std::vector<std::filesystem::path> parse_include_directories(const std::string& output) {
  std::vector<std::filesystem::path> directories;
  std::istringstream lines(output);
  std::string line;
  bool inside = false;
  while (std::getline(lines, line)) {
    if (line.starts_with("#include <...> search starts here")) {
      inside = true;
    } else if (line.starts_with("End of search list")) {
      inside = false;
    } else if (inside && line.starts_with(" ")) {
      std::string directory = line.substr(1);
      if (size_t note = directory.find(" ("); note != std::string::npos) directory.resize(note);
      directories.push_back(std::filesystem::path(directory).lexically_normal());
    }
  }
  return directories;
}

bool succeeded(const CommandResult& run) {
  return run.status.exited && run.status.exit_code == 0;
}

// What the -E stage says about a kernel: a header it may not see, or what check_preprocessed
// refuses in kernel.ii (checked even when -E failed: a refused construct says more than the error
// it caused).
std::optional<std::string> check_preprocess_stage(
    const CommandResult& run, const std::filesystem::path& work,
    const std::vector<std::filesystem::path>& include_directories) {
  static const std::regex missing_header(R"(fatal error: ([^\n]*): No such file or directory)");
  std::smatch missing;
  if (!succeeded(run) && std::regex_search(run.output, missing, missing_header)) {
    return "#include of " + missing[1].str().substr(0, 200) +
           ": not a header a kernel may include (the compiler sees only the system headers and \"" +
           task::kKernelHeaderName + "\")";
  }
  if (!std::filesystem::exists(work / "kernel.ii")) return std::nullopt;
  return check_preprocessed(read_file(work / "kernel.ii"), include_directories);
}

// Libraries (-l...) go after the inputs, where the linker looks for what it still needs.
bool is_library(const std::string& flag) {
  return flag.rfind("-l", 0) == 0;
}

}  // namespace

Compiler::Compiler(CompilerOptions options)
    : options_(std::move(options)),
      cache_(options_.cache_directory.empty() ? cache_directory() / "compile"
                                              : options_.cache_directory) {
  options_.compiler = resolve_program(options_.compiler);
  TempDir scratch("accelopt-version");
  auto probe = [&](bool isolate) {
    return run_stage({"-E", "-v", "-x", "c++", "/dev/null", "-o", "/dev/null"}, scratch.path(),
                     std::chrono::seconds(30), 30, isolate);
  };
  CommandResult search = probe(options_.isolate);
  if (options_.isolate && search.status.exited && search.status.exit_code == kIsolationFailed) {
    isolation_problem_ = search.output.substr(0, search.output.find('\n'));
    search = probe(false);
  } else if (!options_.isolate) {
    isolation_problem_ = "the compiler's sandbox is turned off (CompilerOptions::isolate)";
  }
  if (!succeeded(search)) {
    throw UserError("cannot run " + options_.compiler + " -E -v: " + search.status.describe() +
                    "\n" + search.output.substr(0, 2000));
  }
  include_directories_ = parse_include_directories(search.output);
  if (include_directories_.empty()) {
    throw UserError(options_.compiler + " -E -v printed no include search list");
  }
  CommandResult version =
      run_stage({"--version"}, scratch.path(), std::chrono::seconds(30), 30, isolated());
  if (!succeeded(version)) {
    throw UserError("cannot run " + options_.compiler + " --version: " + version.status.describe());
  }
  version_ = version.output.substr(0, version.output.find('\n'));
  is_clang_ = version_.find("clang") != std::string::npos;
}

CommandResult Compiler::run_stage(const std::vector<std::string>& arguments,
                                  const std::filesystem::path& work,
                                  std::chrono::milliseconds timeout, uint64_t cpu_seconds,
                                  bool isolate, const std::vector<int>& cpus) const {
  TempDir root("accelopt-compiler-root");
  SpawnOptions spawn;
  spawn.argv = {options_.compiler};
  spawn.argv.insert(spawn.argv.end(), arguments.begin(), arguments.end());
  spawn.environment = clean_environment(work);
  spawn.working_directory = work;
  spawn.limits.address_space_bytes = options_.memory_bytes;
  spawn.limits.file_size_bytes = 512ull << 20;
  spawn.limits.cpu_seconds = cpu_seconds;
  spawn.cpus = cpus.empty() ? options_.cpus : cpus;
  if (isolate) {
    spawn.isolation.enabled = true;
    spawn.isolation.root = root.path();
    spawn.isolation.read_only = visible_paths(options_.compiler);
    spawn.isolation.writable = {work};
    spawn.own_pid_namespace = true;
  }
  CommandResult run = run_command(spawn, timeout, 4 << 20);
  // Paths into the scratch directory mean nothing to a reader: keep the file names only.
  std::string scratch_prefix = work.string() + "/";
  for (size_t at = run.output.find(scratch_prefix); at != std::string::npos;
       at = run.output.find(scratch_prefix, at)) {
    run.output.erase(at, scratch_prefix.size());
  }
  return run;
}

CompileResult Compiler::compile(const std::string& source, const std::string& header,
                                const std::vector<std::string>& extra_flags, SourceTrust trust,
                                const CoreChoice& cpus) {
  std::vector<std::string> flags = options_.flags;
  flags.insert(flags.end(), extra_flags.begin(), extra_flags.end());
  bool checked = trust == SourceTrust::kAgentKernel;
  std::string pipeline = std::string(kPipelineVersion) + "\n" + version_;
  if (!checked) pipeline += "\ntrusted library code, unchecked";
  CompileResult result;
  result.key = CompileCache::key(pipeline, flags, header, source);
  result.directory = cache_.entry(result.key);

  // Compiles of different keys overlap (on cores no timing uses: `cpus`); one key is made once.
  {
    std::unique_lock lock(mutex_);
    made_.wait(lock, [&] { return making_.count(result.key) == 0; });
    making_.insert(result.key);
  }
  struct Made {
    Compiler& compiler;
    std::string key;  // a copy: `result` may be moved out before this ends
    ~Made() {
      {
        std::lock_guard lock(compiler.mutex_);
        compiler.making_.erase(key);
      }
      compiler.made_.notify_all();
    }
  } made{*this, result.key};
  if (load_cached(result)) return result;

  // A busy machine is never the kernel's fault: a try that ran out of wall time on little CPU is
  // made again, after a pause that doubles.
  std::optional<Attempt> attempt;
  for (int tried = 1;; ++tried) {
    attempt.emplace(compile_once(source, header, flags, checked, cpus));
    attempt->result.tries = tried;
    if (!attempt->result.machine_busy || tried > options_.busy_retries) break;
    std::this_thread::sleep_for(options_.busy_pause * (1 << (tried - 1)));
  }
  CompileResult fresh = std::move(attempt->result);
  fresh.key = result.key;
  fresh.directory = result.directory;
  if (fresh.machine_busy) {
    fresh.diagnostics += fmt::format(", on each of {} tries; not the kernel's fault", fresh.tries);
  }
  // Never kept: what ran out of time (CPU or wall) or was ended by a signal may finish next time.
  if (!attempt->keepable) return fresh;
  keep(*attempt, fresh, flags, checked);
  return fresh;
}

bool Compiler::load_cached(CompileResult& result) const {
  std::optional<Json> record = cache_.load(result.key);
  if (!record) return false;
  const Json& json = *record;
  result.ok = json.value("ok", false);
  result.seconds = json.value("seconds", 0.0);
  result.cpu_seconds = json.value("cpu_seconds", 0.0);
  if (json.contains("rejection")) result.rejection = json["rejection"].get<std::string>();
  result.diagnostics = read_file(result.directory / "diagnostics.txt");
  if (std::filesystem::exists(result.directory / "remarks.txt")) {
    result.remarks = read_file(result.directory / "remarks.txt");
  }
  result.library = result.directory / "kernel.so";
  if (result.ok && !std::filesystem::exists(result.library)) return false;
  result.cached = true;
  return true;
}

Compiler::Attempt Compiler::compile_once(const std::string& source, const std::string& header,
                                         const std::vector<std::string>& flags, bool checked,
                                         const CoreChoice& cpus) const {
  Attempt attempt;
  CompileResult& result = attempt.result;
  const std::filesystem::path& work = attempt.work.emplace("accelopt-compile").path();
  write_file_atomic(work / "kernel.cpp", source);
  write_file_atomic(work / task::kKernelHeaderName, header);
  auto start = Clock::now();
  auto backstop = start + options_.cpu_limit * options_.wall_factor;
  auto left = [&]() {
    return std::max(std::chrono::milliseconds(1),
                    std::chrono::duration_cast<std::chrono::milliseconds>(backstop - Clock::now()));
  };
  std::vector<std::string> compile_flags, libraries;
  for (const std::string& flag : flags)
    (is_library(flag) ? libraries : compile_flags).push_back(flag);

  // Each stage may use what the earlier ones left of the CPU limit (RLIMIT_CPU counts whole
  // seconds, each process on its own: the stages' sum is what the limit is judged on).
  auto stage = [&](std::vector<std::string> arguments) {
    double cpu_left = static_cast<double>(options_.cpu_limit.count()) - result.cpu_seconds;
    auto cpu_seconds = static_cast<uint64_t>(std::ceil(std::max(cpu_left, 1.0)));
    CommandResult run = run_stage(arguments, work, left(), cpu_seconds, isolated(),
                                  cpus ? cpus() : std::vector<int>{});
    result.cpu_seconds += run.status.cpu_seconds;
    attempt.log += run.output;
    return run;
  };
  std::vector<std::string> preprocess = compile_flags;
  preprocess.insert(preprocess.end(), {"-E", "-I.", "kernel.cpp", "-o", "kernel.ii"});
  CommandResult run = stage(preprocess);
  if (checked && !run.status.timed_out) {
    result.rejection = check_preprocess_stage(run, work, include_directories_);
  }
  if (!result.rejection && succeeded(run)) {
    std::vector<std::string> to_assembly = compile_flags;
    to_assembly.insert(to_assembly.end(), {"-S", "kernel.ii", "-o", "kernel.s"});
    if (is_clang_) {
      to_assembly.insert(to_assembly.end(),
                         {"-Rpass=loop-vectorize", "-Rpass-missed=loop-vectorize",
                          "-Rpass-analysis=loop-vectorize"});
    } else {
      to_assembly.push_back("-fopt-info-vec-optimized-missed=remarks.txt");
    }
    run = stage(to_assembly);
    if (is_clang_) result.remarks = run.output;
    if (checked && succeeded(run)) result.rejection = check_assembly(read_file(work / "kernel.s"));
  }
  if (!result.rejection && succeeded(run)) {
    std::vector<std::string> link = compile_flags;
    link.insert(link.end(), {"kernel.s", "-o", "kernel.so"});
    link.insert(link.end(), libraries.begin(), libraries.end());
    run = stage(link);
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.ok = !result.rejection && succeeded(run);
  if (!result.ok && judge_time(attempt, run.status.timed_out)) return attempt;
  describe_failure(result, run, attempt.log);
  if (!is_clang_ && std::filesystem::exists(work / "remarks.txt")) {
    result.remarks = read_file(work / "remarks.txt");
  }
  attempt.keepable = keepable(run.status);
  return attempt;
}

bool Compiler::judge_time(Attempt& attempt, bool backstop_fired) const {
  CompileResult& result = attempt.result;
  auto limit = static_cast<double>(options_.cpu_limit.count());
  // The rusage figures are sampled at ticks and scaled: a compile killed at its RLIMIT_CPU of 2 s
  // once read between 1.9 and 1.96 s (CompilerTest.StopsARunawayCompileAtItsCpuLimit).
  bool out_of_cpu = result.cpu_seconds >= 0.9 * limit;
  if (!out_of_cpu && !backstop_fired) return false;
  result.ok = false;
  result.rejection.reset();
  if (out_of_cpu) {
    result.timed_out = true;
    result.diagnostics = fmt::format(
        "the compiler ran past its {} s limit of CPU time ({:.1f} s used) and was stopped "
        "(runaway templates or constexpr evaluation?)",
        options_.cpu_limit.count(), result.cpu_seconds);
  } else {
    result.machine_busy = true;
    result.diagnostics = fmt::format(
        "the machine was busy: the compiler was given {:.0f} s of wall time and ran only {:.1f} s "
        "of it on a core (its limit is {} s of CPU time)",
        result.seconds, result.cpu_seconds, options_.cpu_limit.count());
  }
  return true;
}

void Compiler::describe_failure(CompileResult& result, const CommandResult& run,
                                const std::string& log) const {
  if (result.rejection) {
    result.diagnostics = *result.rejection;
  } else if (!result.ok) {
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
    result.diagnostics = trim_diagnostics(log, 5, 4000);
  }
}

void Compiler::keep(Attempt& attempt, CompileResult& result, const std::vector<std::string>& flags,
                    bool checked) {
  const std::filesystem::path& work = attempt.work->path();
  std::filesystem::path staging = cache_.staging(result.key);
  std::filesystem::copy_file(work / "kernel.cpp", staging / "kernel.cpp");
  std::filesystem::copy_file(work / task::kKernelHeaderName, staging / task::kKernelHeaderName);
  if (result.ok) std::filesystem::copy_file(work / "kernel.so", staging / "kernel.so");
  write_file_atomic(staging / "diagnostics.txt", result.diagnostics);
  write_file_atomic(staging / "remarks.txt", result.remarks);
  write_file_atomic(staging / "log.txt", attempt.log);
  Json record = {{"ok", result.ok},
                 {"seconds", result.seconds},
                 {"cpu_seconds", result.cpu_seconds},
                 {"compiler", version_},
                 {"flags", flags},
                 {"isolated", isolated()},
                 {"checked", checked}};
  if (result.rejection) record["rejection"] = *result.rejection;
  CompileResult fresh = result;
  if (!cache_.keep(result.key, staging, record) && load_cached(result)) return;
  result = fresh;
  result.library = result.directory / "kernel.so";
}

}  // namespace accelopt::platform::cpu
