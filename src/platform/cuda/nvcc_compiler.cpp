#include "platform/cuda/nvcc_compiler.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/subprocess.h"
#include "task/abi.h"

namespace accelopt::platform::cuda {

std::optional<std::filesystem::path> find_nvcc() {
  if (const char* path = std::getenv("ACCELOPT_NVCC"); path && *path) return path;
  if (const char* path_list = std::getenv("PATH")) {
    std::istringstream directories(path_list);
    std::string directory;
    while (std::getline(directories, directory, ':')) {
      std::filesystem::path candidate = std::filesystem::path(directory) / "nvcc";
      if (!directory.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  if (std::filesystem::exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return std::nullopt;
}

NvccCompiler::NvccCompiler(NvccOptions options)
    : options_(std::move(options)),
      cache_(options_.cache_directory.empty() ? cache_directory() / "cuda"
                                              : options_.cache_directory) {
  if (options_.nvcc.empty()) {
    auto found = find_nvcc();
    if (!found) throw UserError("the CUDA platform needs nvcc (scripts/setup.sh --cuda)");
    options_.nvcc = *found;
  }
  TempDir scratch("accelopt-nvcc");
  SpawnOptions version;
  version.argv = {options_.nvcc.string(), "--version"};
  version.environment = clean_environment(scratch.path());
  CommandResult result = run_command(version, std::chrono::milliseconds(30000));
  if (!result.status.exited || result.status.exit_code != 0) {
    throw UserError(options_.nvcc.string() + " --version failed: " + result.output);
  }
  version_ = result.output;
}

namespace {
constexpr const char* kLibraryFlags[] = {"-shared", "-Xcompiler", "-fPIC", "-cudart", "shared"};
}  // namespace

std::vector<std::string> nvcc_flags(const NvccOptions& options) {
  std::vector<std::string> flags = options.flags;
  flags.push_back("-arch=" + options.arch);
  flags.insert(flags.end(), std::begin(kLibraryFlags), std::end(kLibraryFlags));
  return flags;
}

NvccResult NvccCompiler::compile(const std::string& source, const std::string& header,
                                 const std::vector<std::string>& extra_flags) {
  std::vector<std::string> flags = options_.flags;
  flags.push_back("-arch=" + options_.arch);
  flags.insert(flags.end(), extra_flags.begin(), extra_flags.end());
  std::string key = CompileCache::key("nvcc-v2\n" + version_, flags, header, source);
  std::filesystem::path entry = cache_.entry(key);
  NvccResult result;
  result.library = entry / "kernel.so";
  auto load_cached = [&]() -> bool {
    std::optional<Json> record = cache_.load(key);
    if (!record) return false;
    result.cached = true;
    result.ok = record->value("ok", false);
    result.seconds = record->value("seconds", 0.0);
    result.diagnostics = read_file(entry / "diagnostics.txt");
    return !result.ok || std::filesystem::exists(result.library);
  };
  if (load_cached()) return result;
  result.cached = false;

  TempDir work("accelopt-nvcc");
  write_file_atomic(work.path() / task::kKernelHeaderName, header);
  write_file_atomic(work.path() / "kernel.cu", source);
  SpawnOptions spawn;
  spawn.argv = {options_.nvcc.string()};
  spawn.argv.insert(spawn.argv.end(), flags.begin(), flags.end());
  for (const char* flag : kLibraryFlags) spawn.argv.push_back(flag);
  spawn.argv.insert(spawn.argv.end(), {"-I", "."});
  // The runner's own search path does not reach a dlopen-ed library's dependencies (cudart,
  // cuBLAS for trusted kernels): the library carries the toolkit's folder itself.
  std::filesystem::path toolkit_libraries = options_.nvcc.parent_path().parent_path() / "lib64";
  if (std::filesystem::is_directory(toolkit_libraries)) {
    spawn.argv.push_back("-Xlinker=-rpath," + toolkit_libraries.string());
  }
  spawn.argv.insert(spawn.argv.end(), {"-o", "kernel.so", "kernel.cu"});
  // nvcc finds its host compiler and libraries through PATH.
  spawn.environment = clean_environment(work.path());
  spawn.environment[0] =
      "PATH=" + options_.nvcc.parent_path().string() + ":/usr/local/bin:/usr/bin:/bin";
  spawn.working_directory = work.path();
  spawn.limits.cpu_seconds = static_cast<uint64_t>(options_.timeout.count());
  spawn.limits.file_size_bytes = 1ull << 30;
  CommandResult run = run_command(spawn, options_.timeout, 64 << 10);
  result.seconds = run.wall_seconds;
  result.diagnostics = run.output;
  if (run.status.timed_out) {
    result.timed_out = true;
    result.diagnostics =
        "nvcc ran past its deadline of " + std::to_string(options_.timeout.count()) + " s";
    return result;
  }
  result.ok = run.status.exited && run.status.exit_code == 0;
  if (!keepable(run.status)) return result;  // the next try may finish (compile_cache.h)
  std::filesystem::path staging = cache_.staging(key);
  if (result.ok) std::filesystem::copy_file(work.path() / "kernel.so", staging / "kernel.so");
  write_file_atomic(staging / "kernel.cu", source);
  write_file_atomic(staging / "diagnostics.txt", result.diagnostics);
  NvccResult fresh = result;
  if (!cache_.keep(key, staging, {{"ok", result.ok}, {"seconds", result.seconds}}) &&
      load_cached()) {
    return result;
  }
  return fresh;
}

}  // namespace accelopt::platform::cuda
