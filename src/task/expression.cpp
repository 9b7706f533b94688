#include "task/expression.h"

#include <cctype>
#include <cmath>
#include <vector>

#include "common/error.h"

namespace accelopt::task {
namespace {

// A recursive-descent parser that evaluates as it goes; `names` may be null to only collect names.
class Parser {
 public:
  Parser(std::string_view text, const std::map<std::string, double>* names,
         std::set<std::string>* used, std::vector<ElementRead>* reads = nullptr)
      : text_(text), names_(names), used_(used), reads_(reads) {}

  double parse() {
    double value = sum();
    skip_spaces();
    if (position_ != text_.size()) fail("unexpected '" + std::string(1, text_[position_]) + "'");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw UserError("in expression \"" + std::string(text_) + "\" at column " +
                    std::to_string(position_ + 1) + ": " + why);
  }

  void skip_spaces() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_]))) {
      ++position_;
    }
  }

  bool accept(char c) {
    skip_spaces();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }

  double sum() {
    double value = product();
    while (true) {
      if (accept('+')) {
        value += product();
      } else if (accept('-')) {
        value -= product();
      } else {
        return value;
      }
    }
  }

  double product() {
    double value = power();
    while (true) {
      if (accept('*')) {
        value *= power();
      } else if (accept('/')) {
        double divisor = power();
        value = divisor == 0 ? 0 : value / divisor;
      } else {
        return value;
      }
    }
  }

  double power() {
    double base = unary();
    if (accept('^')) return std::pow(base, power());
    return base;
  }

  double unary() {
    if (accept('-')) return -unary();
    if (accept('+')) return unary();
    return primary();
  }

  double primary() {
    skip_spaces();
    if (position_ >= text_.size()) fail("expected a number, a name or '('");
    char c = text_[position_];
    if (accept('(')) {
      double value = sum();
      if (!accept(')')) fail("expected ')'");
      return value;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name_or_call();
    fail("unexpected '" + std::string(1, c) + "'");
  }

  double number() {
    size_t start = position_;
    while (position_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[position_])) || text_[position_] == '.' ||
            text_[position_] == 'e' || text_[position_] == 'E' ||
            ((text_[position_] == '-' || text_[position_] == '+') && position_ > start &&
             (text_[position_ - 1] == 'e' || text_[position_ - 1] == 'E')))) {
      ++position_;
    }
    std::string literal(text_.substr(start, position_ - start));
    try {
      size_t used = 0;
      double value = std::stod(literal, &used);
      if (used != literal.size()) throw std::invalid_argument(literal);
      return value;
    } catch (const std::exception&) {
      position_ = start;
      fail("bad number '" + literal + "'");
    }
  }

  double name_or_call() {
    size_t start = position_;
    while (
        position_ < text_.size() &&
        (std::isalnum(static_cast<unsigned char>(text_[position_])) || text_[position_] == '_')) {
      ++position_;
    }
    std::string name(text_.substr(start, position_ - start));
    if (accept('(')) return call(name, start);
    if (accept('[')) return element(name, start);
    if (used_) used_->insert(name);
    if (!names_) return 1;
    auto found = names_->find(name);
    if (found == names_->end()) {
      position_ = start;
      std::string known;
      for (const auto& [known_name, value] : *names_)
        known += (known.empty() ? "" : ", ") + known_name;
      fail("unknown name '" + name + "' (known: " + known + ")");
    }
    return found->second;
  }

  // name[index] or name[index].item(), the index a whole number, negative from the end.
  double element(const std::string& tensor, size_t start) {
    skip_spaces();
    bool negative = accept('-');
    skip_spaces();
    size_t digits = position_;
    while (position_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[position_]))) {
      ++position_;
    }
    if (position_ == digits || position_ - digits > 12) fail("expected a whole number as index");
    ElementRead read{tensor, std::stoll(std::string(text_.substr(digits, position_ - digits)))};
    if (negative) read.index = -read.index;
    if (!accept(']')) fail("expected ']'");
    skip_spaces();
    constexpr std::string_view kItem = ".item()";
    if (text_.substr(position_).starts_with(kItem)) position_ += kItem.size();
    if (reads_) reads_->push_back(read);
    if (!names_) return 1;
    auto found = names_->find(element_name(read));
    if (found == names_->end()) {
      position_ = start;
      fail("no value for " + element_name(read) + " (only constraints read an input's elements)");
    }
    return found->second;
  }

  double call(const std::string& function, size_t start) {
    std::vector<double> arguments;
    if (!accept(')')) {
      do {
        arguments.push_back(sum());
      } while (accept(','));
      if (!accept(')')) fail("expected ')' after the arguments of " + function);
    }
    auto expect = [&](size_t count) {
      if (arguments.size() != count) {
        position_ = start;
        fail(function + " takes " + std::to_string(count) + " argument(s)");
      }
    };
    if (function == "min") {
      expect(2);
      return std::min(arguments[0], arguments[1]);
    }
    if (function == "max") {
      expect(2);
      return std::max(arguments[0], arguments[1]);
    }
    if (function == "log2") {
      expect(1);
      return std::log2(arguments[0]);
    }
    position_ = start;
    fail("unknown function '" + function + "' (known: min, max, log2)");
  }

  std::string_view text_;
  const std::map<std::string, double>* names_;
  std::set<std::string>* used_;
  std::vector<ElementRead>* reads_;
  size_t position_ = 0;
};

}  // namespace

