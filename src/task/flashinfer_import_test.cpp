#include "task/flashinfer_import.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/files.h"
#include "common/json.h"
#include "task/baseline_stub.h"
#include "task/task.h"

namespace accelopt::task {
namespace {

// A FlashInfer-Bench definition as its tools write one: shapes by axis name, a scalar with a null
// shape, the reference in the definition itself.
const char* kDefinition = R"json({
  "name": "rmsnorm_h64", "op_type": "rmsnorm", "tags": ["status:verified"],
  "description": "RMSNorm with hidden_size=64.",
  "axes": {"batch_size": {"type": "var"}, "hidden_size": {"type": "const", "value": 64}},
  "inputs": {"hidden_states": {"shape": ["batch_size", "hidden_size"], "dtype": "float32"},
             "weight": {"shape": ["hidden_size"], "dtype": "float32"},
             "eps": {"shape": null, "dtype": "float32"}},
  "outputs": {"output": {"shape": ["batch_size", "hidden_size"], "dtype": "float32"}},
  "reference": "import numpy as np\n\ndef run(hidden_states, weight, eps):\n    x = hidden_states.astype(np.float64)\n    y = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * weight\n    return y.astype(np.float32)"
})json";

const char* kWorkloads =
    "{\"uuid\": \"a1\", \"axes\": {\"batch_size\": 64}, \"inputs\": {\"eps\": {\"type\": "
    "\"scalar\", \"value\": 1e-6}}, \"tolerance\": {\"max_atol\": 1e-3, \"max_rtol\": 1e-3}}\n"
    "\n"
    "{\"uuid\": \"b2\", \"axes\": {\"batch_size\": 7}, \"inputs\": {\"eps\": {\"type\": "
    "\"scalar\", \"value\": 1e-6}}}\n";

// What import says when it refuses `definition` (with `workloads`), or "(imported)".
std::string refusal_of(const std::string& definition, const std::string& workloads = "",
                       const std::string& workloads_origin = "") {
  try {
    import_flashinfer(definition, "d.json", workloads, workloads_origin);
  } catch (const UserError& error) {
    return error.what();
  }
  return "(imported)";
}

