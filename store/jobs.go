package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Job statuses (migrations/00006_jobs.sql).
const (
	JobQueued    = "queued"
	JobRunning   = "running"
	JobSucceeded = "succeeded"
	JobFailed    = "failed"
)

// DefaultMaxAttempts is how often a job runs before it stays failed, unless NewJob says.
const DefaultMaxAttempts = 10

// maxJobError caps last_error: an error is for an operator to read, not a log.
const maxJobError = 2000

// jobsChannel is the NOTIFY channel every enqueue wakes, so that idle workers start at
// once rather than at their next poll.
const jobsChannel = "cardpay_jobs"

// NewJob is a job to enqueue.
type NewJob struct {
	Kind string
	// Payload is stored as JSON (encoding/json; a json.RawMessage goes in as it is).
	// It is readable by anyone who reads the table: seal secrets before they go in.
	Payload any
	// UniqueKey makes enqueueing idempotent: a second job with the same key is not
	// created, whatever became of the first. "" means no key.
	UniqueKey string
	// RunAt delays the job; zero is now.
	RunAt time.Time
	// MaxAttempts is how many runs a failing job gets; 0 is DefaultMaxAttempts.
	MaxAttempts int
}

// Job is a job as stored.
type Job struct {
	ID          int64           `db:"id"`
	Kind        string          `db:"kind"`
	Payload     json.RawMessage `db:"payload"`
	UniqueKey   *string         `db:"unique_key"`
	Status      string          `db:"status"`
	Attempts    int             `db:"attempts"`
	MaxAttempts int             `db:"max_attempts"`
	RunAt       time.Time       `db:"run_at"`
	LockedBy    *string         `db:"locked_by"`
	LockedUntil *time.Time      `db:"locked_until"`
	LastError   *string         `db:"last_error"`
	CreatedAt   time.Time       `db:"created_at"`
	FinishedAt  *time.Time      `db:"finished_at"`
}

const jobColumns = `id, kind, payload, unique_key, status, attempts, max_attempts, run_at, locked_by, locked_until, last_error, created_at, finished_at`

// EnqueueJob adds a job. q is the transaction of the change that causes the job, so that
// the job exists exactly when the change does; nil is the database outside any
// transaction. With a UniqueKey that is already taken it creates nothing and returns the
// existing job's id.
func (s *Store) EnqueueJob(ctx context.Context, q sqlx.ExtContext, j NewJob) (int64, error) {
	if q == nil {
		q = s.DB
	}
	return enqueueJob(ctx, q, j)
}

// enqueueJob is EnqueueJob on q.
func enqueueJob(ctx context.Context, q sqlx.ExtContext, j NewJob) (int64, error) {
	if j.Kind == "" {
		return 0, errors.New("store: enqueue job: no kind")
	}
	payload, err := jobPayload(j.Payload)
	if err != nil {
		return 0, fmt.Errorf("store: enqueue %s job: %w", j.Kind, err)
	}
	if j.MaxAttempts <= 0 {
		j.MaxAttempts = DefaultMaxAttempts
	}
	var key *string
	if j.UniqueKey != "" {
		key = &j.UniqueKey
	}
	var ids []int64
	err = sqlx.SelectContext(ctx, q, &ids, `INSERT INTO jobs (kind, payload, unique_key, run_at, max_attempts)
		VALUES ($1, $2, $3, COALESCE($4::timestamptz, now()), $5)
		ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL DO NOTHING RETURNING id`,
		j.Kind, string(payload), key, dbTime(j.RunAt), j.MaxAttempts)
	if err != nil {
		return 0, fmt.Errorf("store: enqueue %s job: %w", j.Kind, err)
	}
	if len(ids) == 0 {
		// The key was taken: the first job stands (ON CONFLICT waited for its
		// transaction, so it is committed and visible now).
		var id int64
		if err := sqlx.GetContext(ctx, q, &id, `SELECT id FROM jobs WHERE unique_key = $1`, j.UniqueKey); err != nil {
			return 0, fmt.Errorf("store: enqueue %s job: existing key: %w", j.Kind, err)
		}
		return id, nil
	}
	// Delivered on commit, and not at all on rollback.
	if _, err := q.ExecContext(ctx, `SELECT pg_notify($1, $2)`, jobsChannel, j.Kind); err != nil {
		return 0, fmt.Errorf("store: enqueue %s job: notify: %w", j.Kind, err)
	}
	return ids[0], nil
}

