// What the commands' hints add to reach the workspace a run was given.
#include "cli/workspace.h"

#include <gtest/gtest.h>

namespace accelopt::cli {
namespace {

TEST(WorkspaceOption, NothingForTheDefaultWorkspace) {
  EXPECT_EQ(workspace_option(kDefaultWorkspace), "");
}

TEST(WorkspaceOption, AFolderAsGivenQuotedWhereAShellNeedsIt) {
  EXPECT_EQ(workspace_option("/tmp/ws"), "--workspace /tmp/ws");
  EXPECT_EQ(workspace_option("my runs/it's"), "--workspace 'my runs/it'\\''s'");
}

TEST(WorkspaceOption, ADatabaseWithoutItsPassword) {
  std::string option = workspace_option("postgresql://me:s3cr3tpw@db.example/accelopt");
  EXPECT_EQ(option.find("s3cr3tpw"), std::string::npos) << option;
  EXPECT_NE(option.find("postgresql://me@db.example/accelopt"), std::string::npos) << option;
}

}  // namespace
}  // namespace accelopt::cli
