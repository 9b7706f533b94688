#include "platform/cpu/inputs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "common/error.h"
#include "common/files.h"
#include "platform/case_variation.h"
#include "platform/cpu/runner_turns.h"
#include "task/safetensors.h"

namespace accelopt::platform::cpu {
namespace {

std::vector<std::vector<float>> floats_of(const std::vector<task::TensorValues>& tensors) {
  std::vector<std::vector<float>> values;
  for (const task::TensorValues& tensor : tensors) values.push_back(tensor.floats());
  return values;
}

// generate_inputs, each tensor as float values.
std::vector<std::vector<float>> drawn(const task::Task& task, const task::Workload& workload,
                                      uint64_t seed, const task::InputSet* set = nullptr,
                                      const Variation& variation = {}) {
  return floats_of(generate_inputs(task, workload, seed, set, variation));
}

task::Task test_task(const std::string& x_dtype = "float32") {
  return task::parse_task_definition(R"json({
    "name": "t", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"x": {"dtype": ")json" + x_dtype +
                                         R"json(", "shape": ["N"]},
               "y": {"dtype": "float32", "shape": ["N"], "distribution": {"kind": "uniform", "low": 2, "high": 3}}},
    "outputs": {"out": {"dtype": "float32", "shape": ["N"]}},
    "workloads": {"w": {"axes": {"N": 1000}}},
    "input_sets": {"zeros": {"inputs": {"x": {"kind": "constant", "value": 0}}},
                   "denormal": {"seeds": 2, "inputs": {"y": {"kind": "uniform", "low": 1e-40, "high": 1e-39}}}},
    "roofline": {"bytes": "12*N"}})json",
                                     "/t", "t");
}

TEST(Inputs, TheSameSeedGivesTheSameInputsAndAnotherSeedOthers) {
  task::Task task = test_task();
  const task::Workload& workload = task.default_workload();
  auto first = drawn(task, workload, 42);
  EXPECT_EQ(first, drawn(task, workload, 42));
  EXPECT_NE(first, drawn(task, workload, 43));
  ASSERT_EQ(first.size(), 2u);
  for (float y : first[1]) {
    EXPECT_GE(y, 2.0f);
    EXPECT_LE(y, 3.0f);
  }
}

// A workload's file input is the file's data in every case, whatever the seed or family; the
// others are drawn as ever.
TEST(Inputs, AWorkloadsFileInputIsTheFilesDataInEveryCase) {
  TempDir scratch("accelopt-file-input");
  std::vector<float> weights = {0.5f, -1.0f, 2.0f, 4.0f};
  std::vector<unsigned char> bytes(weights.size() * sizeof(float));
  std::memcpy(bytes.data(), weights.data(), bytes.size());
  task::write_safetensors(scratch.path() / "y.safetensors",
                          {{"y", task::DType::kFloat32, {4}, bytes}});
  task::Task task = test_task();
  task::Workload workload = task.default_workload();
  workload.axes["N"] = 4;
  workload.file_inputs["y"] = {scratch.path() / "y.safetensors", "y"};
  auto first = drawn(task, workload, 1);
  auto second = drawn(task, workload, 2, &task.input_set("denormal"), {2, 1, 0.5, 1});
  EXPECT_EQ(first[1], weights);
  EXPECT_EQ(second[1], weights);
  EXPECT_NE(first[0], second[0]);
  // Timed turns copy it whole from the pool, never mixed (moved towards a center) as drawn ones.
  EXPECT_EQ(whole_inputs(task, &workload), (std::vector<bool>{false, true}));
  EXPECT_EQ(whole_inputs(task), (std::vector<bool>{false, false}));
}

// A constant input (weights) is drawn once and every case given it holds that one array, whatever
// its seed, set or variation; the case's wider spread goes to the next input. Without the drawn
// constants, a seed draws them as draw_constant_inputs does from it.
TEST(Inputs, AConstantInputIsDrawnOnceAndSharedByEveryCaseGivenIt) {
  task::Task task = test_task();
  task.inputs[0].constant = true;
  std::erase_if(task.input_sets, [](const task::InputSet& set) { return set.name == "zeros"; });
  const task::Workload& workload = task.default_workload();
  EXPECT_TRUE(has_constant_inputs(task));
  EXPECT_FALSE(has_constant_inputs(test_task()));

  ConstantInputs constants = draw_constant_inputs(task, workload, 11);
  ASSERT_EQ(constants.size(), 2u);
  EXPECT_EQ(constants[0].count(), 1000u);
  EXPECT_EQ(constants[1].count(), 0u) << "y is drawn per case";
  EXPECT_NE(constants[0], draw_constant_inputs(task, workload, 12)[0]);

  Variation wide{.spread = 3.0, .width = 1, .shift = 0, .fraction = 1};
  auto first = generate_inputs(task, workload, 1, nullptr, {}, &constants);
  auto widened = generate_inputs(task, workload, 2, nullptr, wide, &constants);
  auto in_set = generate_inputs(task, workload, 3, &task.input_set("denormal"), {}, &constants);
  for (const auto* drawn_case : {&first, &widened, &in_set}) {
    EXPECT_TRUE((*drawn_case)[0].shares_bytes_with(constants[0]));
  }
  EXPECT_NE(first[1], widened[1]);
  EXPECT_EQ(platform::widened_input(task), -1) << "y is uniform: no input of this task widens";

  auto from_seed = generate_inputs(task, workload, 11);
  EXPECT_EQ(from_seed[0], constants[0]);
  EXPECT_FALSE(from_seed[0].shares_bytes_with(constants[0]));

  // A copy of a case shares its arrays: a pool case kept beside the correctness cases costs no
  // second copy of the weights.
  std::vector<task::TensorValues> copy = first;
  EXPECT_TRUE(copy[1].shares_bytes_with(first[1]));
}

