#include "search/config.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace accelopt::search {
namespace {

std::string error_of(const std::string& toml_text) {
  SearchConfig config = preset("quick");
  try {
    apply_config_text(config, toml_text, "accelopt.toml");
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(SearchConfig, AMisspeltKeyIsNamedWithItsLineAndTheNearestKey) {
  EXPECT_EQ(error_of("[search]\niterations = 2\ntiming_budget_secnds = 1.0\n"),
            "accelopt.toml:3: search.timing_budget_secnds: unknown key; did you mean "
            "'timing_budget_seconds'? (see docs/search.md)");
  EXPECT_EQ(error_of("\n[memory]\ntopk = 2\n"),
            "accelopt.toml:3: memory.topk: unknown key; did you mean 'top_k'? (see "
            "docs/search.md)");
  EXPECT_EQ(error_of("[search]\nwhatever = 1\n"),
            "accelopt.toml:2: search.whatever: unknown key (see docs/search.md)");
}

TEST(SearchConfig, KnownKeysApply) {
  SearchConfig config = preset("quick");
  apply_config_text(config, "[search]\niterations = 5\n[memory]\ntop_k = 3\n", "accelopt.toml");
  EXPECT_EQ(config.iterations, 5);
  EXPECT_EQ(config.memory.top_k, 3);
}

}  // namespace
}  // namespace accelopt::search
