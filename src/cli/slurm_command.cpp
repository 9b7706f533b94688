// `accelopt slurm --workers N --partition P --db postgresql://…`: writes an sbatch script that
// starts N workers as one job array (one worker per array task) and submits it; --dry-run prints
// the script instead. The workers reach the database and the task folders from the compute nodes,
// so both must be visible there (a shared file system, a reachable server). The password never
// enters the script (which Slurm keeps, and --dry-run prints): the workers read it from a file,
// the user's --db-password-file or one written beside the script from the URL's password, or
// libpq finds it in the environment sbatch passes on (PGPASSWORD, PGPASSFILE).
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <regex>

#include "cli/credentials.h"
#include "cli/scale_out_commands.h"
#include "common/error.h"
#include "common/files.h"
#include "common/subprocess.h"
#include "platform/registry.h"
#include "store/store.h"

namespace accelopt::cli {
namespace {

struct SlurmArguments {
  std::string db;
  std::string password_file;  // what the workers read the password from; empty: the URL's
  int workers = 1;
  std::string partition;
  std::string platform = "cpu";
  std::string time = "04:00:00";
  int cpus_per_worker = 2;   // one core times, the other compiles
  int gpus_per_worker = -1;  // default: what the platform says one worker holds
  double idle_exit_seconds = 600;
  int64_t max_jobs = 0;  // per worker; 0: no limit
  std::string script = "accelopt-workers.sbatch";
  std::string log_directory = "accelopt-worker-logs";
  bool dry_run = false;
};

// Single-quoted for the shell; refuses what cannot be quoted so (naming it without a password).
std::string shell_quoted(const std::string& text) {
  if (text.find('\'') != std::string::npos) {
    throw UserError("slurm: a single quote cannot appear in " + store::redact_url(text));
  }
  return "'" + text + "'";
}

// Slurm's --time forms: minutes, minutes:seconds, hours:minutes:seconds, days-hours,
// days-hours:minutes, days-hours:minutes:seconds, or "UNLIMITED"/"INFINITE".
void check_time(const std::string& time) {
  static const std::regex kForms(
      R"((\d+)|(\d+):(\d{1,2})|(\d+):(\d{1,2}):(\d{1,2})|(\d+)-(\d+)(:\d{1,2}(:\d{1,2})?)?)");
  if (time == "UNLIMITED" || time == "INFINITE" || std::regex_match(time, kForms)) return;
  throw UserError(
      fmt::format("slurm: --time {}: give minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS "
                  "(Slurm's forms)",
                  time));
}

std::string this_executable() {
  std::error_code error;
  std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw InternalError("slurm: cannot find the accelopt binary: " + error.message());
  return path.string();
}

// The script (the database's URL, the user's paths) and the password file: created 0600, for the
// user's eyes only, from the first byte (a file written then chmod-ed is readable in between).
void write_private_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path temporary = path.string() + ".tmp";
  std::filesystem::remove(temporary);
  int descriptor = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (descriptor < 0) throw UserError(errno_message("slurm: creating " + temporary.string()));
  bool written = ::write(descriptor, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  written = ::close(descriptor) == 0 && written;
  if (!written || ::rename(temporary.c_str(), path.c_str()) != 0) {
    std::string message = errno_message("slurm: writing " + path.string());
    std::filesystem::remove(temporary);
    throw UserError(message);
  }
}

// Where the workers find the password: the user's file, or `<script>.password` for a password
// given in the URL (written by run_slurm); empty when neither has one (libpq's environment).
std::filesystem::path workers_password_file(const SlurmArguments& arguments) {
  bool in_url = !store::url_password(arguments.db).empty();
  if (in_url && !arguments.password_file.empty()) {
    throw UserError("slurm: give the password once: in --db-password-file or in the URL");
  }
  if (!arguments.password_file.empty()) {
    read_password_file(arguments.password_file);  // refused now rather than by every worker
    return std::filesystem::absolute(arguments.password_file);
  }
  if (in_url) return std::filesystem::absolute(arguments.script + ".password");
  return {};
}

std::string sbatch_script(const SlurmArguments& arguments,
                          const std::filesystem::path& password_file) {
  if (arguments.workers < 1) throw UserError("slurm: --workers must be at least 1");
  check_time(arguments.time);
  // The registry checks the value (an evaluator's file, made absolute for the workers) and says
  // how many devices one worker holds.
  platform::PlatformChoice choice = platform::parse_platform_choice(arguments.platform);
  int gpus = arguments.gpus_per_worker >= 0 ? arguments.gpus_per_worker : choice.devices_per_worker;
  std::filesystem::path logs = std::filesystem::absolute(arguments.log_directory);
  std::string script = "#!/bin/bash\n";
  script += "#SBATCH --job-name=accelopt-worker\n";
  script += fmt::format("#SBATCH --array=0-{}\n", arguments.workers - 1);
  if (!arguments.partition.empty()) {
    script += fmt::format("#SBATCH --partition={}\n", arguments.partition);
  }
  script += "#SBATCH --ntasks=1\n";
  script += fmt::format("#SBATCH --cpus-per-task={}\n", arguments.cpus_per_worker);
  if (gpus > 0) script += fmt::format("#SBATCH --gres=gpu:{}\n", gpus);
  script += fmt::format("#SBATCH --time={}\n", arguments.time);
  script += fmt::format("#SBATCH --output={}/worker-%A_%a.log\n", logs.string());
  script +=
      "# One accelopt worker per array task; each claims evaluations from the shared queue.\n";
  std::string max_jobs =
      arguments.max_jobs > 0 ? fmt::format(" --max-jobs {}", arguments.max_jobs) : "";
  std::string password =
      password_file.empty() ? "" : " --db-password-file " + shell_quoted(password_file.string());
  script += fmt::format(
      "exec {} worker --db {}{} --platform {} --name \"slurm-${{SLURM_ARRAY_JOB_ID}}_"
      "${{SLURM_ARRAY_TASK_ID}}@$(hostname)\" --idle-exit-seconds {}{}\n",
      shell_quoted(this_executable()), shell_quoted(store::without_password(arguments.db)),
      password, shell_quoted(choice.value), arguments.idle_exit_seconds, max_jobs);
  return script;
}

int run_slurm(const SlurmArguments& arguments) {
  if (!store::is_postgres_url(arguments.db)) {
    throw UserError("slurm: workers share a PostgreSQL database: give --db postgresql://…");
  }
  std::filesystem::path password_file = workers_password_file(arguments);
  std::string script = sbatch_script(arguments, password_file);
  bool password_from_url = !password_file.empty() && arguments.password_file.empty();
  if (arguments.dry_run) {
    std::cout << script;
    if (password_from_url) {
      std::cout << fmt::format("# and {} (mode 0600), the password every worker reads: ***\n",
                               password_file.string());
    }
    return 0;
  }
  std::filesystem::path logs = std::filesystem::absolute(arguments.log_directory);
  std::error_code error;
  std::filesystem::create_directories(logs, error);
  if (error || !std::filesystem::is_directory(logs)) {
    throw UserError(fmt::format("slurm: cannot create the log folder {}: {}", logs.string(),
                                error ? error.message() : "not a folder"));
  }
  if (password_from_url) {
    write_private_file(password_file, store::url_password(arguments.db) + "\n");
  }
  write_private_file(arguments.script, script);
  SpawnOptions options;
  options.argv = {"/bin/sh", "-c", "exec sbatch --parsable " + shell_quoted(arguments.script)};
  for (char** variable = environ; *variable != nullptr; ++variable) {
    options.environment.emplace_back(*variable);  // sbatch needs the user's Slurm settings
  }
  CommandResult result = run_command(options, std::chrono::seconds(60));
  if (!result.status.exited || result.status.exit_code != 0) {
    throw UserError(fmt::format("slurm: sbatch {} {}: {}", arguments.script,
                                result.status.describe(),
                                store::redact(result.output, arguments.db)));
  }
  std::cout << fmt::format("submitted {} workers as Slurm job {} (script {}, logs in {})\n",
                           arguments.workers, result.output, arguments.script,
                           arguments.log_directory);
  return 0;
}

}  // namespace

void register_slurm_command(CLI::App& app, CommandTable& table) {
  auto arguments = std::make_shared<SlurmArguments>();
  auto* slurm = app.add_subcommand("slurm", "Submit accelopt workers to Slurm as an sbatch array");
  slurm->add_option("--db", arguments->db, "the shared database, postgresql://…")->required();
  slurm->add_option("--db-password-file", arguments->password_file,
                    "a file (mode 0600, on a file system the nodes see) whose first line is the "
                    "database's password: the workers read it there");
  slurm->add_option("--workers", arguments->workers, "how many workers (array tasks)")
      ->capture_default_str();
  slurm->add_option("--partition", arguments->partition, "Slurm partition");
  slurm->add_option("--platform", arguments->platform, platform::platform_forms())
      ->capture_default_str();
  slurm->add_option("--time", arguments->time, "time limit per worker")->capture_default_str();
  slurm->add_option("--cpus-per-worker", arguments->cpus_per_worker, "CPUs per worker")
      ->capture_default_str();
  slurm->add_option("--gpus-per-worker", arguments->gpus_per_worker,
                    "GPUs per worker (default: the platform's, 1 for cuda, else 0)");
  slurm
      ->add_option("--idle-exit-seconds", arguments->idle_exit_seconds,
                   "a worker stops after this long with nothing queued")
      ->capture_default_str();
  slurm
      ->add_option("--max-jobs", arguments->max_jobs,
                   "each worker stops after this many jobs (0: never)")
      ->capture_default_str();
  slurm->add_option("--script", arguments->script, "where to write the sbatch script")
      ->capture_default_str();
  slurm->add_option("--log-dir", arguments->log_directory, "the workers' log folder")
      ->capture_default_str();
  slurm->add_flag("--dry-run", arguments->dry_run, "print the script; submit nothing");
  slurm->callback(
      [&table, arguments] { table.select([arguments] { return run_slurm(*arguments); }); });
}

}  // namespace accelopt::cli