// A constraint on an input's values holds on every case drawn, or the drawing is refused by the
// constraint's text; the input it reads is copied whole into timed turns, so mixes keep it too.
TEST(Inputs, AConstraintOnInputValuesIsCheckedOnEveryDrawnCase) {
  auto indptr_task = [](const std::string& distribution) {
    return task::parse_task_definition(R"json({
      "name": "t", "op_type": "test",
      "axes": {"B": {"type": "var"}, "L": {"type": "var"}, "T": {"type": "var"}},
      "constraints": ["L == B + 1", "T == indptr[-1].item()"],
      "inputs": {"x": {"dtype": "float32", "shape": ["T"]},
                 "indptr": {"dtype": "int32", "shape": ["L"], "distribution": )json" +
                                           distribution + R"json(}},
      "outputs": {"out": {"dtype": "float32", "shape": ["T"]}},
      "workloads": {"w": {"axes": {"B": 4, "L": 5, "T": 40}}},
      "input_sets": {"wide": {"inputs": {"x": {"kind": "normal", "std": 100}}}},
      "roofline": {"bytes": "8*T"}})json",
                                       "/t", "t");
  };
  task::Task valid = indptr_task(R"({"kind": "offsets", "total": "T"})");
  ASSERT_EQ(valid.constraints.size(), 2u);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto inputs =
        drawn(valid, valid.default_workload(), seed, seed % 2 ? nullptr : &valid.input_set("wide"));
    EXPECT_EQ(inputs[1].back(), 40.0f);
  }
  EXPECT_EQ(whole_inputs(valid), (std::vector<bool>{false, true}));

  task::Task zeros = indptr_task(R"({"kind": "integer", "low": 0, "high": 1})");
  EXPECT_EQ(whole_inputs(zeros), (std::vector<bool>{false, true}));
  try {
    generate_inputs(zeros, zeros.default_workload(), 1, &zeros.input_set("wide"));
    ADD_FAILURE() << "inputs that break a constraint were drawn";
  } catch (const UserError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("break the constraint \"T == indptr[-1].item()\" (T is 40, "
                           "indptr[-1].item() is 0)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("input set 'wide'"), std::string::npos) << message;
    EXPECT_NE(message.find("give indptr a distribution"), std::string::npos) << message;
  }
}

TEST(Inputs, AnInputSetReplacesOnlyTheDistributionsItNames) {
  task::Task task = test_task();
  const task::Workload& workload = task.default_workload();
  auto plain = drawn(task, workload, 7);
  auto zeros = drawn(task, workload, 7, &task.input_set("zeros"));
  for (float x : zeros[0]) EXPECT_EQ(x, 0.0f);
  EXPECT_EQ(zeros[1], plain[1]);
  auto denormal = drawn(task, workload, 7, &task.input_set("denormal"));
  for (float y : denormal[1]) EXPECT_EQ(std::fpclassify(y), FP_SUBNORMAL) << y;
}

TEST(Inputs, SecretSeedsAreFreshAndNeverNamedInLabels) {
  task::Task task = test_task();
  std::vector<CaseSpec> cases = correctness_cases(task);
  ASSERT_EQ(cases.size(), 5u + 1u + 2u);  // the task's 5, one zeros case, two denormal cases
  EXPECT_EQ(cases[0].set, "");
  EXPECT_EQ(cases[5].set, "zeros");
  EXPECT_EQ(cases[7].set, "denormal");
  std::set<uint64_t> seeds;
  for (const CaseSpec& spec : cases) {
    seeds.insert(spec.seed);
    EXPECT_EQ(spec.label.find(std::to_string(spec.seed)), std::string::npos) << spec.label;
  }
  for (const CaseSpec& spec : correctness_cases(task)) seeds.insert(spec.seed);
  EXPECT_EQ(seeds.size(), 2 * cases.size()) << "seeds repeat across evaluations";
  EXPECT_EQ(cases[5].label, "case 6 (input set 'zeros')");
}

