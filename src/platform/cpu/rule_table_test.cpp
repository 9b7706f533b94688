// The rule table is what the checks enforce and what the agents are told: every forbidden row is
// refused by the checks, every allowed construct passes them, compiled for real.
#include "platform/cpu/rule_table.h"

#include <gtest/gtest.h>

#include "common/files.h"
#include "platform/cpu/compiler.h"
#include "platform/cpu/compiler_checks.h"
#include "platform/cpu/source_check.h"

namespace accelopt::platform::cpu {
namespace {

const std::string kEntry = "extern \"C\" void kernel(const float* x, float* y) { y[0] = x[0]; }\n";

std::string kernel_with(const std::string& line) {
  return "#include \"accelopt_task.h\"\n" + line + "\n" + kEntry;
}

// The allowed constructs' examples in one kernel: functions at file scope, the rest in the body.
std::string kernel_of_allowed_constructs() {
  std::string file_scope, body;
  for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kConstruct)) {
    EXPECT_TRUE(rule->allowed) << rule->spelling;
    EXPECT_FALSE(rule->example.empty()) << rule->spelling;
    (rule->example.starts_with("static inline") ? file_scope : body) += rule->example + "\n";
  }
  return "#include \"accelopt_task.h\"\n#include <immintrin.h>\n#include <memory>\n" + file_scope +
         "extern \"C\" void kernel(const float* x, float* y) {\n  int i = 0;\n" + body +
         "  y[i] = x[i];\n}\n";
}

TEST(RuleTable, EveryForbiddenWordDirectiveAndPragmaIsRefusedByTheSourceCheck) {
  for (const SourceRule& rule : kernel_rules()) {
    std::string line;
    if (rule.kind == RuleKind::kWord) line = "const char* s = \"" + rule.spelling + "\";";
    if (rule.kind == RuleKind::kDirective && rule.spelling == "<number>") line = "# 1 \"x.h\"";
    if (rule.kind == RuleKind::kDirective && rule.spelling == "include MACRO") {
      line = "#define H <vector>\n#include H";
    } else if (rule.kind == RuleKind::kDirective && rule.spelling != "<number>") {
      line = "#" + rule.spelling + " <vector>";
    }
    if (rule.kind == RuleKind::kPragma) line = "#pragma " + rule.spelling + " \"x\"";
    if (line.empty()) continue;
    EXPECT_NE(check_kernel_source(kernel_with(line), "kernel"), std::nullopt) << line;
  }
}

// `##0` pastes tokens inside a macro; only a line that begins with `#` and a number is a line
// marker (issue 48: the rule and the prompt say the same).
TEST(RuleTable, TokenPastingANumberIsNotALineMarker) {
  EXPECT_EQ(
      check_kernel_source(kernel_with("#define PASTE(a) a##0\nstatic int PASTE(v) = 1;"), "kernel"),
      std::nullopt);
  EXPECT_EQ(check_kernel_source(
                kernel_with("#define PASTE(a) \\\n  a ## 0\nstatic int PASTE(w) = 1;"), "kernel"),
            std::nullopt);
  EXPECT_NE(check_kernel_source(kernel_with("#12 \"other.h\""), "kernel"), std::nullopt);
  EXPECT_NE(check_kernel_source(kernel_with("  #  7"), "kernel"), std::nullopt);
}

TEST(RuleTable, EveryForbiddenPragmaIsRefusedInThePreprocessedOutput) {
  for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kPragma)) {
    std::string preprocessed = "# 1 \"kernel.cpp\"\n#pragma " + rule->spelling + " \"x\"\n";
    EXPECT_NE(check_preprocessed(preprocessed, {"/usr/include"}), std::nullopt) << rule->spelling;
  }
  EXPECT_EQ(check_preprocessed("# 1 \"kernel.cpp\"\n#pragma GCC unroll 4\n#pragma omp simd\n",
                               {"/usr/include"}),
            std::nullopt);
}

