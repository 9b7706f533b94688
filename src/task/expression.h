// Arithmetic over a task's axes, for the roofline counts: numbers, names, + - * / ^, parentheses,
// unary minus, and the functions min(a,b), max(a,b), log2(a). Evaluated in double precision.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace accelopt::task {

// Throws UserError("... at column N: ...") for a malformed expression or an unknown name.
double evaluate_expression(std::string_view expression, const std::map<std::string, double>& names);

// The names an expression uses; throws UserError for a malformed expression.
std::set<std::string> expression_names(std::string_view expression);

}  // namespace accelopt::task
