#include "platform/python_reference.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <optional>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "platform/platform.h"
#include "platform/runner_process.h"
#include "platform/shared_buffers.h"

namespace accelopt::platform {
namespace {

// Changes whenever the driver, the cache's layout or the inputs a seed draws change what an answer
// is (2: normals by the ziggurat, platform/cpu/inputs.h; 3: tensors of every dtype).
constexpr const char* kDriverVersion = "python-reference-3";

// Every tensor crosses to the driver as float32 values whatever its dtype (exact for the types the
// harness runs), and the driver hands `run` arrays of the definition's dtypes
// (docs/task-format.md).
std::vector<size_t> tensor_bytes(const task::Task& task, const task::Workload& workload) {
  std::vector<size_t> sizes;
  for (const auto* list : {&task.inputs, &task.outputs}) {
    for (const task::TensorSpec& tensor : *list) {
      if (tensor.dtype == task::DType::kFloat64) {
        throw UserError("tensor '" + tensor.name + "' of task " + task.name +
                        " is float64: the harness runs float32, bfloat16, float16, int8 and int32");
      }
      sizes.push_back(static_cast<size_t>(task.element_count(tensor, workload)) * sizeof(float));
    }
  }
  return sizes;
}

// `values` as the kernel would see them: rounded to `dtype`.
void round_values(task::DType dtype, std::vector<float>& values) {
  if (dtype == task::DType::kFloat32) return;
  for (float& value : values) value = task::round_to_dtype(dtype, value);
}

// The spec the driver reads: each tensor's name, shape, offset and bytes in the shared memory.
Json driver_spec(const task::Task& task, const task::Workload& workload,
                 const SharedBuffers& buffers) {
  Json spec;
  spec["task"] = task.name;
  size_t index = 0, end = 0;
  for (const char* kind : {"inputs", "outputs"}) {
    Json list = Json::array();
    for (const task::TensorSpec& tensor :
         std::string(kind) == "inputs" ? task.inputs : task.outputs) {
      Json shape = Json::array();
      for (const std::string& axis : tensor.shape) shape.push_back(workload.axes.at(axis));
      list.push_back({{"name", tensor.name},
                      {"dtype", task::dtype_name(tensor.dtype)},
                      {"shape", shape},
                      {"offset", buffers.offset(index)},
                      {"bytes", buffers.size(index)},
                      {"constant", tensor.constant}});
      end = std::max(end, buffers.offset(index) + buffers.size(index));
      ++index;
    }
    spec[kind] = list;
  }
  spec["bytes"] = end;
  return spec;
}

// A workload's file inputs as the cache's key holds them: each file's size and time, so that an
// answer kept for one file's data is not given for another's.
Json file_inputs_key(const task::Workload& workload) {
  Json files = Json::object();
  for (const auto& [input, source] : workload.file_inputs) {
    std::error_code error;
    auto size = std::filesystem::file_size(source.file, error);
    auto time = std::filesystem::last_write_time(source.file, error);
    files[input] = {{"file", source.file.string()},
                    {"key", source.key},
                    {"size", error ? 0 : size},
                    {"time", error ? 0 : time.time_since_epoch().count()}};
  }
  return files;
}

}  // namespace

std::filesystem::path find_python_driver() {
#ifdef ACCELOPT_PYTHON_DRIVER_SOURCE_PATH
  std::string source_path = ACCELOPT_PYTHON_DRIVER_SOURCE_PATH;
#else
  std::string source_path;
#endif
  if (auto found =
          find_runner("ACCELOPT_PYTHON_DRIVER", "python_reference_driver.py", source_path)) {
    return *found;
  }
  throw InternalError(
      "cannot find python_reference_driver.py beside this program (set ACCELOPT_PYTHON_DRIVER to "
      "its path)");
}

struct PythonReference::State {
  const task::Task& task;
  const task::Workload& workload;
  PythonReferenceOptions options;
  std::string source;
  std::string cache_prefix;  // the key's part shared by every case
  SharedBuffers buffers;
  std::optional<TempDir> root;  // the sandbox's empty root
  std::optional<RunnerProcess> process;
  Json sandbox = Json::object();
  int cache_hits = 0;
  int calls = 0;
  int constant_writes = 0;
  // The constant inputs now in the driver's memory, by input index: written again only when a
  // case holds other values (the driver keeps what it made of them until told, python_reference.h).
  std::vector<task::TensorValues> constants_written;

