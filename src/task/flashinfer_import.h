// A FlashInfer-Bench definition (and its workloads, one JSON object a line) made into a task
// folder: `accelopt task import DEFINITION.json [--workloads FILE.jsonl] --out DIR`.
//
// Kept: name, op_type, tags, description, axes, inputs, outputs; the definition's `reference`
// becomes reference.py (the task's trusted reference, run by platform/python_reference.h). Made:
// workloads (each line's axes; the one with the fewest elements also as `small`), the roofline's
// bytes from the tensors' sizes, and a baseline.cpp that compiles. What cannot be inferred is said
// in `notes`, each with how to add it: the FLOP counts (the CLI then measures them from the
// reference: platform/reference_flops.h, and its notes replace that one), a correct
// baseline (a translation of reference.py is the user's or an agent's job), workloads where none
// were given. Inputs a workload gives in safetensors files are copied into the task (tensors/)
// and read by every case of that workload.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace accelopt::task {

struct ImportedTask {
  std::string definition;  // accelopt's definition.json
  std::string reference;   // reference.py
  std::string baseline;    // baseline.cpp
  std::vector<std::string> notes;
  // The workloads' safetensors files, each copied into the task folder as the path it maps to
  // ("tensors/1-weights.safetensors").
  std::map<std::filesystem::path, std::string> files;
};

// `origin` names the file in messages. Throws UserError "<origin>: <field>: <why>" for what cannot
// be imported: text that is not JSON (with its line and column), a tensor of a dtype the harness
// does not run (FP4, float64, int64: it runs float32, bfloat16, float16, float8_e4m3fn, int8,
// int32), a definition without a reference, a reference that is not valid Python or whose run()
// does not take the inputs by name (check_reference), a workload that breaks a constraint.
// Constraints accelopt's expressions state are kept in the task; others are said in `notes`.
ImportedTask import_flashinfer(const std::string& definition_json, const std::string& origin,
                               const std::string& workloads_jsonl = "",
                               const std::string& workloads_origin = "");

// Reads `reference` with `interpreter`'s own parser (Python's ast: nothing of it runs) and checks
// that it defines a top-level run() that takes `inputs` by name, as the harness calls it. Throws
// UserError "<origin>: reference: ..." with the line and column of a syntax error, or naming the
// inputs run() does not take and the parameters it needs that are not inputs. Returns a note where
// the interpreter is not installed (then the first evaluation finds what this would have).
std::optional<std::string> check_reference(
    const std::string& reference, const std::vector<std::string>& inputs, const std::string& origin,
    const std::filesystem::path& interpreter = "/usr/bin/python3");

// Writes the three files into `directory` (created; refused when it already holds a
// definition.json), then loads the folder back as a task to prove it is one.
void write_imported_task(const ImportedTask& imported, const std::filesystem::path& directory);

}  // namespace accelopt::task
