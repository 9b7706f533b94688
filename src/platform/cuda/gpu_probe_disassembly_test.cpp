// The GPU probe's FP32 rates count kPerPass multiply-adds (adds) a pass of its loops
// (gpu_probe_loops.h); these tests compile gpu_probe.cu as the build does and count what each
// pass of the compiled loop issues: in PTX wherever nvcc is, and in the SASS that runs wherever
// cuobjdump is too. No GPU is needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/files.h"
#include "common/subprocess.h"
#include "platform/cuda/gpu_probe_loops.h"
#include "platform/cuda/nvcc_compiler.h"

namespace accelopt::platform::cuda {
namespace {

const std::string kProbeSource = ACCELOPT_SOURCE_DIR "/src/platform/cuda/gpu_probe.cu";

// One function's instructions in order; a branch's target as the index it jumps to.
struct Code {
  std::vector<std::string> opcodes;
  std::map<size_t, size_t> backward_branches;  // branch index -> target index
};

// The most instructions whose opcode starts with `prefix` in one innermost loop; -1 if none.
int most_in_an_innermost_loop(const Code& code, const std::string& prefix) {
  int most = -1;
  for (const auto& [branch, target] : code.backward_branches) {
    bool innermost = std::none_of(
        code.backward_branches.begin(), code.backward_branches.end(), [&](const auto& other) {
          return other.first != branch && other.second >= target && other.first <= branch;
        });
    if (!innermost) continue;
    int count = static_cast<int>(
        std::count_if(code.opcodes.begin() + static_cast<long>(target),
                      code.opcodes.begin() + static_cast<long>(branch) + 1,
                      [&](const std::string& opcode) { return opcode.starts_with(prefix); }));
    most = std::max(most, count);
  }
  return most;
}

std::string opcode_after_predicate(std::istringstream& words) {
  std::string word;
  words >> word;
  if (word.starts_with("@")) words >> word;
  return word;
}

// The .entry whose name contains `kernel`, from nvcc -ptx: "$L__BB0_1:" labels, "@%p1 bra
// $L__BB0_1;" branches.
Code parse_ptx(const std::string& ptx, const std::string& kernel) {
  Code code;
  std::map<std::string, size_t> labels;
  std::vector<std::pair<size_t, std::string>> branches;
  bool inside = false;
  std::istringstream lines(ptx);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(".entry")) inside = line.find(kernel) != std::string::npos;
    if (!inside || line.empty()) continue;
    if (line.starts_with("$L") && line.back() == ':') {
      labels[line.substr(0, line.size() - 1)] = code.opcodes.size();
      continue;
    }
    if (line[0] != '\t' || line.find(';') == std::string::npos) continue;
    std::istringstream words(line);
    std::string opcode = opcode_after_predicate(words);
    if (opcode.starts_with("bra")) {
      std::string target;
      words >> target;
      branches.emplace_back(code.opcodes.size(), target.substr(0, target.find(';')));
    }
    code.opcodes.push_back(opcode);
  }
  for (const auto& [index, label] : branches) {
    auto it = labels.find(label);
    if (it != labels.end() && it->second <= index) code.backward_branches[index] = it->second;
  }
  return code;
}

// The function whose name contains `kernel`, from cuobjdump -sass: "/*0090*/  @P0 BRA 0x80 ;"
// (or "BRA `(.L_x_0)" with ".L_x_0:" label lines).
Code parse_sass(const std::string& sass, const std::string& kernel) {
  Code code;
  std::map<std::string, size_t> targets;  // "0x80" or ".L_x_0" -> index
  std::vector<std::pair<size_t, std::string>> branches;
  bool inside = false;
  std::istringstream lines(sass);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("Function : ") != std::string::npos) {
      inside = line.find(kernel) != std::string::npos;
    }
    size_t start = line.find_first_not_of(" \t");
    if (!inside || start == std::string::npos) continue;
    if (line.compare(start, 4, ".L_x") == 0 && line.back() == ':') {
      targets[line.substr(start, line.size() - start - 1)] = code.opcodes.size();
      continue;
    }
    if (line.compare(start, 2, "/*") != 0) continue;
    size_t close = line.find("*/", start);
    std::string address = line.substr(start + 2, close - start - 2);
    std::istringstream words(line.substr(close + 2));
    std::string opcode = opcode_after_predicate(words);
    if (opcode.empty() || opcode.starts_with("/*")) continue;  // an encoding's second line
    targets["0x" + address.substr(address.find_first_not_of('0') == std::string::npos
                                      ? address.size() - 1
                                      : address.find_first_not_of('0'))] = code.opcodes.size();
    if (opcode.starts_with("BRA")) {
      std::string target;
      words >> target;
      target.erase(std::remove_if(target.begin(), target.end(),
                                  [](char c) { return c == '`' || c == '(' || c == ')'; }),
                   target.end());
      branches.emplace_back(code.opcodes.size(), target);
    }
    code.opcodes.push_back(opcode);
  }
  for (const auto& [index, target] : branches) {
    auto it = targets.find(target);
    if (it != targets.end() && it->second <= index) code.backward_branches[index] = it->second;
  }
  return code;
}

