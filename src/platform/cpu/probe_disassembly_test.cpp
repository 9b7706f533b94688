// The probe's rates count instructions the source writes; these tests count the ones the compiler
// emitted. Each timed loop of machine.cpp (probe_loops(): the probe's and CeilingSampler's) is
// disassembled from the built library and its hot loop's instructions counted: a compiler that
// merges identical chains, as it once merged bf16_dot_chains' twelve into one while the rate
// counted twelve, fails here instead of doubling a ceiling.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "common/files.h"
#include "common/subprocess.h"
#include "platform/cpu/machine.h"

namespace accelopt::platform::cpu {
namespace {

struct Instruction {
  unsigned long long address = 0;
  std::string mnemonic;
  std::string operands;
};

// objdump -d's lines "     b53:\tvdpbf16ps %zmm0,%zmm0,%zmm16"; other lines are skipped.
std::vector<Instruction> parse_disassembly(const std::string& text) {
  std::vector<Instruction> instructions;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    size_t colon = line.find(":\t");
    if (colon == std::string::npos) continue;
    std::string address = line.substr(0, colon);
    address.erase(0, address.find_first_not_of(' '));
    if (address.empty() || address.find_first_not_of("0123456789abcdef") != std::string::npos) {
      continue;
    }
    std::istringstream rest(line.substr(colon + 2));
    Instruction instruction{std::stoull(address, nullptr, 16), "", ""};
    rest >> instruction.mnemonic;
    std::getline(rest >> std::ws, instruction.operands);
    if (!instruction.mnemonic.empty()) instructions.push_back(instruction);
  }
  return instructions;
}

// The most `prefix` instructions in one innermost loop (a backward branch whose body holds no
// other backward branch); -1 where the function has no loop.
int most_in_an_innermost_loop(const std::vector<Instruction>& code, const std::string& prefix) {
  struct Loop {
    unsigned long long begin, end;
  };
  std::vector<Loop> loops;
  for (const Instruction& instruction : code) {
    if (!instruction.mnemonic.starts_with("j") || instruction.operands.empty()) continue;
    unsigned long long target = 0;
    try {
      target = std::stoull(instruction.operands, nullptr, 16);
    } catch (const std::exception&) {
      continue;  // an indirect jump
    }
    if (target <= instruction.address) loops.push_back({target, instruction.address});
  }
  int most = -1;
  for (const Loop& loop : loops) {
    bool innermost = std::none_of(loops.begin(), loops.end(), [&](const Loop& other) {
      return &other != &loop && other.begin >= loop.begin && other.end <= loop.end;
    });
    if (!innermost) continue;
    int count = static_cast<int>(std::count_if(code.begin(), code.end(), [&](const auto& it) {
      return it.address >= loop.begin && it.address <= loop.end && it.mnemonic.starts_with(prefix);
    }));
    most = std::max(most, count);
  }
  return most;
}

std::string run_tool(const std::vector<std::string>& argv) {
  TempDir home("accelopt-disassembly");
  SpawnOptions options;
  options.argv = argv;
  options.environment = clean_environment(home.path());
  CommandResult result = run_command(options, std::chrono::seconds(60), 64 << 20);
  if (!result.status.exited || result.status.exit_code != 0) {
    ADD_FAILURE() << argv[0] << " " << result.status.describe() << ": " << result.output;
  }
  return result.output;
}

// The anonymous-namespace symbol of `function` in nm's listing ("..._GLOBAL__N_110fma_chainsEl").
std::string symbol_of(const std::string& symbols, const std::string& function) {
  std::istringstream lines(symbols);
  std::string mangled = "_GLOBAL__N_1" + std::to_string(function.size()) + function + "E";
  for (std::string line; std::getline(lines, line);) {
    std::string symbol = line.substr(line.rfind(' ') + 1);
    if (symbol.find(mangled) != std::string::npos) return symbol;
  }
  return "";
}

TEST(ProbeDisassembly, EveryTimedLoopIssuesTheInstructionsItsRateCounts) {
  const std::string library = ACCELOPT_PLATFORM_CPU_LIBRARY;
  ASSERT_TRUE(std::filesystem::exists(library)) << library;
  ASSERT_TRUE(std::filesystem::exists("/usr/bin/objdump")) << "binutils (objdump, nm) missing";
  ASSERT_FALSE(probe_loops().empty());
  std::string symbols = run_tool({"/usr/bin/nm", library});
  for (const ProbeLoop& loop : probe_loops()) {
    std::string symbol = symbol_of(symbols, loop.function);
    ASSERT_FALSE(symbol.empty()) << loop.function << " not found in " << library;
    std::string text = run_tool(
        {"/usr/bin/objdump", "-d", "--no-show-raw-insn", "--disassemble=" + symbol, library});
    int found = most_in_an_innermost_loop(parse_disassembly(text), loop.instruction);
    EXPECT_EQ(found, loop.per_pass)
        << loop.function << ": " << found << " " << loop.instruction
        << " a pass of its loop in the built code, while its rate counts " << loop.per_pass << " ("
        << loop.work_per_pass() << " FLOPs or bytes a pass)\n"
        << text;
  }
}

// The loop the compiler once made of bf16_dot_chains (GCC 12, -O3 -march=native, Zen 5): twelve
// chains merged into one, which the check must count as one.
TEST(ProbeDisassembly, CountsOneInstructionWhereTheCompilerMergedTheChains) {
  const std::string merged =
      "0000000000000940 <_ZN8accelopt8platform3cpu12_GLOBAL__N_115bf16_dot_chainsEl>:\n"
      "     940:\ttest   %rdi,%rdi\n"
      "     943:\tjle    a29 <_ZN8accelopt8platform3cpu12_GLOBAL__N_115bf16_dot_chainsEl+0xe9>\n"
      "     95a:\tvpbroadcastw %edx,%zmm1\n"
      "     960:\tinc    %rax\n"
      "     963:\tvdpbf16ps %zmm1,%zmm1,%zmm0\n"
      "     969:\tcmp    %rax,%rdi\n"
      "     96c:\tjne    960 <_ZN8accelopt8platform3cpu12_GLOBAL__N_115bf16_dot_chainsEl+0x20>\n"
      "     96e:\tvaddps %zmm0,%zmm0,%zmm0\n"
      "     974:\tvaddps %zmm0,%zmm0,%zmm0\n";
  EXPECT_EQ(most_in_an_innermost_loop(parse_disassembly(merged), "vdpbf16ps"), 1);
  EXPECT_NE(1, probe_loop("bf16_dot_chains").per_pass);
  // Only the innermost loop counts: an outer loop around it holds the same instructions and more.
  const std::string nested =
      "     de0:\tmov    %r10,%rax\n"
      "     e00:\tvmovups (%rdx,%rax,4),%zmm0\n"
      "     e0b:\tvfmadd213ps (%rsi,%rax,4),%zmm1,%zmm0\n"
      "     e16:\tvmovntps %zmm0,-0x40(%rdi)\n"
      "     e20:\tjb     e00 <f+0x40>\n"
      "     e22:\tvfmadd213ps (%rsi,%rax,4),%zmm1,%zmm0\n"
      "     e2b:\tjne    de0 <f+0x20>\n";
  EXPECT_EQ(most_in_an_innermost_loop(parse_disassembly(nested), "vfmadd"), 1);
  EXPECT_EQ(most_in_an_innermost_loop(parse_disassembly("     0:\tret\n"), "vfmadd"), -1);
}

}  // namespace
}  // namespace accelopt::platform::cpu
