// A task: what a kernel must compute (reference), where to start (baseline), on which shapes
// (workloads), how inputs are drawn, how close is correct, and how much work it is (roofline
// counts). The definition's shape follows FlashInfer Trace's definition records;
// docs/task-format.md has the whole format with an example.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "task/dtype.h"
#include "task/expression.h"

namespace accelopt::task {

struct Axis {
  std::string name;
  bool is_const = false;
  int64_t value = 0;  // for const axes
  std::string description;
};

// kInteger: a whole number uniform in [low, high), high excluded, as numpy's integers() draws:
// indices into a tensor of `high` rows stay in range.
// kOffsets: a 1-D int32 tensor of row offsets (a CSR indptr): 0 first, `total` last,
// non-decreasing, each step at least `min_step` and at least the same step of the `not_below`
// input (another offsets tensor of the same length: a causal prefill's kv_len >= q_len per
// sequence). The tensor is structured as a whole, so it is never varied, mixed or assembled from
// parts of others.
enum class Distribution : uint8_t {
  kNormal = 1,
  kUniform = 2,
  kAbsNormal = 3,
  kConstant = 4,
  kInteger = 5,
  kOffsets = 6,
};

struct InputDistribution {
  Distribution kind = Distribution::kNormal;
  double mean = 0, std = 1;   // normal, abs_normal
  double low = -1, high = 1;  // uniform, integer (resolved: see for_workload)
  double value = 0;           // constant
  // integer: bounds written as axis expressions ("num_pages"), empty where a number was given.
  std::string low_expression, high_expression;
  // offsets: the last element, an axis expression, and `total` its value (resolved).
  std::string total_expression;
  double total = 0;
  int64_t min_step = 0;
  std::string not_below;  // offsets: the input whose steps bound these from below; empty: none
};

// How close an output must be to the reference's, in float64. Both must hold: the whole tensor's
// relative L2 error below rel_l2, and every element within atol + atol_rms·rms(ref) + rtol·|ref|
// (numpy's allclose, with an absolute part that grows with the output). A float32 sum's rounding
// grows with its terms, not with its result: where terms cancel, an element's error is a fraction
// of the tensor's typical magnitude, however small the element, so a fixed atol that suits one
// input scale refuses honest code at a wider one.
struct Tolerance {
  double rel_l2 = 2e-5;
  double atol = 1e-5;
  double rtol = 1e-3;
  double atol_rms = 0;  // in units of the reference output's root mean square
  bool operator==(const Tolerance&) const = default;
};

// The tolerance an output of `dtype` starts from, before the definition's: float32's above;
// bfloat16 and float16 FlashInfer-Bench's defaults (atol = rtol = 1e-2) with rel_l2 1e-2; integer
// outputs exactly equal.
Tolerance default_tolerance(DType dtype);

// What a definition's "tolerance" object says; fields it leaves out inherit.
struct ToleranceRule {
  std::optional<double> rel_l2, atol, rtol, atol_rms;
};
struct ToleranceSpec {
  ToleranceRule all;
  std::map<std::string, ToleranceRule> outputs;  // by output name
};

// A named set of inputs drawn from other distributions than the task's own: large magnitudes,
// zeros, denormals, the ranges where the math changes. Inputs it does not name keep theirs.
struct InputSet {
  std::string name;
  std::string description;
  std::map<std::string, InputDistribution> inputs;  // by input name
  int seeds = 1;                                    // cases drawn from this set per evaluation
  ToleranceSpec tolerance;                          // overrides the task's for this set's cases
};

struct TensorSpec {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<std::string> shape;  // axis names; empty: a scalar
  std::string description;
  InputDistribution distribution;  // inputs only
  // An input the same in every call of an evaluation, as a model's weights are: drawn once per
  // evaluation from the task's own distribution (no input set or case variation changes it), held
  // once and shared by every case (docs/task-format.md, "Constant inputs").
  bool constant = false;
};

// An input a workload gives as data rather than a distribution (FlashInfer-Bench's "safetensors"
// inputs: a model's weights, a captured batch): the same values in every case.
struct FileInput {
  std::filesystem::path file;  // a safetensors file; relative paths are the task folder's
  std::string key;             // the tensor's name in it
};

struct Workload {
  std::string name;
  std::map<std::string, int64_t> axes;  // every axis, const ones included
  bool is_default = false;
  std::map<std::string, FileInput> file_inputs;  // by input name
};

// `distribution` with its axis expressions evaluated on `workload` (low, high, total). Loading a
// task checks them on every workload it has, so this throws UserError only for a workload made
// elsewhere.
InputDistribution for_workload(const InputDistribution& distribution, const Workload& workload);

struct RooflineCounts {
  double mm_flops = 0;
  double vec_flops = 0;
  double bytes = 0;
};

struct Task {
  std::filesystem::path directory;
  std::string name;
  std::string op_type;
  std::vector<std::string> tags;
  std::string description;
  std::vector<Axis> axes;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<Workload> workloads;
  // Relations among the axes that every workload satisfies ("H_qo == H_kv * H_r"): a workload
  // that breaks one is refused by name when the definition is read.
  std::vector<Constraint> constraints;
  double rel_l2_tolerance = 2e-5;  // the task-wide rel_l2, as the definition says
  ToleranceSpec tolerance_spec;
  std::vector<InputSet> input_sets;
  int threads = 1;
  int seeds = 5;  // cases drawn from the task's own distributions per evaluation
  std::string entry_point = "kernel";
  std::vector<std::string> compile_flags;  // added after the platform's defaults
  std::string mm_flops_expression = "0";
  std::string vec_flops_expression = "0";
  std::string bytes_expression = "0";
  Json definition;  // the file as read, for records
  // What the platform compiles: ".cpp" on the CPU, ".cu" for CUDA, an evaluator's choice.
  std::string kernel_extension = ".cpp";

