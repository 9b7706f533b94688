// The registry: --platform's forms, what each platform says of itself, and that the CPU describes
// its machine with the figures the agents are told.
#include "platform/registry.h"

#include <gtest/gtest.h>

#include <set>

#include "common/error.h"
#include "common/files.h"

namespace accelopt::platform {
namespace {

const std::filesystem::path kSource = ACCELOPT_SOURCE_DIR;

std::string error_of(const std::string& value) {
  try {
    parse_platform_choice(value);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(PlatformRegistry, EachFormSaysWhichKernelFilesAndPromptItTakes) {
  PlatformChoice cpu = parse_platform_choice("cpu");
  EXPECT_EQ(cpu.name, "cpu");
  EXPECT_EQ(cpu.kernel_extension, ".cpp");
  EXPECT_EQ(cpu.prompt_fragment, "cpu");
  EXPECT_EQ(cpu.devices_per_worker, 0);
  PlatformChoice cuda = parse_platform_choice("cuda");
  EXPECT_EQ(cuda.kernel_extension, ".cu");
  EXPECT_EQ(cuda.prompt_fragment, "cuda");
  EXPECT_EQ(cuda.devices_per_worker, 1);

  TempDir dir;
  write_file_atomic(dir.path() / "nki.json",
                    R"({"name": "trn", "argv": ["./evaluate"], "kernel_extension": ".py",
                        "prompt_fragment": "nki", "devices_per_worker": 2})");
  PlatformChoice command = parse_platform_choice("command:" + (dir.path() / "nki.json").string());
  EXPECT_EQ(command.name, "command");
  EXPECT_EQ(command.value, "command:" + (dir.path() / "nki.json").string());
  EXPECT_EQ(command.kernel_extension, ".py");
  EXPECT_EQ(command.prompt_fragment, "nki");
  EXPECT_EQ(command.devices_per_worker, 2);
}

TEST(PlatformRegistry, AWrongValueNamesTheFormsAndABadFileNamesItself) {
  EXPECT_EQ(platform_forms(), "cpu, cuda or command:<file.json>");
  EXPECT_NE(error_of("gpu").find("expected cpu, cuda or command:<file.json>"), std::string::npos);
  EXPECT_NE(error_of("command:").find("expected cpu, cuda"), std::string::npos);
  EXPECT_NE(error_of("cpu:extra").find("expected cpu, cuda"), std::string::npos);
  EXPECT_NE(error_of("command:/nonexistent/evaluator.json").find("/nonexistent/evaluator.json"),
            std::string::npos);
}

TEST(PlatformRegistry, EveryPlatformHasItsPromptFragmentAndADistinctName) {
  std::set<std::string> names;
  for (const PlatformEntry& entry : registered_platforms()) {
    EXPECT_TRUE(names.insert(entry.name).second) << entry.name;
    EXPECT_TRUE(entry.make) << entry.name;
    EXPECT_EQ(entry.takes_argument, static_cast<bool>(entry.configure)) << entry.name;
    EXPECT_TRUE(std::filesystem::exists(kSource / "prompts/platform" /
                                        (entry.prompt_fragment + ".mustache")))
        << entry.name << " names the prompt fragment " << entry.prompt_fragment;
  }
}

TEST(PlatformRegistry, TheCpuDescribesItsMachineCompilerAndCeilings) {
  BuiltPlatform built = make_platform(parse_platform_choice("cpu"));
  EXPECT_EQ(built.get().name(), "cpu");
  EXPECT_FALSE(built.reference.owner);  // the CPU computes its own references
  const MachineDescription& description = built.description;
  EXPECT_EQ(description.platform, "cpu");
  const Json& machine = description.prompt_variables;
  EXPECT_TRUE(machine.contains("isa"));
  EXPECT_NE(machine.value("compiler", "").find("g++"), std::string::npos) << machine.dump();
  EXPECT_NE(machine.value("compiler_flags", "").find("-march=native"), std::string::npos);
  EXPECT_TRUE(machine.contains("fma_gflops")) << machine.dump();
  bool has_ceilings = false;
  for (const auto& [label, value] : description.facts) has_ceilings |= label == "ceilings";
  EXPECT_TRUE(has_ceilings);
}

TEST(PlatformRegistry, AnEvaluatorCommandIsBuiltWithACpuReference) {
  TempDir dir;
  write_file_atomic(dir.path() / "box.json", R"({"name": "box", "argv": ["/bin/false"]})");
  BuiltPlatform built =
      make_platform(parse_platform_choice("command:" + (dir.path() / "box.json").string()));
  EXPECT_EQ(built.get().name(), "box");
  EXPECT_TRUE(built.reference.owner);
  EXPECT_TRUE(built.reference.cases);
  EXPECT_EQ(built.description.platform, "command");
}

}  // namespace
}  // namespace accelopt::platform