TEST(RuleTable, PragmasAreAnAllowListInTheKernelsOwnLinesOnly) {
  for (const char* pragma : {"GCC pch_preprocess \"/usr/include/stdio.h\"", "GCC poison x",
                             "redefine_extname a b", "weak kernel", "GCC warning \"x\""}) {
    EXPECT_NE(check_kernel_source(kernel_with(std::string("#pragma ") + pragma), "kernel"),
              std::nullopt)
        << pragma;
    EXPECT_NE(check_preprocessed(std::string("# 1 \"kernel.cpp\"\n#pragma ") + pragma + "\n",
                                 {"/usr/include"}),
              std::nullopt)
        << pragma;
  }
  EXPECT_TRUE(allowed_pragma(" omp parallel for"));
  EXPECT_TRUE(allowed_pragma("GCC unroll 8"));
  EXPECT_FALSE(allowed_pragma("GCC pch_preprocess \"x\""));
  // A system header's own pragmas are its business.
  EXPECT_EQ(check_preprocessed("# 1 \"kernel.cpp\"\n# 1 \"/usr/include/stdio.h\" 1 3\n"
                               "#pragma GCC visibility push(default)\n# 2 \"kernel.cpp\" 2\n",
                               {"/usr/include"}),
            std::nullopt);
}

TEST(RuleTable, EveryAssemblyRowIsRefused) {
  for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kAssembly)) {
    EXPECT_NE(check_assembly("\t." + rule->spelling + " \"x\"\n"), std::nullopt) << rule->spelling;
  }
}

// The allowed rows pass, and the headers the prompt names as refused are refused.
TEST(RuleTable, TheHeadersAreTheChecksHeaders) {
  int refused = 0;
  for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kHeader)) {
    EXPECT_EQ(is_allowed_header(rule->spelling), rule->allowed) << rule->spelling;
    std::string include =
        rule->example.empty() ? "#include <" + rule->spelling + ">" : "#include " + rule->example;
    EXPECT_EQ(check_kernel_source(kernel_with(include), "kernel") == std::nullopt, rule->allowed)
        << include;
    refused += rule->allowed ? 0 : 1;
  }
  EXPECT_GE(refused, 5);
  EXPECT_FALSE(is_allowed_header("unistd.h"));
  EXPECT_NE(check_kernel_source(kernel_with("#include <accelopt_task.h>"), "kernel"), std::nullopt);
}

TEST(RuleTable, TheAllowedConstructsPassEveryCheckAndCompile) {
  std::string source = kernel_of_allowed_constructs();
  ASSERT_EQ(check_kernel_source(source, "kernel"), std::nullopt) << source;
  TempDir cache("accelopt-rule-table-test");
  CompilerOptions options;
  options.cache_directory = cache.path();
  Compiler compiler(options);
  CompileResult result = compiler.compile(source, "#pragma once\n");
  EXPECT_TRUE(result.ok) << source << "\n" << result.diagnostics;
  EXPECT_FALSE(result.rejection) << *result.rejection;
}

TEST(RuleTable, TheSourceLimitIsTheChecks) {
  std::string large = kernel_with(std::string(kMaxSourceBytes, ' '));
  EXPECT_NE(check_kernel_source(large, "kernel"), std::nullopt);
}

TEST(RuleTable, ThePromptVariablesListEveryRow) {
  Json rules = rules_variables(kernel_rules());
  std::string headers;
  for (const Json& group : rules["header_groups"]) headers += group["headers"].get<std::string>();
  std::string refused = rules["refused_headers"].get<std::string>();
  for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kHeader)) {
    std::string name = rule->example.empty() ? "<" + rule->spelling + ">" : rule->example;
    EXPECT_NE((rule->allowed ? headers : refused).find("`" + name + "`"), std::string::npos)
        << name;
    EXPECT_EQ((rule->allowed ? refused : headers).find("`" + name + "`"), std::string::npos)
        << name;
  }
  EXPECT_EQ(rules["allowed"].size(), rules_of(kernel_rules(), RuleKind::kConstruct).size());
  EXPECT_EQ(rules["limits"].size(), rules_of(kernel_rules(), RuleKind::kLimit).size());
  EXPECT_EQ(rules["forbidden"].size(), rules_of(kernel_rules(), RuleKind::kWord).size() +
                                           rules_of(kernel_rules(), RuleKind::kDirective).size() +
                                           rules_of(kernel_rules(), RuleKind::kPragma).size());
}

}  // namespace
}  // namespace accelopt::platform::cpu
