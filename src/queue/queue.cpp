// The queue's table, and why it looks like this.
//
// One row per evaluation. `state` and `attempts` make the state machine of queue.h; `worker` and
// `lease_until` are the lease; the request and the verdict are JSON text, as the store keeps its
// records. A partial index over the queued rows keeps a claim cheap however many jobs are done.
// The table lives beside the store's tables in an accelopt database; it is created with IF NOT
// EXISTS under an advisory lock, so workers starting together create it once. The later columns
// are added the same way (ADD COLUMN IF NOT EXISTS), so an older queue table is widened in place:
// `request_hash` and `collected` let a resumed run adopt the job it had queued, `failed_on` and
// `not_before` hand a failed job to another worker first, `worker_id`, `lease_seconds` and
// `holder_gone_at` tell a holder gone for good from one reconnecting (queue.h). `queue_workers`
// gives each worker a stable identity: its row's id keys the advisory lock its sessions hold, so
// pg_locks, not a connection's 63-byte name, says who is connected. ALTER TABLE takes the table's
// exclusive lock even when the column exists, and a process already using the queue (a run's
// enqueue between its SELECT and its INSERT) then deadlocks with it: the DDL runs only when the
// newest column is missing, which the catalog tells without locking the table.
#include "queue/queue.h"

#include <fmt/format.h>
#include <cctype>

#include <mutex>
#include <pqxx/pqxx>
#include <thread>
#include <vector>

#include "common/error.h"
#include "store/backend.h"
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
ALTER TABLE evaluation_queue ADD COLUMN IF NOT EXISTS request_hash TEXT;
ALTER TABLE evaluation_queue ADD COLUMN IF NOT EXISTS collected BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE evaluation_queue ADD COLUMN IF NOT EXISTS failed_on TEXT[] NOT NULL DEFAULT '{}';
ALTER TABLE evaluation_queue ADD COLUMN IF NOT EXISTS not_before TIMESTAMPTZ;
CREATE INDEX IF NOT EXISTS evaluation_queue_uncollected ON evaluation_queue (request_hash)
  WHERE NOT collected;
CREATE TABLE IF NOT EXISTS queue_workers (
  id BIGSERIAL PRIMARY KEY,
  name TEXT NOT NULL,
  platform TEXT NOT NULL,
  registered_at TIMESTAMPTZ NOT NULL DEFAULT now());
ALTER TABLE evaluation_queue ADD COLUMN IF NOT EXISTS worker_id BIGINT;
ALTER TABLE evaluation_queue ADD COLUMN IF NOT EXISTS lease_seconds DOUBLE PRECISION;
ALTER TABLE evaluation_queue ADD COLUMN IF NOT EXISTS holder_gone_at TIMESTAMPTZ;
)sql";

// Whether the table has its newest column: then there is nothing to create.
const char* const kTableIsCurrent = R"sql(
SELECT count(*) FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = 'evaluation_queue'
  AND column_name = 'holder_gone_at'
)sql";

// The advisory lock of worker `id` (pg_advisory_lock_shared's two-key form: pg_locks shows the
// first key as classid, the second as objid, objsubid 2).
constexpr int32_t kWorkerLockClass = 0x41435157;  // "ACQW"

// Whether the worker of `id_column` has a session connected now: one holds its lock.
std::string worker_connected(const std::string& id_column) {
  return fmt::format(
      "EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND "
      "l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND "
      "l.classid = {} AND l.objsubid = 2 AND l.objid::bigint = {})",
      kWorkerLockClass, id_column);
}

// One more reason in a job's error: the reasons of every attempt are kept, "; "-separated.
const char* const kAppendError = "CASE WHEN error = '' THEN $4 ELSE error || '; ' || $4 END";

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

// What a lost connection looks like: the socket gone, or the server ending the session as it
// shuts down (SQLSTATE class 57P) or failing the connection (class 08).
bool connection_lost(const pqxx::sql_error& error) {
  return error.sqlstate().starts_with("57P") || error.sqlstate().starts_with("08");
}

// Tells a job's state change to whoever listens, in the transaction that made it.
void notify_state(pqxx::work& work, int64_t id, const std::string& state,
                  const std::string& platform) {
  if (state == "queued") {
    work.exec_params("SELECT pg_notify($1, $2)", kJobsChannel, platform);
  } else if (state == "done" || state == "failed") {
    work.exec_params("SELECT pg_notify($1, $2)", kVerdictsChannel, std::to_string(id));
  }
}