// The timed turns' pool holds a case of every family the correctness check draws from (issue 44):
// the task's own, the wider spread, and each input set as the set says, each varied in secret.
TEST(Inputs, TheTimingPoolHoldsEveryEdgeCaseFamily) {
  task::Task task = test_task();
  std::vector<CaseSpec> pool = timing_cases(task, 3);
  ASSERT_EQ(pool.size(), 3u + 1u + 2u);  // 3 of the task's own, the wider spread, zeros, denormal
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(pool[i].set, "") << i;
  EXPECT_EQ(pool[0].variation.spread, 1.0);
  EXPECT_GE(pool[3].variation.spread, 2.0);
  EXPECT_LE(pool[3].variation.spread, 4.0);
  EXPECT_NE(pool[3].label.find("wider spread"), std::string::npos) << pool[3].label;
  EXPECT_EQ(pool[4].set, "zeros");
  EXPECT_EQ(pool[5].set, "denormal");
  EXPECT_EQ(pool[5].variation.fraction, 1.0);
  for (const CaseSpec& spec : pool) {
    EXPECT_EQ(spec.label.rfind("timing ", 0), 0u) << spec.label;
    EXPECT_EQ(spec.label.find(std::to_string(spec.seed)), std::string::npos) << spec.label;
  }
}

TEST(Inputs, CasesOfAFamilyVaryTheirParametersInSecretAndStayInTheirRanges) {
  task::Task task = test_task();
  const task::Workload& workload = task.default_workload();
  std::vector<CaseSpec> cases = correctness_cases(task);
  // The task's last own case spreads wider; a set's first case is the set's alone, its later ones
  // mixed with the task's own distributions.
  EXPECT_EQ(cases[4].label, "case 5 (wider spread)");
  EXPECT_GE(cases[4].variation.spread, 2.0);
  EXPECT_LE(cases[4].variation.spread, 4.0);
  EXPECT_EQ(cases[6].variation.fraction, 1.0);
  EXPECT_LT(cases[7].variation.fraction, 1.0);
  EXPECT_GE(cases[7].variation.fraction, 0.25);
  EXPECT_NE(correctness_cases(task)[4].variation.spread, cases[4].variation.spread);

  // A uniform keeps a sub-range of its own range; a mix draws the rest from the task's own.
  Variation narrow{.width = 0.5, .shift = 0.5, .fraction = 0.5};
  auto mixed = drawn(task, workload, 9, &task.input_set("denormal"), narrow);
  int from_set = 0;
  for (float y : mixed[1]) {
    if (y < 1.0f) {
      ++from_set;
      EXPECT_GE(y, 5.4e-40f);  // the upper half of [1e-40, 1e-39]
      EXPECT_LE(y, 1e-39f);
    } else {
      EXPECT_GE(y, 2.0f);  // the task's own uniform [2, 3]
      EXPECT_LE(y, 3.0f);
    }
  }
  EXPECT_GT(from_set, 400);
  EXPECT_LT(from_set, 600);

  // A wider normal has a larger spread.
  Variation wide{.spread = 3.0, .width = 1, .shift = 0, .fraction = 1};
  auto plain = drawn(task, workload, 11);
  auto wider = drawn(task, workload, 11, nullptr, wide);
  for (size_t i = 0; i < plain[0].size(); ++i) EXPECT_FLOAT_EQ(wider[0][i], 3 * plain[0][i]);
  EXPECT_EQ(wider[1], plain[1]);  // a uniform never leaves its range
}

// The prompt describes the cases from platform::kCaseVariation: the input it says the wide case
// widens is the one generate_inputs widens, in every benchmark task that has one.
TEST(Inputs, TheWideCaseWidensTheInputThePromptNames) {
  Variation wide{.spread = 3.0, .width = 1, .shift = 0, .fraction = 1};
  int tasks_with_a_wide_case = 0;
  for (const auto& folder : std::filesystem::directory_iterator(ACCELOPT_SOURCE_DIR "/bench/cpu")) {
    if (!std::filesystem::exists(folder.path() / "definition.json")) continue;
    task::Task task = task::load_task(folder.path());
    int named = platform::widened_input(task);
    std::vector<CaseSpec> cases = correctness_cases(task);
    ASSERT_GE(static_cast<int>(cases.size()), task.seeds);
    bool drawn_wide = cases[static_cast<size_t>(task.seeds - 1)].variation.spread > 1;
    EXPECT_EQ(named >= 0, drawn_wide) << task.name;
    if (named < 0) continue;
    ++tasks_with_a_wide_case;
    const task::Workload& workload = task.workload_or_default("small");
    auto plain = generate_inputs(task, workload, 5);
    auto wider = generate_inputs(task, workload, 5, nullptr, wide);
    for (size_t i = 0; i < plain.size(); ++i) {
      EXPECT_EQ(plain[i].bytes() != wider[i].bytes(), static_cast<int>(i) == named)
          << task.name << " input " << task.inputs[i].name;
    }
    std::vector<platform::CaseFamily> families = platform::describe_correctness_cases(task);
    ASSERT_GE(families.size(), 2u) << task.name;
    EXPECT_EQ(families[1].cases, 1);
    EXPECT_NE(families[1].description.find("`" + task.inputs[static_cast<size_t>(named)].name +
                                           "`: its std multiplied by a factor from 2 to 4"),
              std::string::npos)
        << families[1].description;
  }
  EXPECT_GT(tasks_with_a_wide_case, 5);
}

