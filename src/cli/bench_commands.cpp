// accelopt bench (the suite, side by side with the library a user would pick), accelopt task
// dump (a task's data as .npy files, for checking its meaning elsewhere), accelopt task import
// (a FlashInfer-Bench definition made into a task folder) and accelopt task flops (the FLOP counts
// measured from a Python reference).
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <regex>
#include <sstream>
#include <thread>

#include "cli/agent_setup.h"
#include "cli/commands.h"
#include "cli/run_steps.h"
#include "cli/workspace.h"
#include "common/error.h"
#include "common/files.h"
#include "platform/reference_flops.h"
#include "platform/registry.h"
#include "report/bench_text.h"
#include "task/baseline_stub.h"
#include "task/flashinfer_import.h"
#include "task/npy.h"
#include "task/task.h"

namespace accelopt::cli {
namespace {

struct BenchArguments {
  std::string platform = "cpu";
  std::string suite;
  std::string tasks;
  std::string kernels;
  std::string workload;
  bool json = false, csv = false, no_library = false;
  double budget = 20;
  double target = 0.02;
};

// bench/ in the current folder, else in the accelopt folder this was built from; empty if neither.
std::filesystem::path bench_folder() {
  if (std::filesystem::is_directory("bench")) return "bench";
#ifdef ACCELOPT_SOURCE_DIR
  std::filesystem::path built_from = std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench";
  if (std::filesystem::is_directory(built_from)) return built_from;
#endif
  return {};
}

// The suites of bench/: its folders, for messages ("cpu, cuda, flashinfer").
std::string suite_names(const std::filesystem::path& bench) {
  std::vector<std::string> names;
  if (!bench.empty()) {
    for (const auto& entry : std::filesystem::directory_iterator(bench)) {
      if (entry.is_directory()) names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names.empty() ? "none found" : fmt::format("{}", fmt::join(names, ", "));
}

// bench/<platform>: the suite written for the platform's kernels (bench/cpu, bench/cuda).
std::filesystem::path default_suite(const std::string& platform_name) {
  std::filesystem::path suite = std::filesystem::path("bench") / platform_name;
  if (std::filesystem::is_directory(suite)) return suite;
#ifdef ACCELOPT_SOURCE_DIR
  std::filesystem::path built_from = std::filesystem::path(ACCELOPT_SOURCE_DIR) / suite;
  if (std::filesystem::is_directory(built_from)) return built_from;
#endif
  throw UserError(fmt::format(
      "cannot find the benchmark suite {}: run from the accelopt folder or pass --suite DIR",
      suite.string()));
}

// --suite: a folder of tasks, or the name of one of bench/'s suites (`flashinfer`:
// bench/flashinfer, found as the default suite is).
std::filesystem::path chosen_suite(const std::string& given, const std::string& platform_name) {
  if (given.empty()) return default_suite(platform_name);
  if (std::filesystem::is_directory(given)) return given;
  std::filesystem::path bench = bench_folder();
  if (!bench.empty() && std::filesystem::path(given).filename() == given &&
      std::filesystem::is_directory(bench / given)) {
    return bench / given;
  }
  throw UserError(fmt::format("--suite {}: no such folder, nor a suite of {} (suites: {})", given,
                              bench.empty() ? "bench/" : (bench / "").string(),
                              suite_names(bench)));
}

}  // namespace

std::filesystem::path find_task_directory(const std::string& given) {
  std::filesystem::path path(given);
  if (path.is_absolute() || std::filesystem::exists(path)) return path;
  std::vector<std::string> looked{std::filesystem::absolute(path).string()};
#ifdef ACCELOPT_SOURCE_DIR
  std::filesystem::path built_from = std::filesystem::path(ACCELOPT_SOURCE_DIR) / path;
  if (std::filesystem::is_directory(built_from)) return built_from;
  looked.push_back(built_from.string());
#endif
  throw UserError(fmt::format("--task {}: no such task folder (looked in {})", given,
                              fmt::join(looked, " and ")));
}

namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// A kernel for `task` in FROM: FROM/<task>.cpp, FROM/<task>/kernel.cpp or FROM/<task>/best.cpp
// (.cu and the like for other platforms: `extension`).
std::optional<std::filesystem::path> kernel_in(const std::filesystem::path& from,
                                               const std::string& task,
                                               const std::string& extension) {
  for (const auto& candidate : {from / (task + extension), from / task / ("kernel" + extension),
                                from / task / ("best" + extension)}) {
    if (std::filesystem::exists(candidate)) return candidate;
  }
  return std::nullopt;
}

// A --kernels folder that holds no kernel for any of the tasks is a mistake, not a benchmark of
// the baselines (`accelopt export` writes OUT/<task>.cpp, which is what it looks for).
void check_kernels(const std::filesystem::path& from, const std::vector<std::string>& names,
                   const std::string& extension) {
  if (!std::filesystem::is_directory(from)) {
    throw UserError(fmt::format("--kernels {}: no such folder", from.string()));
  }
  for (const std::string& name : names) {
    if (kernel_in(from, name, extension)) return;
  }
  throw UserError(fmt::format(
      "--kernels {}: no kernel for any of the {} tasks (looked for <task>{}, <task>/kernel{} "
      "and <task>/best{}; `accelopt export RUN --out {}` writes <task>{})",
      from.string(), names.size(), extension, extension, extension, from.string(), extension));
}

// Without --tasks, `--kernels FROM` times the tasks FROM has kernels for: a folder of two kernels
// is a benchmark of two, not of the whole suite's baselines.
std::vector<std::string> tasks_with_kernels(const std::filesystem::path& from,
                                            const std::vector<std::string>& names,
                                            const std::string& extension) {
  std::vector<std::string> chosen;
  for (const std::string& name : names) {
    if (kernel_in(from, name, extension)) chosen.push_back(name);
  }
  if (chosen.size() < names.size()) {
    std::cerr << fmt::format(
        "{} has kernels for {} of the suite's {} tasks; timing those (--tasks A,B names others, "
        "whose baselines are then timed)\n",
        from.string(), chosen.size(), names.size());
  }
  return chosen;
}

// One row's verdict. The machine too busy to judge the kernel (MACHINE_BUSY: the platform retried
// its compiles already) gets one more try after a pause; a task that cannot run here (its
// reference fails, say) gets a row that says why, and the suite goes on with the other tasks.
kernel::Verdict evaluate_row(platform::Platform& platform, const platform::EvalRequest& request) {
  kernel::Verdict verdict;
  try {
    verdict = platform.evaluate(request);
    if (verdict.machine_busy()) {
      std::cerr << "      the machine was busy (" << verdict.message << "); again in 10 s\n";
      std::this_thread::sleep_for(std::chrono::seconds(10));
      verdict = platform.evaluate(request);
    }
  } catch (const UserError& error) {
    verdict.task = request.task->name;
    verdict.status = kernel::Status::kEvaluationFailed;
    verdict.message = error.what();
  }
  return verdict;
}

int run_bench(const BenchArguments& arguments) {
  platform::PlatformChoice choice = platform::parse_platform_choice(arguments.platform);
  const std::string& extension = choice.kernel_extension;
  std::filesystem::path suite = chosen_suite(arguments.suite, choice.name);
  std::vector<std::string> names = split_list(arguments.tasks);
  if (names.empty()) names = task::task_names_in(suite);
  if (names.empty()) throw UserError("no tasks in " + suite.string());
  if (!arguments.kernels.empty()) {
    check_kernels(arguments.kernels, names, extension);
    if (arguments.tasks.empty()) names = tasks_with_kernels(arguments.kernels, names, extension);
  }

  platform::BuiltPlatform built = platform::make_platform(choice, {.progress = &std::cerr});
  std::vector<report::BenchRow> rows;
  size_t index = 0;
  for (const std::string& name : names) {
    ++index;
    task::Task task = task::load_task(suite / name, extension);
    struct Entry {
      std::string label;
      std::filesystem::path source;
      bool library;
    };
    std::vector<Entry> entries;
    std::optional<std::filesystem::path> chosen;
    if (!arguments.kernels.empty()) {
      chosen = kernel_in(arguments.kernels, name, extension);
      if (!chosen) {
        std::cerr << fmt::format(
            "{} has no kernel for {} (looked for {}{}, {}/kernel{}, {}/best{}): timing the "
            "baseline\n",
            arguments.kernels, name, name, extension, name, extension, name, extension);
      }
    }
    bool no_baseline = task::is_baseline_stub(read_file(task.baseline_path()));
    if (!chosen && no_baseline) throw UserError(task::baseline_stub_message(task.baseline_path()));
    entries.push_back({chosen ? chosen->filename().string() : "baseline",
                       chosen.value_or(task.baseline_path()), false});
    if (chosen)
      entries.front().label =
          "from " + std::filesystem::path(arguments.kernels).filename().string();
    if (!arguments.no_library && std::filesystem::is_directory(task.directory / "library")) {
      for (const auto& entry : std::filesystem::directory_iterator(task.directory / "library")) {
        if (entry.path().extension() == extension)
          entries.push_back({entry.path().stem().string(), entry.path(), true});
      }
    }
    for (const Entry& entry : entries) {
      std::cerr << fmt::format("[{}/{}] {}: {} ...\n", index, names.size(), name, entry.label);
      platform::EvalRequest request;
      request.task = &task;
      request.workload = arguments.workload;
      request.source = read_file(entry.source);
      request.timing.budget_seconds = arguments.budget;
      request.timing.target_half_width = arguments.target;
      if (no_baseline) {  // nothing to time against but the kernel itself (the stub is wrong)
        request.anchor_source = request.source;
        request.anchor_name = "itself (the task has no baseline)";
      }
      if (entry.library) {
        request.trusted = true;
        std::smatch link;
        if (std::regex_search(request.source, link, std::regex(R"(link: ([^\n]*))"))) {
          std::stringstream flags(link[1].str());
          std::string flag;
          while (flags >> flag) request.extra_flags.push_back(flag);
        }
      }
      report::BenchRow row{name, entry.label, entry.library, {}};
      row.verdict = evaluate_row(built.get(), request);
      const kernel::Verdict& v = row.verdict;
      std::cerr << fmt::format(
          "      {} {}\n", kernel::status_name(v.status),
          v.roofline ? fmt::format("{:.1f} % of peak", v.roofline->percent_of_peak) : v.message);
      rows.push_back(std::move(row));
    }
  }
  if (arguments.json) {
    report::print_bench_json(std::cout, rows);
  } else if (arguments.csv) {
    report::print_bench_csv(std::cout, rows);
  } else {
    report::print_bench_table(std::cout, rows);
  }
  // A kernel that failed is the suite's failure; a row the machine left unjudged is not.
  int code = 0;
  for (const report::BenchRow& row : rows) {
    if (row.verdict.failed()) return 1;
    if (row.verdict.machine_busy()) code = kExitMachineBusy;
  }
  return code;
}

struct DumpArguments {
  std::string task_directory, workload, out;
  uint64_t seed = 1;
};

struct ImportArguments {
  std::string definition, workloads, out;
  bool no_flops = false;
  std::string config;  // with [models]: the executor writes the baseline
  std::string workspace = kDefaultWorkspace;
};

struct FlopsArguments {
  std::string task_directory, workload;
  bool write = false;
};

// The FLOP counts of `task`'s reference.py at `workload`'s shape (platform/reference_flops.h);
// where `write`, each count definition.json leaves at 0 set to what was inferred (a person's
// expression is kept) and the task loaded again to prove it. Returns what to tell the user.
std::vector<std::string> infer_and_write_flops(const task::Task& task,
                                               const task::Workload& workload, bool write) {
  platform::InferredFlops inferred =
      platform::infer_flops(task, workload.axes, platform::python_reference_flops(task));
  std::vector<std::string> notes = inferred.notes;
  if (!write) return notes;
  std::filesystem::path file = task.directory / "definition.json";
  Json definition = Json::parse(read_file(file));
  bool changed = false;
  for (auto [field, expression] :
       {std::pair{"mm_flops", &inferred.mm_flops}, std::pair{"vec_flops", &inferred.vec_flops}}) {
    if (!expression->has_value()) continue;
    std::string current = definition["roofline"].value(field, std::string("0"));
    if (current != "0") {
      notes.push_back(fmt::format("roofline.{}: kept the definition's \"{}\" (not \"{}\")", field,
                                  current, **expression));
      continue;
    }
    definition["roofline"][field] = **expression;
    changed = changed || **expression != "0";
  }
  if (changed) {
    write_file_atomic(file, definition.dump(2) + "\n");
    task::load_task(task.directory, task.kernel_extension);
  }
  return notes;
}

// `task import --config FILE`: a run of no iterations on the imported task's `small` workload, as
// `optimize --save-baseline` makes it: the executor writes a straightforward kernel from
// reference.py, the harness checks it on every input set, the fixer repairs it, and the first
// that passes becomes baseline.cpp. Its note replaces the stub's; the run (its calls and their
// cost) is kept in the workspace. Returns the run's exit code.
int write_naive_baseline(const ImportArguments& arguments, std::vector<std::string>& notes) {
  ConfigFile file = read_config(arguments.config);
  if (!file.has_models()) {
    notes.push_back(arguments.config +
                    " configures no model ([models], docs/llm.md): baseline.cpp stays a stub");
    return 0;
  }
  NewRun run;
  run.task_directory = arguments.out;
  run.workload = "small";
  run.config_path = arguments.config;
  run.agents = "llm";
  run.search = search::preset("quick");
  search::apply_config_text(run.search, file.text, file.path);
  run.search.iterations = 0;
  run.workspace = arguments.workspace;
  run.save_baseline = true;
  StopOnSignals signals;
  search::RunSummary summary = optimize_one(run, signals);
  std::filesystem::path baseline = std::filesystem::path(arguments.out) / "baseline.cpp";
  if (task::is_baseline_stub(read_file(baseline))) {
    notes.push_back(fmt::format(
        "baseline.cpp: no kernel the executor wrote passed (above; run {} in {}, `accelopt show "
        "{}`): it stays a stub",
        summary.run_id, arguments.workspace, summary.run_id));
    return std::max(1, run_exit_code(summary.state, signals));
  }
  std::erase_if(notes, [](const std::string& note) { return note.starts_with("baseline.cpp:"); });
  notes.push_back(fmt::format(
      "baseline.cpp: written by the executor and checked against reference.py on every input "
      "set of the small workload (run {} in {}; `accelopt show {}` says how and what it cost): "
      "read it before you trust its speed",
      summary.run_id, arguments.workspace, summary.run_id));
  return 0;
}

int run_task_import(const ImportArguments& arguments) {
  std::string workloads = arguments.workloads.empty() ? "" : read_file(arguments.workloads);
  task::ImportedTask imported = task::import_flashinfer(
      read_file(arguments.definition), arguments.definition, workloads, arguments.workloads);
  task::write_imported_task(imported, arguments.out);
  std::vector<std::string> notes = imported.notes;
  if (!arguments.no_flops) {
    // The counts import cannot read from the definition, measured from the reference instead:
    // their notes take the place of the one that says they are missing.
    task::Task task = task::load_task(arguments.out);
    try {
      std::vector<std::string> flops =
          infer_and_write_flops(task, task.workload("small"), /*write=*/true);
      std::erase_if(notes, [](const std::string& note) { return note.starts_with("roofline:"); });
      notes.insert(notes.end(), flops.begin(), flops.end());
    } catch (const std::exception& error) {
      notes.push_back(std::string("roofline: the FLOP counts were not measured from "
                                  "reference.py (`accelopt task flops` tries again): ") +
                      error.what());
    }
  }
  int code = 0;
  if (!arguments.config.empty()) code = write_naive_baseline(arguments, notes);
  std::cout << "wrote " << arguments.out
            << " (definition.json, reference.py, baseline.cpp); still to do:\n";
  for (const std::string& note : notes) std::cout << "  - " << note << "\n";
  return code;
}

int run_task_flops(const FlopsArguments& arguments) {
  task::Task task = task::load_task(find_task_directory(arguments.task_directory));
  bool has_small = std::any_of(task.workloads.begin(), task.workloads.end(),
                               [](const task::Workload& w) { return w.name == "small"; });
  const task::Workload& workload = task.workload_or_default(
      arguments.workload.empty() && has_small ? "small" : arguments.workload);
  std::cout << "FLOP counts of " << task.name << " from reference.py at workload " << workload.name
            << (arguments.write ? " (written where definition.json has 0)" : "") << ":\n";
  for (const std::string& note : infer_and_write_flops(task, workload, arguments.write)) {
    std::cout << "  - " << note << "\n";
  }
  return 0;
}

int run_task_dump(const DumpArguments& arguments) {
  task::Task task = task::load_task(arguments.task_directory);
  const task::Workload& workload = task.workload_or_default(arguments.workload);
  platform::CpuReference reference = platform::make_cpu_reference({});
  platform::ReferenceCase data = reference.seeded(task, workload, {arguments.seed}).front();
  std::filesystem::path out = arguments.out;
  std::filesystem::create_directories(out);
  Json index = {
      {"task", task.name},       {"workload", workload.name},
      {"seed", arguments.seed},  {"generator", "splitmix64 + ziggurat, accelopt inputs v2"},
      {"axes", workload.axes},   {"inputs", Json::array()},
      {"outputs", Json::array()}};
  // In the tensor's own dtype, as the kernel sees it (bfloat16 as its bits, "<u2").
  auto write = [&](const task::TensorSpec& tensor, const task::TensorValues& values,
                   const char* kind, const std::string& file) {
    std::vector<int64_t> shape;
    for (const std::string& axis : tensor.shape) shape.push_back(workload.axes.at(axis));
    task::write_npy(out / file, std::string(task::dtype_numpy_descr(tensor.dtype)), shape,
                    values.bytes().data(), values.bytes().size());
    index[kind].push_back({{"name", tensor.name},
                           {"file", file},
                           {"dtype", task::dtype_name(tensor.dtype)},
                           {"shape", shape}});
  };
  for (size_t i = 0; i < task.inputs.size(); ++i)
    write(task.inputs[i], data.inputs[i], "inputs", task.inputs[i].name + ".npy");
  for (size_t o = 0; o < task.outputs.size(); ++o) {
    write(task.outputs[o], task::TensorValues::encode(task.outputs[o].dtype, data.outputs[o]),
          "outputs", "reference_" + task.outputs[o].name + ".npy");
  }
  write_file_atomic(out / "index.json", index.dump(2) + "\n");
  std::cout << fmt::format("wrote {} inputs and {} reference outputs of {} / {} (seed {}) to {}\n",
                           task.inputs.size(), task.outputs.size(), task.name, workload.name,
                           arguments.seed, out.string());
  return 0;
}

}  // namespace

void register_bench_commands(CLI::App& app, CommandTable& table) {
  auto bench_arguments = std::make_shared<BenchArguments>();
  CLI::App* bench =
      app.add_subcommand("bench", "Evaluate the benchmark suite: status, latency, % of peak");
  bench->add_option("--platform", bench_arguments->platform, platform::platform_forms())
      ->capture_default_str();
  bench->add_option("--suite", bench_arguments->suite,
                    "folder of tasks, or a suite of bench/ by name: cpu, cuda, flashinfer "
                    "(default: bench/<platform>, e.g. bench/cpu)");
  bench->add_option("--tasks", bench_arguments->tasks, "comma-separated task names (default: all)");
  bench->add_option("--kernels", bench_arguments->kernels,
                    "folder of kernels to evaluate instead of the baselines: FROM/<task>.cpp (what "
                    "`accelopt export` writes), FROM/<task>/kernel.cpp or FROM/<task>/best.cpp");
  bench->add_option("--workload", bench_arguments->workload,
                    "workload name (default: each task's default)");
  bench->add_option("--budget", bench_arguments->budget, "timing budget per kernel, seconds")
      ->capture_default_str()
      ->check(positive_number());
  bench->add_option("--target", bench_arguments->target, "target half-width of the 95% interval")
      ->capture_default_str()
      ->check(positive_number());
  bench->add_flag("--no-library", bench_arguments->no_library, "skip the library rows (oneDNN)");
  bench->add_flag("--json", bench_arguments->json, "print JSON");
  bench->add_flag("--csv", bench_arguments->csv, "print CSV");
  bench->callback([&table, bench_arguments] {
    table.select([bench_arguments] { return run_bench(*bench_arguments); });
  });

  CLI::App* task = app.add_subcommand("task", "Work with task definitions");
  task->require_subcommand(1);
  auto dump_arguments = std::make_shared<DumpArguments>();
  CLI::App* dump =
      task->add_subcommand("dump", "Write a task's inputs and reference outputs as .npy files");
  dump->add_option("--task", dump_arguments->task_directory, "task directory")->required();
  dump->add_option("--workload", dump_arguments->workload,
                   "workload name (default: the task's default)");
  dump->add_option("--seed", dump_arguments->seed, "input seed")->capture_default_str();
  dump->add_option("--out", dump_arguments->out, "output folder")->required();
  dump->callback([&table, dump_arguments] {
    table.select([dump_arguments] { return run_task_dump(*dump_arguments); });
  });

  auto import_arguments = std::make_shared<ImportArguments>();
  CLI::App* import_command =
      task->add_subcommand("import",
                           "Make a task folder from a FlashInfer-Bench definition (float32, "
                           "bfloat16, float16, float8_e4m3fn, int8, int32 tensors)");
  import_command->add_option("definition", import_arguments->definition, "DEFINITION.json")
      ->required()
      ->check(CLI::ExistingFile);
  import_command
      ->add_option("--workloads", import_arguments->workloads,
                   "FILE.jsonl: its workloads, one JSON object a line")
      ->check(CLI::ExistingFile);
  import_command->add_option("--out", import_arguments->out, "the task folder to write")
      ->required();
  import_command->add_option(
      "--config", import_arguments->config,
      "a configuration with [models] (docs/llm.md): the executor writes baseline.cpp from "
      "reference.py, kept only if it passes on every input set");
  import_command
      ->add_option("--workspace,--db", import_arguments->workspace,
                   "where the run that writes the baseline is kept (with --config)")
      ->capture_default_str();
  import_command->add_flag("--no-flops", import_arguments->no_flops,
                           "do not measure the FLOP counts from the reference (each shape starts "
                           "Python once)");
  import_command->callback([&table, import_arguments] {
    table.select([import_arguments] { return run_task_import(*import_arguments); });
  });

  auto flops_arguments = std::make_shared<FlopsArguments>();
  CLI::App* flops = task->add_subcommand(
      "flops", "Measure a task's FLOP counts from its reference.py and say them as expressions");
  flops->add_option("--task", flops_arguments->task_directory, "task directory")->required();
  flops->add_option("--workload", flops_arguments->workload,
                    "the shape to start from (default: 'small' where the task has one, else its "
                    "default)");
  flops->add_flag("--write", flops_arguments->write,
                  "set roofline.mm_flops and vec_flops in definition.json where they are 0");
  flops->callback([&table, flops_arguments] {
    table.select([flops_arguments] { return run_task_flops(*flops_arguments); });
  });
}

}  // namespace accelopt::cli
