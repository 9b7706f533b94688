// Reading models' answers: kernels from fences or prose, plans, dedup, summaries.
#include "agents/answer_parsing.h"

#include <gtest/gtest.h>

namespace accelopt::agents {
namespace {

const char* kKernel = R"(#include <cstdint>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i];
}
)";

TEST(ExtractKernel, TakesTheFencedBlockAndDropsTheProse) {
  std::string answer = std::string("Here is the faster kernel:\n\n```cpp\n") + kKernel +
                       "```\n\nIt vectorizes the loop.";
  roles::Implementation result = extract_kernel(answer, "kernel");
  EXPECT_EQ(result.parse_error, "");
  EXPECT_EQ(result.source, kKernel);
}

TEST(ExtractKernel, AcceptsCxxAndUntaggedAndTildeFences) {
  for (const std::string fence : {"```c++", "```", "~~~cpp", "```C++", "``` cpp"}) {
    std::string close = fence.starts_with("~") ? "~~~" : "```";
    roles::Implementation result = extract_kernel(fence + "\n" + kKernel + close + "\n", "kernel");
    EXPECT_EQ(result.source, kKernel) << fence;
  }
}

TEST(ExtractKernel, AmongSeveralBlocksPicksTheOneDefiningTheEntryPoint) {
  std::string answer =
      "The old loop was:\n```cpp\nfor (i = 0; i < N; ++i) out[i] = f(x[i]);\n```\n"
      "The header declares it:\n```cpp\nextern \"C\" void kernel(const float* x, float* "
      "out);\n```\n"
      "Full kernel:\n```cpp\n" +
      std::string(kKernel) + "```\nA test:\n```cpp\nint main() { kernel(a, b); }\n```\n";
  roles::Implementation result = extract_kernel(answer, "kernel");
  EXPECT_EQ(result.source, kKernel);
}

TEST(ExtractKernel, PrefersTheCompleteBlockOverAFragmentDefiningTheEntryPoint) {
  std::string fragment =
      "```cpp\nextern \"C\" void kernel(const float* x, float* out) {\n  ...\n}\n```\n";
  std::string answer = "Full:\n```cpp\n" + std::string(kKernel) + "```\nThe key part:\n" + fragment;
  EXPECT_EQ(extract_kernel(answer, "kernel").source, kKernel);
}

TEST(ExtractKernel, ReadsBareCodeBetweenProse) {
  std::string answer = std::string("Sure! The kernel below fuses the passes.\n\n") + kKernel +
                       "\nThis should be about twice as fast.\n";
  roles::Implementation result = extract_kernel(answer, "kernel");
  EXPECT_EQ(result.parse_error, "");
  EXPECT_EQ(result.source, kKernel);
}

TEST(ExtractKernel, AddsTheTaskHeaderWhenMissing) {
  std::string answer =
      "```cpp\nextern \"C\" void kernel(const float* x, float* out) { out[0] = x[0]; }\n```";
  roles::Implementation result = extract_kernel(answer, "kernel");
  EXPECT_TRUE(result.source.starts_with("#include \"accelopt_task.h\"\n")) << result.source;
}

TEST(ExtractKernel, WithoutTheEntryPointIsAParseFailure) {
  roles::Implementation result = extract_kernel(
      "```cpp\nextern \"C\" void my_kernel(const float* x, float* out) { }\n```", "kernel");
  EXPECT_EQ(result.source, "");
  EXPECT_NE(result.parse_error.find("none of the answer's 1 code block(s) defines the entry point "
                                    "'kernel'"),
            std::string::npos)
      << result.parse_error;

  result = extract_kernel("I cannot make this faster.", "kernel");
  EXPECT_EQ(result.source, "");
  EXPECT_NE(result.parse_error.find("no code block"), std::string::npos) << result.parse_error;

  EXPECT_NE(extract_kernel("", "kernel").parse_error.find("empty"), std::string::npos);
}

TEST(ExtractKernel, NamesTheTokenLimitWhenTheAnswerWasCut) {
  roles::Implementation result = extract_kernel(
      "```cpp\n#include \"accelopt_task.h\"\nextern \"C\" void kernel(", "kernel", true);
  EXPECT_EQ(result.source, "");
  EXPECT_NE(result.parse_error.find("token limit"), std::string::npos) << result.parse_error;
}

TEST(ExtractKernel, AnEntryPointOnlyInACommentOrStringDoesNotCount) {
  std::string answer =
      "```cpp\n// void kernel(int) { }\nconst char* s = \"void kernel() {}\";\n```";
  EXPECT_EQ(extract_kernel(answer, "kernel").source, "");
}

