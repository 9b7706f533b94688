#include "task/task.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "common/error.h"
#include "common/files.h"
#include "task/abi.h"
#include "task/dtype.h"

namespace accelopt::task {
namespace {

const char* kValid = R"json({
  "name": "matmul", "op_type": "matmul", "tags": ["gemm"],
  "axes": {"M": {"type": "var"}, "N": {"type": "var"}, "K": {"type": "const", "value": 16}},
  "inputs": {"lhs": {"dtype": "float32", "shape": ["M", "K"]},
             "rhs": {"dtype": "float32", "shape": ["K", "N"], "distribution": {"kind": "uniform", "low": 0, "high": 2}}},
  "outputs": {"out": {"dtype": "float32", "shape": ["M", "N"]}},
  "workloads": {"big": {"axes": {"M": 64, "N": 32}}, "small": {"axes": {"M": 8, "N": 4}, "default": true}},
  "roofline": {"mm_flops": "2*M*N*K", "bytes": "4*(M*K + K*N + M*N)"}
})json";

std::string message_of(const std::string& json) {
  try {
    parse_task_definition(json, "/tasks/t", "t/definition.json");
  } catch (const UserError& error) {
    return error.what();
  }
  return "no error";
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(TaskDefinition, LoadsAValidDefinitionInOrder) {
  Task task = parse_task_definition(kValid, "/tasks/t", "t/definition.json");
  EXPECT_EQ(task.name, "matmul");
  ASSERT_EQ(task.inputs.size(), 2u);
  EXPECT_EQ(task.inputs[0].name, "lhs");
  EXPECT_EQ(task.inputs[1].distribution.kind, Distribution::kUniform);
  EXPECT_EQ(task.default_workload().name, "small");
  EXPECT_EQ(task.workload("big").axes.at("K"), 16);
  RooflineCounts counts = task.roofline_counts(task.workload("big"));
  EXPECT_DOUBLE_EQ(counts.mm_flops, 2.0 * 64 * 32 * 16);
  EXPECT_DOUBLE_EQ(counts.vec_flops, 0);
  EXPECT_EQ(task.threads, 1);
  EXPECT_EQ(task.seeds, 5);
  EXPECT_DOUBLE_EQ(task.rel_l2_tolerance, 2e-5);
  EXPECT_TRUE(task.input_sets.empty());
}

TEST(TaskDefinition, ASuitesTasksAreItsFoldersWithADefinitionSorted) {
  TempDir suite("accelopt-suite");
  for (const char* name : {"silu", "adamw", "notes"}) {
    std::filesystem::create_directory(suite.path() / name);
  }
  write_file_atomic(suite.path() / "silu" / "definition.json", "{}");
  write_file_atomic(suite.path() / "adamw" / "definition.json", "{}");
  write_file_atomic(suite.path() / "README.md", "");
  EXPECT_EQ(task_names_in(suite.path()), (std::vector<std::string>{"adamw", "silu"}));
}

TEST(TaskDefinition, ResolvesToleranceByOutputAndInputSet) {
  std::string json =
      replace(kValid, R"("roofline")", R"("tolerance": {"rel_l2": 1e-4, "atol": 1e-3, "rtol": 1e-2,
                   "atol_rms": 3e-5, "outputs": {"out": {"atol": 5e-4}}},
    "input_sets": {"large": {"description": "big values", "seeds": 2,
                             "inputs": {"lhs": {"kind": "normal", "std": 100}, "rhs": {"kind": "constant", "value": 0}},
                             "tolerance": {"rtol": 0.05, "outputs": {"out": {"atol": 0.5, "atol_rms": 1e-4}}}}},
    "roofline")");
  Task task = parse_task_definition(json, "/tasks/t", "t/definition.json");
  EXPECT_DOUBLE_EQ(task.rel_l2_tolerance, 1e-4);
  Tolerance plain = task.tolerance("out");
  EXPECT_DOUBLE_EQ(plain.rel_l2, 1e-4);
  EXPECT_DOUBLE_EQ(plain.atol, 5e-4);  // the output's own beats the task's
  EXPECT_DOUBLE_EQ(plain.rtol, 1e-2);
  EXPECT_DOUBLE_EQ(plain.atol_rms, 3e-5);
  EXPECT_NE(tolerance_text(plain).find("3e-05·rms(reference)"), std::string::npos)
      << tolerance_text(plain);
  EXPECT_EQ(tolerance_text(default_tolerance(DType::kFloat32)).find("rms"), std::string::npos);
  ASSERT_EQ(task.input_sets.size(), 1u);
  const InputSet& large = task.input_set("large");
  EXPECT_EQ(large.seeds, 2);
  EXPECT_EQ(large.inputs.at("lhs").kind, Distribution::kNormal);
  EXPECT_DOUBLE_EQ(large.inputs.at("lhs").std, 100);
  EXPECT_EQ(large.inputs.at("rhs").kind, Distribution::kConstant);
  Tolerance in_set = task.tolerance("out", &large);
  EXPECT_DOUBLE_EQ(in_set.rel_l2, 1e-4);
  EXPECT_DOUBLE_EQ(in_set.atol, 0.5);
  EXPECT_DOUBLE_EQ(in_set.rtol, 0.05);
  EXPECT_DOUBLE_EQ(in_set.atol_rms, 1e-4);
  EXPECT_THROW(task.input_set("tiny"), UserError);
}

