#include "task/expression.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace accelopt::task {
namespace {

TEST(Expression, FollowsArithmeticPrecedence) {
  std::map<std::string, double> names = {{"M", 4}, {"N", 8}, {"K", 2}};
  EXPECT_DOUBLE_EQ(evaluate_expression("2*M*N*K", names), 128);
  EXPECT_DOUBLE_EQ(evaluate_expression("4*(M*K + K*N + M*N)", names), 4 * (8 + 16 + 32));
  EXPECT_DOUBLE_EQ(evaluate_expression("-M + 2^3^1", names), 4);
  EXPECT_DOUBLE_EQ(evaluate_expression("max(M, N) / min(M, K) + log2(N)", names), 4 + 3);
  EXPECT_DOUBLE_EQ(evaluate_expression("1.5e3", names), 1500);
}

TEST(Expression, NamesTheUnknownNameAndWhereItIs) {
  try {
    evaluate_expression("2*M*Q", {{"M", 1}});
    FAIL() << "expected an error";
  } catch (const UserError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("unknown name 'Q'"), std::string::npos) << message;
    EXPECT_NE(message.find("column 5"), std::string::npos) << message;
  }
}

TEST(Expression, RejectsMalformedText) {
  EXPECT_THROW(evaluate_expression("2*(M", {{"M", 1}}), UserError);
  EXPECT_THROW(evaluate_expression("M M", {{"M", 1}}), UserError);
  EXPECT_THROW(evaluate_expression("foo(1)", {}), UserError);
  EXPECT_THROW(expression_names("2 * $"), UserError);
}

TEST(Expression, ListsTheNamesItUses) {
  EXPECT_EQ(expression_names("2*B*QH*N^2 + min(D, KH)"),
            (std::set<std::string>{"B", "QH", "N", "D", "KH"}));
}

TEST(Expression, ConstraintsCompareTwoSides) {
  Constraint constraint = parse_constraint(" H_qo == H_kv * H_r ");
  EXPECT_EQ(constraint.left, "H_qo");
  EXPECT_EQ(constraint.comparison, "==");
  EXPECT_EQ(constraint.right, "H_kv * H_r");
  double left = 0, right = 0;
  EXPECT_TRUE(constraint_holds(constraint, {{"H_qo", 32}, {"H_kv", 8}, {"H_r", 4}}));
  EXPECT_FALSE(
      constraint_holds(constraint, {{"H_qo", 32}, {"H_kv", 8}, {"H_r", 3}}, &left, &right));
  EXPECT_EQ(left, 32);
  EXPECT_EQ(right, 24);
  std::map<std::string, double> p = {{"p", 16}};
  EXPECT_TRUE(constraint_holds(parse_constraint("p <= 16"), p));
  EXPECT_FALSE(constraint_holds(parse_constraint("p < 16"), p));
  EXPECT_TRUE(constraint_holds(parse_constraint("p >= 16"), p));
  EXPECT_FALSE(constraint_holds(parse_constraint("p > 16"), p));
  EXPECT_TRUE(constraint_holds(parse_constraint("p != 15"), p));
  EXPECT_THROW(parse_constraint("p + 1"), UserError);        // no comparison
  EXPECT_THROW(parse_constraint("1 < p < 17"), UserError);   // two
  EXPECT_THROW(parse_constraint("p % 16 == 0"), UserError);  // not accelopt's arithmetic
  EXPECT_THROW(parse_constraint("== 3"), UserError);         // a side missing
}

TEST(Expression, ConstraintsReadInputsElementsAsFlashInferBenchWritesThem) {
  Constraint constraint = parse_constraint("num_kv_indices == kv_indptr[-1].item()");
  ASSERT_EQ(constraint.reads.size(), 1u);
  EXPECT_EQ(constraint.reads[0], (ElementRead{"kv_indptr", -1}));
  EXPECT_EQ(element_name(constraint.reads[0]), "kv_indptr[-1]");
  EXPECT_EQ(expression_names(constraint.right), std::set<std::string>{});
  EXPECT_TRUE(constraint_holds(constraint, {{"num_kv_indices", 40}, {"kv_indptr[-1]", 40}}));
  EXPECT_FALSE(constraint_holds(constraint, {{"num_kv_indices", 40}, {"kv_indptr[-1]", 0}}));
  // Without the element's value the expression names what it lacks.
  try {
    constraint_holds(constraint, {{"num_kv_indices", 40}});
    ADD_FAILURE() << "an element without a value was read";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("no value for kv_indptr[-1]"), std::string::npos);
  }
  EXPECT_EQ(expression_elements("a[0] + 2 * b[ 3 ] - a[-2]"),
            (std::vector<ElementRead>{{"a", 0}, {"b", 3}, {"a", -2}}));
  EXPECT_THROW(expression_elements("a[x]"), UserError);
  EXPECT_THROW(expression_elements("a[1"), UserError);
  EXPECT_THROW(expression_elements("a[1.5]"), UserError);
  // An axis an input's element decides is not settled from it: the inputs are drawn later.
  std::map<std::string, double> values = {{"num_kv_indices", 7}};
  settle_constraints(values, {"num_kv_indices"}, {constraint});
  EXPECT_EQ(values["num_kv_indices"], 7);
}

}  // namespace
}  // namespace accelopt::task
