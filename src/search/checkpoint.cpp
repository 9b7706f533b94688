#include "search/checkpoint.h"

#include <fmt/format.h>

#include "common/error.h"

namespace accelopt::search {

store::Checkpoint SearchCheckpoint::to_store(int64_t run_id) const {
  store::Checkpoint checkpoint;
  checkpoint.run_id = run_id;
  checkpoint.iteration = iteration;
  checkpoint.state = Json{{"beam", beam},
                          {"baseline", baseline},
                          {"wall_seconds", wall_seconds},
                          {"stop", stop_reason}};
  if (iterations) checkpoint.state["iterations"] = *iterations;
  if (confirmation) checkpoint.state["confirmation"] = confirmation->to_json();
  if (scale) checkpoint.state["scale"] = scale->to_json();
  if (!retimings.empty()) {
    Json list = Json::array();
    for (const NamedMeasurement& retiming : retimings) {
      list.push_back(
          Json{{"name", retiming.name}, {"measurement", measurement_to_json(retiming.measured)}});
    }
    checkpoint.state["retimings"] = list;
  }
  return checkpoint;
}

SearchCheckpoint SearchCheckpoint::from_store(const store::Checkpoint& checkpoint) {
  const Json& state = checkpoint.state;
  if (!state.contains("beam") || !state.contains("baseline")) {
    throw InternalError(fmt::format("run {}: the checkpoint of iteration {} lacks beam or baseline",
                                    checkpoint.run_id, checkpoint.iteration));
  }
  SearchCheckpoint result;
  result.iteration = checkpoint.iteration;
  result.beam = state.at("beam").get<std::vector<int64_t>>();
  result.baseline = state.at("baseline").get<int64_t>();
  result.wall_seconds = state.value("wall_seconds", 0.0);
  result.stop_reason = state.value("stop", "");
  if (state.contains("iterations")) result.iterations = state.at("iterations").get<int>();
  if (state.contains("confirmation")) {
    result.confirmation = Confirmation::from_json(state.at("confirmation"));
  }
  result.retimings = retimings_of(state);
  if (state.contains("scale")) result.scale = ScaleSource::from_json(state.at("scale"));
  return result;
}

std::vector<NamedMeasurement> SearchCheckpoint::retimings_of(const Json& state) {
  std::vector<NamedMeasurement> retimings;
  for (const Json& retiming : state.value("retimings", Json::array())) {
    retimings.push_back({retiming.value("name", ""),
                         measurement_from_json(retiming.value("measurement", Json::object()))});
  }
  return retimings;
}

}  // namespace accelopt::search
