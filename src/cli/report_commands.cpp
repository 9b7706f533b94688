// The commands that read runs back: runs, show, export, compare, report and cost. They open the
// workspace's database for reading only (a mistyped --workspace is an error, not a new database),
// and leave every word they print to report/.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/workspace.h"
#include "common/error.h"
#include "common/files.h"
#include "platform/registry.h"
#include "report/export.h"
#include "report/html_report.h"
#include "report/run_text.h"
#include "report/run_view.h"
#include "report/study_report.h"
#include "search/figures.h"
#include "search/run_settings.h"
#include "study/comparison.h"
#include "task/task.h"

namespace accelopt::cli {
namespace {

struct RunArguments {
  int64_t run_id = 0;
  std::string workspace = kDefaultWorkspace;
};

struct ExportArguments {
  int64_t run_id = 0;
  std::string workspace = kDefaultWorkspace;
  std::string out;
  std::string format = "accelopt";
  bool force = false;
};

struct ReportArguments {
  std::vector<int64_t> run_ids;
  std::string workspace = kDefaultWorkspace;
  std::vector<std::string> bench;  // files written by `accelopt bench --json`
  std::string out = "report.html";
  int64_t study = 0;      // --study N: the study's page (report/study_report.h)
  std::string csv, json;  // with --study: its cells' curves as CSV, everything as JSON
};

int run_runs(const std::string& workspace) {
  report::print_runs(std::cout, *open_workspace(workspace, Access::kRead), workspace);
  return 0;
}

int run_show(const RunArguments& arguments) {
  auto store = open_workspace(arguments.workspace, Access::kRead);
  report::print_show(std::cout, report::load_run_view(*store, arguments.run_id),
                     workspace_option(arguments.workspace));
  return 0;
}

int run_export(const ExportArguments& arguments) {
  report::ExportFormat format = report::parse_export_format(arguments.format);
  auto store = open_workspace(arguments.workspace, Access::kRead);
  report::ExportOverwrite overwrite =
      arguments.force ? report::ExportOverwrite::kForce : report::ExportOverwrite::kRefuse;
  std::string workspace = store::is_postgres_url(arguments.workspace)
                              ? arguments.workspace
                              : std::filesystem::absolute(arguments.workspace).string();
  std::cout << report::export_run(report::load_run_view(*store, arguments.run_id), arguments.out,
                                  format, workspace, overwrite)
            << "\n";
  return 0;
}

int run_cost(const RunArguments& arguments) {
  auto store = open_workspace(arguments.workspace, Access::kRead);
  if (!store->run(arguments.run_id)) {
    throw UserError(fmt::format("there is no run {} in {} (see `accelopt runs`)", arguments.run_id,
                                store::redact_url(arguments.workspace)));
  }
  std::string run = std::to_string(arguments.run_id);
  std::string agents = search::RunSettings::from_json(store->run(arguments.run_id)->config).agents;
  return report::print_cost(std::cout, run, agents, store->calls(run));
}

struct CompareArguments {
  std::vector<int64_t> run_ids;
  std::string workspace = kDefaultWorkspace;
  bool retime = false;
};

// Times `right`'s best kernel against `left`'s in one interleaved measurement, on the platform
// and workload the runs used: what ranks two runs when their stored figures cannot.
kernel::Verdict retime_bests(const report::RunView& left, const report::RunView& right) {
  const search::RunSettings& settings = left.settings;
  if (settings.task != right.settings.task || settings.workload != right.settings.workload ||
      settings.platform != right.settings.platform) {
    throw UserError(fmt::format(
        "--retime: runs {} and {} differ in task, workload or platform: nothing to time head to "
        "head",
        left.run.id, right.run.id));
  }
  auto left_best = left.best(), right_best = right.best();
  if (!left_best || !right_best) throw UserError("--retime: one of the runs has no best kernel");
  platform::PlatformChoice choice = platform::parse_platform_choice(
      settings.platform.empty() ? std::string("cpu") : settings.platform);
  task::Task task = task::load_task(settings.task_directory, choice.kernel_extension);
  platform::BuiltPlatform built = platform::make_platform(choice, {.progress = &std::cerr});
  platform::EvalRequest request;
  request.task = &task;
  request.workload = settings.workload;
  request.source = right.candidate(right_best->candidate)->source;
  request.anchor_source = left.candidate(left_best->candidate)->source;
  request.anchor_name = fmt::format("run {}'s best (#{})", left.run.id, left_best->candidate);
  request.timing = search::careful_timing(request.timing);
  std::cerr << fmt::format("re-timing run {}'s best against run {}'s, head to head\n", right.run.id,
                           left.run.id);
  return built.get().evaluate(request);
}

int run_compare(const CompareArguments& arguments) {
  auto store = open_workspace(arguments.workspace, Access::kRead);
  report::RunView left = report::load_run_view(*store, arguments.run_ids[0]);
  report::RunView right = report::load_run_view(*store, arguments.run_ids[1]);
  report::print_compare(std::cout, left, right);
  if (!arguments.retime) return 0;
  kernel::Verdict verdict = retime_bests(left, right);
  std::cout << "\n" << report::head_to_head_text(left, right, verdict) << "\n";
  if (verdict.machine_busy()) return kExitMachineBusy;
  return verdict.passed() ? 0 : 1;
}

void create_parent_folder(const std::filesystem::path& file) {
  std::filesystem::path parent = file.parent_path();
  if (parent.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(parent, error);
  if (error) {
    throw UserError(fmt::format("--out {}: cannot create {}: {}", file.string(), parent.string(),
                                error.message()));
  }
}

// report --study N [--csv F] [--json F]: the study's page and its exports for notebooks.
int run_study_report(const ReportArguments& arguments) {
  if (!arguments.run_ids.empty() || !arguments.bench.empty()) {
    throw UserError("report: give --study N, RUN ids or --bench FILE, one of them");
  }
  auto store = open_workspace(arguments.workspace, Access::kRead);
  report::StudyView view = report::load_study_view(*store, arguments.study);
  study::Answers answers = study::answer(view.results(), view.series, view.fraction);
  std::vector<std::pair<std::string, std::string>> files = {
      {arguments.out, report::study_html(view, answers)}};
  if (!arguments.csv.empty()) files.emplace_back(arguments.csv, report::study_csv(view));
  if (!arguments.json.empty()) {
    files.emplace_back(arguments.json, report::study_json(view, answers).dump(2) + "\n");
  }
  for (const auto& [file, text] : files) {
    create_parent_folder(file);
    write_file_atomic(file, text);
    std::cout << fmt::format("wrote {} ({} KiB)\n", file, text.size() / 1024);
  }
  return 0;
}

int run_report(const ReportArguments& arguments) {
  if (arguments.study > 0) return run_study_report(arguments);
  if (!arguments.csv.empty() || !arguments.json.empty()) {
    throw UserError("report: --csv and --json go with --study N");
  }
  std::string html;
  if (!arguments.bench.empty()) {
    if (!arguments.run_ids.empty())
      throw UserError("report: give RUN ids or --bench FILE, not both");
    std::vector<std::pair<std::string, Json>> results;
    for (const std::string& file : arguments.bench) {
      try {
        results.emplace_back(file, Json::parse(read_file(file)));
      } catch (const Json::exception& error) {
        throw UserError(
            fmt::format("{}: not the JSON of `accelopt bench --json`: {}", file, error.what()));
      }
      if (!results.back().second.is_array()) {
        throw UserError(
            fmt::format("{}: not the JSON of `accelopt bench --json` (an array of "
                        "rows)",
                        file));
      }
    }
    html = report::bench_html(results);
  } else {
    if (arguments.run_ids.empty())
      throw UserError("report: give one or more RUN ids, or --bench FILE");
    auto store = open_workspace(arguments.workspace, Access::kRead);
    std::vector<report::RunView> views;
    for (int64_t id : arguments.run_ids) views.push_back(report::load_run_view(*store, id));
    html = report::runs_html(views);
  }
  create_parent_folder(arguments.out);
  write_file_atomic(arguments.out, html);
  std::cout << fmt::format("wrote {} ({} KiB): open it in a browser; it needs no network\n",
                           arguments.out, html.size() / 1024);
  return 0;
}

CLI::Option* add_workspace(CLI::App& command, std::string& workspace) {
  return command
      .add_option("--workspace,--db", workspace, "workspace directory, or a postgresql:// database")
      ->capture_default_str();
}

}  // namespace

void register_report_commands(CLI::App& app, CommandTable& table) {
  auto workspace = std::make_shared<std::string>(kDefaultWorkspace);
  auto* runs = app.add_subcommand("runs", "List the runs of a workspace");
  add_workspace(*runs, *workspace);
  runs->callback(
      [&table, workspace] { table.select([workspace] { return run_runs(*workspace); }); });

  auto show_arguments = std::make_shared<RunArguments>();
  auto* show = app.add_subcommand(
      "show", "The story of a run: iterations, best kernels, lineage, memory, cost");
  show->add_option("RUN", show_arguments->run_id, "run id")->required();
  add_workspace(*show, show_arguments->workspace);
  show->callback([&table, show_arguments] {
    table.select([show_arguments] { return run_show(*show_arguments); });
  });

  auto export_arguments = std::make_shared<ExportArguments>();
  auto* export_command = app.add_subcommand(
      "export", "Write a run's best kernels and its traces (accelopt or FlashInfer Trace format)");
  export_command->add_option("RUN", export_arguments->run_id, "run id")->required();
  export_command->add_option("--out", export_arguments->out, "output directory")->required();
  export_command->add_option("--format", export_arguments->format, "accelopt or flashinfer-trace")
      ->capture_default_str()
      ->check(CLI::IsMember({"accelopt", "flashinfer-trace"}));
  export_command->add_flag("--force", export_arguments->force,
                           "write into a folder that holds another run's export");
  add_workspace(*export_command, export_arguments->workspace);
  export_command->callback([&table, export_arguments] {
    table.select([export_arguments] { return run_export(*export_arguments); });
  });

  auto compare_arguments = std::make_shared<CompareArguments>();
  auto* compare =
      app.add_subcommand("compare", "Two runs side by side, and a diff of their best kernels");
  compare->add_option("RUNS", compare_arguments->run_ids, "two run ids")->required()->expected(2);
  add_workspace(*compare, compare_arguments->workspace);
  compare->add_flag("--retime", compare_arguments->retime,
                    "time the two runs' best kernels head to head (their stored figures were "
                    "measured apart)");
  compare->callback([&table, compare_arguments] {
    table.select([compare_arguments] { return run_compare(*compare_arguments); });
  });

  auto report_arguments = std::make_shared<ReportArguments>();
  auto* report_command = app.add_subcommand(
      "report",
      "One self-contained HTML file with plots: runs (RUN...) or a bench result (--bench)");
  report_command->add_option("RUNS", report_arguments->run_ids, "run ids, one line each per plot");
  report_command->add_option(
      "--bench", report_arguments->bench,
      "a file written by `accelopt bench --json` (repeat to compare, e.g. baselines and "
      "--kernels DIR)");
  report_command->add_option("--out", report_arguments->out, "the HTML file to write")
      ->capture_default_str();
  report_command->add_option("--study", report_arguments->study,
                             "a study's page: its curves, final figures and comparisons");
  report_command->add_option("--csv", report_arguments->csv,
                             "with --study: every cell's curve as CSV");
  report_command->add_option("--json", report_arguments->json,
                             "with --study: the cells and the answers as JSON");
  add_workspace(*report_command, report_arguments->workspace);
  report_command->callback([&table, report_arguments] {
    table.select([report_arguments] { return run_report(*report_arguments); });
  });

  auto cost_arguments = std::make_shared<RunArguments>();
  auto* cost = app.add_subcommand("cost", "What a run's model calls cost, per role and per model");
  cost->add_option("RUN", cost_arguments->run_id, "run id")->required();
  add_workspace(*cost, cost_arguments->workspace);
  cost->callback([&table, cost_arguments] {
    table.select([cost_arguments] { return run_cost(*cost_arguments); });
  });
}

}  // namespace accelopt::cli