class Receiver : public pqxx::notification_receiver {
 public:
  Receiver(pqxx::connection_base& connection, const std::string& channel, int64_t& received)
      : pqxx::notification_receiver(connection, channel), received_(received) {}
  void operator()(const std::string&, int) override { ++received_; }

 private:
  int64_t& received_;
};

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

std::chrono::milliseconds heartbeat_period(std::chrono::milliseconds lease) {
  return std::min<std::chrono::milliseconds>(lease / 3, std::chrono::seconds(2));
}

std::string worker_application_name(const std::string& platform) {
  return ("accelopt worker " + platform).substr(0, 63);
}

namespace {
// `url` with application_name=`name` added to its query, percent-encoded.
std::string with_application_name(std::string url, const std::string& name) {
  if (name.empty()) return url;
  std::string encoded;
  for (unsigned char c : name) {
    encoded += std::isalnum(c) || c == '-' || c == '_' || c == '.'
                   ? std::string(1, static_cast<char>(c))
                   : fmt::format("%{:02X}", c);
  }
  return url + (url.find('?') == std::string::npos ? "?" : "&") + "application_name=" + encoded;
}
}  // namespace

struct Queue::Impl {
  std::string url;
  std::string application_name;
  int64_t worker_id = 0;  // the registered worker this connection serves; 0: none
  std::chrono::milliseconds window{60000};
  std::unique_ptr<pqxx::connection> connection;
  std::vector<std::string> channels;
  int64_t received = 0;                              // notifications not yet taken by wait()
  std::vector<std::unique_ptr<Receiver>> receivers;  // after `connection`: destroyed first
  std::mutex mutex;                                  // one connection: one statement at a time

  ~Impl() { receivers.clear(); }

  void open_connection() {
    receivers.clear();
    connection.reset();
    connection = std::make_unique<pqxx::connection>(
        with_application_name(store::with_connect_timeout(url), application_name));
    if (worker_id != 0) hold_worker_lock(*connection, worker_id);
    for (const std::string& channel : channels) {
      receivers.push_back(std::make_unique<Receiver>(*connection, channel, received));
    }
  }

  // The worker `id` is connected again: its lease renewed and its lock taken in one transaction.
  // The row is locked first, so a claim's expiry that saw the holder gone waits for this and then
  // finds the lease fresh; a lock with a stale lease would let it expire the job meanwhile. The
  // advisory lock is the session's: held until the session ends, whatever becomes of this
  // transaction.
  static void hold_worker_lock(pqxx::connection& on, int64_t id) {
    pqxx::work work(on);
    work.exec_params(
        "UPDATE evaluation_queue SET holder_gone_at = NULL, lease_until = now() + lease_seconds * "
        "interval '1 second' WHERE worker_id = $1 AND state = 'leased'",
        id);
    work.exec_params("SELECT pg_advisory_lock_shared($1, $2::integer)", kWorkerLockClass, id);
    work.commit();
  }

  // A new connection, tried with backoff until one opens or `window` has passed since `since`.
  // At least every second: a lease holder must be back within its grace (kHolderGrace).
  void reconnect(std::chrono::steady_clock::time_point since, const std::string& cause) {
    auto pause = std::chrono::milliseconds(100);
    std::string last = cause;
    for (;;) {
      if (std::chrono::steady_clock::now() - since + pause > window) {
        throw store::ConnectionLost(
            fmt::format("evaluation queue: the database {} could not be reached again for {} s: {}",
                        store::redact_url(url),
                        std::chrono::duration_cast<std::chrono::seconds>(window).count(),
                        store::redact(last, url)));
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(1000));
      try {
        open_connection();
        ++received;  // notifications may have been missed meanwhile: whoever waits looks again
        return;
      } catch (const std::exception& error) {
        last = error.what();
      }
    }
  }

  // Runs `body(work)` in one transaction and commits; on a lost connection, reconnects and runs
  // it again. Errors carry what was being done, without the password.
  template <typename Body>
  auto transaction(const char* what, Body&& body) {
    std::lock_guard lock(mutex);
    std::optional<std::chrono::steady_clock::time_point> lost_since;
    for (;;) {
      std::string cause;
      try {
        if (!connection || !connection->is_open()) throw pqxx::broken_connection("not connected");
        pqxx::work work(*connection);
        auto result = body(work);
        work.commit();
        return result;
      } catch (const pqxx::broken_connection& error) {
        cause = error.what();
      } catch (const pqxx::in_doubt_error& error) {
        cause = error.what();
      } catch (const pqxx::sql_error& error) {
        if (!connection_lost(error)) {
          throw InternalError(
              fmt::format("evaluation queue: {}: {}", what, store::redact(error.what(), url)));
        }
        cause = error.what();
      }
      if (!lost_since) lost_since = std::chrono::steady_clock::now();
      reconnect(*lost_since, fmt::format("{}: {}", what, cause));
    }
  }
};

