// End to end (slow) against a throwaway PostgreSQL server and the real `accelopt` binary: two
// `accelopt worker` processes evaluate kernels queued by a RemotePlatform; a run on a
// postgresql:// workspace is killed with SIGKILL and resumed; the server restarted under a worker
// and a run; a worker stopped by SIGTERM mid-job; passwords kept out of every message; `accelopt
// slurm` writes its sbatch array, and submits two workers to a one-node Slurm the test starts.
#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <thread>

#include "common/files.h"
#include "common/json.h"
#include "common/subprocess.h"
#include "queue/evaluation_request.h"
#include "queue/queue.h"
#include "queue/remote_platform.h"
#include "queue/slurm_cluster.h"
#include "store/postgres_test_fixture.h"
#include "store/resumed_run_check.h"
#include "store/store.h"
#include "task/task.h"

namespace accelopt::cli {
namespace {

using namespace std::chrono_literals;

std::string binary() {
  return std::string(ACCELOPT_BINARY_DIR) + "/src/cli/accelopt";
}

// This process's environment: the workers find the compiler and the test's cache as we do.
std::vector<std::string> inherited_environment() {
  std::vector<std::string> environment;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    environment.emplace_back(*variable);
  }
  return environment;
}

// `cpus`: the cores it is pinned to (its evaluations time there); empty: any.
Process start_accelopt(const std::vector<std::string>& arguments, const std::filesystem::path& log,
                       const std::vector<int>& cpus = {}) {
  SpawnOptions options;
  options.cpus = cpus;
  options.argv = {binary()};
  options.argv.insert(options.argv.end(), arguments.begin(), arguments.end());
  options.environment = inherited_environment();
  options.output_file = log;
  return Process::spawn(options);
}

using ScaleOut = store::PostgresTest;

TEST_F(ScaleOut, TwoWorkerProcessesEvaluateQueuedKernels) {
  TempDir dir;
  queue::Queue::open(url());  // the table exists before the workers poll it
  std::vector<Process> workers;
  for (std::string name : {"one", "two"}) {
    workers.push_back(start_accelopt(
        {"worker", "--db", url(), "--platform", "cpu", "--name", name, "--idle-exit-seconds", "15"},
        dir.path() / (name + ".log")));
  }
  task::Task task = task::load_task(std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu");
  queue::RemotePlatformOptions options;
  options.url = url();
  options.timeout = 10min;
  queue::RemotePlatform remote(options);
  // Four evaluations at once, as the search's pipeline asks them.
  std::vector<platform::Verdict> verdicts(4);
  {
    std::vector<std::jthread> threads;
    for (size_t index = 0; index < verdicts.size(); ++index) {
      threads.emplace_back([&, index] {
        platform::EvalRequest request;
        request.task = &task;
        request.workload = "small";
        request.source = read_file(task.baseline_path()) + "\n// copy " + std::to_string(index);
        request.timing.target_half_width = 0.1;
        request.timing.budget_seconds = 1;
        request.timing.min_pairs = 4;
        verdicts[index] = remote.evaluate(request);
      });
    }
  }
  for (const platform::Verdict& verdict : verdicts) {
    EXPECT_TRUE(verdict.passed()) << verdict.to_json().dump(1);
  }
  for (Process& worker : workers) {
    ExitStatus status = worker.wait(2min);
    EXPECT_TRUE(status.exited && status.exit_code == 0) << status.describe();
  }
  std::string log = read_file(dir.path() / "one.log") + read_file(dir.path() / "two.log");
  // A harness failure on a worker (not the kernel's: two workers racing on the compile cache, say)
  // is retried once, so all four are done all the same.
  EXPECT_EQ(psql("SELECT count(*) FROM evaluation_queue WHERE state = 'done'"), "4") << log;
  EXPECT_EQ(psql("SELECT count(DISTINCT worker) FROM evaluation_queue"), "2") << log;
}

// optimize --remote-workers evaluates nothing itself: every kernel of the run goes through the
// queue to a worker process, and the run finishes as a local one would.
TEST_F(ScaleOut, OptimizeWithRemoteWorkersQueuesEveryEvaluation) {
  TempDir dir;
  queue::Queue::open(url());
  Process worker =
      start_accelopt({"worker", "--db", url(), "--name", "remote", "--idle-exit-seconds", "20"},
                     dir.path() / "worker.log");
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 1\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n");
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu";
  Process run =
      start_accelopt({"optimize", "--task", task, "--workload", "small", "--config",
                      config.string(), "--max-evaluations", "3", "--db", url(), "--remote-workers"},
                     dir.path() / "optimize.log");
  ExitStatus status = run.wait(10min);
  ASSERT_TRUE(status.exited && status.exit_code == 0)
      << read_file(dir.path() / "optimize.log") << read_file(dir.path() / "worker.log");
  auto store = store::Store::open(url());
  EXPECT_EQ(store->run(1)->config.value("remote_workers", false), true);
  EXPECT_GE(std::stoi(psql("SELECT count(*) FROM evaluation_queue "
                           "WHERE state = 'done' AND worker = 'remote'")),
            2)
      << read_file(dir.path() / "worker.log");
  EXPECT_EQ(psql("SELECT count(*) FROM evaluation_queue WHERE state <> 'done'"), "0");
  worker.wait(2min);

  // Without PostgreSQL there is no queue: a clear error, before any run starts.
  Process sqlite = start_accelopt(
      {"optimize", "--task", task, "--workspace", (dir.path() / "ws").string(), "--remote-workers"},
      dir.path() / "sqlite.log");
  ExitStatus refused = sqlite.wait(2min);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(read_file(dir.path() / "sqlite.log").find("--remote-workers needs a shared PostgreSQL"),
            std::string::npos)
      << read_file(dir.path() / "sqlite.log");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "ws")) << "a refused run made a workspace";
}