// Normals come from the ziggurat: a million of them have the standard normal's moments and tails
// (the share beyond 2 and beyond the ziggurat's tail start, 3.4426, where a separate path draws).
TEST(Inputs, NormalsHaveTheNormalsMomentsAndTails) {
  task::Task task = task::parse_task_definition(R"json({
    "name": "n", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"x": {"dtype": "float32", "shape": ["N"], "distribution": {"kind": "normal", "mean": 1, "std": 2}}},
    "outputs": {"out": {"dtype": "float32", "shape": ["N"]}},
    "workloads": {"w": {"axes": {"N": 1000000}}},
    "roofline": {"bytes": "8*N"}})json",
                                                "/n", "n");
  std::vector<float> x = drawn(task, task.default_workload(), 5)[0];
  double sum = 0, squares = 0;
  size_t beyond_two = 0, beyond_tail = 0;
  for (float value : x) {
    double z = (value - 1.0) / 2.0;
    sum += z;
    squares += z * z;
    beyond_two += std::fabs(z) > 2;
    beyond_tail += std::fabs(z) > 3.442619855899;
  }
  double n = static_cast<double>(x.size());
  EXPECT_NEAR(sum / n, 0, 0.005);                 // 5 standard errors
  EXPECT_NEAR(squares / n, 1, 0.007);             // 5 standard errors
  EXPECT_NEAR(beyond_two / n, 0.0455, 0.001);     // 5 standard errors
  EXPECT_NEAR(beyond_tail / n, 5.76e-4, 1.2e-4);  // 5 standard errors
}

TEST(Inputs, RefusesFloat64Tensors) {
  task::Task task = test_task("float64");
  try {
    require_supported_dtypes(task);
    FAIL() << "float64 accepted";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("'x' is float64"), std::string::npos) << error.what();
  }
  EXPECT_THROW(generate_inputs(task, task.default_workload(), 1), UserError);
}

TEST(Inputs, NarrowInputsAreDrawnInFloatAndRoundedToTheirType) {
  for (task::DType dtype : {task::DType::kBFloat16, task::DType::kFloat16}) {
    task::Task task = test_task(std::string(task::dtype_name(dtype)));
    auto inputs = drawn(task, task.default_workload(), 7);
    auto wide = drawn(test_task(), test_task().default_workload(), 7);
    size_t differ = 0;
    for (size_t i = 0; i < inputs[0].size(); ++i) {
      float value = inputs[0][i];
      EXPECT_EQ(value, task::round_to_dtype(dtype, value)) << "not exact in the type at " << i;
      // The same draw, rounded: within half a unit in the last place of the 16-bit format.
      double half_ulp = dtype == task::DType::kBFloat16 ? 0x1p-8 : 0x1p-11;
      EXPECT_LE(std::fabs(value - wide[0][i]), half_ulp * std::fabs(wide[0][i]) + 1e-7);
      differ += value != wide[0][i];
    }
    EXPECT_GT(differ, inputs[0].size() / 2) << "most float32 draws are not exact in 16 bits";
  }
}

TEST(Inputs, IntegerInputsStayInTheirRangeAndCoverIt) {
  task::Task task = task::parse_task_definition(R"json({
    "name": "t", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"index": {"dtype": "int32", "shape": ["N"],
                         "distribution": {"kind": "integer", "low": 3, "high": 10}},
               "scale": {"dtype": "int8", "shape": ["N"],
                         "distribution": {"kind": "normal", "mean": 0, "std": 400}}},
    "outputs": {"out": {"dtype": "float32", "shape": ["N"]}},
    "workloads": {"w": {"axes": {"N": 5000}}},
    "input_sets": {"odd": {"inputs": {"index": {"kind": "integer", "low": 0, "high": 2}}}},
    "roofline": {"bytes": "12*N"}})json",
                                                "/t", "t");
  std::set<float> seen;
  for (uint64_t seed : {1, 2, 3}) {
    Variation varied{.spread = 3, .width = 0.5, .shift = 0.5, .fraction = 1};
    auto inputs = drawn(task, task.default_workload(), seed, nullptr, varied);
    for (float index : inputs[0]) {
      ASSERT_GE(index, 3);
      ASSERT_LT(index, 10);
      ASSERT_EQ(index, std::floor(index));
      seen.insert(index);
    }
    for (float scale : inputs[1]) {  // a wide normal saturates at int8's range
      ASSERT_GE(scale, -128);
      ASSERT_LE(scale, 127);
      ASSERT_EQ(scale, std::floor(scale));
    }
    auto from_set = drawn(task, task.default_workload(), seed, &task.input_set("odd"), varied);
    for (float index : from_set[0]) ASSERT_TRUE(index == 0 || index == 1) << index;
  }
  EXPECT_EQ(seen.size(), 7u) << "every index from 3 to 9";
}

