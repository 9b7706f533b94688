// The queue's table, and why it looks like this.
//
// One row per evaluation. `state` and `attempts` make the state machine of queue.h; `worker` and
// `lease_until` are the lease; the request and the verdict are JSON text, as the store keeps its
// records. A partial index over the queued rows keeps a claim cheap however many jobs are done.
// The table lives beside the store's tables in an accelopt database; it is created with IF NOT
// EXISTS under an advisory lock, so workers starting together create it once.
#include "queue/queue.h"

#include <fmt/format.h>

#include <mutex>
#include <pqxx/pqxx>

#include "common/error.h"
#include "store/store.h"

namespace accelopt::queue {
namespace {

constexpr int64_t kTableLock = 0x41435155;  // "ACQU"

const char* const kCreateTable = R"sql(
CREATE TABLE IF NOT EXISTS evaluation_queue (
  id BIGSERIAL PRIMARY KEY,
  platform TEXT NOT NULL,
  request TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'leased', 'done', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  worker TEXT,
  lease_until TIMESTAMPTZ,
  result TEXT,
  error TEXT NOT NULL DEFAULT '',
  enqueued_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  claimed_at TIMESTAMPTZ,
  finished_at TIMESTAMPTZ);
CREATE INDEX IF NOT EXISTS evaluation_queue_ready ON evaluation_queue (platform, id)
  WHERE state = 'queued';
)sql";

double seconds(std::chrono::milliseconds duration) {
  return std::chrono::duration<double>(duration).count();
}

JobState parse_state(const std::string& name) {
  if (name == "queued") return JobState::kQueued;
  if (name == "leased") return JobState::kLeased;
  if (name == "done") return JobState::kDone;
  if (name == "failed") return JobState::kFailed;
  throw InternalError("evaluation_queue: unknown state " + name);
}

}  // namespace

std::string_view state_name(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "queued";
    case JobState::kLeased:
      return "leased";
    case JobState::kDone:
      return "done";
    case JobState::kFailed:
      return "failed";
  }
  return "unknown";
}

struct Queue::Impl {
  std::string url;
  std::unique_ptr<pqxx::connection> connection;
  std::mutex mutex;  // one connection: one statement at a time

  // Runs `body(work)` in one transaction and commits; errors carry what was being done.
  template <typename Body>
  auto transaction(const char* what, Body&& body) {
    std::lock_guard lock(mutex);
    try {
      pqxx::work work(*connection);
      auto result = body(work);
      work.commit();
      return result;
    } catch (const pqxx::broken_connection& error) {
      throw UserError(
          fmt::format("evaluation queue: {}: the connection to the database was "
                      "lost: {}",
                      what, error.what()));
    } catch (const pqxx::sql_error& error) {
      throw InternalError(fmt::format("evaluation queue: {}: {}", what, error.what()));
    }
  }
};