bool noted(const ImportedTask& imported, const std::string& text) {
  for (const std::string& note : imported.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(FlashInferImport, MakesATaskFolderThatLoads) {
  ImportedTask imported = import_flashinfer(kDefinition, "rmsnorm_h64.json", kWorkloads, "w.jsonl");
  TempDir directory("accelopt-import");
  write_imported_task(imported, directory.path() / "rmsnorm_h64");
  Task task = load_task(directory.path() / "rmsnorm_h64");
  EXPECT_TRUE(task.python_reference);
  EXPECT_EQ(task.name, "rmsnorm_h64");
  ASSERT_EQ(task.inputs.size(), 3u);
  EXPECT_TRUE(task.inputs[2].shape.empty());
  EXPECT_EQ(task.inputs[2].distribution.kind, Distribution::kConstant);
  // The weight's every axis is const: FlashInfer-Bench's weights, held once per evaluation.
  EXPECT_FALSE(task.inputs[0].constant);
  EXPECT_TRUE(task.inputs[1].constant);
  EXPECT_FALSE(task.inputs[2].constant) << "a scalar is a workload's constant value";
  EXPECT_TRUE(noted(imported, "inputs.weight: every axis constant, so held as weights are"));
  EXPECT_EQ(task.default_workload().name, "w1");
  EXPECT_EQ(task.workload("small").axes.at("batch_size"), 7) << "the smallest workload";
  EXPECT_EQ(task.workload("w2").axes.at("hidden_size"), 64);
  Tolerance tolerance = task.tolerance("output");
  EXPECT_DOUBLE_EQ(tolerance.atol, 1e-3);
  RooflineCounts counts = task.roofline_counts(task.workload("w1"));
  EXPECT_DOUBLE_EQ(counts.bytes, 4.0 * (64 * 64 + 64 + 1 + 64 * 64));
  EXPECT_DOUBLE_EQ(counts.mm_flops + counts.vec_flops, 0.0);
  EXPECT_TRUE(noted(imported, "roofline: the FLOP counts are not in a definition"))
      << imported.notes[0];
  EXPECT_TRUE(noted(imported, "baseline.cpp: a stub that compiles but writes zeros"));
  EXPECT_EQ(read_file(task.reference_path()).rfind("import numpy as np\n", 0), 0u);
  std::string baseline = read_file(task.baseline_path());
  EXPECT_NE(baseline.find("extern \"C\" void kernel(const float* __restrict hidden_states"),
            std::string::npos)
      << baseline;
  // Marked as a stub: the task has no baseline until someone (or optimize's executor) writes one.
  EXPECT_TRUE(is_baseline_stub(baseline)) << baseline;
  EXPECT_FALSE(is_baseline_stub("// accelopt:baseline-stub is only mentioned here\n"));
  // A second import into the same folder is refused, not merged.
  EXPECT_THROW(write_imported_task(imported, directory.path() / "rmsnorm_h64"), UserError);
}

// FlashInfer-Bench's traces, and the workloads the AccelOpt repository selected, hold each
// workload under "workload" beside the definition's name; a line for another definition is refused.
TEST(FlashInferImport, ReadsWorkloadsWrittenAsTraceLines) {
  const char* trace_lines =
      "{\"definition\": \"rmsnorm_h64\", \"workload\": {\"uuid\": \"c3\", \"axes\": "
      "{\"batch_size\": 9}, \"inputs\": {\"eps\": {\"type\": \"scalar\", \"value\": 1e-6}}}}\n";
  ImportedTask imported = import_flashinfer(kDefinition, "d.json", trace_lines, "t.jsonl");
  TempDir directory("accelopt-import");
  write_imported_task(imported, directory.path() / "t");
  Task task = load_task(directory.path() / "t");
  EXPECT_EQ(task.workload("w1").axes.at("batch_size"), 9);

  std::string other = trace_lines;
  other.replace(other.find("rmsnorm_h64"), 11, "rmsnorm_h65");
  {
    std::string message = refusal_of(kDefinition, other, "t.jsonl");
    EXPECT_NE(message.find("t.jsonl:1: a workload of definition 'rmsnorm_h65'"), std::string::npos)
        << message;
  }
}

TEST(FlashInferImport, SaysWhatItCannotInferOrTake) {
  ImportedTask guessed = import_flashinfer(kDefinition, "d.json");
  EXPECT_TRUE(noted(guessed, "workloads: none given"));
  EXPECT_TRUE(noted(guessed, "tolerance: none in the workloads"));
  std::string e4m3 = kDefinition;
  e4m3.replace(e4m3.find("\"float32\""), 9, "\"float8_e4m3fn\"");
  EXPECT_NO_THROW(import_flashinfer(e4m3, "d.json"));
  std::string e5m2 = kDefinition;
  e5m2.replace(e5m2.find("\"float32\""), 9, "\"float8_e5m2\"");
  {
    std::string message = refusal_of(e5m2);
    EXPECT_NE(message.find("d.json: inputs.hidden_states.dtype: 'float8_e5m2'; "
                           "of the FP8 and FP4 formats the harness runs only float8_e4m3fn"),
              std::string::npos)
        << message;
  }
  {
    std::string message = refusal_of(kDefinition, "{\"axes\": {}}\n", "w.jsonl");
    EXPECT_NE(message.find("w.jsonl:1: axes: no value for 'batch_size'"), std::string::npos)
        << message;
  }
}

TEST(FlashInferImport, TakesNarrowAndIntegerTensorsAtTheirWidths) {
  std::string definition = kDefinition;
  // hidden_states and output in bfloat16, weight in float16, eps stays float32.
  for (int i = 0; i < 2; ++i) {
    size_t at = definition.find("\"float32\"");
    definition.replace(at, 9, i == 0 ? "\"bfloat16\"" : "\"float16\"");
  }
  size_t output = definition.find("\"float32\"", definition.find("\"outputs\""));
  definition.replace(output, 9, "\"bfloat16\"");
  ImportedTask imported = import_flashinfer(definition, "d.json");
  Task task = parse_task_definition(imported.definition, ".", "definition.json");
  EXPECT_EQ(task.inputs[0].dtype, DType::kBFloat16);
  EXPECT_EQ(task.outputs[0].dtype, DType::kBFloat16);
  // 2 bytes per bfloat16 and float16 element, 4 for eps.
  EXPECT_EQ(task.bytes_expression,
            "4*(1) + 2*(batch_size*hidden_size + hidden_size + "
            "batch_size*hidden_size)")
      << imported.definition;
  // No tolerance in the workloads: the bfloat16 output's own defaults, not float32's.
  EXPECT_DOUBLE_EQ(task.tolerance("output").atol, 1e-2);
  EXPECT_DOUBLE_EQ(task.tolerance("output").rtol, 1e-2);
  EXPECT_NE(imported.baseline.find("accelopt::bf16* __restrict output"), std::string::npos)
      << imported.baseline;
}

TEST(FlashInferImport, RefusesTextThatIsNotJsonWithItsLineAndColumn) {
  std::string trailing = kDefinition;
  trailing.replace(trailing.rfind('}'), 1, ",\n}");  // a trailing comma, as a hand edit leaves
  {
    std::string message = refusal_of(trailing);
    EXPECT_NE(message.find("d.json: not valid JSON: parse error at line 11, column 1"),
              std::string::npos)
        << message;
  }
  {
    std::string message = refusal_of(kDefinition, "{\"axes\": {\"batch_size\": 64}\n", "w.jsonl");
    EXPECT_NE(message.find("w.jsonl:1: not valid JSON: parse error at line 1"), std::string::npos)
        << message;
  }
}

// The reference is read by Python's parser at import, not at the first evaluation: its syntax,
// and a run() that takes the definition's inputs by name (the harness calls run(**inputs)).
TEST(FlashInferImport, ReadsTheReferenceWithPythonsOwnParser) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "needs /usr/bin/python3";
  auto with_reference = [](const std::string& reference) {
    Json definition = Json::parse(kDefinition);
    definition["reference"] = reference;
    return definition.dump();
  };
  auto refusal = [&](const std::string& reference) {
    return refusal_of(with_reference(reference));
  };
  EXPECT_NE(refusal("def run(hidden_states, weight, eps):\n    return (hidden_states\n")
                .find("d.json: reference: not valid Python: line 2, column"),
            std::string::npos);
  EXPECT_NE(
      refusal("def run(...):\n    pass\n").find("d.json: reference: not valid Python: line 1"),
      std::string::npos)
      << refusal("def run(...):\n    pass\n");
  std::string renamed = refusal("def run(x, weight, eps, scale):\n    return x\n");
  EXPECT_NE(renamed.find("the harness calls run(hidden_states, weight, eps) with the inputs by "
                         "name, but run() has no parameter hidden_states and needs scale, x, "
                         "which are not inputs"),
            std::string::npos)
      << renamed;
  EXPECT_NE(refusal("def other(hidden_states, weight, eps):\n    pass\n# def run\n")
                .find("no top-level `def run(...)`"),
            std::string::npos);
  // Defaults, keyword-only parameters and **kwargs are what Python accepts too.
  EXPECT_EQ(refusal("def run(hidden_states, weight, eps, scale=1.0):\n    return hidden_states\n"),
            "(imported)");
  EXPECT_EQ(refusal("def run(hidden_states, **rest):\n    return hidden_states\n"), "(imported)");
  EXPECT_EQ(refusal("import numpy\n\ndef run(*, weight, eps, hidden_states):\n    return eps\n"),
            "(imported)");
  // Nothing of it runs at import: a reference that would end the process parses, and is kept.
  EXPECT_EQ(refusal("import os\nos._exit(3)\n\ndef run(hidden_states, weight, eps):\n    pass\n"),
            "(imported)");
  // Without the interpreter the check is said, not skipped silently.
  std::optional<std::string> unchecked =
      check_reference("def run(x):\n", {"x"}, "d.json", "/nonexistent/python3");
  ASSERT_TRUE(unchecked.has_value());
  EXPECT_NE(unchecked->find("not read at import"), std::string::npos) << *unchecked;
}

TEST(FlashInferImport, KeepsConstraintsAndRefusesAWorkloadThatBreaksOne) {
  Json definition = Json::parse(kDefinition);
  definition["constraints"] = {"hidden_size == 64", "batch_size * 2 <= hidden_size * 3",
                               "hidden_size % 16 == 0"};
  ImportedTask imported = import_flashinfer(definition.dump(), "d.json", kWorkloads, "w.jsonl");
  Task task = parse_task_definition(imported.definition, ".", "definition.json");
  ASSERT_EQ(task.constraints.size(), 2u) << imported.definition;
  EXPECT_EQ(task.constraints[1].text, "batch_size * 2 <= hidden_size * 3");
  EXPECT_TRUE(noted(imported, "constraints: \"hidden_size % 16 == 0\" not kept"))
      << imported.notes.back();
  // Without workloads, the one import makes up follows a constraint that sets an axis, and one it
  // cannot follow is said, not written into a task that would not load.
  Json indptr = definition;
  indptr["axes"]["len_indptr"] = {{"type", "var"}};
  indptr["constraints"] = {"len_indptr == batch_size + 1"};
  Task guessed = parse_task_definition(import_flashinfer(indptr.dump(), "d.json").definition, ".",
                                       "definition.json");
  EXPECT_EQ(guessed.workload("small").axes.at("len_indptr"), 17);
  indptr["constraints"] = {"len_indptr == batch_size + 1", "batch_size > 16"};
  {
    std::string message = refusal_of(indptr.dump());
    EXPECT_NE(message.find("breaks the constraint \"batch_size > 16\": give the "
                           "workloads"),
              std::string::npos)
        << message;
  }
  std::string breaking = std::string(kWorkloads) + "{\"axes\": {\"batch_size\": 200}}\n";
  {
    std::string message = refusal_of(definition.dump(), breaking, "w.jsonl");
    EXPECT_NE(message.find("workloads.w3: breaks the constraint \"batch_size * 2 <= hidden_size * "
                           "3\" (batch_size * 2 is 400, hidden_size * 3 is 192)"),
              std::string::npos)
        << message;
  }
}

// "num_kv_indices == kv_indptr[-1].item()": kept, and the indptr it ends drawn as offsets to that
// axis, so the imported task draws valid inputs without hand work; an index input no constraint
// describes stays zeros, said in a note.
TEST(FlashInferImport, AConstraintEndingAnIndptrMakesItOffsets) {
  const char* paged = R"json({
    "name": "paged_sum", "op_type": "paged",
    "axes": {"batch_size": {"type": "var"}, "len_indptr": {"type": "var"},
             "num_kv_indices": {"type": "var"}, "num_pages": {"type": "var"}},
    "constraints": ["len_indptr == batch_size + 1", "num_kv_indices == kv_indptr[-1].item()"],
    "inputs": {"kv_indptr": {"shape": ["len_indptr"], "dtype": "int32"},
               "kv_indices": {"shape": ["num_kv_indices"], "dtype": "int32"},
               "pages": {"shape": ["num_pages"], "dtype": "float32"}},
    "outputs": {"out": {"shape": ["batch_size"], "dtype": "float32"}},
    "reference": "def run(kv_indptr, kv_indices, pages):\n    pass\n"
  })json";
  ImportedTask imported = import_flashinfer(paged, "d.json");
  Task task = parse_task_definition(imported.definition, ".", "definition.json");
  ASSERT_EQ(task.constraints.size(), 2u) << imported.definition;
  EXPECT_EQ(task.constraints[1].reads, (std::vector<ElementRead>{{"kv_indptr", -1}}));
  EXPECT_EQ(task.inputs[0].distribution.kind, Distribution::kOffsets);
  EXPECT_EQ(task.inputs[0].distribution.total_expression, "num_kv_indices");
  EXPECT_EQ(task.inputs[1].distribution.kind, Distribution::kInteger);
  EXPECT_TRUE(noted(imported, "inputs.kv_indptr: drawn as offsets from 0 to num_kv_indices"));
  EXPECT_TRUE(noted(imported, "inputs.kv_indices: int32 drawn as 0 only"));
  EXPECT_FALSE(noted(imported, "not kept"));
  // One that reads what is not an input is not kept, and said.
  Json unknown = Json::parse(paged);
  unknown["constraints"] = {"num_kv_indices == qo_indptr[-1].item()"};
  ImportedTask without = import_flashinfer(unknown.dump(), "d.json");
  EXPECT_TRUE(noted(without, "'qo_indptr' is not an input"));
}

}  // namespace
}  // namespace accelopt::task