TEST(Inputs, AnIntegerDistributionNeedsWholeBoundsInOrder) {
  auto definition = [](const std::string& distribution) {
    return R"json({"name": "t", "op_type": "test", "axes": {"N": {"type": "var"}},
      "inputs": {"i": {"dtype": "int32", "shape": ["N"], "distribution": )json" +
           distribution + R"json(}},
      "outputs": {"out": {"dtype": "float32", "shape": ["N"]}},
      "workloads": {"w": {"axes": {"N": 5}}}, "roofline": {"bytes": "N"}})json";
  };
  EXPECT_NO_THROW(task::parse_task_definition(
      definition(R"({"kind": "integer", "low": 0, "high": 4})"), "/t", "t"));
  for (const char* bad :
       {R"({"kind": "integer", "low": 0, "high": 2.5})",
        R"({"kind": "integer", "low": 4, "high": 4})", R"({"kind": "integer", "high": 4})",
        R"({"kind": "integer", "low": 0, "high": 1e9})"}) {
    EXPECT_THROW(task::parse_task_definition(definition(bad), "/t", "t"), UserError) << bad;
  }
}

// A page table: kv_indptr (drawn after qo_indptr, which it names though it comes first), qo_indptr
// and page indices below the workload's page count; a normal input beside them, and an input set.
task::Task paged_task() {
  return task::parse_task_definition(R"json({
    "name": "paged", "op_type": "attention",
    "axes": {"len_indptr": {"type": "var"}, "num_kv_indices": {"type": "var"},
             "num_pages": {"type": "var"}, "total_q": {"type": "var"}},
    "inputs": {
      "q": {"dtype": "bfloat16", "shape": ["total_q"]},
      "kv_indptr": {"dtype": "int32", "shape": ["len_indptr"],
                    "distribution": {"kind": "offsets", "total": "num_kv_indices", "not_below": "qo_indptr"}},
      "qo_indptr": {"dtype": "int32", "shape": ["len_indptr"],
                    "distribution": {"kind": "offsets", "total": "total_q", "min_step": 1}},
      "kv_indices": {"dtype": "int32", "shape": ["num_kv_indices"],
                     "distribution": {"kind": "integer", "low": 0, "high": "num_pages"}}},
    "outputs": {"out": {"dtype": "float32", "shape": ["total_q"]}},
    "workloads": {"w": {"axes": {"len_indptr": 9, "num_kv_indices": 300, "num_pages": 37, "total_q": 20}},
                  "tight": {"axes": {"len_indptr": 4, "num_kv_indices": 3, "num_pages": 1, "total_q": 3}}},
    "input_sets": {"large": {"inputs": {"q": {"kind": "normal", "std": 1000}}},
                   "few_pages": {"seeds": 2, "inputs": {"kv_indices": {"kind": "integer", "low": 0, "high": 1}}}},
    "roofline": {"bytes": "4*num_kv_indices"}})json",
                                     "/t", "t");
}

// What makes a page table valid, for every case: 0 first, the total last, the steps.
void expect_valid_page_table(const std::vector<std::vector<float>>& inputs,
                             const task::Workload& workload, const std::string& where) {
  const std::vector<float>& kv = inputs[1];
  const std::vector<float>& qo = inputs[2];
  ASSERT_EQ(kv.size(), static_cast<size_t>(workload.axes.at("len_indptr"))) << where;
  EXPECT_EQ(kv.front(), 0.0f) << where;
  EXPECT_EQ(qo.front(), 0.0f) << where;
  EXPECT_EQ(kv.back(), static_cast<float>(workload.axes.at("num_kv_indices"))) << where;
  EXPECT_EQ(qo.back(), static_cast<float>(workload.axes.at("total_q"))) << where;
  for (size_t i = 1; i < kv.size(); ++i) {
    EXPECT_GE(qo[i] - qo[i - 1], 1.0f) << where << " qo_indptr step " << i;
    EXPECT_GE(kv[i] - kv[i - 1], qo[i] - qo[i - 1]) << where << " kv_indptr step " << i;
    EXPECT_EQ(kv[i], std::floor(kv[i])) << where;
  }
  for (float index : inputs[3]) {
    EXPECT_GE(index, 0.0f) << where;
    EXPECT_LT(index, static_cast<float>(workload.axes.at("num_pages"))) << where;
    EXPECT_EQ(index, std::floor(index)) << where;
  }
}

TEST(Inputs, OffsetsAndIndicesAreValidInEveryCaseOfEveryWorkload) {
  task::Task task = paged_task();
  for (const task::Workload& workload : task.workloads) {
    std::set<std::vector<float>> kv_tables;
    for (int round = 0; round < 20; ++round) {
      // The correctness cases: the task's own (the last widened), each input set's (varied, mixed).
      for (const CaseSpec& spec : correctness_cases(task)) {
        const task::InputSet* set = spec.set.empty() ? nullptr : &task.input_set(spec.set);
        auto inputs = drawn(task, workload, spec.seed, set, spec.variation);
        expect_valid_page_table(inputs, workload, workload.name + " " + spec.label);
        if (spec.set == "few_pages" && spec.variation.fraction >= 1) {  // not mixed with the own
          for (float index : inputs[3]) EXPECT_EQ(index, 0.0f);
        }
        kv_tables.insert(inputs[1]);
      }
    }
    // Drawn at random: many tables where there is room for many, the one there is where not
    // ("tight": three steps of one query and one page each).
    if (workload.name == "w") {
      EXPECT_GT(kv_tables.size(), 100u);
    } else {
      EXPECT_EQ(kv_tables, (std::set<std::vector<float>>{{0, 1, 2, 3}}));
    }
  }
}