Queue::Queue(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Queue::~Queue() = default;

std::unique_ptr<Queue> Queue::open(const std::string& url, const std::string& application_name) {
  if (!store::is_postgres_url(url)) {
    throw UserError("the evaluation queue lives in PostgreSQL: give --db postgresql://…, not " +
                    store::redact_url(url));
  }
  store::Store::open(url);  // an accelopt database, migrated
  auto impl = std::make_unique<Impl>();
  impl->url = url;
  impl->application_name = application_name;
  impl->window = store::reconnect_window();
  try {
    impl->open_connection();
  } catch (const std::exception& error) {
    throw UserError(fmt::format("evaluation queue: connecting to {}: {}", store::redact_url(url),
                                store::redact(error.what(), url)));
  }
  impl->transaction("creating the table", [](pqxx::work& work) {
    work.exec("SET LOCAL client_min_messages = warning");
    if (work.exec1(kTableIsCurrent)[0].as<int>() > 0) return 0;
    work.exec_params("SELECT pg_advisory_xact_lock($1)", kTableLock);
    if (work.exec1(kTableIsCurrent)[0].as<int>() > 0) return 0;  // made meanwhile
    work.exec(kCreateTable);
    return 0;
  });
  return std::unique_ptr<Queue>(new Queue(std::move(impl)));
}

int64_t Queue::enqueue(const std::string& platform, const Json& request, int max_attempts) {
  std::string text = request.dump();
  return impl_->transaction("enqueueing", [&](pqxx::work& work) {
    pqxx::result found = work.exec_params(
        "SELECT id FROM evaluation_queue WHERE request_hash = md5($2) AND NOT collected AND "
        "platform = $1 AND request = $2 AND state IN ('queued', 'leased', 'done') ORDER BY id "
        "LIMIT 1",
        platform, text);
    if (!found.empty()) return found[0][0].as<int64_t>();
    int64_t id = work.exec_params1(
                         "INSERT INTO evaluation_queue (platform, request, request_hash, "
                         "max_attempts) VALUES ($1, $2, md5($2), $3) RETURNING id",
                         platform, text, max_attempts)[0]
                     .as<int64_t>();
    notify_state(work, id, "queued", platform);
    return id;
  });
}

void Queue::collect(int64_t id) {
  impl_->transaction("collecting a verdict", [&](pqxx::work& work) {
    work.exec_params("UPDATE evaluation_queue SET collected = true WHERE id = $1", id);
    return 0;
  });
}

void Queue::cancel(int64_t id, const std::string& why) {
  impl_->transaction("cancelling a job", [&](pqxx::work& work) {
    pqxx::result rows = work.exec_params(
        "UPDATE evaluation_queue SET state = 'failed', collected = true, lease_until = NULL, "
        "finished_at = now(), error = CASE WHEN error = '' THEN $2 ELSE error || '; ' || $2 END "
        "WHERE id = $1 AND state IN ('queued', 'leased') RETURNING platform",
        id, "cancelled: " + why);
    if (!rows.empty()) notify_state(work, id, "failed", "");
    return 0;
  });
}

int64_t Queue::register_worker(const std::string& name, const std::string& platform) {
  if (impl_->worker_id != 0) throw InternalError("evaluation queue: a worker registered twice");
  int64_t id = impl_->transaction("registering a worker", [&](pqxx::work& work) {
    int64_t id =
        work.exec_params1("INSERT INTO queue_workers (name, platform) VALUES ($1, $2) RETURNING id",
                          name, platform)[0]
            .as<int64_t>();
    work.exec_params("SELECT pg_advisory_lock_shared($1, $2::integer)", kWorkerLockClass, id);
    return id;
  });
  impl_->worker_id = id;
  return id;
}

void Queue::serve_worker(int64_t worker_id) {
  impl_->transaction("joining a worker", [&](pqxx::work& work) {
    work.exec_params("SELECT pg_advisory_lock_shared($1, $2::integer)", kWorkerLockClass,
                     worker_id);
    return 0;
  });
  impl_->worker_id = worker_id;
}

std::optional<Job> Queue::claim(const std::string& worker, const std::string& platform,
                                std::chrono::milliseconds lease) {
  expire_leases();
  int64_t holder = impl_->worker_id;
  return impl_->transaction("claiming", [&](pqxx::work& work) -> std::optional<Job> {
    for (;;) {
      pqxx::result rows = work.exec_params(
          "UPDATE evaluation_queue SET state = 'leased', attempts = attempts + 1, worker = $1, "
          "lease_until = now() + $3::double precision * interval '1 second', claimed_at = now(), "
          "worker_id = NULLIF($4::bigint, 0), lease_seconds = $3, holder_gone_at = NULL "
          "WHERE id = (SELECT id FROM evaluation_queue WHERE state = 'queued' AND platform = $2 "
          "AND (NOT $1 = ANY(failed_on) OR not_before IS NULL OR not_before <= now()) "
          "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) "
          "RETURNING id, request, attempts, error",
          worker, platform, seconds(lease), holder);
      if (rows.empty()) return std::nullopt;
      Job job;
      job.id = rows[0][0].as<int64_t>();
      job.platform = platform;
      job.attempt = rows[0][2].as<int>();
      job.worker = worker;
      job.earlier = rows[0][3].as<std::string>();
      try {
        job.request = Json::parse(rows[0][1].as<std::string>());
        return job;
      } catch (const Json::exception& error) {
        // Nobody can evaluate it: failed now, and the next job is claimed instead.
        work.exec_params(
            "UPDATE evaluation_queue SET state = 'failed', lease_until = NULL, finished_at = "
            "now(), error = $2 WHERE id = $1",
            job.id, fmt::format("{}: the request is not JSON: {}", worker, error.what()));
        notify_state(work, job.id, "failed", platform);
      }
    }
  });
}

bool Queue::heartbeat(const Job& job, std::chrono::milliseconds lease) {
  // A lease that expired while the database was unreachable, and that nobody claimed since, is
  // taken back: the evaluation need not be redone.
  return impl_->transaction("renewing a lease", [&](pqxx::work& work) {
    return work.exec_params(
                   "UPDATE evaluation_queue SET state = 'leased', holder_gone_at = NULL, "
                   "lease_until = now() + $4::double precision * interval '1 second' "
                   "WHERE id = $1 AND worker = $2 AND attempts = $3 AND "
                   "state IN ('leased', 'queued')",
                   job.id, job.worker, job.attempt, seconds(lease))
               .affected_rows() == 1;
  });
}

bool Queue::complete(const Job& job, const Json& result) {
  return impl_->transaction("completing", [&](pqxx::work& work) {
    // Accepted from the worker of the last attempt, also when its lease expired meanwhile (a
    // database outage) and nobody claimed the job since.
    pqxx::result rows = work.exec_params(
        "UPDATE evaluation_queue SET state = 'done', result = $4, lease_until = NULL, "
        "finished_at = now() WHERE id = $1 AND worker = $2 AND attempts = $3 AND "
        "state IN ('leased', 'queued') RETURNING platform",
        job.id, job.worker, job.attempt, result.dump());
    if (!rows.empty()) {
      notify_state(work, job.id, "done", job.platform);
      return true;
    }
    // Run twice across a reconnection: the first one was recorded.
    return !work.exec_params(
                    "SELECT 1 FROM evaluation_queue WHERE id = $1 AND worker = $2 AND "
                    "attempts = $3 AND state = 'done'",
                    job.id, job.worker, job.attempt)
                .empty();
  });
}

bool Queue::fail(const Job& job, const std::string& error) {
  return impl_->transaction("failing", [&](pqxx::work& work) {
    pqxx::result rows = work.exec_params(
        std::string("UPDATE evaluation_queue SET state = CASE WHEN attempts < max_attempts "
                    "THEN 'queued' ELSE 'failed' END, error = ") +
            kAppendError +
            ", lease_until = NULL, failed_on = array_append(failed_on, $2), not_before = now() + "
            "$5::double precision * interval '1 second', "
            "finished_at = CASE WHEN attempts < max_attempts THEN NULL ELSE now() END "
            "WHERE id = $1 AND worker = $2 AND attempts = $3 AND state = 'leased' "
            "RETURNING state",
        job.id, job.worker, job.attempt, fmt::format("{}: {}", job.worker, error),
        seconds(kHandoff));
    if (rows.empty()) return false;
    notify_state(work, job.id, rows[0][0].as<std::string>(), job.platform);
    return true;
  });
}

bool Queue::reject(const Job& job, const std::string& error) {
  return impl_->transaction("rejecting", [&](pqxx::work& work) {
    pqxx::result rows = work.exec_params(
        std::string("UPDATE evaluation_queue SET state = 'failed', error = ") + kAppendError +
            ", lease_until = NULL, finished_at = now() "
            "WHERE id = $1 AND worker = $2 AND attempts = $3 AND state = 'leased' RETURNING id",
        job.id, job.worker, job.attempt, fmt::format("{}: {}", job.worker, error));
    if (rows.empty()) return false;
    notify_state(work, job.id, "failed", job.platform);
    return true;
  });
}

bool Queue::release(const Job& job) {
  return impl_->transaction("handing a job back", [&](pqxx::work& work) {
    pqxx::result rows = work.exec_params(
        "UPDATE evaluation_queue SET state = 'queued', attempts = attempts - 1, worker = NULL, "
        "lease_until = NULL WHERE id = $1 AND worker = $2 AND attempts = $3 AND state = 'leased' "
        "RETURNING id",
        job.id, job.worker, job.attempt);
    if (rows.empty()) return false;
    notify_state(work, job.id, "queued", job.platform);
    return true;
  });
}

int64_t Queue::expire_leases() {
  return impl_->transaction("expiring leases", [&](pqxx::work& work) {
    // Holders seen gone for the first time: their grace starts now. One that comes back clears it
    // as it reconnects (hold_worker_lock), its lease renewed.
    work.exec(
        "UPDATE evaluation_queue SET holder_gone_at = now() WHERE state = 'leased' AND "
        "worker_id IS NOT NULL AND holder_gone_at IS NULL AND NOT " +
        worker_connected("worker_id"));
    pqxx::result rows = work.exec_params(
        "UPDATE evaluation_queue SET state = CASE WHEN attempts < max_attempts "
        "THEN 'queued' ELSE 'failed' END, error = CASE WHEN error = '' THEN '' ELSE error || "
        "'; ' END || CASE WHEN holder_gone_at IS NULL THEN 'the lease of ' || worker || "
        "' expired during attempt ' || attempts ELSE worker || ' was gone (no connection) for ' "
        "|| round(least(lease_seconds, $1)::numeric, 1) || ' s during attempt ' || attempts END, "
        "lease_until = NULL, holder_gone_at = NULL, failed_on = array_append(failed_on, worker), "
        "finished_at = CASE WHEN attempts < max_attempts THEN NULL ELSE now() END "
        "WHERE state = 'leased' AND CASE WHEN holder_gone_at IS NULL THEN lease_until < now() "
        "ELSE holder_gone_at + least(lease_seconds, $1) * interval '1 second' < now() END "
        "RETURNING id, state, platform",
        seconds(kHolderGrace));
    for (const pqxx::row& row : rows) {
      notify_state(work, row[0].as<int64_t>(), row[1].as<std::string>(), row[2].as<std::string>());
    }
    return static_cast<int64_t>(rows.size());
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

int64_t Queue::live_workers(const std::string& platform) {
  return impl_->transaction("counting live workers", [&](pqxx::work& work) {
    return work
        .exec_params1("SELECT count(*) FROM queue_workers w WHERE platform = $1 AND " +
                          worker_connected("w.id"),
                      platform)[0]
        .as<int64_t>();
  });
}

void Queue::listen(const std::string& channel) {
  std::lock_guard lock(impl_->mutex);
  impl_->channels.push_back(channel);
  try {
    impl_->receivers.push_back(
        std::make_unique<Receiver>(*impl_->connection, channel, impl_->received));
  } catch (const std::exception&) {
    // The connection is broken: the next wait() or statement reconnects and listens.
  }
}

bool Queue::wait(std::chrono::milliseconds timeout) {
  std::lock_guard lock(impl_->mutex);
  auto take = [this] {
    bool any = impl_->received > 0;
    impl_->received = 0;
    return any;
  };
  if (take()) return true;
  std::string cause;
  try {
    if (impl_->connection && impl_->connection->is_open()) {
      auto micros = std::chrono::duration_cast<std::chrono::microseconds>(timeout).count();
      impl_->connection->await_notification(micros / 1000000, micros % 1000000);
      return take();
    }
    cause = "not connected";
  } catch (const std::exception& error) {
    cause = error.what();
  }
  impl_->reconnect(std::chrono::steady_clock::now(), "waiting for a notification: " + cause);
  return take();
}

}  // namespace accelopt::queue