  State(const task::Task& task_in, const task::Workload& workload_in,
        PythonReferenceOptions options_in)
      : task(task_in),
        workload(workload_in),
        options(std::move(options_in)),
        source(read_file(task_in.reference_path())),
        buffers(tensor_bytes(task_in, workload_in)) {
    if (options.driver.empty()) options.driver = find_python_driver();
    if (options.cache_directory.empty()) {
      options.cache_directory = cache_directory() / "python-reference";
    }
    Json key = {{"driver", kDriverVersion},     {"definition", task.definition.dump()},
                {"source", sha256_hex(source)}, {"workload", workload.name},
                {"axes", workload.axes},        {"files", file_inputs_key(workload)}};
    cache_prefix = key.dump();
  }

  std::string who() const {
    return "the reference of task " + task.name + " (" + task.reference_path().string() + ")";
  }

  // What the driver said when it ended without a reply: its status and what it printed.
  std::string ended(const std::string& doing) {
    ExitStatus status = process->wait_end(std::chrono::milliseconds(2000));
    std::string printed = process->output();
    if (status.exited && status.exit_code == kIsolationFailed) {
      return who() + " cannot start its sandbox:\n" + printed;
    }
    bool constants = std::any_of(task.inputs.begin(), task.inputs.end(),
                                 [](const task::TensorSpec& input) { return input.constant; });
    std::string hint = !status.exited && status.signal == SIGSEGV && constants
                           ? "; its constant inputs are read-only, and writing one in place "
                             "stops it so (docs/task-format.md, \"Constant inputs\")"
                           : "";
    return who() + " ended while " + doing + " (" + status.describe() + hint + ")" +
           (printed.empty() ? "" : ":\n" + printed);
  }

  void start() {
    constants_written.clear();  // a new driver's memory holds none of them
    std::string driver = read_file(options.driver);
    root.emplace("accelopt-python-root");
    process.emplace("the Python reference");
    process->abandon_when(options.abandon);
    SpawnOptions spawn;
    spawn.argv = {options.interpreter.string(),
                  "-I",
                  "-B",
                  "-c",
                  driver,
                  driver_spec(task, workload, buffers).dump()};
    spawn.environment = clean_environment(process->work_directory());
    // One core, as the C++ reference: the same answer whatever the machine's core count.
    for (const char* single :
         {"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1"}) {
      spawn.environment.push_back(single);
    }
    // Freed tensors stay in the heap for the next call, as in the harness (CpuPlatform's
    // mallopt): a reference that converts a weight of hundreds of megabytes per call otherwise
    // maps and faults it in afresh every time.
    spawn.environment.push_back(
        "GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=18446744073709551615");
    uint64_t tensors = 0;
    for (size_t i = 0; i < buffers.count(); ++i) tensors += buffers.size(i);
    spawn.limits.address_space_bytes = tensors + options.memory_bytes;
    spawn.limits.cpu_seconds = 3600;
    spawn.limits.file_size_bytes = 4 << 20;
    spawn.limits.open_files = 256;
    spawn.cpus = options.cpus;
    spawn.isolation.enabled = true;
    spawn.isolation.root = root->path();
    // /etc/alternatives: where Debian points libblas.so.3 and liblapack.so.3, which NumPy loads;
    // /dev/urandom: PyTorch will not load without it.
    spawn.isolation.read_only = {"/usr",
                                 "/bin",
                                 "/lib",
                                 "/lib64",
                                 "/dev/null",
                                 "/etc/ld.so.cache",
                                 "/etc/alternatives",
                                 "/dev/urandom"};
    spawn.isolation.writable = {process->work_directory()};
    spawn.own_pid_namespace = true;
    process->start(spawn, buffers.fd(), task.reference_path());

    bool timed_out = false;
    auto deadline = std::chrono::steady_clock::now() + options.start_timeout;
    std::optional<std::string> line = process->read_line(deadline, timed_out);
    if (!line) {
      if (timed_out) {
        std::string late = who() + " did not load within " +
                           std::to_string(options.start_timeout.count() / 1000) + " s";
        auto [running, waiting] = process->core_seconds();
        process->kill();
        if (busy_more_than_running(waiting, running, 1e-3 * options.start_timeout.count())) {
          throw MachineBusy(busy_text(late, waiting, running));
        }
        throw UserError(late);
      }
      throw UserError(ended("loading"));
    }
    if (line->rfind("FAIL ", 0) == 0) throw UserError(who() + ": " + failure_text(*line));
    if (line->rfind("READY ", 0) != 0) {
      throw InternalError(who() + ": the driver said '" + line->substr(0, 200) + "'");
    }
    Json ready = Json::parse(line->substr(6));
    sandbox["isolated"] = true;
    sandbox["measures"] = ready.at("measures");
    sandbox["torch"] = ready.at("torch");
  }