// Issue 25: with two workers connected, one run evaluates two candidates at once (their jobs
// overlap in time, on the server's clock), each job on one worker; the run finishes as with one.
TEST_F(ScaleOut, ARunWithTwoWorkersEvaluatesTwoCandidatesAtOnce) {
  TempDir dir;
  queue::Queue::open(url());
  std::vector<Process> workers;
  for (std::string name : {"left", "right"}) {
    workers.push_back(
        start_accelopt({"worker", "--db", url(), "--name", name, "--idle-exit-seconds", "10"},
                       dir.path() / (name + ".log")));
  }
  auto probe = queue::Queue::open(url());
  for (int wait = 0; wait < 300 && probe->live_workers("cpu") < 2; ++wait) {
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(probe->live_workers("cpu"), 2);
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 1\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n");
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu";
  Process run = start_accelopt({"optimize", "--task", task, "--workload", "small", "--config",
                                config.string(), "--db", url(), "--remote-workers"},
                               dir.path() / "optimize.log");
  ExitStatus status = run.wait(10min);
  std::string logs = read_file(dir.path() / "optimize.log") + read_file(dir.path() / "left.log") +
                     read_file(dir.path() / "right.log");
  ASSERT_TRUE(status.exited && status.exit_code == 0) << logs;
  EXPECT_NE(logs.find("2 `accelopt worker --platform cpu` connected: up to 2 evaluations at once"),
            std::string::npos)
      << logs;
  EXPECT_EQ(psql("SELECT state FROM runs WHERE id = 1"), "finished");
  EXPECT_GE(std::stoi(psql("SELECT count(*) FROM evaluation_queue a JOIN evaluation_queue b ON "
                           "a.id < b.id AND a.claimed_at < b.finished_at AND "
                           "b.claimed_at < a.finished_at AND a.worker <> b.worker")),
            1)
      << "no two evaluations of the run overlapped\n"
      << logs;
  EXPECT_EQ(psql("SELECT count(*) FROM evaluation_queue WHERE state <> 'done'"), "0");
  for (Process& worker : workers) worker.wait(2min);
}

// Issue 25: two runs on one PostgreSQL database, at the same time, with the same seed, find the
// same lessons; the shared memory keeps each once, the other run's finding as its evidence.
TEST_F(ScaleOut, ConcurrentRunsSharingAMemoryStoreEachLessonOnce) {
  TempDir dir;
  store::Store::open(url());  // migrated once, before the runs race
  std::filesystem::path config = dir.path() / "accelopt.toml";
  // A low threshold: every first-iteration rewrite is remembered, whatever this machine's noise,
  // and both runs (the same seed) make the same ones from the same baseline.
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 1\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n"
                    "[memory]\npositive_threshold = 0.5\n");
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu";
  // Each run on a core of its own (where the machine has two), as two machines would be.
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  std::vector<Process> runs;
  for (int index : {0, 1}) {
    std::vector<int> pinned;
    if (cores >= 2) pinned = {index};
    runs.push_back(start_accelopt({"optimize", "--task", task, "--workload", "small", "--config",
                                   config.string(), "--seed", "7", "--db", url()},
                                  dir.path() / fmt::format("run{}.log", index), pinned));
  }
  std::string logs;
  for (Process& run : runs) {
    ExitStatus status = run.wait(10min);
    EXPECT_TRUE(status.exited && status.exit_code == 0) << status.describe();
  }
  logs = read_file(dir.path() / "run0.log") + read_file(dir.path() / "run1.log");
  auto entries = store::Store::open(url())->memory_entries();
  ASSERT_FALSE(entries.empty()) << logs;
  std::set<std::string> rewrites, lessons;
  size_t findings = 0;
  for (const auto& entry : entries) {
    if (!entry.rewrite_hash.empty()) {
      EXPECT_TRUE(rewrites.insert(entry.rewrite_hash).second) << "a rewrite stored twice";
    }
    std::string words = entry.insight.value("title", "") + "\n" +
                        entry.insight.value("description", "") + (entry.positive ? "+" : "-");
    EXPECT_TRUE(lessons.insert(words).second) << "a lesson stored twice: " << words;
    findings += 1 + entry.evidence.size();
  }
  // The same seed, task and machine: the runs' first iterations find the same rewrites.
  EXPECT_GT(findings, entries.size()) << "no lesson was found by both runs\n" << logs;
}