TEST(TaskDefinition, RefusesBadTolerancesInputSetsAndTooFewSeeds) {
  auto with = [](const std::string& fields) {
    return message_of(replace(kValid, R"("roofline")", fields + R"(, "roofline")"));
  };
  EXPECT_NE(with(R"("tolerance": {"atol": -1})").find("tolerance.atol: must be in"),
            std::string::npos);
  EXPECT_NE(with(R"("tolerance": {"rtol": 2})").find("tolerance.rtol: must be in"),
            std::string::npos);
  EXPECT_NE(with(R"("tolerance": {"atol_rms": -1e-5})").find("tolerance.atol_rms: must be in"),
            std::string::npos);
  EXPECT_NE(with(R"("tolerance": {"atol_rel": 1e-5})").find("atol_rel"), std::string::npos);
  EXPECT_NE(with(R"("tolerance": {"outputs": {"res": {"atol": 1}}})").find("unknown output 'res'"),
            std::string::npos);
  EXPECT_NE(with(R"("input_sets": {"big": {"inputs": {"x": {"kind": "normal"}}}})")
                .find("input_sets.big.inputs: unknown input 'x'"),
            std::string::npos);
  EXPECT_NE(with(R"("input_sets": {"big": {"description": "no inputs"}})")
                .find("missing required field 'inputs'"),
            std::string::npos);
  EXPECT_NE(with(R"("seeds": 3)").find("seeds: must be at least 5"), std::string::npos);
}

