#include "platform/cuda/nvcc_compiler.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/subprocess.h"
#include "platform/compiler_sandbox.h"
#include "platform/cuda/nvcc_checks.h"
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
  std::filesystem::path toolkit = options_.nvcc.parent_path().parent_path();
  system_directories_ = {toolkit, "/usr/include", "/usr/lib/gcc", "/usr/local/include"};
  std::error_code error;
  if (auto real = std::filesystem::canonical(toolkit, error); !error && real != toolkit) {
    system_directories_.push_back(real);
  }
  TempDir scratch("accelopt-nvcc");
  CommandResult result = run_nvcc({"--version"}, scratch.path(), options_.isolate);
  if (options_.isolate && result.status.exited && result.status.exit_code == kIsolationFailed) {
    isolation_problem_ = result.output.substr(0, result.output.find('\n'));
    result = run_nvcc({"--version"}, scratch.path(), false);
  } else if (!options_.isolate) {
    isolation_problem_ = "nvcc's sandbox is turned off (NvccOptions::isolate)";
  }
  if (!result.status.exited || result.status.exit_code != 0) {
    throw UserError(options_.nvcc.string() + " --version failed: " + result.output);
  }
  version_ = result.output;
}

CommandResult NvccCompiler::run_nvcc(const std::vector<std::string>& arguments,
                                     const std::filesystem::path& work, bool isolate) const {
  SpawnOptions spawn;
  spawn.argv = {options_.nvcc.string()};
  spawn.argv.insert(spawn.argv.end(), arguments.begin(), arguments.end());
  // nvcc finds its host compiler and libraries through PATH.
  spawn.environment = clean_environment(work);
  spawn.environment[0] =
      "PATH=" + options_.nvcc.parent_path().string() + ":/usr/local/bin:/usr/bin:/bin";
  spawn.working_directory = work;
  spawn.limits.cpu_seconds = static_cast<uint64_t>(options_.timeout.count());
  spawn.limits.file_size_bytes = 1ull << 30;
  TempDir root("accelopt-nvcc-root");
  if (isolate) {
    // The CPU compiler's view (cpu/compiler.cpp), and the toolkit where it lies outside /usr.
    spawn.isolation.enabled = true;
    spawn.isolation.root = root.path();
    spawn.isolation.read_only = compiler_system_paths();
    for (const std::filesystem::path& directory : system_directories_) {
      if (!directory.string().starts_with("/usr/")) spawn.isolation.read_only.push_back(directory);
    }
    spawn.isolation.writable = {work};
    spawn.own_pid_namespace = true;
  }
  CommandResult run = run_command(spawn, options_.timeout, 64 << 10);
  std::string scratch_prefix = work.string() + "/";  // paths into it mean nothing to a reader
  for (size_t at = run.output.find(scratch_prefix); at != std::string::npos;
       at = run.output.find(scratch_prefix, at)) {
    run.output.erase(at, scratch_prefix.size());
  }
  return run;
}

std::optional<std::string> NvccCompiler::check_kept(const std::filesystem::path& kept) const {
  std::error_code error;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kept, error)) {
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& file : files) {
    std::string name = file.filename().string();
    if (name.ends_with(".cpp1.ii") || name.ends_with(".cpp4.ii")) {
      if (auto why = check_nvcc_preprocessed(read_file(file), system_directories_)) return why;
    } else if (name.ends_with(".ptx") || name.ends_with(".s")) {
      if (auto why = check_nvcc_assembly(read_file(file))) return why;
    }
  }
  return std::nullopt;
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
                                 const std::vector<std::string>& extra_flags, bool checked) {
  std::vector<std::string> flags = options_.flags;
  flags.push_back("-arch=" + options_.arch);
  flags.insert(flags.end(), extra_flags.begin(), extra_flags.end());
  std::string pipeline = std::string("nvcc-v3 (") + (isolated() ? "sandboxed" : "no sandbox") +
                         (checked ? ", checked" : ", trusted") + ")\n" + version_;
  std::string key = CompileCache::key(pipeline, flags, header, source);
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
    if (record->contains("rejection")) result.rejection = (*record)["rejection"].get<std::string>();
    return !result.ok || std::filesystem::exists(result.library);
  };
  if (load_cached()) return result;
  result.cached = false;

  TempDir work("accelopt-nvcc");
  write_file_atomic(work.path() / task::kKernelHeaderName, header);
  write_file_atomic(work.path() / "kernel.cu", source);
  std::vector<std::string> arguments = flags;
  for (const char* flag : kLibraryFlags) arguments.push_back(flag);
  arguments.insert(arguments.end(), {"-I", "."});
  // The runner's own search path does not reach a dlopen-ed library's dependencies (cudart,
  // cuBLAS for trusted kernels): the library carries the toolkit's folder itself.
  std::filesystem::path toolkit_libraries = options_.nvcc.parent_path().parent_path() / "lib64";
  if (std::filesystem::is_directory(toolkit_libraries)) {
    arguments.push_back("-Xlinker=-rpath," + toolkit_libraries.string());
  }
  if (checked) {
    // What the checks read: the preprocessed units and PTX (--keep), the host assembly (gcc's
    // -save-temps beside its objects).
    std::filesystem::create_directory(work.path() / "keep");
    arguments.insert(arguments.end(),
                     {"--keep", "--keep-dir", "keep", "-Xcompiler", "-save-temps=obj"});
  }
  arguments.insert(arguments.end(), {"-o", "kernel.so", "kernel.cu"});
  CommandResult run = run_nvcc(arguments, work.path(), isolated() && options_.isolate);
  result.seconds = run.wall_seconds;
  result.diagnostics = checked ? trim_nvcc_diagnostics(run.output) : run.output;
  if (run.status.timed_out) {
    result.timed_out = true;
    result.diagnostics =
        "nvcc ran past its deadline of " + std::to_string(options_.timeout.count()) + " s";
    return result;
  }
  result.ok = run.status.exited && run.status.exit_code == 0;
  if (checked) result.rejection = check_kept(work.path() / "keep");
  if (result.rejection) result.ok = false;
  if (!keepable(run.status)) return result;  // the next try may finish (compile_cache.h)
  std::filesystem::path staging = cache_.staging(key);
  if (result.ok) std::filesystem::copy_file(work.path() / "kernel.so", staging / "kernel.so");
  write_file_atomic(staging / "kernel.cu", source);
  write_file_atomic(staging / "diagnostics.txt", result.diagnostics);
  NvccResult fresh = result;
  Json record = {{"ok", result.ok}, {"seconds", result.seconds}};
  if (result.rejection) record["rejection"] = *result.rejection;
  if (!cache_.keep(key, staging, record) && load_cached()) {
    return result;
  }
  return fresh;
}

}  // namespace accelopt::platform::cuda
