// What each platform's prompt fragment tells the agents, rendered through the agents' own prompt
// library from the description the platform builds: the CPU from this machine (with ceilings
// given here, not probed), the evaluator command from its file. CUDA's is cuda_prompt_test.
#include "platform/machine_prompt.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

#include "agents/prompt_variables.h"
#include "agents/prompts.h"
#include "common/files.h"
#include "platform/command/command_config.h"
#include "platform/command/command_entry.h"
#include "platform/cpu/cpu_entry.h"
#include "platform/cpu/rule_table.h"
#include "platform/evaluation.h"
#include "platform/registry.h"

namespace accelopt::platform {
namespace {

task::Task bench_task(const std::string& name) {
  return task::load_task(ACCELOPT_SOURCE_DIR "/bench/cpu/" + name);
}

std::string render(const std::string& fragment, const Json& machine, const task::Task& task,
                   const std::string& workload) {
  agents::PromptLibrary library({}, ACCELOPT_SOURCE_DIR "/prompts", fragment);
  Json variables = {{"platform", fragment},
                    {"writes_code", true},
                    {"header_list", true},
                    {"machine", machine},
                    {"task", agents::task_variables(task, workload)}};
  std::string prompt = library.render("executor.system", variables);
  EXPECT_EQ(prompt.find("{{"), std::string::npos) << prompt;
  return prompt;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

cpu::MachinePeaks example_peaks() {
  cpu::MachinePeaks peaks;
  peaks.fma_gflops = 170;
  peaks.vector_gflops = 85;
  peaks.bandwidth = {{4 << 10, 400}, {1 << 20, 120}, {64 << 20, 15}, {256 << 20, 15}};
  peaks.probed_at = "2026-01-01T00:00:00Z";
  return peaks;
}

class CpuPrompt : public testing::Test {
 protected:
  TempDir cache_{"accelopt-machine-prompt-test"};
  cpu::Compiler compiler_{[this] {
    cpu::CompilerOptions options;
    options.cache_directory = cache_.path();
    return options;
  }()};
  MachineDescription description_ =
      cpu::describe_machine(cpu::describe_cpu(), example_peaks(), compiler_);

  // The example machine with bfloat16 dot products at 340 GFLOP/s.
  MachineDescription with_bf16_dot() {
    cpu::MachinePeaks peaks = example_peaks();
    peaks.bf16_dot_gflops = 340;
    peaks.narrow_matrix_gflops["bfloat16"] = 340;
    return cpu::describe_machine(cpu::describe_cpu(), peaks, compiler_);
  }
  // The prompt a bfloat16 attention task's small workload gets on `description`.
  static std::string bf16_attention_prompt(const MachineDescription& description) {
    task::Task attention = task::load_task(
        ACCELOPT_SOURCE_DIR "/bench/flashinfer/gqa_ragged_prefill_causal_h32_kv4_d128");
    const task::Workload& workload = attention.workload_or_default("small");
    return render("cpu", machine_variables(description, attention, workload), attention,
                  workload.name);
  }
};

TEST_F(CpuPrompt, NamesTheCompilerItsFlagsTheGenerationAndTheCaches) {
  task::Task silu = bench_task("silu");
  const task::Workload& workload = silu.default_workload();
  std::string prompt =
      render("cpu", machine_variables(description_, silu, workload), silu, workload.name);
  EXPECT_TRUE(has(prompt, "g++")) << prompt;
  EXPECT_TRUE(has(prompt, compiler_.version())) << prompt;  // "g++ (Debian 12.2.0-14) 12.2.0"
  std::string flags;
  for (const std::string& flag : compiler_.flags()) flags += (flags.empty() ? "" : " ") + flag;
  EXPECT_TRUE(has(prompt, "`" + flags + "`")) << prompt;
  EXPECT_TRUE(has(prompt, "-std=c++20"));
  EXPECT_TRUE(has(prompt, "(generation: " + cpu::describe_cpu().microarchitecture.name + ")"))
      << prompt;
  EXPECT_TRUE(has(prompt, "512-bit operations execute ")) << prompt;
  EXPECT_TRUE(has(prompt, "- Caches: L1d ")) << prompt;
}

// A bfloat16 task is scored against the bfloat16 dot products where the CPU has them faster: the
// prompt names that ceiling and its figure, and its least time, as the verdicts will.
TEST_F(CpuPrompt, GivesABFloat16TaskTheDotProductsCeiling) {
  MachineDescription description = with_bf16_dot();
  std::string prompt = bf16_attention_prompt(description);
  EXPECT_TRUE(has(prompt, "scored against: bfloat16 matrix (bfloat16 inputs) 340.0 GFLOP/s"))
      << prompt;
  task::Task silu = bench_task("silu");
  prompt = render("cpu", machine_variables(description, silu, silu.default_workload()), silu,
                  silu.default_workload().name);
  EXPECT_TRUE(has(prompt, "scored against: no matrix ceiling (the task counts no matrix FLOPs)"))
      << prompt;
  task::Task matmul = bench_task("matmul");
  prompt = render("cpu", machine_variables(description, matmul, matmul.default_workload()), matmul,
                  matmul.default_workload().name);
  EXPECT_TRUE(has(prompt, "scored against: FP32 FMA 170.0 GFLOP/s")) << prompt;
}

// A task with no matrix work is shown no matrix ceiling, bfloat16 or FP32 (issue 48, item 4).
TEST_F(CpuPrompt, ShowsNoMatrixCeilingToATaskWithoutMatrixWork) {
  task::Task norm =
      task::load_task(ACCELOPT_SOURCE_DIR "/bench/flashinfer/fused_add_rmsnorm_h7168");
  const task::Workload& workload = norm.workload_or_default("small");
  ASSERT_EQ(norm.roofline_counts(workload).mm_flops, 0);
  std::string prompt =
      render("cpu", machine_variables(with_bf16_dot(), norm, workload), norm, workload.name);
  EXPECT_TRUE(has(prompt, "no matrix ceiling (the task counts no matrix FLOPs)")) << prompt;
  EXPECT_FALSE(has(prompt, "its matrix FLOPs are scored against")) << prompt;
  EXPECT_FALSE(has(prompt, "bfloat16 matrix (bfloat16 inputs)")) << prompt;
  EXPECT_FALSE(has(prompt, "Matrix ceiling:")) << prompt;
}

// What the probe measured of the clock and of the instructions the ceilings time, each said to be
// measured, and what the prompt says where it was not (issue 48, item 2).
TEST_F(CpuPrompt, SaysTheMeasuredClockLatenciesAndSubnormals) {
  cpu::MachinePeaks peaks = example_peaks();
  peaks.isa = "avx512";
  peaks.clock_ghz = 4;
  peaks.fma_latency_ns = 1;
  peaks.bf16_dot_gflops = 340;
  peaks.narrow_matrix_gflops["bfloat16"] = 340;
  peaks.bf16_dot_latency_ns = 1.5;
  peaks.bf16_subnormals = {true, true, true, true};
  MachineDescription description = cpu::describe_machine(cpu::describe_cpu(), peaks, compiler_);
  task::Task matmul = bench_task("matmul");
  std::string prompt =
      render("cpu", machine_variables(description, matmul, matmul.default_workload()), matmul,
             matmul.default_workload().name);
  EXPECT_TRUE(has(prompt, "- Clock: 4.00 GHz, measured by the probe")) << prompt;
  EXPECT_TRUE(has(prompt,
                  "the clock under load (other cores busy, a long hot loop) is not "
                  "measured"));
  EXPECT_TRUE(has(prompt,
                  "- 512-bit FMA (`vfmadd…ps` on zmm): throughput 1.33 a cycle (the FMA "
                  "ceiling 170.0 GFLOP/s ÷ 32 FLOPs an instruction ÷ the clock), latency "
                  "4 cycles (1 ns, one dependent chain); measured by the probe."))
      << prompt;
  EXPECT_TRUE(has(prompt, "- `vdpbf16ps` (512-bit): throughput 1.33 a cycle"));
  EXPECT_TRUE(has(prompt, "latency 6 cycles (1.5 ns, one dependent chain)"));
  EXPECT_TRUE(has(prompt,
                  "`vdpbf16ps` (`_mm512_dpbf16_ps`) reads subnormal bfloat16 inputs as "
                  "zero and flushes subnormal float results to zero; `vcvtneps2bf16` "
                  "(`_mm512_cvtneps_pbh`) flushes subnormal floats to zero"));
  std::map<std::string, std::string> facts(description.facts.begin(), description.facts.end());
  EXPECT_TRUE(has(facts["clock"], "4.00 GHz"));

  // Not measured: said so, and no cycle counts.
  cpu::MachinePeaks unmeasured = example_peaks();
  unmeasured.isa = "avx512";
  MachineDescription old = cpu::describe_machine(cpu::describe_cpu(), unmeasured, compiler_);
  std::string plain = render("cpu", machine_variables(old, matmul, matmul.default_workload()),
                             matmul, matmul.default_workload().name);
  EXPECT_TRUE(has(plain, "- Clock: not measured")) << plain;
  EXPECT_TRUE(has(plain, "throughput 5.31 an ns")) << plain;
  EXPECT_FALSE(has(plain, "cycles (")) << plain;
  EXPECT_FALSE(has(plain, "bfloat16 subnormals")) << plain;
}

// The table holds a row at the task's own working set, said to be interpolated, and the prompt
// says what the counted traffic assumes of stores, what the caches hold when a call is timed, and
// what the physics limit is for (issue 48, items 2 and 4).
TEST_F(CpuPrompt, SaysTheWorkingSetsRowTheStoresTheCachesAndThePhysicsLimit) {
  task::Task silu = bench_task("silu");
  const task::Workload& workload = silu.default_workload();  // 112 MiB
  std::string prompt =
      render("cpu", machine_variables(description_, silu, workload), silu, workload.name);
  EXPECT_TRUE(has(prompt,
                  "64 MiB 15.0 GB/s; 112 MiB 15.0 GB/s (this task's working set: "
                  "interpolated between the rows around it); 256 MiB 15.0 GB/s;"))
      << prompt;
  const task::Workload& small = silu.workload("small");  // 16 KiB, between 4 KiB and 1 MiB
  std::string at_small =
      render("cpu", machine_variables(description_, silu, small), silu, small.name);
  EXPECT_TRUE(has(at_small, "4 KiB 400.0 GB/s; 16 KiB ")) << at_small;
  EXPECT_TRUE(has(prompt, "never the read-for-ownership an ordinary store makes"));
  EXPECT_TRUE(has(prompt, "a triad with streaming stores (`_mm512_stream_ps`"));
  EXPECT_TRUE(has(prompt,
                  "each call of a turn reads inputs of its own, written by the harness "
                  "just before the turn"));
  EXPECT_TRUE(has(prompt, "a larger turn starts with none of its inputs cached")) << prompt;
  EXPECT_TRUE(has(prompt, fmt::format("The physics check: a verdict whose latency would put it "
                                      "above {:.0f} % of peak is refused",
                                      100 * kPhysicsMargin)))
      << prompt;
  EXPECT_TRUE(has(prompt, "One limit serves compute- and memory-bound tasks alike"));
  EXPECT_FALSE(has(prompt, "refused as physically impossible"));
}

// The rules say what the checks do: `##0` is no line marker, and why headers whose calls the
// sandbox stops are on the list (issue 48, item 4).
TEST_F(CpuPrompt, TheRulesAnswerTokenPastingAndTheHeadersOfForbiddenCalls) {
  task::Task silu = bench_task("silu");
  std::string prompt = render("cpu", description_.prompt_variables, silu, "");
  EXPECT_TRUE(has(prompt,
                  "token pasting (`a##0`) and `#` inside a macro's body are not "
                  "directives and pass"))
      << prompt;
  EXPECT_TRUE(has(prompt, "token pasting with a number (`a##0`), `#` in a macro's body: allowed"));
  EXPECT_TRUE(has(prompt,
                  "Why `<fstream>`, `<cstdio>` and `<thread>` are allowed: a header is "
                  "allowed where including it is harmless"));
  EXPECT_TRUE(has(prompt, "Refused, like every header off the list: `<filesystem>`"));
}

// The bfloat16 ceiling is shown only to a task scored against it; a float32 task is told its
// matrix ceiling is the FMA's, and what converting to bfloat16 would cost, never the faster figure.
TEST_F(CpuPrompt, ShowsTheBFloat16CeilingOnlyToBFloat16Tasks) {
  MachineDescription description = with_bf16_dot();
  std::string narrow = bf16_attention_prompt(description);
  EXPECT_TRUE(has(narrow,
                  "`_mm512_dpbf16_ps`, 16 float lanes each adding two bfloat16 products): "
                  "340.0 GFLOP/s on one core, measured; this task's inputs are bfloat16"))
      << narrow;
  EXPECT_FALSE(has(narrow, "do not raise it")) << narrow;

  task::Task matmul = bench_task("matmul");
  std::string wide =
      render("cpu", machine_variables(description, matmul, matmul.default_workload()), matmul,
             matmul.default_workload().name);
  EXPECT_TRUE(has(wide,
                  "Matrix ceiling: this task's matrix FLOPs are scored against the FP32 FMA "
                  "ceiling, 170.0 GFLOP/s. The CPU's bfloat16 dot products"))
      << wide;
  EXPECT_TRUE(has(wide, "three dot products per product")) << wide;
  EXPECT_FALSE(has(wide, "340.0")) << wide;

  // A CPU without them: the float32 task's matrix ceiling is named, the dot products are not.
  std::string plain =
      render("cpu", machine_variables(description_, matmul, matmul.default_workload()), matmul,
             matmul.default_workload().name);
  EXPECT_TRUE(has(plain, "scored against the FP32 FMA ceiling, 170.0 GFLOP/s.\n")) << plain;
  EXPECT_FALSE(has(plain, "_mm512_dpbf16_ps")) << plain;
}

TEST_F(CpuPrompt, GivesTheCeilingsAtTheTasksWorkingSetWithUnitsAndScope) {
  task::Task silu = bench_task("silu");
  const task::Workload& workload = silu.default_workload();  // 2048 × 7168: 112 MiB moved
  Json machine = machine_variables(description_, silu, workload);
  const Json& ceilings = machine["ceilings"];
  EXPECT_EQ(ceilings["working_set"], "112 MiB");
  EXPECT_EQ(ceilings["gbytes_per_second"], "15.0");  // between 64 and 256 MiB
  EXPECT_EQ(ceilings["scope"], "one core");
  EXPECT_EQ(ceilings["bound"], "memory");
  // The limit is the margin, in % of peak (evaluation.h).
  EXPECT_EQ(ceilings["physics_limit_percent"], fmt::format("{:.0f}", 100 * kPhysicsMargin));
  EXPECT_FALSE(ceilings.contains("reach"));  // one thread
  std::string prompt = render("cpu", machine, silu, workload.name);
  EXPECT_TRUE(has(prompt,
                  "no matrix ceiling (the task counts no matrix FLOPs), other FP32 arithmetic "
                  "85.0 GFLOP/s, bandwidth 15.0 GB/s at this task's working set of 112 MiB; one "
                  "core"))
      << prompt;
  EXPECT_TRUE(has(prompt, "FMAs in elementwise code included"));
  EXPECT_TRUE(has(prompt, "4 KiB 400.0 GB/s"));  // the plain list stays

  task::Task matmul = bench_task("matmul");
  matmul.threads = 4;
  Json wide = machine_variables(description_, matmul, matmul.default_workload());
  EXPECT_EQ(wide["ceilings"]["bound"], "fma");
  EXPECT_EQ(wide["ceilings"]["physics_limit_percent"], fmt::format("{:.0f}", 400 * kPhysicsMargin));
  std::string threaded = render("cpu", wide, matmul, "");
  EXPECT_TRUE(has(threaded, "4 threads may reach 4 × these")) << threaded;
}

TEST_F(CpuPrompt, ListsEveryRowOfTheRuleTable) {
  task::Task silu = bench_task("silu");
  std::string prompt = render("cpu", description_.prompt_variables, silu, "");
  for (const SourceRule& rule : cpu::kernel_rules()) {
    std::string shown =
        rule.kind == RuleKind::kHeader
            ? "`" + (rule.example.empty() ? "<" + rule.spelling + ">" : rule.example) + "`"
            : rule.spelling;
    EXPECT_TRUE(has(prompt, shown)) << shown;
  }
  for (const char* answer : {"__builtin_prefetch", "always_inline", "#pragma GCC unroll",
                             "#pragma omp simd", "__restrict__", "alignas", "static scratch"}) {
    EXPECT_TRUE(has(prompt, answer)) << answer;
  }
  // Without the task's ceilings the fragment falls back to the probe's own figures.
  EXPECT_TRUE(has(prompt, "Measured ceilings of one core")) << prompt;
}

TEST_F(CpuPrompt, AccelOptMachineShowsTheNewFacts) {
  std::map<std::string, std::string> facts(description_.facts.begin(), description_.facts.end());
  EXPECT_EQ(facts["generation"], cpu::describe_cpu().microarchitecture.name);
  EXPECT_FALSE(facts["512-bit operations execute"].empty());
  EXPECT_FALSE(facts["caches"].empty());
  EXPECT_EQ(facts["compiler"], compiler_.version());
  EXPECT_TRUE(has(facts["compiler flags"], "-std=c++20"));
  ASSERT_TRUE(description_.peaks);
  EXPECT_EQ(description_.peaks->scope, CeilingScope::kOneCore);
}

TEST(CommandPrompt, SaysWhatTheEvaluatorsFileSaysOfItsDevice) {
  Json config = Json::parse(R"({
    "name": "trn-box", "argv": ["/bin/true"], "correctness": "values",
    "device": {"name": "trn2.48xlarge", "kind": "AWS Trainium 2", "toolchain": "Neuron SDK 2.21"},
    "ceilings": {"fma_gflops": 80000, "vector_gflops": 1200, "scope": "whole_device",
                 "bandwidth": [{"working_set_bytes": 1048576, "gbytes_per_second": 2900}]}})");
  command::CommandPlatformOptions options = command::parse_command_config(config, "/", "test.json");
  EXPECT_EQ(options.prompt_fragment, "command");
  MachineDescription description = command::describe_machine(options);
  task::Task silu = bench_task("silu");
  const task::Workload& workload = silu.default_workload();
  std::string prompt =
      render("command", machine_variables(description, silu, workload), silu, workload.name);
  EXPECT_TRUE(has(prompt, "the evaluator \"trn-box\"")) << prompt;
  EXPECT_TRUE(has(prompt, "Device: trn2.48xlarge."));
  EXPECT_TRUE(has(prompt, "Kind of device: AWS Trainium 2."));
  EXPECT_TRUE(has(prompt, "Toolchain: Neuron SDK 2.21."));
  EXPECT_TRUE(has(prompt, "given for the whole device")) << prompt;
  EXPECT_TRUE(has(prompt, "bandwidth 2900.0 GB/s at this task's working set of 112 MiB"));
  for (const char* cpu_word : {"AVX", "x86", "immintrin", "omp.h", "g++"}) {
    EXPECT_FALSE(has(prompt, cpu_word)) << cpu_word << "\n" << prompt;
  }
}

// Remote workers' machines are not described where the run plans: the prompt says so, never
// "Vector ISA: , -bit registers".
TEST(CpuPromptOfRemoteWorkers, SaysTheMachineIsNotDescribedInsteadOfBlanks) {
  MachineDescription description = remote_description(parse_platform_choice("cpu"));
  task::Task silu = bench_task("silu");
  std::string prompt =
      render("cpu", machine_variables(description, silu, silu.default_workload()), silu, "");
  EXPECT_FALSE(has(prompt, "Vector ISA: ,")) << prompt;
  EXPECT_FALSE(has(prompt, "-bit registers")) << prompt;
  EXPECT_TRUE(has(prompt, "is not described here (remote workers")) << prompt;
  EXPECT_TRUE(has(prompt, "#ifdef __AVX512F__")) << prompt;
}

TEST(CommandPrompt, ClaimsNoDeviceWhenTheFileNamesNone) {
  Json config = Json::parse(R"({"argv": ["/bin/true"]})");
  MachineDescription description =
      command::describe_machine(command::parse_command_config(config, "/", "test.json"));
  task::Task silu = bench_task("silu");
  std::string prompt =
      render("command", machine_variables(description, silu, silu.default_workload()), silu, "");
  EXPECT_TRUE(has(prompt, "does not say what its device is")) << prompt;
  EXPECT_TRUE(has(prompt, "No ceilings were given")) << prompt;
  EXPECT_FALSE(has(prompt, "AVX"));
  EXPECT_FALSE(has(prompt, "x86"));
}

}  // namespace
}  // namespace accelopt::platform