  static std::string busy_text(const std::string& late, double waiting, double running) {
    return fmt::format(
        "the machine was busy: {}, having waited {:.1f} s for a core and run {:.1f} s", late,
        waiting, running);
  }

  static std::string failure_text(const std::string& line) {
    try {
      return Json::parse(line.substr(5)).at("message").get<std::string>();
    } catch (const std::exception&) {
      return line.substr(5, 1000);
    }
  }

  std::filesystem::path cache_entry(const ReferenceCase& reference_case) const {
    std::string key = cache_prefix + "\nset=" + reference_case.set +
                      "\nseed=" + std::to_string(reference_case.seed);
    return options.cache_directory / (sha256_hex(key) + ".bin");
  }

  // The entry's outputs when it holds exactly what this task's outputs need.
  bool read_cached(const std::filesystem::path& entry, ReferenceCase& reference_case) const {
    std::error_code error;
    if (!std::filesystem::exists(entry, error)) return false;
    std::string content;
    try {
      content = read_file(entry);
    } catch (const std::exception&) {
      return false;
    }
    size_t newline = content.find('\n');
    if (newline == std::string::npos) return false;
    Json header = Json::parse(content.substr(0, newline), nullptr, false);
    if (header.is_discarded() || !header.contains("seconds")) return false;
    size_t at = newline + 1;
    std::vector<std::vector<float>> outputs;
    for (size_t o = 0; o < task.outputs.size(); ++o) {
      size_t bytes = buffers.size(task.inputs.size() + o);
      if (content.size() < at + bytes) return false;
      std::vector<float> values(bytes / sizeof(float));
      std::memcpy(values.data(), content.data() + at, bytes);
      outputs.push_back(std::move(values));
      at += bytes;
    }
    if (at != content.size()) return false;
    reference_case.outputs = std::move(outputs);
    reference_case.reference_seconds = header.at("seconds").get<double>();
    return true;
  }

  void keep(const std::filesystem::path& entry, const ReferenceCase& reference_case) const {
    std::string content = Json{{"seconds", reference_case.reference_seconds}}.dump() + "\n";
    for (const std::vector<float>& output : reference_case.outputs) {
      content.append(reinterpret_cast<const char*>(output.data()), output.size() * sizeof(float));
    }
    std::filesystem::create_directories(entry.parent_path());
    write_file_atomic(entry, content);
  }

  // Writes input `i` (`bytes` at its dtype's width) into the driver's memory as float32, unless
  // it is a constant input whose array, `values`, is there already. Returns whether it wrote a
  // constant input.
  bool load_input(size_t i, std::span<const unsigned char> bytes,
                  const task::TensorValues* values) {
    task::DType dtype = task.inputs[i].dtype;
    size_t count = bytes.size() / task::dtype_size(dtype);
    if (count * sizeof(float) != buffers.size(i)) {
      throw InternalError(who() + ": input " + task.inputs[i].name + " has the wrong size");
    }
    if (task.inputs[i].constant) {
      if (values != nullptr && values->shares_bytes_with(constants_written[i])) return false;
      constants_written[i] = values != nullptr ? *values : task::TensorValues();
    }
    task::decode_values(dtype, bytes.data(), count, buffers.floats(i));
    return task.inputs[i].constant;
  }

  // Loads the case's inputs, sends `command` and returns the driver's reply after `expected`.
  std::string exchange(const ReferenceCase& reference_case, const std::string& command,
                       const std::string& expected) {
    std::vector<std::span<const unsigned char>> inputs;
    for (const task::TensorValues& input : reference_case.inputs) {
      inputs.emplace_back(input.bytes());
    }
    return exchange(inputs, &reference_case.inputs, reference_case.label, command, expected);
  }