TEST(ExtractKernel, IgnoresThinkingBlocks) {
  std::string answer = "<think>maybe ```cpp\nvoid kernel() {}\n``` no</think>\n```cpp\n" +
                       std::string(kKernel) + "```";
  EXPECT_EQ(extract_kernel(answer, "kernel").source, kKernel);
}

TEST(ExtractKernel, AnUnclosedFenceRunsToTheEnd) {
  std::string answer = "```cpp\n" + std::string(kKernel);
  EXPECT_EQ(extract_kernel(answer, "kernel").source, kKernel);
}

TEST(DefinesFunction, SeesDefinitionsWithAttributesAndNotDeclarations) {
  EXPECT_TRUE(defines_function("extern \"C\" void kernel(const float* x)\n{ }", "kernel"));
  EXPECT_TRUE(defines_function("void kernel(int a) noexcept { }", "kernel"));
  EXPECT_TRUE(defines_function("void kernel(int a) __attribute__((hot)) { }", "kernel"));
  EXPECT_FALSE(defines_function("extern \"C\" void kernel(const float* x);", "kernel"));
  EXPECT_FALSE(defines_function("void kernel_impl(int a) { }", "kernel"));
  EXPECT_FALSE(defines_function("void my_kernel(int a) { }", "kernel"));
  EXPECT_FALSE(defines_function("int main() { kernel(a, b); }", "kernel"));
}

TEST(SplitPlans, SplitsAtPlanHeadings) {
  std::vector<std::string> plans = split_plans(
      "Here are my ideas.\n\n## Plan 1: Vectorize exp\nUse a polynomial.\n\n"
      "## Plan 2: Fuse passes\nOne pass.\n**Plan 3:** Unroll\nUnroll by 4.\n");
  ASSERT_EQ(plans.size(), 3u);
  EXPECT_EQ(plans[0], "## Plan 1: Vectorize exp\nUse a polynomial.");
  EXPECT_EQ(plans[1], "## Plan 2: Fuse passes\nOne pass.");
  EXPECT_EQ(plans[2], "**Plan 3:** Unroll\nUnroll by 4.");
}

TEST(SplitPlans, ReadsAJsonArrayAndANumberedList) {
  std::vector<std::string> plans = split_plans(
      "```json\n[{\"title\": \"Tile\", \"plan\": \"Tile by 64\"}, \"Unroll by 4\"]\n```");
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_EQ(plans[0], "Tile\nTile by 64");
  EXPECT_EQ(plans[1], "Unroll by 4");

  plans = split_plans("1. Tile the loops\n   for cache\n2. Unroll the inner loop\n");
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_EQ(plans[0], "1. Tile the loops\n   for cache");
}

TEST(SplitPlans, AnAnswerWithoutStructureIsOnePlan) {
  EXPECT_EQ(split_plans("Just unroll it."), std::vector<std::string>{"Just unroll it."});
  EXPECT_TRUE(split_plans("  ").empty());
}

TEST(PlanDedup, DropsNearIdenticalPlansAndKeepsDistinctOnes) {
  std::string a =
      "## Plan 1: Vectorize the exponential\nReplace std::exp with a degree-5 polynomial so the "
      "loop over each chunk vectorizes with 16 lanes, and fuse the division into it.";
  std::string a_again =
      "## Plan 2: vectorize the exponential!\nReplace std::exp with a degree-5 polynomial, so the "
      "loop over each chunk vectorizes with 16 lanes, and fuse the division into it.";
  std::string b = "Block the matmul for L2: keep a 256x128 panel of rhs in cache.";
  EXPECT_DOUBLE_EQ(plan_similarity(a, a_again), 1.0);
  EXPECT_LT(plan_similarity(a, b), 0.1);
  std::vector<roles::Plan> kept =
      drop_near_duplicates({{a, "llm:m"}, {a_again, "llm:m"}, {b, "llm:m"}, {"   ", "llm:m"}}, 0.9);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].text, a);
  EXPECT_EQ(kept[1].text, b);
}

TEST(PlanDedup, ASmallEditStaysASmallDistance) {
  std::string a =
      "Unroll the inner loop by four and keep four independent accumulators to hide "
      "the latency of the fused multiply-add instructions in the reduction";
  std::string b = a + " over K";
  EXPECT_GE(plan_similarity(a, b), 0.9);
  EXPECT_EQ(drop_near_duplicates({{a, ""}, {b, ""}}, 0.9).size(), 1u);
  EXPECT_EQ(drop_near_duplicates({{a, ""}, {b, ""}}, 1.0).size(), 2u);
}

