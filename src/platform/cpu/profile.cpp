#include "platform/cpu/profile.h"

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "common/files.h"
#include "common/subprocess.h"
#include "kernel/source_text.h"

namespace accelopt::platform::cpu {

Json vectorization_report(const std::string& remarks, const std::string& source) {
  struct LineReport {
    bool vectorized = false;
    std::string detail;
  };
  std::map<int, LineReport> lines;
  static const std::regex remark(
      R"(^(?:.*/)?kernel\.cpp:(\d+):\d+: (optimized|missed|remark): (.*)$)");
  std::istringstream stream(remarks);
  std::string text;
  while (std::getline(stream, text)) {
    std::smatch match;
    if (!std::regex_match(text, match, remark)) continue;
    int line = std::stoi(match[1].str());
    std::string detail = match[3].str();
    size_t bracket = detail.find(" [-R");
    if (bracket != std::string::npos) detail.erase(bracket);
    bool vectorized = detail.find("loop vectorized") != std::string::npos ||
                      detail.find("vectorized loop") != std::string::npos;
    LineReport& entry = lines[line];
    if (vectorized) {
      if (!entry.vectorized) entry.detail = detail;
      entry.vectorized = true;
    } else if (!entry.vectorized) {
      // The most telling reason is the specific one, not "couldn't vectorize loop".
      bool specific = detail.find("not vectorized:") != std::string::npos ||
                      detail.find("loop not vectorized:") != std::string::npos;
      if (entry.detail.empty() ||
          (specific && entry.detail.find("not vectorized:") == std::string::npos)) {
        entry.detail = detail;
      }
    }
  }
  Json report = Json::array();
  for (const auto& [line, entry] : lines) {
    if (report.size() >= 40) break;
    // A loop of intrinsics is vectorized by hand: the compiler's remark is about its own work.
    bool intrinsics = !entry.vectorized && kernel::loop_uses_intrinsics(source, line);
    report.push_back({{"line", line},
                      {"vectorized", entry.vectorized},
                      {"intrinsics", intrinsics},
                      {"detail", entry.detail}});
  }
  return report;
}

Json instruction_mix(const std::filesystem::path& library) {
  // objdump parses the kernel's bytes, which the kernel's author chose: it runs in the compiler's
  // kind of sandbox (subprocess.h's Isolation, as nobody when root), on a copy, or not at all.
  TempDir root("accelopt-objdump-root");
  TempDir scratch("accelopt-objdump");
  std::filesystem::path copy = scratch.path() / "kernel.so";
  std::filesystem::copy_file(library, copy);
  SpawnOptions spawn;
  spawn.argv = {"/usr/bin/objdump", "-d", "--no-show-raw-insn", copy.string()};
  spawn.environment = clean_environment(scratch.path());
  spawn.working_directory = scratch.path();
  spawn.limits.address_space_bytes = 4ull << 30;
  spawn.limits.cpu_seconds = 30;
  spawn.limits.file_size_bytes = 1 << 20;
  spawn.isolation.enabled = true;
  spawn.isolation.root = root.path();
  spawn.isolation.read_only = {"/usr", "/bin", "/lib", "/lib64", "/etc/ld.so.cache", "/dev/null"};
  spawn.isolation.writable = {scratch.path()};
  spawn.own_pid_namespace = true;
  CommandResult result = run_command(spawn, std::chrono::seconds(30), 64 << 20);
  if (result.status.exited && result.status.exit_code == kIsolationFailed) {
    return {{"error", "objdump not run: its sandbox cannot be made here (" +
                          result.output.substr(0, result.output.find('\n')) + ")"}};
  }
  if (!result.status.exited || result.status.exit_code != 0) {
    return {{"error", "objdump " + result.status.describe()}};
  }
  static const std::set<std::string> runtime_functions = {
      "_init",      "_fini", "deregister_tm_clones", "register_tm_clones", "__do_global_dtors_aux",
      "frame_dummy"};
  static const std::regex function_header(R"(^[0-9a-f]+ <([^>]+)>:$)");
  static const std::regex instruction(R"(^\s*[0-9a-f]+:\s+([a-z0-9]+)\s*(.*)$)");
  static const std::regex fp_arithmetic(
      R"(^v?(.*(add|sub|mul|div|max|min|sqrt|rcp|scalef|getexp).*)(ps|pd|ss|sd)$)");
  int total = 0, fp512 = 0, fp256 = 0, fp128 = 0, scalar = 0;
  bool counting = false;
  std::istringstream stream(result.output);
  std::string line;
  while (std::getline(stream, line)) {
    std::smatch match;
    if (std::regex_match(line, match, function_header)) {
      std::string name = match[1].str();
      counting = !runtime_functions.count(name) && name.find("@plt") == std::string::npos;
      continue;
    }
    if (!counting || !std::regex_match(line, match, instruction)) continue;
    ++total;
    std::string mnemonic = match[1].str(), operands = match[2].str();
    if (!std::regex_match(mnemonic, fp_arithmetic)) continue;
    std::string suffix = mnemonic.substr(mnemonic.size() - 2);
    if (suffix == "ss" || suffix == "sd") {
      ++scalar;
    } else if (operands.find("zmm") != std::string::npos) {
      ++fp512;
    } else if (operands.find("ymm") != std::string::npos) {
      ++fp256;
    } else {
      ++fp128;
    }
  }
  int fp = fp512 + fp256 + fp128 + scalar;
  auto share = [&](int count) { return fp > 0 ? static_cast<double>(count) / fp : 0.0; };
  // Static counts: instructions present in the code, not how often they run.
  return {{"counts", "static"},        {"instructions", total},
          {"fp_512", fp512},           {"fp_256", fp256},
          {"fp_128", fp128},           {"fp_scalar", scalar},
          {"share_512", share(fp512)}, {"share_256", share(fp256)},
          {"share_128", share(fp128)}, {"share_scalar", share(scalar)}};
}

}  // namespace accelopt::platform::cpu
