#include "search/answers.h"

namespace accelopt::search {

Json plan_to_json(const roles::Plan& plan) {
  return Json{{"text", plan.text}, {"author", plan.author}, {"detail", plan.detail}};
}

roles::Plan plan_from_json(const Json& json) {
  roles::Plan plan;
  plan.text = json.value("text", "");
  plan.author = json.value("author", "");
  plan.detail = json.value("detail", Json::object());
  return plan;
}

Json implementation_to_json(const roles::Implementation& implementation) {
  return Json{{"source", implementation.source},
              {"parse_error", implementation.parse_error},
              {"author", implementation.author}};
}

roles::Implementation implementation_from_json(const Json& json) {
  roles::Implementation implementation;
  implementation.source = json.value("source", "");
  implementation.parse_error = json.value("parse_error", "");
  implementation.author = json.value("author", "");
  return implementation;
}

}  // namespace accelopt::search