// kill -9 in the middle of a run whose workspace is a PostgreSQL database, then `accelopt
// resume`: what was recorded stays as it was, nothing is evaluated twice, and the run finishes.
TEST_F(ScaleOut, ARunKilledAndResumedAgainstPostgres) {
  TempDir dir;
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 3\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n");
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/matmul";
  Process run = start_accelopt({"optimize", "--task", task, "--workload", "small", "--config",
                                config.string(), "--workspace", url()},
                               dir.path() / "killed.log");
  size_t before_kill = 0;
  for (int wait = 0; wait < 1200 && before_kill < 4; ++wait) {
    std::this_thread::sleep_for(100ms);
    if (run.try_wait()) break;
    before_kill = store::Store::open(url())->candidates(1).size();
  }
  ASSERT_FALSE(run.try_wait().has_value()) << read_file(dir.path() / "killed.log");
  run.kill_group();
  run.wait(10s);
  store::RecordedRun recorded = store::record_interrupted_run(url(), 1);
  ASSERT_GE(recorded.candidates.size(), 4u);

  Process resume = start_accelopt({"resume", "1", "--db", url()}, dir.path() / "resume.log");
  ExitStatus status = resume.wait(10min);
  ASSERT_TRUE(status.exited && status.exit_code == 0) << read_file(dir.path() / "resume.log");
  store::expect_resume_kept_everything(url(), 1, recorded);
}