// FlashInfer-Bench's FP8 tensors (its MoE definition) are named as such, on every platform.
TEST(TaskDefinition, TakesFloat8E4M3AndRefusesTheOtherFP8FormatsSayingSo) {
  std::string e4m3 = replace(kValid, R"("dtype": "float32", "shape": ["K", "N"])",
                             R"("dtype": "float8_e4m3fn", "shape": ["K", "N"])");
  EXPECT_EQ(parse_task_definition(e4m3, "/t", "t").inputs[1].dtype, DType::kFloat8E4M3);
  std::string message = message_of(replace(kValid, R"("dtype": "float32", "shape": ["K", "N"])",
                                           R"("dtype": "float8_e5m2", "shape": ["K", "N"])"));
  EXPECT_NE(message.find("inputs.rhs.dtype: unknown dtype 'float8_e5m2'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("of the FP8 and FP4 formats only float8_e4m3fn is run so far"),
            std::string::npos)
      << message;
}

// The kernel header's float8 conversions are the harness's: a program built on the generated
// header converts every pattern to float, and floats around every rounding boundary to float8,
// and must agree with task/dtype.h bit for bit.
TEST(KernelHeader, Float8ConversionsAreTheHarnesses) {
  std::string e4m3 = replace(kValid, R"("dtype": "float32", "shape": ["K", "N"])",
                             R"("dtype": "float8_e4m3fn", "shape": ["K", "N"])");
  Task task = parse_task_definition(e4m3, "/t", "t");
  std::string header = generate_kernel_header(task, task.default_workload());
  EXPECT_NE(header.find("const accelopt::fp8_e4m3* __restrict rhs"), std::string::npos) << header;
  std::vector<float> values;
  for (int bits = 0; bits < 0x7F; ++bits) {
    float low = fp8_e4m3_bits_to_float(static_cast<uint8_t>(bits));
    float high = bits < 0x7E ? fp8_e4m3_bits_to_float(static_cast<uint8_t>(bits + 1)) : 1e6f;
    float middle = (low + high) / 2;
    for (float value : {low, middle, std::nextafter(middle, 0.0f), std::nextafter(middle, 2e6f)}) {
      values.push_back(value);
      values.push_back(-value);
    }
  }
  values.push_back(std::numeric_limits<float>::infinity());
  values.push_back(std::numeric_limits<float>::quiet_NaN());
  TempDir directory("accelopt-fp8-header");
  std::ofstream(directory.path() / "accelopt_task.h") << header;
  std::ofstream program(directory.path() / "check.cpp");
  program << "#include <cstdio>\n#include \"accelopt_task.h\"\nint main() {\n"
          << "  for (int b = 0; b < 256; ++b) std::printf(\"%08x\\n\", "
          << "std::bit_cast<std::uint32_t>(accelopt::to_float({static_cast<std::uint8_t>(b)})));\n"
          << "  const std::uint32_t values[] = {";
  for (float value : values) program << std::bit_cast<uint32_t>(value) << "u, ";
  program << "};\n  for (std::uint32_t v : values) std::printf(\"%02x\\n\", "
          << "accelopt::to_fp8_e4m3(std::bit_cast<float>(v)).bits);\n}\n";
  program.close();
  std::string build = "c++ -std=c++20 -O1 -o " + (directory.path() / "check").string() + " " +
                      (directory.path() / "check.cpp").string() + " && " +
                      (directory.path() / "check").string() + " > " +
                      (directory.path() / "out.txt").string();
  ASSERT_EQ(std::system(build.c_str()), 0) << build;
  std::ifstream out(directory.path() / "out.txt");
  for (int bits = 0; bits < 256; ++bits) {
    std::string line;
    ASSERT_TRUE(std::getline(out, line));
    float expected = fp8_e4m3_bits_to_float(static_cast<uint8_t>(bits));
    auto got = std::bit_cast<float>(static_cast<uint32_t>(std::stoul(line, nullptr, 16)));
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(got)) << bits;
    } else {
      EXPECT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(expected)) << bits;
    }
  }
  for (float value : values) {
    std::string line;
    ASSERT_TRUE(std::getline(out, line));
    EXPECT_EQ(std::stoul(line, nullptr, 16), float_to_fp8_e4m3_bits(value)) << value;
  }
}

TEST(TaskDefinition, TakesAtMostSixteenTensors) {
  auto definition = [](int inputs) {
    std::string tensors;
    for (int i = 0; i < inputs; ++i) {
      tensors += (i ? ", " : "") + std::string("\"x") + std::to_string(i) +
                 "\": {\"dtype\": \"float32\", \"shape\": [\"N\"]}";
    }
    return R"({"name": "t", "op_type": "test", "axes": {"N": {"type": "var"}}, "inputs": {)" +
           tensors +
           R"(}, "outputs": {"y": {"dtype": "float32", "shape": ["N"]}},
              "workloads": {"w": {"axes": {"N": 4}}}, "roofline": {"bytes": "4*N"}})";
  };
  EXPECT_EQ(parse_task_definition(definition(15), "/t", "t").inputs.size(), 15u);
  EXPECT_NE(message_of(definition(16)).find("17 tensors in all; an entry point takes at most 16"),
            std::string::npos)
      << message_of(definition(16));
}