// withJobs runs a change on the database, or, when it has jobs to enqueue, in a
// transaction that enqueues them too, so that the jobs exist exactly when the change
// does.
func (s *Store) withJobs(ctx context.Context, jobs []NewJob, change func(q sqlx.ExtContext) error) error {
	if len(jobs) == 0 {
		return change(s.DB)
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := change(tx); err != nil {
			return err
		}
		for _, j := range jobs {
			if _, err := s.EnqueueJob(ctx, tx, j); err != nil {
				return err
			}
		}
		return nil
	})
}

func jobPayload(p any) ([]byte, error) {
	switch v := p.(type) {
	case nil:
		return []byte("{}"), nil
	case json.RawMessage:
		if !json.Valid(v) {
			return nil, errors.New("payload is not valid JSON")
		}
		return v, nil
	}
	return json.Marshal(p)
}

// dbTime is t for a query, or NULL for the zero time: the query then uses the database's
// clock, which every instance shares. Runners pass a time only when a test drives the
// clock.
func dbTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// micros passes a duration to SQL as a number of microseconds.
func micros(d time.Duration) int64 { return d.Microseconds() }

// ClaimJob takes the next due job of one of kinds for worker, leased until now+lease:
// a queued job whose run_at has come, or a running job whose lease ran out (its worker
// died). SKIP LOCKED lets concurrent workers take different jobs without waiting for
// each other. A job whose worker died on its last attempt is marked failed instead of
// run again. ErrNotFound when nothing is due. A zero now is the database's clock.
func (s *Store) ClaimJob(ctx context.Context, worker string, kinds []string, now time.Time, lease time.Duration) (Job, error) {
	for {
		var j Job
		err := s.DB.GetContext(ctx, &j, `WITH next AS (
				SELECT id, (status = 'running' AND attempts >= max_attempts) AS given_up, COALESCE($3::timestamptz, now()) AS now
				FROM jobs
				WHERE status IN ('queued', 'running') AND run_at <= COALESCE($3::timestamptz, now()) AND kind = ANY($4)
				ORDER BY run_at, id
				LIMIT 1
				FOR UPDATE SKIP LOCKED
			)
			UPDATE jobs SET
				status = CASE WHEN given_up THEN 'failed' ELSE 'running' END,
				attempts = CASE WHEN given_up THEN attempts ELSE attempts + 1 END,
				last_error = CASE WHEN given_up THEN 'the worker stopped during the last attempt (lease expired)' ELSE last_error END,
				finished_at = CASE WHEN given_up THEN next.now END,
				locked_by = CASE WHEN given_up THEN locked_by ELSE $1 END,
				locked_until = CASE WHEN given_up THEN NULL ELSE next.now + $2 * interval '1 microsecond' END,
				run_at = CASE WHEN given_up THEN run_at ELSE next.now + $2 * interval '1 microsecond' END
			FROM next WHERE jobs.id = next.id
			RETURNING `+qualified("jobs.", jobColumns), worker, micros(lease), dbTime(now), pq.Array(kinds))
		if notFound(err) {
			return Job{}, ErrNotFound
		}
		if err != nil {
			return Job{}, fmt.Errorf("store: claim job: %w", err)
		}
		if j.Status == JobFailed {
			continue // given up on; look for the next one
		}
		return j, nil
	}
}

// NextJobIn is how long until the next job of kinds falls due by the database's clock (a
// queued job's run_at, or the end of a running job's lease, after which another worker
// takes it up); ok is false when none waits. Negative: one is due now.
func (s *Store) NextJobIn(ctx context.Context, kinds []string) (d time.Duration, ok bool, err error) {
	var micros *int64
	if err := s.DB.GetContext(ctx, &micros, `SELECT (EXTRACT(EPOCH FROM min(run_at) - now()) * 1000000)::bigint FROM jobs
		WHERE status IN ('queued', 'running') AND kind = ANY($1)`, pq.Array(kinds)); err != nil {
		return 0, false, fmt.Errorf("store: next job: %w", err)
	}
	if micros == nil {
		return 0, false, nil
	}
	return time.Duration(*micros) * time.Microsecond, true, nil
}