  // The same for inputs given as bytes; `values`, where given, holds them as arrays, so that a
  // constant input already in the driver's memory is not written again.
  std::string exchange(const std::vector<std::span<const unsigned char>>& inputs,
                       const std::vector<task::TensorValues>* values, const std::string& label,
                       const std::string& command, const std::string& expected) {
    if (!process) start();
    if (inputs.size() != task.inputs.size()) {
      throw InternalError(who() + ": " + std::to_string(inputs.size()) + " inputs given");
    }
    constants_written.resize(task.inputs.size());
    bool constants_changed = false;
    for (size_t i = 0; i < task.inputs.size(); ++i) {
      constants_changed |= load_input(i, inputs[i], values != nullptr ? &values->at(i) : nullptr);
    }
    if (constants_changed) ++constant_writes;
    if (!process->send(command + (constants_changed ? " CONSTANTS" : ""))) {
      throw UserError(ended("running on " + label));
    }
    ++calls;
    bool timed_out = false;
    auto deadline = std::chrono::steady_clock::now() + options.call_timeout;
    auto [running_before, waiting_before] = process->core_seconds();
    std::optional<std::string> line = process->read_line(deadline, timed_out);
    if (!line) {
      if (timed_out) {
        std::string late = who() + " ran past its deadline (" +
                           std::to_string(options.call_timeout.count()) + " ms) on " + label;
        auto [running, waiting] = process->core_seconds();
        process->kill();
        if (running_before >= 0 && running >= 0 &&
            busy_more_than_running(waiting - waiting_before, running - running_before,
                                   1e-3 * options.call_timeout.count())) {
          throw MachineBusy(busy_text(late, waiting - waiting_before, running - running_before));
        }
        throw UserError(late);
      }
      throw UserError(ended("running on " + label));
    }
    if (line->rfind("FAIL ", 0) == 0) {
      throw UserError(who() + " failed on " + label + ": " + failure_text(*line));
    }
    if (!line->starts_with(expected + " ")) {
      throw InternalError(who() + ": the driver said '" + line->substr(0, 200) + "'");
    }
    return line->substr(expected.size() + 1);
  }

  // Runs the reference on `inputs` (the case's own where null) into the case's outputs.
  void compute(ReferenceCase& reference_case,
               const std::vector<std::span<const unsigned char>>* inputs = nullptr) {
    std::string seconds = inputs != nullptr
                              ? exchange(*inputs, nullptr, reference_case.label, "CALL", "DONE")
                              : exchange(reference_case, "CALL", "DONE");
    reference_case.reference_seconds = std::stod(seconds);
    reference_case.outputs.clear();
    for (size_t o = 0; o < task.outputs.size(); ++o) {
      size_t index = task.inputs.size() + o;
      const float* values = buffers.floats(index);
      reference_case.outputs.emplace_back(values, values + buffers.size(index) / sizeof(float));
      round_values(task.outputs[o].dtype, reference_case.outputs.back());
    }
  }
};

PythonReference::PythonReference(const task::Task& task, const task::Workload& workload,
                                 PythonReferenceOptions options)
    : state_(std::make_unique<State>(task, workload, std::move(options))) {}

PythonReference::~PythonReference() = default;

void PythonReference::answer(ReferenceCase& reference_case, bool public_seed) {
  std::filesystem::path entry;
  if (public_seed) {
    entry = state_->cache_entry(reference_case);
    if (state_->read_cached(entry, reference_case)) {
      ++state_->cache_hits;
      return;
    }
  }
  state_->compute(reference_case);
  if (public_seed) state_->keep(entry, reference_case);
}

void PythonReference::answer(const std::vector<std::span<const unsigned char>>& inputs,
                             ReferenceCase& answer) {
  state_->compute(answer, &inputs);
}

Json PythonReference::count_flops(const ReferenceCase& reference_case) {
  return Json::parse(state_->exchange(reference_case, "COUNT", "COUNTED"));
}

Json PythonReference::sandbox() const {
  return state_->sandbox;
}
int PythonReference::cache_hits() const {
  return state_->cache_hits;
}
void PythonReference::abandon_when(const std::atomic<bool>* flag) {
  state_->options.abandon = flag;
  if (state_->process) state_->process->abandon_when(flag);
}

int PythonReference::calls() const {
  return state_->calls;
}
int PythonReference::constant_writes() const {
  return state_->constant_writes;
}

}  // namespace accelopt::platform