TEST(TaskDefinition, SaysExactlyWhatIsWrong) {
  EXPECT_EQ(message_of(replace(kValid, R"("shape": ["M", "K"])", R"("shape": ["M", "Q"])")),
            "t/definition.json: inputs.lhs.shape: unknown axis 'Q'");
  EXPECT_NE(message_of(replace(kValid, R"("dtype": "float32", "shape": ["K", "N"])",
                               R"("dtype": "float33", "shape": ["K", "N"])"))
                .find("inputs.rhs.dtype: unknown dtype 'float33'"),
            std::string::npos);
  EXPECT_NE(
      message_of(replace(kValid, "2*M*N*K", "2*M*N*L")).find("roofline.mm_flops: unknown name 'L'"),
      std::string::npos);
  EXPECT_NE(
      message_of(replace(kValid, R"("op_type")", R"("op_typo")")).find("unknown field 'op_typo'"),
      std::string::npos);
  EXPECT_NE(message_of(replace(kValid, R"("M": 8, "N": 4)", R"("M": 8)"))
                .find("workloads.small.axes: missing a value for var axis 'N'"),
            std::string::npos);
  EXPECT_NE(message_of(replace(kValid, R"("M": 64, "N": 32)", R"("M": 64, "N": 32, "K": 17)"))
                .find("axis is const 16"),
            std::string::npos);
  EXPECT_NE(message_of("{ not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(message_of(replace(kValid, R"("kind": "uniform")", R"("kind": "gaussian")"))
                .find("unknown distribution 'gaussian'"),
            std::string::npos);
}

// FlashInfer-Bench's constraints: relations among the axes that every workload satisfies.
TEST(TaskDefinition, AWorkloadThatBreaksAConstraintIsRefusedByName) {
  std::string constrained =
      replace(kValid, R"("roofline")", R"("constraints": ["M >= 2 * N"], "roofline")");
  Task task = parse_task_definition(constrained, "/tasks/t", "t/definition.json");
  ASSERT_EQ(task.constraints.size(), 1u);
  EXPECT_EQ(task.constraints[0].comparison, ">=");
  EXPECT_EQ(message_of(replace(constrained, R"("M": 8, "N": 4)", R"("M": 8, "N": 5)")),
            "t/definition.json: workloads.small: breaks the constraint \"M >= 2 * N\" (M is 8, "
            "2 * N is 10)");
  EXPECT_NE(message_of(replace(constrained, "M >= 2 * N", "M >= 2 * Q")).find("unknown axis 'Q'"),
            std::string::npos);
  EXPECT_NE(message_of(replace(constrained, "M >= 2 * N", "M + N")).find("no comparison"),
            std::string::npos);
}

// A constraint may read an input's element (FlashInfer-Bench's "T == indptr[-1].item()"): it is
// kept for the drawn inputs, not checked on the workloads' axes, and must name an input and an
// element every workload has.
TEST(TaskDefinition, AConstraintOnAnInputsElementNamesAnInputAndAnElementInRange) {
  std::string constrained = replace(
      kValid, R"("roofline")", R"("constraints": ["M >= rhs[-1].item() + lhs[0]"], "roofline")");
  Task task = parse_task_definition(constrained, "/tasks/t", "t/definition.json");
  ASSERT_EQ(task.constraints.size(), 1u);
  EXPECT_EQ(task.constraints[0].reads.size(), 2u);
  EXPECT_EQ(message_of(replace(constrained, "rhs[-1]", "bias[-1]")),
            "t/definition.json: constraints: \"M >= bias[-1].item() + lhs[0]\" reads bias[-1], "
            "which is not an input");
  // rhs is K x N = 16 x 4 on the small workload: 64 elements.
  EXPECT_EQ(message_of(replace(constrained, "rhs[-1]", "rhs[-65]")),
            "t/definition.json: workloads.small: the constraint \"M >= rhs[-65].item() + "
            "lhs[0]\" reads rhs[-65], past the end of its 64 elements");
  EXPECT_NE(message_of(replace(kValid, R"("mm_flops": "2*M*N*K")", R"("mm_flops": "2*lhs[0]")"))
                .find("reads an input's element: only constraints may"),
            std::string::npos);
}

// A paged table: an indptr per sequence (offsets), page indices below the workload's page count
// (integer bounds written as axis expressions), a causal prefill's kv steps not below its q steps.
const char* kPaged = R"json({
  "name": "paged", "op_type": "attention",
  "axes": {"len_indptr": {"type": "var"}, "num_kv_indices": {"type": "var"},
           "num_pages": {"type": "var"}, "total_q": {"type": "var"}},
  "inputs": {
    "kv_indptr": {"dtype": "int32", "shape": ["len_indptr"],
                  "distribution": {"kind": "offsets", "total": "num_kv_indices", "not_below": "qo_indptr"}},
    "qo_indptr": {"dtype": "int32", "shape": ["len_indptr"],
                  "distribution": {"kind": "offsets", "total": "total_q", "min_step": 1}},
    "kv_indices": {"dtype": "int32", "shape": ["num_kv_indices"],
                   "distribution": {"kind": "integer", "low": 0, "high": "num_pages"}}},
  "outputs": {"out": {"dtype": "float32", "shape": ["total_q"]}},
  "workloads": {"w": {"axes": {"len_indptr": 5, "num_kv_indices": 40, "num_pages": 50, "total_q": 8}},
                "small": {"axes": {"len_indptr": 3, "num_kv_indices": 6, "num_pages": 7, "total_q": 2}}},
  "roofline": {"bytes": "4*num_kv_indices"}
})json";