// qualified prefixes each column of a comma-separated list with its table.
func qualified(table, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = table + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// ExtendJobLease moves the lease of a running job on to now+lease, while its worker is
// alive. ErrNotFound when worker no longer holds the job (the lease ran out and another
// worker took it): the worker should give up.
func (s *Store) ExtendJobLease(ctx context.Context, id int64, worker string, now time.Time, lease time.Duration) error {
	return s.execOne(ctx, fmt.Sprintf("extend lease of job %d", id), `UPDATE jobs
		SET locked_until = COALESCE($3::timestamptz, now()) + $4 * interval '1 microsecond', run_at = COALESCE($3::timestamptz, now()) + $4 * interval '1 microsecond'
		WHERE id = $1 AND status = 'running' AND locked_by = $2`, id, worker, dbTime(now), micros(lease))
}

// CompleteJob marks a job that worker ran as succeeded. ErrNotFound when worker lost the
// job meanwhile: the other worker's run counts.
func (s *Store) CompleteJob(ctx context.Context, id int64, worker string, now time.Time) error {
	return s.execOne(ctx, fmt.Sprintf("complete job %d", id), `UPDATE jobs
		SET status = 'succeeded', finished_at = COALESCE($3::timestamptz, now()), locked_until = NULL, last_error = NULL
		WHERE id = $1 AND status = 'running' AND locked_by = $2`, id, worker, dbTime(now))
}

// FailJob records a failed run with its error. With attempts left the job is queued
// again retryIn after now; otherwise it stays failed, with the error, for an operator.
// It reports whether the job failed for good. ErrNotFound when worker lost the job.
func (s *Store) FailJob(ctx context.Context, id int64, worker, errText string, now time.Time, retryIn time.Duration) (final bool, err error) {
	if len(errText) > maxJobError {
		errText = truncateUTF8(errText, maxJobError)
	}
	var status string
	err = s.DB.GetContext(ctx, &status, `UPDATE jobs SET
			status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,
			run_at = CASE WHEN attempts >= max_attempts THEN run_at ELSE COALESCE($4::timestamptz, now()) + $5 * interval '1 microsecond' END,
			finished_at = CASE WHEN attempts >= max_attempts THEN COALESCE($4::timestamptz, now()) END,
			locked_until = NULL, last_error = $3
		WHERE id = $1 AND status = 'running' AND locked_by = $2
		RETURNING status`, id, worker, errText, dbTime(now), micros(retryIn))
	if notFound(err) {
		return false, ErrNotFound
	}
	if err != nil {
		return false, fmt.Errorf("store: fail job %d: %w", id, err)
	}
	return status == JobFailed, nil
}

func truncateUTF8(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// Job loads one job, for tests and operators.
func (s *Store) Job(ctx context.Context, id int64) (Job, error) {
	var j Job
	err := s.DB.GetContext(ctx, &j, `SELECT `+jobColumns+` FROM jobs WHERE id = $1`, id)
	if notFound(err) {
		return Job{}, ErrNotFound
	}
	if err != nil {
		return Job{}, fmt.Errorf("store: job %d: %w", id, err)
	}
	return j, nil
}

// FailedJobs lists the newest jobs that failed for good, with their last errors.
func (s *Store) FailedJobs(ctx context.Context, limit int) ([]Job, error) {
	var jobs []Job
	err := s.DB.SelectContext(ctx, &jobs, `SELECT `+jobColumns+` FROM jobs WHERE status = 'failed'
		ORDER BY finished_at DESC, id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: failed jobs: %w", err)
	}
	return jobs, nil
}

// PendingJobs counts the jobs of kinds (all kinds when none are given) that are due or
// running now: what workers still have to do before the queue is idle. Jobs waiting for
// a later retry are not counted.
func (s *Store) PendingJobs(ctx context.Context, kinds ...string) (int, error) {
	var n int
	err := s.DB.GetContext(ctx, &n, `SELECT count(*) FROM jobs
		WHERE (status = 'running' OR (status = 'queued' AND run_at <= now())) AND (COALESCE(cardinality($1::text[]), 0) = 0 OR kind = ANY($1))`,
		pq.Array(kinds))
	if err != nil {
		return 0, fmt.Errorf("store: pending jobs: %w", err)
	}
	return n, nil
}

// ListenJobs wakes the caller whenever a job is enqueued anywhere (LISTEN on its own
// connection): the returned channel receives after each enqueue commits and after a
// reconnection, and closes when ctx ends. Bursts coalesce into one wake-up. It fails for
// a Store not made by Open, whose connection string is unknown.
func (s *Store) ListenJobs(ctx context.Context) (<-chan struct{}, error) {
	if s.dsn == "" {
		return nil, errors.New("store: listen for jobs: no connection string")
	}
	l := pq.NewListener(s.dsn, 100*time.Millisecond, 10*time.Second, nil)
	if err := l.Listen(jobsChannel); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("store: listen for jobs: %w", err)
	}
	wake := make(chan struct{}, 1)
	go func() {
		defer close(wake)
		defer l.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case <-l.Notify:
				// A nil notification means the connection was re-established and
				// notifications may have been missed: wake up all the same.
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}
	}()
	return wake, nil
}