Queue::Queue(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Queue::~Queue() = default;

std::unique_ptr<Queue> Queue::open(const std::string& url) {
  if (!url.starts_with("postgresql://") && !url.starts_with("postgres://")) {
    throw UserError("the evaluation queue lives in PostgreSQL: give --db postgresql://…, not " +
                    store::redact_url(url));
  }
  store::Store::open(url);  // an accelopt database, migrated
  auto impl = std::make_unique<Impl>();
  impl->url = url;
  try {
    impl->connection = std::make_unique<pqxx::connection>(url);
  } catch (const std::exception& error) {
    throw UserError(fmt::format("evaluation queue: connecting: {}", error.what()));
  }
  impl->transaction("creating the table", [](pqxx::work& work) {
    work.exec("SET LOCAL client_min_messages = warning");
    work.exec_params("SELECT pg_advisory_xact_lock($1)", kTableLock);
    work.exec(kCreateTable);
    return 0;
  });
  return std::unique_ptr<Queue>(new Queue(std::move(impl)));
}

int64_t Queue::enqueue(const std::string& platform, const Json& request, int max_attempts) {
  return impl_->transaction("enqueueing", [&](pqxx::work& work) {
    return work
        .exec_params1(
            "INSERT INTO evaluation_queue (platform, request, max_attempts) "
            "VALUES ($1, $2, $3) RETURNING id",
            platform, request.dump(), max_attempts)[0]
        .as<int64_t>();
  });
}

std::optional<Job> Queue::claim(const std::string& worker, const std::string& platform,
                                std::chrono::milliseconds lease) {
  expire_leases();
  return impl_->transaction("claiming", [&](pqxx::work& work) -> std::optional<Job> {
    pqxx::result rows = work.exec_params(
        "UPDATE evaluation_queue SET state = 'leased', attempts = attempts + 1, worker = $1, "
        "lease_until = now() + $3::double precision * interval '1 second', claimed_at = now() "
        "WHERE id = (SELECT id FROM evaluation_queue WHERE state = 'queued' AND platform = $2 "
        "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) "
        "RETURNING id, request, attempts",
        worker, platform, seconds(lease));
    if (rows.empty()) return std::nullopt;
    Job job;
    job.id = rows[0][0].as<int64_t>();
    job.platform = platform;
    job.request = Json::parse(rows[0][1].as<std::string>());
    job.attempt = rows[0][2].as<int>();
    job.worker = worker;
    return job;
  });
}

bool Queue::heartbeat(const Job& job, std::chrono::milliseconds lease) {
  return impl_->transaction("renewing a lease", [&](pqxx::work& work) {
    return work.exec_params(
                   "UPDATE evaluation_queue SET lease_until = now() + "
                   "$4::double precision * interval '1 second' WHERE id = $1 AND "
                   "worker = $2 AND attempts = $3 AND state = 'leased'",
                   job.id, job.worker, job.attempt, seconds(lease))
               .affected_rows() == 1;
  });
}

bool Queue::complete(const Job& job, const Json& result) {
  return impl_->transaction("completing", [&](pqxx::work& work) {
    return work.exec_params(
                   "UPDATE evaluation_queue SET state = 'done', result = $4, "
                   "lease_until = NULL, finished_at = now() WHERE id = $1 AND "
                   "worker = $2 AND attempts = $3 AND state = 'leased'",
                   job.id, job.worker, job.attempt, result.dump())
               .affected_rows() == 1;
  });
}

bool Queue::fail(const Job& job, const std::string& error) {
  return impl_->transaction("failing", [&](pqxx::work& work) {
    return work.exec_params(
                   "UPDATE evaluation_queue SET state = CASE WHEN attempts < max_attempts "
                   "THEN 'queued' ELSE 'failed' END, error = $4, lease_until = NULL, "
                   "finished_at = CASE WHEN attempts < max_attempts THEN NULL ELSE now() END "
                   "WHERE id = $1 AND worker = $2 AND attempts = $3 AND state = 'leased'",
                   job.id, job.worker, job.attempt, fmt::format("{}: {}", job.worker, error))
               .affected_rows() == 1;
  });
}

int64_t Queue::expire_leases() {
  return impl_->transaction("expiring leases", [&](pqxx::work& work) {
    return static_cast<int64_t>(
        work.exec("UPDATE evaluation_queue SET state = CASE WHEN attempts < max_attempts "
                  "THEN 'queued' ELSE 'failed' END, error = 'the lease of ' || worker || "
                  "' expired during attempt ' || attempts, lease_until = NULL, "
                  "finished_at = CASE WHEN attempts < max_attempts THEN NULL ELSE now() END "
                  "WHERE state = 'leased' AND lease_until < now()")
            .affected_rows());
  });
}

std::optional<Outcome> Queue::outcome(int64_t id) {
  return impl_->transaction("reading a job", [&](pqxx::work& work) -> std::optional<Outcome> {
    pqxx::result rows = work.exec_params(
        "SELECT state, result, error, attempts, coalesce(worker, '') FROM evaluation_queue "
        "WHERE id = $1",
        id);
    if (rows.empty()) return std::nullopt;
    Outcome outcome;
    outcome.state = parse_state(rows[0][0].as<std::string>());
    if (!rows[0][1].is_null()) outcome.result = Json::parse(rows[0][1].as<std::string>());
    outcome.error = rows[0][2].as<std::string>();
    outcome.attempts = rows[0][3].as<int>();
    outcome.worker = rows[0][4].as<std::string>();
    return outcome;
  });
}

QueueCounts Queue::counts() {
  return impl_->transaction("counting jobs", [&](pqxx::work& work) {
    QueueCounts counts;
    for (const pqxx::row& row :
         work.exec("SELECT state, count(*) FROM evaluation_queue GROUP BY state")) {
      int64_t count = row[1].as<int64_t>();
      switch (parse_state(row[0].as<std::string>())) {
        case JobState::kQueued:
          counts.queued = count;
          break;
        case JobState::kLeased:
          counts.leased = count;
          break;
        case JobState::kDone:
          counts.done = count;
          break;
        case JobState::kFailed:
          counts.failed = count;
          break;
      }
    }
    return counts;
  });
}

}  // namespace accelopt::queue