// A constant input (weights) is drawn once per evaluation from its own distribution: no input set
// may draw it otherwise, and an offsets one may be bounded only by another constant input.
TEST(TaskDefinition, AConstantInputIsAnInputNoSetDrawsOtherwise) {
  std::string weighted =
      replace(kValid, R"("rhs": {"dtype")", R"("rhs": {"constant": true, "dtype")");
  Task task = parse_task_definition(weighted, "/t", "t");
  EXPECT_FALSE(task.inputs[0].constant);
  EXPECT_TRUE(task.inputs[1].constant);

  EXPECT_NE(message_of(replace(kValid, R"("rhs": {"dtype")", R"("rhs": {"constant": 1, "dtype")"))
                .find("inputs.rhs.constant: must be true or false"),
            std::string::npos);
  EXPECT_NE(
      message_of(replace(kValid, R"("out": {"dtype")", R"("out": {"constant": true, "dtype")"))
          .find("outputs.out: unknown field 'constant'"),
      std::string::npos);
  std::string with_set = replace(
      weighted, R"("workloads")",
      R"("input_sets": {"big": {"inputs": {"rhs": {"kind": "normal", "std": 9}}}}, "workloads")");
  EXPECT_NE(message_of(with_set).find("input_sets.big.inputs.rhs: input 'rhs' is constant"),
            std::string::npos)
      << message_of(with_set);

  std::string bounded =
      replace(kPaged, R"("kv_indptr": {"dtype")", R"("kv_indptr": {"constant": true, "dtype")");
  EXPECT_NE(
      message_of(bounded).find("inputs.kv_indptr.distribution.not_below: 'qo_indptr' is drawn "
                               "per case"),
      std::string::npos)
      << message_of(bounded);
  std::string both =
      replace(bounded, R"("qo_indptr": {"dtype")", R"("qo_indptr": {"constant": true, "dtype")");
  EXPECT_EQ(message_of(both), "no error");
}