std::string run_tool(const std::vector<std::string>& argv, const TempDir& home) {
  SpawnOptions options;
  options.argv = argv;
  options.environment = clean_environment(home.path());
  CommandResult result = run_command(options, std::chrono::minutes(3), 64 << 20);
  if (!result.status.exited || result.status.exit_code != 0) {
    ADD_FAILURE() << argv[0] << " " << result.status.describe() << ": " << result.output;
  }
  return result.output;
}

struct KernelLoop {
  const char* kernel;  // part of the mangled name
  const char* ptx;     // opcode prefix in PTX
  const char* sass;    // and in SASS
};
const KernelLoop kLoops[] = {{"10fma_kernel", "fma.rn.f32", "FFMA"},
                             {"10add_kernel", "add.f32", "FADD"}};

TEST(GpuProbeDisassembly, EachPassOfThePtxLoopsIssuesWhatTheRateCounts) {
  std::optional<std::filesystem::path> nvcc = find_nvcc();
  if (!nvcc) GTEST_SKIP() << "no nvcc (scripts/setup.sh --cuda installs it)";
  TempDir scratch("accelopt-gpu-probe-ptx");
  std::filesystem::path ptx = scratch.path() / "gpu_probe.ptx";
  run_tool({nvcc->string(), "-std=c++17", "-O3", "-arch=sm_90", "-ptx", "-o", ptx.string(),
            kProbeSource},
           scratch);
  std::string text = read_file(ptx);
  for (const KernelLoop& loop : kLoops) {
    EXPECT_EQ(most_in_an_innermost_loop(parse_ptx(text, loop.kernel), loop.ptx),
              accelopt_gpu_probe::kPerPass)
        << loop.kernel << " in PTX:\n"
        << text;
  }
}

TEST(GpuProbeDisassembly, EachPassOfTheSassLoopsIssuesWhatTheRateCounts) {
  std::optional<std::filesystem::path> nvcc = find_nvcc();
  if (!nvcc) GTEST_SKIP() << "no nvcc (scripts/setup.sh --cuda installs it)";
  std::filesystem::path cuobjdump = nvcc->parent_path() / "cuobjdump";
  if (!std::filesystem::exists(cuobjdump)) {
    GTEST_SKIP() << "no cuobjdump beside " << nvcc->string()
                 << ": the SASS cannot be read here (the PTX test still checks the loops)";
  }
  TempDir scratch("accelopt-gpu-probe-sass");
  std::filesystem::path cubin = scratch.path() / "gpu_probe.cubin";
  run_tool({nvcc->string(), "-std=c++17", "-O3", "-arch=sm_90", "-cubin", "-o", cubin.string(),
            kProbeSource},
           scratch);
  std::string text = run_tool({cuobjdump.string(), "-sass", cubin.string()}, scratch);
  for (const KernelLoop& loop : kLoops) {
    EXPECT_EQ(most_in_an_innermost_loop(parse_sass(text, loop.kernel), loop.sass),
              accelopt_gpu_probe::kPerPass)
        << loop.kernel << " in SASS:\n"
        << text;
  }
}

// The parsers on excerpts of each format, a loop whose chains were merged among them.
TEST(GpuProbeDisassembly, CountsTheInnermostLoopOfEachFormat) {
  const std::string ptx =
      ".entry _Z10fma_kernelPff(\n"
      "$L__BB0_1:\n"
      "\tfma.rn.f32 \t%f1, %f1, %f2, %f3;\n"
      "\tadd.s32 \t%r6, %r6, 16;\n"
      "\t@%p1 bra \t$L__BB0_1;\n"
      "\tst.global.f32 \t[%rd1], %f1;\n"
      "}\n";
  EXPECT_EQ(most_in_an_innermost_loop(parse_ptx(ptx, "fma_kernel"), "fma.rn.f32"), 1);
  EXPECT_EQ(most_in_an_innermost_loop(parse_ptx(ptx, "add_kernel"), "fma.rn.f32"), -1);
  const std::string sass =
      "\t\tFunction : _Z10fma_kernelPff\n"
      "        /*0080*/                   FFMA R3, R3, R4, 1e-07 ;   /* 0x33d6bf9503037423 */\n"
      "                                                              /* 0x000fe20000000004 */\n"
      "        /*0090*/                   FFMA R5, R5, R4, 1e-07 ;   /* 0x33d6bf9505057423 */\n"
      "        /*00a0*/              @P0 BRA 0x80 ;                  /* 0xfffffffc00000947 */\n"
      "        /*00b0*/                   FFMA R5, R5, R4, 1e-07 ;   /* 0x33d6bf9505057423 */\n"
      "        /*00c0*/              @P1 BRA `(.L_x_0) ;             /* 0xfffffffc00000947 */\n"
      ".L_x_0:\n";
  EXPECT_EQ(most_in_an_innermost_loop(parse_sass(sass, "fma_kernel"), "FFMA"), 2);
  EXPECT_NE(accelopt_gpu_probe::kPerPass, 2);
}

}  // namespace
}  // namespace accelopt::platform::cuda