double evaluate_expression(std::string_view expression,
                           const std::map<std::string, double>& names) {
  return Parser(expression, &names, nullptr).parse();
}

std::set<std::string> expression_names(std::string_view expression) {
  std::set<std::string> used;
  Parser(expression, nullptr, &used).parse();
  return used;
}

std::string element_name(const ElementRead& read) {
  return read.tensor + "[" + std::to_string(read.index) + "]";
}

std::vector<ElementRead> expression_elements(std::string_view expression) {
  std::vector<ElementRead> reads;
  Parser(expression, nullptr, nullptr, &reads).parse();
  return reads;
}

Constraint parse_constraint(std::string_view text) {
  Constraint constraint;
  constraint.text = std::string(text);
  size_t found = std::string_view::npos;
  for (size_t at = 0; at < text.size(); ++at) {
    char c = text[at];
    bool two = at + 1 < text.size() && text[at + 1] == '=' &&
               (c == '=' || c == '!' || c == '<' || c == '>');
    if (!two && c != '<' && c != '>') continue;
    if (found != std::string_view::npos) {
      throw UserError("in constraint \"" + constraint.text + "\": more than one comparison");
    }
    found = at;
    constraint.comparison = std::string(text.substr(at, two ? 2 : 1));
    at += two ? 1 : 0;
  }
  if (found == std::string_view::npos) {
    throw UserError("in constraint \"" + constraint.text +
                    "\": no comparison (one of == != <= >= < >)");
  }
  auto trimmed = [](std::string_view side) {
    size_t first = side.find_first_not_of(" \t");
    size_t last = side.find_last_not_of(" \t");
    return first == std::string_view::npos ? std::string()
                                           : std::string(side.substr(first, last - first + 1));
  };
  constraint.left = trimmed(text.substr(0, found));
  constraint.right = trimmed(text.substr(found + constraint.comparison.size()));
  for (const std::string& side : {constraint.left, constraint.right}) {
    for (ElementRead& read : expression_elements(side)) {  // throws for a malformed side
      constraint.reads.push_back(std::move(read));
    }
  }
  return constraint;
}

bool constraint_holds(const Constraint& constraint, const std::map<std::string, double>& names,
                      double* left, double* right) {
  double a = evaluate_expression(constraint.left, names);
  double b = evaluate_expression(constraint.right, names);
  if (left != nullptr) *left = a;
  if (right != nullptr) *right = b;
  const std::string& op = constraint.comparison;
  if (op == "==") return a == b;
  if (op == "!=") return a != b;
  if (op == "<=") return a <= b;
  if (op == ">=") return a >= b;
  if (op == "<") return a < b;
  return a > b;
}

void settle_constraints(std::map<std::string, double>& values,
                        const std::set<std::string>& settable,
                        const std::vector<Constraint>& constraints) {
  for (size_t pass = 0; pass <= constraints.size(); ++pass) {
    bool moved = false;
    for (const Constraint& constraint : constraints) {
      if (constraint.comparison != "==" || !settable.count(constraint.left) ||
          !constraint.reads.empty()) {
        continue;
      }
      double value = evaluate_expression(constraint.right, values);
      if (value >= 1 && value == std::floor(value) && value != values[constraint.left]) {
        values[constraint.left] = value;
        moved = true;
      }
    }
    if (!moved) return;
  }
}

}  // namespace accelopt::task