// A float8 input is held a byte an element, every value a float8 one: the normal's tail saturated
// at ±448, never NaN; a timed turn's mix moves its values by float8 steps, not by nothing.
TEST(Inputs, Float8InputsAreHeldAtTheirWidthAndSaturate) {
  task::Task task = test_task("float8_e4m3fn");
  task.inputs[0].distribution.std = 200;  // ±448 is 2.24 stds: a few percent saturate
  std::vector<task::TensorValues> inputs = generate_inputs(task, task.default_workload(), 3);
  ASSERT_EQ(inputs[0].dtype(), task::DType::kFloat8E4M3);
  EXPECT_EQ(inputs[0].bytes().size(), 1000u);
  size_t saturated = 0;
  for (float value : inputs[0].floats()) {
    ASSERT_TRUE(std::isfinite(value));
    ASSERT_LE(std::fabs(value), 448.0f);
    ASSERT_EQ(task::round_to_dtype(task::DType::kFloat8E4M3, value), value);
    saturated += std::fabs(value) == 448.0f;
  }
  EXPECT_GT(saturated, 0u);
  ReferenceCase pooled;
  pooled.inputs = inputs;
  ReferenceCase mixed;
  mix_inputs({pooled}, mix_centers(task), 5, mixed, mix_steps(task));
  std::multiset<uint8_t> before(inputs[0].bytes().begin(), inputs[0].bytes().end());
  std::multiset<uint8_t> after(mixed.inputs[0].bytes().begin(), mixed.inputs[0].bytes().end());
  EXPECT_NE(before, after) << "mixed values are new float8 values";
  for (float value : mixed.inputs[0].floats()) ASSERT_LE(std::fabs(value), 448.0f);
}

// float8 inputs come from a table of the 256 values' probabilities, not from drawing and rounding:
// the frequencies must be those of rounding float64 draws (std::normal_distribution's here), value
// by value, the saturated ends and the signed zeros included.
TEST(Inputs, Float8DrawsHaveTheRoundedDistributionsFrequencies) {
  const size_t n = 1'000'000;
  for (const char* distribution :
       {R"({"kind": "normal", "mean": 20, "std": 150})", R"({"kind": "abs_normal", "std": 0.01})",
        R"({"kind": "uniform", "low": -3, "high": 500})"}) {
    task::Task task = task::parse_task_definition(
        std::string(R"json({"name": "t", "op_type": "test", "axes": {"N": {"type": "var"}},
          "inputs": {"x": {"dtype": "float8_e4m3fn", "shape": ["N"], "distribution": )json") +
            distribution + R"json(}},
          "outputs": {"y": {"dtype": "float32", "shape": ["N"]}},
          "workloads": {"w": {"axes": {"N": 1000000}}}, "roofline": {"bytes": "5*N"}})json",
        "/t", "t");
    const task::InputDistribution& d = task.inputs[0].distribution;
    std::map<uint8_t, double> expected, drawn;
    std::mt19937_64 engine(11);
    std::normal_distribution<double> normal(d.mean, d.std);
    std::uniform_real_distribution<double> uniform(d.low, d.high);
    for (size_t i = 0; i < n; ++i) {
      double value = d.kind == task::Distribution::kUniform ? uniform(engine) : normal(engine);
      if (d.kind == task::Distribution::kAbsNormal) value = std::fabs(value);
      ++expected[task::float_to_fp8_e4m3_bits(static_cast<float>(value))];
    }
    std::vector<task::TensorValues> inputs = generate_inputs(task, task.default_workload(), 5);
    for (uint8_t byte : inputs[0].bytes()) ++drawn[byte];
    for (int bits = 0; bits < 256; ++bits) {
      auto byte = static_cast<uint8_t>(bits);
      double want = expected[byte], got = drawn[byte];
      // Two binomial counts of n: their difference within 6 standard deviations (and 3 counts).
      double spread = std::sqrt(want + got) + 3;
      EXPECT_LE(std::fabs(want - got), 6 * spread)
          << distribution << ": value " << task::fp8_e4m3_bits_to_float(byte) << " (bits " << bits
          << ") rounded " << want << " times, drawn " << got;
    }
  }
}