CommandResult accelopt_command(const std::vector<std::string>& arguments,
                               const std::vector<std::string>& extra_environment = {}) {
  SpawnOptions options;
  options.argv = {binary()};
  options.argv.insert(options.argv.end(), arguments.begin(), arguments.end());
  // First: of two entries with one name, getenv finds the first.
  options.environment = extra_environment;
  std::vector<std::string> inherited = inherited_environment();
  options.environment.insert(options.environment.end(), inherited.begin(), inherited.end());
  return run_command(options, 60s);
}

// PostgreSQL goes down for a few seconds under a live worker and a live `optimize
// --remote-workers`: both reconnect and carry on, and the run finishes.
TEST_F(ScaleOut, AWorkerAndARunCarryOnAcrossADatabaseRestart) {
  TempDir dir;
  queue::Queue::open(url());
  Process worker =
      start_accelopt({"worker", "--db", url(), "--name", "steady", "--idle-exit-seconds", "20"},
                     dir.path() / "worker.log");
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 2\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n");
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu";
  Process run =
      start_accelopt({"optimize", "--task", task, "--workload", "small", "--config",
                      config.string(), "--max-evaluations", "4", "--db", url(), "--remote-workers"},
                     dir.path() / "optimize.log");
  for (int wait = 0; wait < 1200; ++wait) {
    std::this_thread::sleep_for(100ms);
    if (run.try_wait()) break;
    if (psql("SELECT count(*) FROM evaluation_queue WHERE state = 'done'") != "0") break;
  }
  ASSERT_FALSE(run.try_wait().has_value()) << read_file(dir.path() / "optimize.log");
  cluster().stop_server();
  std::this_thread::sleep_for(4s);
  cluster().start_server();
  ExitStatus status = run.wait(10min);
  std::string logs = read_file(dir.path() / "optimize.log") + read_file(dir.path() / "worker.log");
  ASSERT_TRUE(status.exited && status.exit_code == 0) << logs;
  EXPECT_EQ(psql("SELECT state FROM runs WHERE id = 1").rfind("running", 0), std::string::npos);
  EXPECT_GE(std::stoi(psql("SELECT count(*) FROM evaluation_queue WHERE state = 'done' AND "
                           "worker = 'steady' AND finished_at > (SELECT min(finished_at) FROM "
                           "evaluation_queue) ")),
            1)
      << logs;
  ExitStatus worker_status = worker.wait(2min);
  EXPECT_TRUE(worker_status.exited && worker_status.exit_code == 0)
      << worker_status.describe() << logs;
}