TEST(TaskDefinition, IntegerBoundsAndOffsetsTotalsAreAxisExpressions) {
  Task task = parse_task_definition(kPaged, "/tasks/t", "t/definition.json");
  const InputDistribution& indices = task.inputs[2].distribution;
  EXPECT_EQ(indices.kind, Distribution::kInteger);
  EXPECT_EQ(indices.high_expression, "num_pages");
  InputDistribution on_small = for_workload(indices, task.workload("small"));
  EXPECT_EQ(on_small.low, 0);
  EXPECT_EQ(on_small.high, 7);
  EXPECT_EQ(for_workload(indices, task.workload("w")).high, 50);
  const InputDistribution& kv = task.inputs[0].distribution;
  EXPECT_EQ(kv.kind, Distribution::kOffsets);
  EXPECT_EQ(kv.not_below, "qo_indptr");
  EXPECT_EQ(kv.min_step, 0);
  EXPECT_EQ(task.inputs[1].distribution.min_step, 1);
  EXPECT_EQ(for_workload(kv, task.workload("w")).total, 40);
  EXPECT_EQ(distribution_text(indices), "integers in [0, num_pages)");
  EXPECT_EQ(distribution_text(kv),
            "offsets: int32, non-decreasing from 0 to num_kv_indices, each step at least "
            "qo_indptr's");
}

TEST(TaskDefinition, ImpossibleBoundsAndOffsetsAreNamedWithTheirWorkload) {
  auto error = [](const std::string& from, const std::string& to) {
    return message_of(replace(kPaged, from, to));
  };
  EXPECT_EQ(error(R"("high": "num_pages")", R"("high": "num_pagez")"),
            "t/definition.json: inputs.kv_indices.distribution.high: unknown axis 'num_pagez' in "
            "\"num_pagez\"");
  EXPECT_EQ(error(R"("high": "num_pages")", R"("high": "num_pages - 7")"),
            "t/definition.json: inputs.kv_indices.distribution: on workload 'small', low 0 and "
            "high \"num_pages - 7\" = 0: an integer distribution needs whole numbers low < high "
            "(high excluded)");
  EXPECT_NE(error(R"("high": "num_pages")", R"("high": "num_pages / 2")")
                .find("\"num_pages / 2\" = 3.5: an integer distribution needs whole numbers"),
            std::string::npos);
  EXPECT_NE(
      error(R"("high": "num_pages")", R"("high": "num_pages * 1000000")").find("within ±2^24"),
      std::string::npos);
  EXPECT_NE(error(R"("high": "num_pages")", R"("high": "num_pages +")").find("kv_indices"),
            std::string::npos);
  EXPECT_NE(error(R"("high": "num_pages")", R"("high": true)")
                .find("must be a number or an axis expression"),
            std::string::npos);
  EXPECT_EQ(error(R"("min_step": 1)", R"("min_step": 3)"),
            "t/definition.json: inputs.qo_indptr.distribution: on workload 'w' (5 elements, "
            "total total_q = 8): 4 steps of at least min_step 3 cannot end at 8");
  EXPECT_EQ(error(R"("num_kv_indices": 6)", R"("num_kv_indices": 1)"),
            "t/definition.json: inputs.kv_indptr.distribution: on workload 'small' (3 elements, "
            "total num_kv_indices = 1): below 'qo_indptr''s total 2: each step must be at least "
            "'qo_indptr''s step");
  // Steps of at least 2 beside qo_indptr's of at least 0: its total plus 2 a step always suffices.
  std::string steeper = replace(replace(replace(kPaged, R"("not_below": "qo_indptr")",
                                                R"("min_step": 2, "not_below": "qo_indptr")"),
                                        R"("min_step": 1)", R"("min_step": 0)"),
                                R"("num_kv_indices": 6)", R"("num_kv_indices": 5)");
  EXPECT_NE(message_of(steeper).find("on workload 'small' (3 elements, total num_kv_indices = 5): "
                                     "below 'qo_indptr''s total 2 plus 4 for min_step"),
            std::string::npos)
      << message_of(steeper);
  EXPECT_NE(error(R"("not_below": "qo_indptr")", R"("not_below": "kv_indices")")
                .find("inputs.kv_indptr.distribution.not_below: 'kv_indices' is not another input "
                      "with an offsets distribution"),
            std::string::npos);
  EXPECT_NE(error(R"("min_step": 1)", R"("min_step": 1, "not_below": "kv_indptr")")
                .find("not_below goes round in a circle"),
            std::string::npos);
  EXPECT_NE(error(R"("kv_indptr": {"dtype": "int32")", R"("kv_indptr": {"dtype": "float32")")
                .find("an offsets distribution is for a 1-D int32 tensor"),
            std::string::npos);
  EXPECT_NE(error(R"("total": "total_q", )", "").find("needs its \"total\""), std::string::npos);
  EXPECT_NE(error(R"("kind": "integer", "low": 0)", R"("kind": "integer", "min_step": 1, "low": 0)")
                .find("distribution.min_step: only an offsets distribution takes it"),
            std::string::npos);
  EXPECT_NE(
      error(
          R"("roofline")",
          R"("input_sets": {"odd": {"inputs": {"qo_indptr": {"kind": "constant", "value": 0}}}}, "roofline")")
          .find("input_sets.odd.inputs.qo_indptr: an offsets input keeps the task's own "
                "distribution"),
      std::string::npos);
  EXPECT_NE(
      error(
          R"("roofline")",
          R"("input_sets": {"few": {"inputs": {"kv_indices": {"kind": "integer", "low": 0, "high": "num_pages - 7"}}}}, "roofline")")
          .find("input_sets.few.inputs.kv_indices: on workload 'small'"),
      std::string::npos);
}

