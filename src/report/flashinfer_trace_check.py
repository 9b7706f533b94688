#!/usr/bin/env python3
"""Checks a folder against FlashInfer-Bench's "FlashInfer Trace" schema and layout.

    python3 flashinfer_trace_check.py DIR    exit 0: every file loads; 1: a list of violations

FlashInfer-Bench validates with pydantic v2 models, which Debian's python3-pydantic (v1) cannot
import; this script states the same rules in plain Python. Each rule names where FlashInfer-Bench
states it: github.com/flashinfer-ai/flashinfer-bench at commit 40e6ca7844b514eb4b1c7edba6d6a7377df57870,
files under flashinfer_bench/data/. One rule is ours and stricter than pydantic (which ignores
unknown keys): a record carries only the schema's fields, so that nothing is written in a place
FlashInfer-Bench does not read.
"""

import ast
import json
import math
import sys
from pathlib import Path, PurePosixPath

# definition.py:49-78
DTYPES = {"float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1",
          "int64", "int32", "int16", "int8", "bool"}
# solution.py:13-30
LANGUAGES = {"python", "triton", "cpp", "cuda", "tilelang"}
# solution.py:32-43
BINDINGS = {"tvm-ffi", "torch"}
# trace.py:67-88
STATUSES = {"PASSED", "INCORRECT_SHAPE", "INCORRECT_NUMERICAL", "INCORRECT_DTYPE",
            "RUNTIME_ERROR", "COMPILE_ERROR", "TIMEOUT"}


class Problems:
    def __init__(self):
        self.lines = []

    def add(self, where, text):
        self.lines.append(f"{where}: {text}")


def is_text(value):
    return isinstance(value, str)


def is_nonempty_text(value):  # utils.py:7
    return isinstance(value, str) and len(value) >= 1


def is_integer(value):
    return isinstance(value, int) and not isinstance(value, bool)