// SIGTERM (Slurm's time limit, scancel) in the middle of an evaluation: the worker abandons it,
// hands the job back at once (the attempt not counted) and exits 143.
TEST_F(ScaleOut, AWorkerStoppedMidJobHandsItBack) {
  TempDir dir;
  auto queue = queue::Queue::open(url());
  task::Task task = task::load_task(std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu");
  platform::EvalRequest request;
  request.task = &task;
  request.workload = "small";
  request.source = read_file(task.baseline_path());
  request.timing.target_half_width = 0.0001;  // never met: the whole budget is spent
  request.timing.budget_seconds = 120;
  int64_t id = queue->enqueue("cpu", queue::request_to_json(request));
  Process worker =
      start_accelopt({"worker", "--db", url(), "--name", "stopped"}, dir.path() / "worker.log");
  for (int wait = 0; wait < 600 && queue->outcome(id)->state != queue::JobState::kLeased; ++wait) {
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(queue->outcome(id)->state, queue::JobState::kLeased)
      << read_file(dir.path() / "worker.log");
  std::this_thread::sleep_for(1s);  // well into the evaluation
  auto stopped_at = std::chrono::steady_clock::now();
  ::kill(worker.pid(), SIGTERM);
  ExitStatus status = worker.wait(30s);
  EXPECT_LT(std::chrono::steady_clock::now() - stopped_at, 15s);
  EXPECT_EQ(status.exit_code, 143) << status.describe() << read_file(dir.path() / "worker.log");
  queue::Outcome outcome = *queue->outcome(id);
  EXPECT_EQ(outcome.state, queue::JobState::kQueued) << read_file(dir.path() / "worker.log");
  EXPECT_EQ(outcome.attempts, 0);
  EXPECT_NE(read_file(dir.path() / "worker.log").find("handed back"), std::string::npos);
}

// A password in the URL is never printed: not by `runs` on an empty database, not in libpq's own
// complaint about the URL, not in `slurm`'s refusal.
TEST_F(ScaleOut, APasswordInTheUrlIsNeverPrinted) {
  std::string secret = url() + "&password=hunter2hunter2";
  CommandResult runs = accelopt_command({"runs", "--db", secret});
  EXPECT_EQ(runs.status.exit_code, 0) << runs.output;
  EXPECT_NE(runs.output.find("no runs in"), std::string::npos) << runs.output;
  EXPECT_EQ(runs.output.find("hunter2"), std::string::npos) << runs.output;
  CommandResult escape =
      accelopt_command({"runs", "--db", "postgresql://me:hunter2%zzhunter2@localhost/none"});
  EXPECT_EQ(escape.status.exit_code, 2) << escape.output;
  EXPECT_EQ(escape.output.find("hunter2"), std::string::npos) << escape.output;
  // A usage error quotes the arguments it did not expect, a URL among them.
  CommandResult usage =
      accelopt_command({"runs", "stray", "postgresql://me:hunter2hunter2@localhost/none"});
  EXPECT_EQ(usage.status.exit_code, 2) << usage.output;
  EXPECT_NE(usage.output.find("postgresql://me@localhost/none"), std::string::npos) << usage.output;
  EXPECT_EQ(usage.output.find("hunter2"), std::string::npos) << usage.output;
  // The script never holds the password, so a quote in it is no longer refused.
  CommandResult quote = accelopt_command(
      {"slurm", "--dry-run", "--db", "postgresql://me:hunter2'hunter2@db.example/ao"});
  EXPECT_EQ(quote.status.exit_code, 0) << quote.output;
  EXPECT_EQ(quote.output.find("hunter2"), std::string::npos) << quote.output;
  CommandResult refused =
      accelopt_command({"slurm", "--dry-run", "--db", "postgresql://me@db.example/o'clock"});
  EXPECT_EQ(refused.status.exit_code, 2) << refused.output;
}

// Every process of the machine whose command line holds `secret`: "pid: command line".
std::vector<std::string> command_lines_holding(const std::string& secret) {
  std::vector<std::string> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string line;
    try {
      line = read_file(entry.path() / "cmdline");
    } catch (const std::exception&) {
      continue;  // gone meanwhile
    }
    std::replace(line.begin(), line.end(), '\0', ' ');
    if (line.find(secret) != std::string::npos) found.push_back(pid + ": " + line);
  }
  return found;
}

// Issue 46: the password reaches the workers and the run from a file (--db-password-file), and is
// on no command line (every /proc/*/cmdline, read again and again while the run and two workers
// live), in no output and in no log: the workers', the run's, `show`'s, and `slurm --dry-run`'s,
// which shows `***`. A worker given the password in its URL hides it from its own command line
// before it connects. The server asks this role for its password: without it, no connection.
TEST_F(ScaleOut, ThePasswordIsOnNoCommandLineScreenOrLog) {
  TempDir dir;
  const std::string password = "Pw46-" + std::to_string(::getpid()) + "-not-for-eyes";
  std::string database = url().substr(std::string("postgresql:///").size());
  database = database.substr(0, database.find('?'));
  std::string plain = cluster().password_url(database, "accelopt_guarded", password);
  std::filesystem::path file = dir.path() / "password";
  write_file_atomic(file, password + "\n");
  std::filesystem::permissions(
      file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::vector<std::string> outputs;

  CommandResult without = accelopt_command({"runs", "--db", plain});
  EXPECT_EQ(without.status.exit_code, 2) << without.output;
  EXPECT_NE(without.output.find("no password supplied"), std::string::npos) << without.output;
  outputs.push_back(without.output);

  std::filesystem::path open_file = dir.path() / "readable-by-all";
  write_file_atomic(open_file, password + "\n");
  std::filesystem::permissions(open_file, std::filesystem::perms::owner_read |
                                              std::filesystem::perms::owner_write |
                                              std::filesystem::perms::others_read);
  CommandResult too_open =
      accelopt_command({"runs", "--db", plain, "--db-password-file", open_file.string()});
  EXPECT_EQ(too_open.status.exit_code, 2) << too_open.output;
  EXPECT_NE(too_open.output.find("chmod 600"), std::string::npos) << too_open.output;
  outputs.push_back(too_open.output);

  auto probe = queue::Queue::open(plain + "&password=" + password);
  Process from_file = start_accelopt({"worker", "--db", plain, "--db-password-file", file.string(),
                                      "--name", "from-file", "--idle-exit-seconds", "60"},
                                     dir.path() / "from-file.log");
  Process in_url = start_accelopt({"worker", "--db", plain + "&password=" + password, "--name",
                                   "in-url", "--idle-exit-seconds", "60"},
                                  dir.path() / "in-url.log");
  // A worker probes the machine's peaks first (once per CPU model, under load longer).
  for (int wait = 0; wait < 1800 && probe->live_workers("cpu") < 2; ++wait) {
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(probe->live_workers("cpu"), 2)
      << read_file(dir.path() / "from-file.log") << read_file(dir.path() / "in-url.log");
  std::string masked = read_file(fmt::format("/proc/{}/cmdline", in_url.pid()));
  EXPECT_NE(masked.find("&password=***"), std::string::npos) << masked;

  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 1\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n");
  Process run =
      start_accelopt({"optimize", "--task", std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu",
                      "--workload", "small", "--config", config.string(), "--max-evaluations", "3",
                      "--db", plain, "--db-password-file", file.string(), "--remote-workers"},
                     dir.path() / "optimize.log");
  std::vector<std::string> seen;
  int looks = 0;
  std::optional<ExitStatus> status;
  auto deadline = std::chrono::steady_clock::now() + 10min;
  while (!(status = run.try_wait()) && std::chrono::steady_clock::now() < deadline) {
    std::vector<std::string> holding = command_lines_holding(password);
    seen.insert(seen.end(), holding.begin(), holding.end());
    ++looks;
    std::this_thread::sleep_for(100ms);
  }
  if (!status) status = run.wait(1s);
  EXPECT_TRUE(status->exited && status->exit_code == 0)
      << status->describe() << read_file(dir.path() / "optimize.log");
  EXPECT_GT(looks, 0);
  EXPECT_TRUE(seen.empty()) << fmt::format("{}", fmt::join(seen, "\n"));
  EXPECT_GE(std::stoi(psql("SELECT count(*) FROM evaluation_queue WHERE state = 'done'")), 2);

  CommandResult show =
      accelopt_command({"show", "1", "--db", plain, "--db-password-file", file.string()});
  EXPECT_EQ(show.status.exit_code, 0) << show.output;
  EXPECT_NE(show.output.find("remote evaluations: "), std::string::npos) << show.output;
  outputs.push_back(show.output);
  CommandResult dry_run =
      accelopt_command({"slurm", "--dry-run", "--db", plain + "&password=" + password});
  EXPECT_EQ(dry_run.status.exit_code, 0) << dry_run.output;
  EXPECT_NE(dry_run.output.find("--db-password-file '"), std::string::npos) << dry_run.output;
  EXPECT_NE(dry_run.output.find("the password every worker reads: ***"), std::string::npos)
      << dry_run.output;
  outputs.push_back(dry_run.output);
  CommandResult given =
      accelopt_command({"slurm", "--dry-run", "--db", plain, "--db-password-file", file.string()});
  EXPECT_NE(given.output.find("--db-password-file '" + file.string() + "'"), std::string::npos)
      << given.output;
  outputs.push_back(given.output);

  for (Process* worker : {&from_file, &in_url}) {
    ::kill(worker->pid(), SIGTERM);
    worker->wait(30s);
  }
  for (const char* log : {"from-file.log", "in-url.log", "optimize.log"}) {
    outputs.push_back(read_file(dir.path() / log));
  }
  for (const std::string& output : outputs) {
    EXPECT_EQ(output.find(password), std::string::npos) << output;
  }
}

// A port that accepts connections but never answers: the default connect_timeout (10 s) ends the
// wait with a clear error instead of a hang.
TEST(ScaleOutTimeout, AServerThatNeverAnswersFailsWithinTheConnectTimeout) {
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 16), 0);  // the kernel completes handshakes; nobody reads
  socklen_t length = sizeof address;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  auto started = std::chrono::steady_clock::now();
  CommandResult result = accelopt_command(
      {"runs", "--db", fmt::format("postgresql://me@127.0.0.1:{}/none", ntohs(address.sin_port))},
      {"PGCONNECT_TIMEOUT="});
  auto took = std::chrono::steady_clock::now() - started;
  ::close(listener);
  EXPECT_EQ(result.status.exit_code, 2) << result.output;
  EXPECT_LT(took, 40s) << result.output;
}

TEST(Slurm, DryRunPrintsAnArrayOfWorkers) {
  CommandResult result = accelopt_command({"slurm", "--dry-run", "--workers", "3", "--partition",
                                           "debug", "--db", "postgresql://queue.example/ao"});
  ASSERT_EQ(result.status.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("#SBATCH --array=0-2\n"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("#SBATCH --partition=debug\n"), std::string::npos);
  EXPECT_NE(result.output.find("worker --db 'postgresql://queue.example/ao' --platform 'cpu'"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("--gres"), std::string::npos);
  EXPECT_EQ(result.output.find("--max-jobs"), std::string::npos);
  CommandResult limited = accelopt_command(
      {"slurm", "--dry-run", "--max-jobs", "1", "--db", "postgresql://queue.example/ao"});
  EXPECT_NE(limited.output.find("--idle-exit-seconds 600 --max-jobs 1\n"), std::string::npos)
      << limited.output;
  CommandResult cuda = accelopt_command({"slurm", "--dry-run", "--workers", "1", "--platform",
                                         "cuda", "--db", "postgresql://queue.example/ao"});
  EXPECT_NE(cuda.output.find("#SBATCH --gres=gpu:1\n"), std::string::npos) << cuda.output;
  CommandResult sqlite = accelopt_command({"slurm", "--dry-run", "--db", ".accelopt"});
  EXPECT_EQ(sqlite.status.exit_code, 2) << sqlite.output;
  for (std::string time : {"30", "90:00", "04:00:00", "2-12", "1-00:30:00", "UNLIMITED"}) {
    CommandResult good = accelopt_command(
        {"slurm", "--dry-run", "--time", time, "--db", "postgresql://queue.example/ao"});
    EXPECT_EQ(good.status.exit_code, 0) << time << ": " << good.output;
  }
  for (std::string time : {"4h", "04:00:00:00", "", "1-", "tomorrow"}) {
    CommandResult bad = accelopt_command(
        {"slurm", "--dry-run", "--time", time, "--db", "postgresql://queue.example/ao"});
    EXPECT_EQ(bad.status.exit_code, 2) << time << ": " << bad.output;
    EXPECT_NE(bad.output.find("--time"), std::string::npos) << bad.output;
  }
}

// A one-node Slurm of the test's own (queue/slurm_cluster.h): `accelopt slurm` submits two
// workers through the real sbatch, they evaluate the two queued jobs, one each, and the array
// job ends. The URL's password goes to a file beside the script, which the workers read. Where
// Slurm cannot start here (not root, not installed) the test says why.
TEST_F(ScaleOut, SlurmRunsTwoWorkers) {
  std::string why;
  std::unique_ptr<queue::SlurmCluster> slurm = queue::SlurmCluster::start(why);
  if (slurm == nullptr) GTEST_SKIP() << why;
  TempDir dir;
  auto queue = queue::Queue::open(url());
  task::Task task = task::load_task(std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu");
  std::vector<int64_t> ids;
  for (int index = 0; index < 2; ++index) {
    platform::EvalRequest request;
    request.task = &task;
    request.workload = "small";
    request.source = read_file(task.baseline_path()) + "\n// copy " + std::to_string(index);
    request.measure_time = false;
    ids.push_back(queue->enqueue("cpu", queue::request_to_json(request)));
  }
  std::filesystem::path logs = dir.path() / "logs";
  const std::string password = "slurm-pw-46";  // the test server trusts the socket: only carried
  CommandResult submitted = accelopt_command(
      {"slurm", "--workers", "2", "--partition", slurm->partition(), "--cpus-per-worker", "1",
       "--db", url() + "&password=" + password, "--max-jobs", "1", "--idle-exit-seconds", "30",
       "--script", (dir.path() / "workers.sbatch").string(), "--log-dir", logs.string()},
      {slurm->environment_entry()});
  ASSERT_EQ(submitted.status.exit_code, 0) << submitted.output;
  // The password is not in the script (Slurm keeps a copy) but in a file beside it, which the
  // workers read; both for the user's eyes only.
  for (const char* file : {"workers.sbatch", "workers.sbatch.password"}) {
    EXPECT_EQ(
        std::filesystem::status(dir.path() / file).permissions() & std::filesystem::perms::all,
        std::filesystem::perms::owner_read | std::filesystem::perms::owner_write)
        << file;
  }
  EXPECT_EQ(read_file(dir.path() / "workers.sbatch").find(password), std::string::npos);
  EXPECT_EQ(read_file(dir.path() / "workers.sbatch.password"), password + "\n");
  EXPECT_EQ(submitted.output.find(password), std::string::npos) << submitted.output;
  std::string job = submitted.output.substr(submitted.output.find("Slurm job ") + 10);
  job = job.substr(0, job.find_first_not_of("0123456789"));
  ASSERT_FALSE(job.empty()) << submitted.output;

  // A worker leaves after one job (--max-jobs 1), so each array task evaluates one, whichever
  // starts first, and both end and succeed; --idle-exit-seconds only ends a task left without one.
  auto completed_tasks = [&] {
    std::string jobs = slurm->command({"scontrol", "-o", "show", "job", job}).output;
    size_t count = 0;
    for (size_t at = jobs.find("JobState=COMPLETED"); at != std::string::npos;
         at = jobs.find("JobState=COMPLETED", at + 1)) {
      ++count;
    }
    return count;
  };
  for (int wait = 0; wait < 240 && completed_tasks() < 2; ++wait) {
    std::this_thread::sleep_for(250ms);
  }
  std::string worker_logs;
  for (const auto& entry : std::filesystem::directory_iterator(logs)) {
    worker_logs += entry.path().filename().string() + ":\n" + read_file(entry.path());
  }
  EXPECT_EQ(completed_tasks(), 2u)
      << slurm->command({"scontrol", "show", "job", job}).output << worker_logs;
  EXPECT_EQ(worker_logs.find(password), std::string::npos) << worker_logs;
  for (const char* task_id : {"0", "1"}) {
    EXPECT_TRUE(std::filesystem::exists(logs / ("worker-" + job + "_" + task_id + ".log")))
        << worker_logs;
  }
  std::set<std::string> workers;
  for (int64_t id : ids) {
    queue::Outcome outcome = *queue->outcome(id);
    EXPECT_EQ(outcome.state, queue::JobState::kDone) << worker_logs;
    EXPECT_TRUE(outcome.worker.starts_with("slurm-" + job + "_")) << outcome.worker;
    workers.insert(outcome.worker);
  }
  EXPECT_EQ(workers.size(), 2u) << worker_logs;
}

}  // namespace
}  // namespace accelopt::cli