TEST(TaskDefinition, ReportsAMissingFile) {
  try {
    load_task("/nonexistent/task");
    FAIL();
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/task"), std::string::npos);
  }
}

TEST(KernelHeader, DeclaresShapesAndThePrototypeInDefinitionOrder) {
  Task task = parse_task_definition(kValid, "/tasks/t", "t/definition.json");
  std::string header = generate_kernel_header(task, task.workload("big"));
  EXPECT_NE(header.find("constexpr std::int64_t M = 64;"), std::string::npos);
  EXPECT_NE(header.find("constexpr std::int64_t K = 16;"), std::string::npos);
  EXPECT_NE(
      header.find("extern \"C\" void kernel(const float* __restrict lhs, const float* __restrict "
                  "rhs, float* __restrict out);"),
      std::string::npos)
      << header;
}

// A task loaded for CUDA gets CUDA's 16-bit types, usable in device code; a float32 task's header
// is the same on both platforms.
TEST(KernelHeader, ACudaTaskGetsCudasBFloat16AndFloat16Types) {
  std::string json =
      replace(kValid, R"("lhs": {"dtype": "float32")", R"("lhs": {"dtype": "bfloat16")");
  json = replace(json, R"("out": {"dtype": "float32")", R"("out": {"dtype": "float16")");
  Task task = parse_task_definition(json, "/tasks/t", "t/definition.json");
  std::string cpu = generate_kernel_header(task, task.workload("big"));
  EXPECT_NE(cpu.find("struct bf16"), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("const accelopt::bf16* __restrict lhs"), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("_Float16* __restrict out"), std::string::npos) << cpu;

  task.kernel_extension = ".cu";
  ASSERT_TRUE(is_cuda_task(task));
  std::string cuda = generate_kernel_header(task, task.workload("big"));
  EXPECT_NE(cuda.find("#include <cuda_bf16.h>"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("#include <cuda_fp16.h>"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("using bf16 = __nv_bfloat16;"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("__host__ __device__ inline float to_float(__half value)"), std::string::npos)
      << cuda;
  EXPECT_EQ(cuda.find("_Float16"), std::string::npos) << cuda;
  EXPECT_EQ(cuda.find("std::bit_cast"), std::string::npos) << "nvcc compiles C++17";
  EXPECT_NE(cuda.find("extern \"C\" void kernel(const __nv_bfloat16* __restrict lhs, const float* "
                      "__restrict rhs, __half* __restrict out);"),
            std::string::npos)
      << cuda;

  Task float32 = parse_task_definition(kValid, "/tasks/t", "t/definition.json");
  std::string on_cpu = generate_kernel_header(float32, float32.workload("big"));
  float32.kernel_extension = ".cu";
  EXPECT_EQ(generate_kernel_header(float32, float32.workload("big")), on_cpu);
}

}  // namespace
}  // namespace accelopt::task
