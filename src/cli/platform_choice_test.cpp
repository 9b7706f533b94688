// --platform: the flag's forms (platform_choice_cli_test runs the real binary with them).
#include "cli/platform_choice.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/files.h"

namespace accelopt::cli {
namespace {

std::string error_of(const std::string& value) {
  try {
    parse_platform_choice(value);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(PlatformChoice, EachFormSaysWhichKernelFilesATaskNeeds) {
  EXPECT_EQ(parse_platform_choice("cpu").kind, PlatformChoice::Kind::kCpu);
  EXPECT_EQ(parse_platform_choice("cpu").kernel_extension, ".cpp");
  EXPECT_EQ(parse_platform_choice("cuda").kind, PlatformChoice::Kind::kCuda);
  EXPECT_EQ(parse_platform_choice("cuda").kernel_extension, ".cu");

  TempDir dir;
  write_file_atomic(dir.path() / "nki.json",
                    R"({"name": "trn", "argv": ["./evaluate"], "kernel_extension": ".py"})");
  PlatformChoice command = parse_platform_choice("command:" + (dir.path() / "nki.json").string());
  EXPECT_EQ(command.kind, PlatformChoice::Kind::kCommand);
  EXPECT_EQ(command.kernel_extension, ".py");
  ASSERT_TRUE(command.command);
  EXPECT_EQ(command.command->name, "trn");
  EXPECT_EQ(command.command->argv.front(), (dir.path() / "evaluate").string());
}

TEST(PlatformChoice, AWrongValueNamesTheFormsAndABadFileNamesItself) {
  EXPECT_NE(error_of("gpu").find("expected cpu, cuda or command:<file.json>"), std::string::npos);
  EXPECT_NE(error_of("command:").find("expected cpu, cuda"), std::string::npos);
  EXPECT_NE(error_of("command:/nonexistent/evaluator.json").find("/nonexistent/evaluator.json"),
            std::string::npos);
}

}  // namespace
}  // namespace accelopt::cli
