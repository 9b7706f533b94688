// Study files: the grid they expand to, the configuration each variant gets, and errors that name
// the file, the line and the key.
#include "study/study_file.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/files.h"

namespace accelopt::study {
namespace {

struct Fixture {
  TempDir dir;
  std::filesystem::path file;
  explicit Fixture(const std::string& text) {
    std::filesystem::create_directories(dir.path() / "tasks/silu");
    std::filesystem::create_directories(dir.path() / "tasks/matmul");
    file = dir.path() / "study.toml";
    write_file_atomic(file, text);
  }
  Study load() const {
    return load_study(file, [](const std::filesystem::path& given) -> std::filesystem::path {
      throw UserError("no task " + given.string());
    });
  }
  std::string error() const {
    try {
      load();
    } catch (const UserError& error) {
      return error.what();
    }
    return "";
  }
};

constexpr const char* kTwoVariants = R"(
[study]
name = "beam-vs-sampling"
tasks = ["tasks/silu", "tasks/matmul"]
workload = "small"
seeds = 2
[study.budget]
max_evaluations = 6
[[study.variant]]
name = "beam"
search = { strategy = "beam", beam_width = 3 }
[[study.variant]]
name = "sampling"
search = { strategy = "repeated-sampling" }
memory = "off"
)";

TEST(StudyFile, ExpandsTheGridInItsOrder) {
  Fixture fixture(kTwoVariants);
  Study study = fixture.load();
  EXPECT_EQ(study.name, "beam-vs-sampling");
  EXPECT_EQ(study.seeds, (std::vector<uint64_t>{1, 2}));
  std::vector<Cell> cells = study.cells();
  ASSERT_EQ(cells.size(), 8u);
  EXPECT_EQ(cells[0].key(), "beam/silu/seed1/cold");
  EXPECT_EQ(cells[1].key(), "beam/matmul/seed1/cold");
  EXPECT_EQ(cells[2].key(), "sampling/silu/seed1/cold");
  EXPECT_EQ(cells[4].key(), "sampling/silu/seed2/cold");  // each seed starts with the next variant
  EXPECT_EQ(cells[6].key(), "beam/silu/seed2/cold");
  EXPECT_TRUE(study.variant("beam").memory_on);
  EXPECT_FALSE(study.variant("sampling").memory_on);
}

TEST(StudyFile, EveryVariantGetsTheStudysBudgetOverItsOwnSettings) {
  Fixture fixture(kTwoVariants);
  Study study = fixture.load();
  std::string beam = variant_config_text(study, study.variant("beam"));
  EXPECT_NE(beam.find("max_evaluations = 6"), std::string::npos) << beam;
  EXPECT_NE(beam.find("beam_width = 3"), std::string::npos) << beam;
  std::string sampling = variant_config_text(study, study.variant("sampling"));
  EXPECT_NE(sampling.find("max_evaluations = 6"), std::string::npos) << sampling;
  EXPECT_NE(sampling.find("top_k = 0"), std::string::npos) << sampling;
  EXPECT_NE(sampling.find("repeated-sampling"), std::string::npos) << sampling;
}

TEST(StudyFile, AWarmPassRepeatsTheMemoryVariantsOnly) {
  std::string text = kTwoVariants;
  text.replace(text.find("seeds = 2"), 9, "seeds = [7]\nmemory_order = \"cold-then-warm\"");
  Fixture fixture(text);
  std::vector<Cell> cells = fixture.load().cells();
  ASSERT_EQ(cells.size(), 6u);
  EXPECT_EQ(cells[4].key(), "beam/silu/seed7/warm");
  EXPECT_EQ(cells[5].key(), "beam/matmul/seed7/warm");
}

TEST(StudyFile, LeaveOneOutAddsAWarmPassOfTheMemoryVariants) {
  std::string text = kTwoVariants;
  text.replace(text.find("seeds = 2"), 9, "seeds = 1\nmemory_order = \"leave-one-out\"");
  Fixture fixture(text);
  Study study = fixture.load();
  EXPECT_EQ(study.memory_order, MemoryOrder::kLeaveOneOut);
  EXPECT_EQ(memory_order_name(study.memory_order), "leave-one-out");
  std::vector<Cell> cells = study.cells();
  ASSERT_EQ(cells.size(), 6u);
  EXPECT_EQ(cells[4].key(), "beam/silu/seed1/warm");
  EXPECT_EQ(cells[5].key(), "beam/matmul/seed1/warm");

  text.replace(text.find("leave-one-out"), 13, "leave-1-out");
  Fixture misspelt(text);
  EXPECT_NE(misspelt.error().find("choose cold, cold-then-warm or leave-one-out"),
            std::string::npos)
      << misspelt.error();
}

TEST(StudyFile, SmokeKeepsEveryVariantOnOneSeedAndAFewEvaluations) {
  Fixture fixture(kTwoVariants);
  Study study = fixture.load();
  make_smoke(study);
  EXPECT_EQ(study.name, "beam-vs-sampling-smoke");
  EXPECT_EQ(study.seeds, (std::vector<uint64_t>{1}));
  EXPECT_EQ(study.cells().size(), 2u);  // the first task x 2 variants
  EXPECT_EQ(study.cells()[0].key(), "beam/silu/seed1/cold");
  EXPECT_EQ(study.budget.max_evaluations, kSmokeEvaluations);
  std::string beam = variant_config_text(study, study.variant("beam"));
  EXPECT_NE(beam.find("max_evaluations = 3"), std::string::npos) << beam;
  EXPECT_NE(beam.find("timing_budget_seconds = 0.5"), std::string::npos) << beam;
}

TEST(StudyFile, AVariantMayNotChangeTheBudget) {
  std::string text = kTwoVariants;
  text.replace(text.find("beam_width = 3"), 14, "max_evaluations = 60");
  Fixture fixture(text);
  EXPECT_EQ(fixture.error(),
            fixture.file.string() +
                ":11: study.variant.search.max_evaluations: the budget is the study's "
                "([study.budget]), the same for every cell");
}

TEST(StudyFile, ErrorsNameFileLineAndKey) {
  std::string text = kTwoVariants;
  text.replace(text.find("workload"), 8, "workloda");
  Fixture misspelt(text);
  EXPECT_EQ(misspelt.error(),
            misspelt.file.string() +
                ":5: study.workloda: unknown key; did you mean 'workload'? (see docs/study.md)");
  std::string bad_search = kTwoVariants;
  bad_search.replace(bad_search.find("beam_width"), 10, "beam_wdth");
  std::string message = Fixture(bad_search).error();
  EXPECT_NE(message.find(":9: variant 'beam': "), std::string::npos) << message;
  EXPECT_NE(message.find("did you mean 'beam_width'?"), std::string::npos) << message;
  std::string no_budget = kTwoVariants;
  no_budget.replace(no_budget.find("max_evaluations = 6"), 19, "");
  EXPECT_NE(Fixture(no_budget).error().find("study.budget: empty"), std::string::npos);
  std::string missing_task = kTwoVariants;
  missing_task.replace(missing_task.find("tasks/matmul"), 12, "tasks/nosuch");
  std::string missing = Fixture(missing_task).error();
  EXPECT_NE(missing.find(":4: study.tasks: no task tasks/nosuch"), std::string::npos) << missing;
}

}  // namespace
}  // namespace accelopt::study
