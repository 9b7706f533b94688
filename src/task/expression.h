// Arithmetic over a task's axes, for the roofline counts: numbers, names, + - * / ^, parentheses,
// unary minus, and the functions min(a,b), max(a,b), log2(a). Evaluated in double precision.
// Constraints may also read an input's element as FlashInfer-Bench writes it: "kv_indptr[-1]",
// "kv_indptr[-1].item()" (the index counts from the end where negative, in the flattened tensor).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace accelopt::task {

// Throws UserError("... at column N: ...") for a malformed expression or an unknown name. An
// element read takes its value from `names` under its element_name.
double evaluate_expression(std::string_view expression, const std::map<std::string, double>& names);

// The names an expression uses, element reads not among them; throws UserError for a malformed
// expression.
std::set<std::string> expression_names(std::string_view expression);

// An element of an input that an expression reads.
struct ElementRead {
  std::string tensor;
  int64_t index = 0;  // negative: from the end
  bool operator==(const ElementRead&) const = default;
};
// "kv_indptr[-1]": the key evaluate_expression looks the element's value up by.
std::string element_name(const ElementRead& read);
// The elements an expression reads, in order of appearance; throws UserError where malformed.
std::vector<ElementRead> expression_elements(std::string_view expression);

// A relation two expressions over the axes must satisfy, as FlashInfer-Bench's definitions state
// them: "H_qo == H_kv * H_r", "page_size <= 64". One of == != <= >= < > between them.
struct Constraint {
  std::string text, left, comparison, right;
  std::vector<ElementRead> reads;  // inputs' elements the two sides read: checked on drawn inputs
};
// Throws UserError for a text without exactly one comparison, or with a malformed side.
Constraint parse_constraint(std::string_view text);
// Whether it holds for `names`; `left` and `right` get the two sides' values where given.
bool constraint_holds(const Constraint& constraint, const std::map<std::string, double>& names,
                      double* left = nullptr, double* right = nullptr);

// Sets each axis of `settable` that a constraint "axis == expression" (reading no input) names
// alone on its left to the expression's value where that is a whole number of at least 1, in
// passes until nothing moves (an axis another's value decides, as H_qo in "H_qo == H_kv * H_r").
// Checks nothing: see constraint_holds.
void settle_constraints(std::map<std::string, double>& values,
                        const std::set<std::string>& settable,
                        const std::vector<Constraint>& constraints);

}  // namespace accelopt::task