def as_float(value):
    """The float pydantic reads from a JSON value, or None. Non-finite values travel as strings
    (trace.py:20, ser_json_inf_nan="strings")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value.lower() in {"nan", "infinity", "inf", "-infinity", "-inf"}:
        return float(value.replace("inity", ""))
    return None


def check_keys(record, allowed, required, where, problems):
    if not isinstance(record, dict):
        problems.add(where, "is not an object")
        return False
    for key in required:
        if key not in record:
            problems.add(where, f"lacks required '{key}'")
    for key in record:
        if key not in allowed:
            problems.add(where, f"has '{key}', which the schema does not have")
    return all(key in record for key in required)


def check_text_list(value, where, problems):  # a List[NonEmptyString]
    if not isinstance(value, list) or not all(is_nonempty_text(item) for item in value):
        problems.add(where, "is not a list of non-empty strings")


def check_optional_text(record, key, where, problems):
    if record.get(key) is not None and not is_text(record[key]):
        problems.add(f"{where}.{key}", "is not a string")


def python_defines_run(code):
    try:
        module = ast.parse(code, mode="exec")
    except SyntaxError as error:
        return f"is not valid Python: {error}"
    if not any(isinstance(node, ast.FunctionDef) and node.name == "run" for node in module.body):
        return "defines no top-level function 'run'"
    return None


def check_tensor(spec, axes, where, problems):
    # definition.py:81-94: shape (required, may be null) and dtype.
    if not check_keys(spec, {"shape", "dtype", "description"}, {"shape", "dtype"}, where, problems):
        return
    if spec["shape"] is not None:
        check_text_list(spec["shape"], f"{where}.shape", problems)
        if isinstance(spec["shape"], list):
            for axis in spec["shape"]:
                if axis not in axes:  # definition.py:188-211
                    problems.add(f"{where}.shape", f"names axis '{axis}', which is not defined")
    if spec["dtype"] not in DTYPES:
        problems.add(f"{where}.dtype", f"'{spec['dtype']}' is not one of {sorted(DTYPES)}")
    check_optional_text(spec, "description", where, problems)


def check_axis(axis, where, problems):
    # definition.py:19-46: {"type": "const", "value": int >= 0} or {"type": "var"}.
    if not isinstance(axis, dict):
        problems.add(where, "is not an object")
    elif axis.get("type") == "const":
        check_keys(axis, {"type", "value", "description"}, {"value"}, where, problems)
        if not is_integer(axis.get("value")) or axis.get("value", -1) < 0:
            problems.add(f"{where}.value", "is not an integer >= 0")
    elif axis.get("type", "var") == "var":
        check_keys(axis, {"type", "description"}, set(), where, problems)
    else:
        problems.add(f"{where}.type", "is neither 'const' nor 'var'")
    if isinstance(axis, dict):
        check_optional_text(axis, "description", where, problems)


def check_definition(record, where, problems):
    # definition.py:110-133
    allowed = {"name", "op_type", "axes", "inputs", "outputs", "reference", "tags", "description",
               "constraints"}
    required = {"name", "op_type", "axes", "inputs", "outputs", "reference"}
    if not check_keys(record, allowed, required, where, problems):
        return
    for key in ("name", "op_type", "reference"):
        if not is_nonempty_text(record[key]):
            problems.add(f"{where}.{key}", "is not a non-empty string")
    for key in ("axes", "inputs", "outputs"):
        if not isinstance(record[key], dict) or not all(record[key]):
            problems.add(f"{where}.{key}", "is not an object with non-empty names")
            return
    for name, axis in record["axes"].items():
        check_axis(axis, f"{where}.axes.{name}", problems)
    for kind in ("inputs", "outputs"):
        for name, spec in record[kind].items():
            check_tensor(spec, record["axes"], f"{where}.{kind}.{name}", problems)
    if set(record["inputs"]) & set(record["outputs"]):  # definition.py:158-169
        problems.add(where, "has names that are both inputs and outputs")
    if is_text(record["reference"]):  # definition.py:135-156
        failure = python_defines_run(record["reference"])
        if failure:
            problems.add(f"{where}.reference", failure)
    for key in ("tags", "constraints"):
        if key in record:
            check_text_list(record[key], f"{where}.{key}", problems)
    for constraint in record.get("constraints") or []:  # definition.py:171-186
        try:
            ast.parse(constraint, mode="eval")
        except (SyntaxError, TypeError, ValueError):
            problems.add(f"{where}.constraints", f"'{constraint}' is not a Python expression")
    check_optional_text(record, "description", where, problems)


def check_spec(spec, where, problems):
    # solution.py:86-119
    allowed = {"language", "target_hardware", "entry_point", "dependencies",
               "destination_passing_style", "binding"}
    if not check_keys(spec, allowed, {"language", "target_hardware", "entry_point"}, where,
                      problems):
        return
    if spec["language"] not in LANGUAGES:
        problems.add(f"{where}.language", f"'{spec['language']}' is not one of {sorted(LANGUAGES)}")
    hardware = spec["target_hardware"]
    if not isinstance(hardware, list) or not hardware or not all(map(is_text, hardware)):
        problems.add(f"{where}.target_hardware", "is not a list of at least one string")
    entry = spec["entry_point"]
    if not is_nonempty_text(entry) or entry.count("::") != 1:
        problems.add(f"{where}.entry_point", f"'{entry}' is not '<file_path>::<function_name>'")
    if "dependencies" in spec:
        check_text_list(spec["dependencies"], f"{where}.dependencies", problems)
    if "destination_passing_style" in spec and not isinstance(spec["destination_passing_style"],
                                                              bool):
        problems.add(f"{where}.destination_passing_style", "is not a boolean")
    if spec.get("binding") is not None and spec["binding"] not in BINDINGS:
        problems.add(f"{where}.binding", f"'{spec['binding']}' is not one of {sorted(BINDINGS)}")


def check_solution(record, where, problems):
    # solution.py:137-148
    allowed = {"name", "definition", "author", "spec", "sources", "description"}
    required = {"name", "definition", "author", "spec", "sources"}
    if not check_keys(record, allowed, required, where, problems):
        return
    for key in ("name", "definition", "author"):
        if not is_nonempty_text(record[key]):
            problems.add(f"{where}.{key}", "is not a non-empty string")
    check_spec(record["spec"], f"{where}.spec", problems)
    check_optional_text(record, "description", where, problems)
    sources = record["sources"]
    if not isinstance(sources, list) or not sources:  # solution.py:145
        problems.add(f"{where}.sources", "is not a list of at least one file")
        return
    paths = []
    for index, source in enumerate(sources):  # solution.py:52-76
        at = f"{where}.sources[{index}]"
        if not check_keys(source, {"path", "content"}, {"path", "content"}, at, problems):
            continue
        if not is_nonempty_text(source["path"]) or not is_nonempty_text(source["content"]):
            problems.add(at, "has an empty path or content")
            continue
        path = PurePosixPath(source["path"])
        if path.is_absolute() or ".." in path.parts:
            problems.add(f"{at}.path", "is absolute or climbs out with '..'")
        paths.append(source["path"])
    if len(paths) != len(set(paths)):  # solution.py:159-164
        problems.add(f"{where}.sources", "has a path twice")
    entry = record["spec"].get("entry_point", "") if isinstance(record["spec"], dict) else ""
    if is_text(entry) and entry.split("::")[0] not in paths:  # solution.py:166-169
        problems.add(f"{where}.spec.entry_point", "names a file that is not among the sources")


def check_workload(record, where, problems):
    # workload.py:52-66 and the input kinds of workload.py:8-46
    if not check_keys(record, {"axes", "inputs", "uuid"}, {"axes", "inputs", "uuid"}, where,
                      problems):
        return
    if not is_nonempty_text(record["uuid"]):
        problems.add(f"{where}.uuid", "is not a non-empty string")
    axes = record["axes"]
    if not isinstance(axes, dict) or not all(is_integer(v) and v >= 0 for v in axes.values()):
        problems.add(f"{where}.axes", "is not an object of integers >= 0")
    inputs = record["inputs"]
    if not isinstance(inputs, dict):
        problems.add(f"{where}.inputs", "is not an object")
        return
    for name, spec in inputs.items():
        at = f"{where}.inputs.{name}"
        kind = spec.get("type", "random") if isinstance(spec, dict) else None
        if kind == "random":
            check_keys(spec, {"type"}, set(), at, problems)
        elif kind == "scalar":
            check_keys(spec, {"type", "value"}, {"value"}, at, problems)
        elif kind == "safetensors":
            check_keys(spec, {"type", "path", "tensor_key"}, {"path", "tensor_key"}, at, problems)
        else:
            problems.add(at, "is not a random, scalar or safetensors input")


def check_metrics(record, fields, where, problems, allow_nan):
    if not check_keys(record, set(fields), set(), where, problems):
        return
    for key in fields:
        if key not in record or (key == "extra" and (record[key] is None or
                                                     isinstance(record[key], dict))):
            continue
        value = as_float(record[key])
        if value is None or (math.isnan(value) and not allow_nan) or value < 0:
            problems.add(f"{where}.{key}", f"{record[key]!r} is not a number >= 0")


def check_evaluation(record, where, problems):
    # trace.py:97-108
    allowed = {"status", "environment", "timestamp", "log", "correctness", "performance"}
    if not check_keys(record, allowed, {"status", "environment", "timestamp"}, where, problems):
        return
    status = record["status"]
    if status not in STATUSES:
        problems.add(f"{where}.status", f"'{status}' is not one of {sorted(STATUSES)}")
    environment = record["environment"]  # trace.py:54-64
    if check_keys(environment, {"hardware", "libs"}, {"hardware"}, f"{where}.environment",
                  problems):
        if not is_nonempty_text(environment["hardware"]):
            problems.add(f"{where}.environment.hardware", "is not a non-empty string")
        libs = environment.get("libs", {})
        if not isinstance(libs, dict) or not all(map(is_text, libs.values())):
            problems.add(f"{where}.environment.libs", "is not an object of strings")
    if not is_nonempty_text(record["timestamp"]):
        problems.add(f"{where}.timestamp", "is not a non-empty string")
    if "log" in record and not is_text(record["log"]):
        problems.add(f"{where}.log", "is not a string")
    correctness = record.get("correctness")
    performance = record.get("performance")
    if correctness is not None:  # trace.py:13-36
        check_metrics(correctness, ("max_relative_error", "max_absolute_error", "extra"),
                      f"{where}.correctness", problems, allow_nan=True)
    if performance is not None:  # trace.py:39-51
        check_metrics(performance, ("latency_ms", "reference_latency_ms", "speedup_factor"),
                      f"{where}.performance", problems, allow_nan=False)
    # trace.py:110-150: PASSED carries both; INCORRECT_NUMERICAL correctness only; others neither.
    wants_correctness = status in {"PASSED", "INCORRECT_NUMERICAL"}
    wants_performance = status == "PASSED"
    if (correctness is not None) != wants_correctness:
        problems.add(where, f"status {status} {'needs' if wants_correctness else 'forbids'} "
                            "correctness")
    if (performance is not None) != wants_performance:
        problems.add(where, f"status {status} {'needs' if wants_performance else 'forbids'} "
                            "performance")


def check_trace(record, where, problems):
    # trace.py:165-172
    allowed = {"definition", "workload", "solution", "evaluation"}
    if not check_keys(record, allowed, {"definition", "workload"}, where, problems):
        return
    if not is_nonempty_text(record["definition"]):
        problems.add(f"{where}.definition", "is not a non-empty string")
    check_workload(record["workload"], f"{where}.workload", problems)
    if record.get("solution") is not None and not is_text(record["solution"]):
        problems.add(f"{where}.solution", "is not a string")
    if record.get("evaluation") is not None:
        check_evaluation(record["evaluation"], f"{where}.evaluation", problems)


def read_json(path, problems):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        problems.add(str(path), f"does not parse: {error}")
        return None


def read_jsonl(path, problems):
    """json_utils.py:104-110: one record a line, blank lines skipped."""
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                records.append((f"{path}:{number}", json.loads(line)))
            except ValueError as error:
                problems.add(f"{path}:{number}", f"does not parse: {error}")
    return records


def files(root, folder, suffix, depth, problems):
    """What TraceSet.from_path reads (trace_set.py:181-206: rglob under each folder), each at the
    depth validate.py's scan_dataset expects (validate.py:224-277)."""
    found = []
    for path in sorted((root / folder).rglob("*" + suffix)):
        parts = path.relative_to(root / folder).parts
        if len(parts) != depth:
            problems.add(str(path), f"is not at {folder}/{'/'.join(['<dir>'] * (depth - 1))}/"
                                    f"<name>{suffix}")
        found.append((path, parts))
    if not found:
        problems.add(str(root / folder), f"holds no {suffix} file: the set would load empty")
    return found