TEST(ParseSummary, ReadsJsonWithRawNewlinesInStrings) {
  SummaryAnswer answer = parse_summary(
      "```json\n{\"title\": \"Polynomial exp\", \"description\": \"Replace std::exp.\",\n"
      "\"before\": \"for (i...)\n  d[i] = std::exp(x[i]);\", \"after\": \"```cpp\nd = "
      "poly(x);\n```\"}\n```");
  ASSERT_TRUE(answer.insight) << answer.error;
  EXPECT_EQ(answer.insight->title, "Polynomial exp");
  EXPECT_EQ(answer.insight->description, "Replace std::exp.");
  EXPECT_EQ(answer.insight->before_snippet, "for (i...)\n  d[i] = std::exp(x[i]);");
  EXPECT_EQ(answer.insight->after_snippet, "d = poly(x);");
}

TEST(ParseSummary, ReadsBareJsonAmidProse) {
  SummaryAnswer answer = parse_summary(
      "Sure.\n{\"title\": \"T\", \"description\": \"D\", \"before\": \"b\", \"after\": "
      "\"a\"}\nDone.");
  ASSERT_TRUE(answer.insight) << answer.error;
  EXPECT_EQ(answer.insight->after_snippet, "a");
}

// The direction the summarizer gives its lesson heads it in the memory (issue 48, item 3).
TEST(ParseSummary, ReadsWhichWayTheLessonPoints) {
  auto effect_of = [](const std::string& effect) {
    SummaryAnswer answer =
        parse_summary("{\"title\": \"T\", \"effect\": \"" + effect + "\", \"description\": \"D\"}");
    return answer.insight ? answer.insight->effect : std::string("(none)");
  };
  EXPECT_EQ(effect_of("faster"), "faster");
  EXPECT_EQ(effect_of("not faster"), "not faster");
  EXPECT_EQ(effect_of("Slower"), "not faster");
  EXPECT_EQ(effect_of("whatever"), "");
  SummaryAnswer sections =
      parse_summary("Title: Lookup exp\nEffect: not faster\nDescription: The table gathers.\n");
  ASSERT_TRUE(sections.insight) << sections.error;
  EXPECT_EQ(sections.insight->effect, "not faster");
  EXPECT_EQ(sections.insight->description, "The table gathers.");
}

TEST(ParseSummary, ReadsSections) {
  SummaryAnswer answer = parse_summary(
      "**Title:** Register blocking\n**Description:** Keep a 4x16 block of out in registers.\n"
      "It saves loads.\n## Before\n```cpp\nout[i] += a * b;\n```\n## After\n```cpp\nacc = fma(a, "
      "b, acc);\n```\n");
  ASSERT_TRUE(answer.insight) << answer.error;
  EXPECT_EQ(answer.insight->title, "Register blocking");
  EXPECT_EQ(answer.insight->description, "Keep a 4x16 block of out in registers.\nIt saves loads.");
  EXPECT_EQ(answer.insight->before_snippet, "out[i] += a * b;");
  EXPECT_EQ(answer.insight->after_snippet, "acc = fma(a, b, acc);");
}

TEST(ParseSummary, RecognizesNoOptimizationFound) {
  for (const std::string text :
       {"NO OPTIMIZATION FOUND", "no_optimization_found", "No optimization found.",
        "After comparing them: there is no generalizable optimization here, the difference is "
        "noise.",
        "{\"no_optimization\": true}", "{\"found\": false, \"title\": null}",
        "<think>hmm</think>NO OPTIMIZATION FOUND"}) {
    SummaryAnswer answer = parse_summary(text);
    EXPECT_TRUE(answer.no_optimization) << text;
    EXPECT_FALSE(answer.insight) << text;
  }
}

TEST(ParseSummary, AnInsightThatMentionsThePhraseIsStillAnInsight) {
  SummaryAnswer answer = parse_summary(
      "{\"title\": \"Fuse\", \"description\": \"Earlier attempts reported no optimization found; "
      "fusing the two passes halves the traffic.\"}");
  ASSERT_TRUE(answer.insight);
  EXPECT_FALSE(answer.no_optimization);
}

TEST(ParseSummary, GarbageIsAnErrorValue) {
  SummaryAnswer answer = parse_summary("The kernels look nice.");
  EXPECT_FALSE(answer.insight);
  EXPECT_FALSE(answer.no_optimization);
  EXPECT_NE(answer.error, "");
  EXPECT_NE(parse_summary("").error, "");
  EXPECT_NE(parse_summary("{\"title\": \"only a title\"}").error, "");
}

}  // namespace
}  // namespace accelopt::agents
