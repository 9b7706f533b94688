#include "platform/command/command_config.h"

#include "common/error.h"
#include "common/files.h"

namespace accelopt::platform::command {

CommandPlatformOptions parse_command_config(const Json& json, const std::filesystem::path& folder,
                                            const std::string& origin) {
  auto fail = [&](const std::string& field, const std::string& why) -> UserError {
    return UserError(origin + ": " + field + ": " + why);
  };
  if (!json.is_object()) throw fail("(top)", "expected a JSON object");
  CommandPlatformOptions options;
  options.name = json.value("name", "command");
  if (!json.contains("argv") || !json["argv"].is_array() || json["argv"].empty()) {
    throw fail("argv", "expected a non-empty array of strings (the evaluator and its arguments)");
  }
  for (const Json& word : json["argv"]) {
    if (!word.is_string()) throw fail("argv", "expected strings only");
    options.argv.push_back(word.get<std::string>());
  }
  std::filesystem::path program = options.argv.front();
  if (program.is_relative() && program.has_parent_path()) {
    options.argv.front() = (folder / program).lexically_normal().string();
  }
  std::string mode = json.value("correctness", "evaluator");
  auto correctness = parse_correctness_mode(mode);
  if (!correctness) {
    throw fail("correctness", "\"" + mode + "\" is not one of evaluator, values, checksums");
  }
  options.correctness = *correctness;
  if (json.contains("timeout_seconds")) {
    if (!json["timeout_seconds"].is_number() || json["timeout_seconds"].get<double>() <= 0) {
      throw fail("timeout_seconds", "expected a positive number");
    }
    options.timeout = std::chrono::milliseconds(
        static_cast<int64_t>(json["timeout_seconds"].get<double>() * 1000));
  }
  for (const Json& variable : json.value("environment", Json::array())) {
    if (!variable.is_string() || variable.get<std::string>().find('=') == std::string::npos) {
      throw fail("environment", "expected strings NAME=VALUE");
    }
    options.environment.push_back(variable.get<std::string>());
  }
  options.kernel_extension = json.value("kernel_extension", options.kernel_extension);
  if (options.kernel_extension.empty() || options.kernel_extension.front() != '.') {
    throw fail("kernel_extension", "expected a file extension such as \".cpp\" or \".py\"");
  }
  options.prompt_fragment = json.value("prompt_fragment", "");
  if (options.prompt_fragment.empty()) {
    options.prompt_fragment = options.kernel_extension == ".cu" ? "cuda" : "command";
  }
  if (json.contains("device")) {
    const Json& device = json["device"];
    if (!device.is_object()) throw fail("device", "expected an object {name, kind, toolchain}");
    for (auto [field, value] :
         {std::pair{"name", &options.device_name}, std::pair{"kind", &options.device_kind},
          std::pair{"toolchain", &options.toolchain}}) {
      if (!device.contains(field)) continue;
      if (!device[field].is_string())
        throw fail(std::string("device.") + field, "expected a string");
      *value = device[field].get<std::string>();
    }
  }
  if (json.contains("devices_per_worker")) {
    if (!json["devices_per_worker"].is_number_integer() ||
        json["devices_per_worker"].get<int>() < 0) {
      throw fail("devices_per_worker", "expected a whole number, 0 or more");
    }
    options.devices_per_worker = json["devices_per_worker"].get<int>();
  }
  if (json.contains("ceilings")) {
    try {
      options.ceilings = Peaks::from_json(json["ceilings"], json["ceilings"].contains("cpu_model")
                                                                ? CeilingScope::kOneCore
                                                                : CeilingScope::kWholeDevice);
    } catch (const std::exception& error) {
      throw fail("ceilings", error.what());
    }
  }
  return options;
}

CommandPlatformOptions load_command_config(const std::filesystem::path& file) {
  Json json = Json::parse(read_file(file), nullptr, false);
  if (json.is_discarded()) throw UserError(file.string() + ": not valid JSON");
  return parse_command_config(json, file.parent_path(), file.string());
}

}  // namespace accelopt::platform::command