def check_folder(root):
    problems = Problems()
    definitions = {}  # name -> (op_type, record)
    for path, parts in files(root, "definitions", ".json", 2, problems):
        record = read_json(path, problems)
        if record is None:
            continue
        check_definition(record, str(path), problems)
        name = record.get("name") if isinstance(record, dict) else None
        if name in definitions:  # trace_set.py:183-184
            problems.add(str(path), f"repeats definition name '{name}'")
        definitions[name] = (parts[0], record)
        # validate.py:372-387: definitions/<op_type>/<name>.json
        if name != path.stem or record.get("op_type") != parts[0]:
            problems.add(str(path), "name or op_type differs from its path")

    solutions = set()
    for path, parts in files(root, "solutions", ".json", 4, problems):
        record = read_json(path, problems)
        if record is None:
            continue
        check_solution(record, str(path), problems)
        if not isinstance(record, dict):
            continue
        if record.get("name") in solutions:  # trace_set.py:190-191
            problems.add(str(path), f"repeats solution name '{record.get('name')}'")
        solutions.add(record.get("name"))
        # validate.py:403-438: solutions/<author>/<op_type>/<definition>/<name>.json
        if len(parts) == 4:
            author, op_type, definition, _ = parts
            if (record.get("author"), record.get("definition"), record.get("name")) != (
                    author, definition, path.stem):
                problems.add(str(path), "author, definition or name differs from its path")
            if definitions.get(definition, (op_type,))[0] != op_type:
                problems.add(str(path), "op_type in its path differs from its definition's")
        if record.get("definition") not in definitions:
            problems.add(str(path), f"solves '{record.get('definition')}', which is not defined")

    def check_trace_file(path, op_type, workload_only):
        for where, record in read_jsonl(path, problems):
            check_trace(record, where, problems)
            if not isinstance(record, dict):
                continue
            is_workload = record.get("solution") is None and record.get("evaluation") is None
            if workload_only and not is_workload:  # trace_set.py:198, validate.py:575-582
                problems.add(where, "is in workloads/ but has a solution or evaluation")
            if not workload_only and (record.get("solution") is None or
                                      record.get("evaluation") is None):
                # trace_set.py:203 and validate.py's [trace] checks
                problems.add(where, "is in traces/ but lacks its solution or evaluation")
            if record.get("definition") != path.stem:  # validate.py:391-400, 449-458
                problems.add(where, "names a definition other than its file's")
            if definitions.get(path.stem, (op_type,))[0] != op_type:
                problems.add(where, "op_type in its path differs from its definition's")
            if not workload_only and record.get("solution") not in solutions:
                problems.add(where, f"names solution '{record.get('solution')}', which is absent")
            check_workload_axes(record, where)

    def check_workload_axes(record, where):
        """validate.py:583-640: the definition's variable axes exactly, values > 0, and its
        inputs exactly."""
        definition = definitions.get(record.get("definition"), (None, None))[1]
        workload = record.get("workload")
        if not isinstance(definition, dict) or not isinstance(workload, dict):
            return
        axes = definition.get("axes") or {}
        var_axes = {n for n, a in axes.items() if isinstance(a, dict) and a.get("type") == "var"}
        if set(workload.get("axes") or {}) != var_axes:
            problems.add(where, f"workload axes are not the variable axes {sorted(var_axes)}")
        if any(not is_integer(v) or v <= 0 for v in (workload.get("axes") or {}).values()):
            problems.add(where, "workload has an axis value <= 0")
        if set(workload.get("inputs") or {}) != set(definition.get("inputs") or {}):
            problems.add(where, "workload inputs are not the definition's inputs")

    # workloads/<op_type>/<definition>.jsonl (validate.py:240-243)
    for path, parts in files(root, "workloads", ".jsonl", 2, problems):
        check_trace_file(path, parts[0], workload_only=True)
    # traces/<author>/<op_type>/<definition>.jsonl (validate.py:274-277)
    for path, parts in files(root, "traces", ".jsonl", 3, problems):
        check_trace_file(path, parts[1] if len(parts) == 3 else None, workload_only=False)
    return problems.lines


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    problems = check_folder(Path(sys.argv[1]))
    for line in problems:
        print(line)
    print(f"{len(problems)} violations of the FlashInfer Trace schema in {sys.argv[1]}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
