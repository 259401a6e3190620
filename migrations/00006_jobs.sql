-- +goose Up
-- Background jobs (DESIGN.md §3): mails, card calls, OCR and transfers are rows here,
-- inserted in the same transaction as the change that causes them, so a rolled-back
-- change leaves no job and a committed one never loses its job. Workers in every server
-- instance claim due rows with FOR UPDATE SKIP LOCKED (store/jobs.go), so each job runs
-- once whichever instance takes it.
--
-- status: queued (waiting for run_at) → running (leased) → succeeded, or back to queued
-- with a later run_at after a failure (exponential backoff), or failed once attempts
-- reach max_attempts; a failed job stays with its last_error for an operator to read.
--
-- While a job runs, locked_by names the worker and locked_until ends its lease; the
-- worker extends the lease as long as it is alive. run_at is set to the same moment, so
-- that one index finds both the due queued jobs and the running jobs whose worker died.
CREATE TABLE jobs (
    id           BIGSERIAL PRIMARY KEY,
    kind         TEXT NOT NULL,
    payload      JSONB NOT NULL DEFAULT '{}',
    -- Enqueueing twice with one key makes one job (idempotent enqueue), for ever.
    unique_key   TEXT,
    status       TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
    attempts     INT NOT NULL DEFAULT 0,
    max_attempts INT NOT NULL DEFAULT 10 CHECK (max_attempts > 0),
    run_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    locked_by    TEXT,
    locked_until TIMESTAMPTZ,
    last_error   TEXT,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at  TIMESTAMPTZ
);
CREATE UNIQUE INDEX jobs_unique_key_idx ON jobs (unique_key) WHERE unique_key IS NOT NULL;
CREATE INDEX jobs_due_idx ON jobs (run_at, id) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_failed_idx ON jobs (finished_at) WHERE status = 'failed';

-- +goose Down
DROP TABLE jobs;