  // The trusted reference: reference.cpp, or reference.py (`run(**inputs)` returning the outputs,
  // run by platform/python_reference.h) where the task has no reference.cpp.
  bool python_reference = false;

  std::filesystem::path reference_path() const {
    return directory / (python_reference ? "reference.py" : "reference.cpp");
  }
  std::filesystem::path baseline_path() const {
    return directory / ("baseline" + kernel_extension);
  }

  // Throws UserError naming the known workloads.
  const Workload& workload(const std::string& name) const;
  const Workload& default_workload() const;
  // An empty name means the default workload.
  const Workload& workload_or_default(const std::string& name) const;

  // The tolerance for `output` on cases of `set` (nullptr: the task's own distributions): the
  // task's, then its per-output entry, then the set's, then the set's per-output entry.
  Tolerance tolerance(const std::string& output, const InputSet* set = nullptr) const;
  const InputSet& input_set(const std::string& name) const;  // throws UserError

  int64_t element_count(const TensorSpec& tensor, const Workload& workload) const;
  RooflineCounts roofline_counts(const Workload& workload) const;
};

// In words, for a person or an agent: "normal(mean 0, std 1)", "uniform in [-200, 200]",
// "|normal(mean 0, std 1)|", "constant 0.5".
std::string distribution_text(const InputDistribution& distribution);
// "relative L2 error below 2e-05, and every element within 1e-06 + 0.0001·|reference|" (and
// "+ 2e-05·rms(reference)" where the tolerance has an atol_rms).
std::string tolerance_text(const Tolerance& tolerance);

// Reads and validates `directory`/definition.json and checks that a reference (reference.cpp, else
// reference.py) and the baseline (baseline<kernel_extension>: the platform's kind of source) exist,
// and that each workload's file inputs hold their tensor at its dtype and shape.
// Throws UserError "<file>: <field>: <why>" for anything wrong.
Task load_task(const std::filesystem::path& directory,
               const std::string& kernel_extension = ".cpp");

// The names of the folders in `suite` that hold a definition.json (a suite's tasks), sorted.
std::vector<std::string> task_names_in(const std::filesystem::path& suite);

// Same validation over JSON text; `origin` names the file in messages. Does not touch the disk.
Task parse_task_definition(const std::string& json_text, const std::filesystem::path& directory,
                           const std::string& origin);

}  // namespace accelopt::task