// The first side of a large timed turn mixes its inputs around the caches (streaming stores):
// the same bytes as a mix through them, wherever the destination starts and ends (the stores'
// boundaries), for whole tensors, float32 and narrow dtypes alike.
TEST(Inputs, AMixAroundTheCachesWritesWhatAMixThroughThemDoes) {
  std::vector<task::Task> tasks = {paged_task(), test_task("float32"), test_task("bfloat16"),
                                   test_task("float8_e4m3fn")};
  for (const task::Task& task : tasks) {
    task::Workload workload = task.default_workload();
    if (task.name != "paged") workload.axes["N"] = 3 * kMixBlock + 333;  // several blocks
    std::vector<ReferenceCase> pool(3);
    for (size_t c = 0; c < pool.size(); ++c)
      pool[c].inputs = generate_inputs(task, workload, c + 1);
    for (size_t misalign : {0, 1, 4, 13}) {
      ReferenceCase through;
      mix_inputs(pool, mix_centers(task), 7, through, mix_steps(task), whole_inputs(task));
      std::vector<std::vector<unsigned char>> storage;
      std::vector<std::span<unsigned char>> around;
      for (const task::TensorValues& tensor : through.inputs) {
        storage.emplace_back(tensor.bytes().size() + 64, 0);
        around.emplace_back(storage.back().data() + misalign, tensor.bytes().size());
      }
      mix_inputs(pool, mix_centers(task), 7, around, mix_steps(task), whole_inputs(task),
                 Stores::kAroundTheCaches);
      for (size_t t = 0; t < around.size(); ++t) {
        EXPECT_TRUE(
            std::equal(around[t].begin(), around[t].end(), through.inputs[t].bytes().begin()))
            << task.name << ", input " << t << ", " << misalign << " bytes past an alignment";
        EXPECT_EQ(storage[t][misalign + around[t].size()], 0) << "written past the end";
      }
    }
  }
}

// A timed turn's inputs: the offsets tensors each copied whole, both from the same pool case (a
// kv_indptr from one case and the qo_indptr from another would break kv steps >= qo steps).
TEST(Inputs, MixedOffsetsAreOnePoolCasesWhole) {
  task::Task task = paged_task();
  const task::Workload& workload = task.default_workload();
  std::vector<ReferenceCase> pool(6);
  for (size_t c = 0; c < pool.size(); ++c) pool[c].inputs = generate_inputs(task, workload, c + 1);
  std::vector<bool> whole = whole_inputs(task);
  EXPECT_EQ(whole, (std::vector<bool>{false, true, true, false}));
  std::set<size_t> sources;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    ReferenceCase mixed;
    mix_inputs(pool, mix_centers(task), seed, mixed, mix_steps(task), whole);
    expect_valid_page_table(floats_of(mixed.inputs), workload,
                            "mixed with seed " + std::to_string(seed));
    size_t from = pool.size();
    for (size_t c = 0; c < pool.size(); ++c) {
      if (pool[c].inputs[1] == mixed.inputs[1] && pool[c].inputs[2] == mixed.inputs[2]) from = c;
    }
    ASSERT_LT(from, pool.size()) << "kv_indptr and qo_indptr are not one pool case's";
    sources.insert(from);
  }
  EXPECT_GT(sources.size(), 1u) << "the pool case is drawn per mixed case";
}

// A mix says which pool cases its blocks came from, and of each tensor apart (issue 44): that is
// how a timed call is checked against the tolerance of the input sets it met. Pool case c holds
// c + 1 everywhere, so every mixed value names its case (a factor above 1 - kMixSpread cannot
// move 3 to 2).
TEST(Inputs, AMixSaysWhichPoolCasesItsBlocksCameFrom) {
  std::vector<ReferenceCase> pool(3);
  for (size_t c = 0; c < pool.size(); ++c) {
    float value = static_cast<float>(c + 1);
    pool[c].inputs = {
        task::TensorValues::encode(task::DType::kFloat32, std::vector<float>(6 * kMixBlock, value)),
        task::TensorValues::encode(task::DType::kFloat32, std::vector<float>(kMixBlock, value))};
  }
  std::set<uint64_t> seen_masks;
  bool tensors_apart = false;
  for (uint64_t seed = 0; seed < 32; ++seed) {
    std::vector<std::vector<unsigned char>> storage;
    for (size_t t = 0; t < 2; ++t) storage.emplace_back(pool[0].inputs[t].bytes().size());
    std::vector<std::span<unsigned char>> into(storage.begin(), storage.end());
    uint64_t drawn_from = 0;
    mix_inputs(pool, {0.0, 0.0}, seed, into, {}, {}, Stores::kCached, &drawn_from);
    ReferenceCase mixed;
    for (size_t t = 0; t < 2; ++t) {
      mixed.inputs.emplace_back(task::DType::kFloat32, std::move(storage[t]));
    }
    uint64_t found = 0;
    std::vector<uint64_t> per_tensor(2, 0);
    for (size_t t = 0; t < 2; ++t) {
      for (float value : mixed.inputs[t].floats()) {
        auto c = static_cast<uint64_t>(std::ceil(value) - 1);
        per_tensor[t] |= uint64_t{1} << c;
      }
      found |= per_tensor[t];
    }
    EXPECT_EQ(drawn_from, found) << "seed " << seed;
    seen_masks.insert(drawn_from);
    tensors_apart = tensors_apart || (per_tensor[1] & ~per_tensor[0]) != 0;
  }
  EXPECT_GT(seen_masks.size(), 1u);
  EXPECT_TRUE(tensors_apart) << "the second tensor's block never came from a case the first missed";
}

// Inputs a set names together stay together in a mix (joint_inputs): mamba's strong_decay pairs a
// positive step with a negative state matrix, and apart they grow without bound. Pool case c holds
// c + 1, so every value names its case.
TEST(Inputs, InputsASetNamesTogetherComeFromOneCaseOfThePool) {
  task::Task task = task::parse_task_definition(R"json({
    "name": "j", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"a": {"dtype": "float32", "shape": ["N"]}, "b": {"dtype": "float32", "shape": ["N"]},
               "c": {"dtype": "float32", "shape": ["N"]}},
    "outputs": {"out": {"dtype": "float32", "shape": ["N"]}},
    "workloads": {"w": {"axes": {"N": 1000}}},
    "input_sets": {"pair": {"inputs": {"a": {"kind": "constant", "value": 0},
                                       "b": {"kind": "constant", "value": 0}}},
                   "alone": {"inputs": {"c": {"kind": "constant", "value": 0}}}},
    "roofline": {"bytes": "16*N"}})json",
                                                "/t", "t");
  std::vector<int> joint = joint_inputs(task);
  ASSERT_EQ(joint.size(), 3u);
  EXPECT_GE(joint[0], 0);
  EXPECT_EQ(joint[0], joint[1]);
  EXPECT_EQ(joint[2], -1);

  std::vector<ReferenceCase> pool(4);
  for (size_t k = 0; k < pool.size(); ++k) {
    for (int t = 0; t < 3; ++t) {
      pool[k].inputs.push_back(task::TensorValues::encode(
          task::DType::kFloat32, std::vector<float>(4 * kMixBlock, static_cast<float>(k + 1))));
    }
  }
  bool c_apart = false;
  for (uint64_t seed = 0; seed < 32; ++seed) {
    std::vector<std::vector<unsigned char>> storage(3);
    std::vector<std::span<unsigned char>> into;
    for (int t = 0; t < 3; ++t) {
      storage[static_cast<size_t>(t)].resize(pool[0].inputs[0].bytes().size());
      into.emplace_back(storage[static_cast<size_t>(t)]);
    }
    mix_inputs(pool, {0.0, 0.0, 0.0}, seed, into, {}, {}, Stores::kCached, nullptr, joint);
    std::vector<std::set<int>> cases(3);
    for (int t = 0; t < 3; ++t) {
      const auto* values = reinterpret_cast<const float*>(storage[static_cast<size_t>(t)].data());
      for (size_t i = 0; i < 4 * kMixBlock; ++i) {
        cases[static_cast<size_t>(t)].insert(static_cast<int>(std::ceil(values[i])) - 1);
      }
    }
    EXPECT_EQ(cases[0].size(), 1u) << "seed " << seed;
    EXPECT_EQ(cases[0], cases[1]) << "seed " << seed;
    c_apart = c_apart || cases[2] != cases[0];
  }
  EXPECT_TRUE(c_apart) << "an input no set names beside another is drawn apart";
}

// A timed turn's mixed inputs must be new values in the kernel's dtype too: float32's shrink of a
// few parts per million vanishes when a bfloat16 input is rounded, one bfloat16 step does not.
TEST(Inputs, MixedNarrowInputsDifferAfterRounding) {
  task::Task task = test_task("bfloat16");
  ReferenceCase pooled;
  pooled.inputs = {
      task::TensorValues::encode(task::DType::kBFloat16, std::vector<float>(4096, 1.5f)),
      task::TensorValues::encode(task::DType::kFloat32, std::vector<float>(4096, 2.5f))};
  MixCenters centers = {0.0, std::nullopt};
  auto changed = [&](const std::vector<double>& steps) {
    ReferenceCase mixed;
    mix_inputs({pooled}, centers, 99, mixed, steps);
    size_t count = 0;
    for (float value : mixed.inputs[0].floats()) {
      count += task::round_to_dtype(task::DType::kBFloat16, value) != 1.5f;
    }
    EXPECT_EQ(mixed.inputs[1], pooled.inputs[1]) << "no center: copied";
    return count;
  };
  EXPECT_EQ(changed(mix_steps(task)), 4096u) << "even the least shrink, a bfloat16 step";
}

// Each block's factor comes from a continuum up to kMixSpread below 1, not from a few values near
// 1: an answer kept for a block seen before is not the answer to one moved by another factor.
TEST(Inputs, BlocksAreMovedByFactorsFromAContinuum) {
  ReferenceCase pooled;
  pooled.inputs = {
      task::TensorValues::encode(task::DType::kFloat32, std::vector<float>(8 * kMixBlock, 1.0f))};
  std::set<float> factors;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    ReferenceCase mixed;
    mix_inputs({pooled}, {0.0}, seed, mixed);
    std::vector<float> values = mixed.inputs[0].floats();
    for (size_t block = 0; block < 8; ++block) {
      float factor = values[block * kMixBlock];
      EXPECT_EQ(values[block * kMixBlock + kMixBlock - 1], factor) << "one factor a block";
      EXPECT_GE(factor, static_cast<float>(1 - kMixSpread));
      EXPECT_LT(factor, 1.0f);
      factors.insert(factor);
    }
  }
  EXPECT_GT(factors.size(), 400u) << "of 512 blocks";
  EXPECT_LT(*factors.begin(), static_cast<float>(1 - 0.9 * kMixSpread));
  EXPECT_GT(*factors.rbegin(), static_cast<float>(1 - 0.1 * kMixSpread));
}

}  // namespace
}  // namespace accelopt::platform::cpu
