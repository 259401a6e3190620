package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/store"
)

func jobCount(t *testing.T, kind string) int {
	t.Helper()
	var n int
	require.NoError(t, db.Store.DB.Get(&n, `SELECT count(*) FROM jobs WHERE kind = $1`, kind))
	return n
}

func TestEnqueueJobIsIdempotentWithAUniqueKey(t *testing.T) {
	ctx := context.Background()
	first, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "idem", Payload: map[string]int{"n": 1}, UniqueKey: "idem-1"})
	require.NoError(t, err)
	again, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "idem", Payload: map[string]int{"n": 2}, UniqueKey: "idem-1"})
	require.NoError(t, err)
	assert.Equal(t, first, again, "the same key is the same job")
	assert.Equal(t, 1, jobCount(t, "idem"))
	j, err := db.Store.Job(ctx, first)
	require.NoError(t, err)
	assert.JSONEq(t, `{"n":1}`, string(j.Payload), "the first job stands as it was")
	assert.Equal(t, store.JobQueued, j.Status)
	assert.Equal(t, store.DefaultMaxAttempts, j.MaxAttempts)

	// Without a key every enqueue is a job; with another key, another job.
	_, err = db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "idem"})
	require.NoError(t, err)
	_, err = db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "idem"})
	require.NoError(t, err)
	_, err = db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "idem", UniqueKey: "idem-2"})
	require.NoError(t, err)
	assert.Equal(t, 4, jobCount(t, "idem"))

	// Inside a transaction too, even when the first one was enqueued in it.
	require.NoError(t, store.InTx(db.Store, ctx, func(tx *sqlx.Tx) error {
		a, err := db.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: "idem", UniqueKey: "idem-3"})
		require.NoError(t, err)
		b, err := db.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: "idem", UniqueKey: "idem-3"})
		require.NoError(t, err)
		assert.Equal(t, a, b)
		return nil
	}))
	assert.Equal(t, 5, jobCount(t, "idem"))

	_, err = db.Store.EnqueueJob(ctx, nil, store.NewJob{Payload: 1})
	assert.Error(t, err, "a job needs a kind")
	_, err = db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "idem", Payload: json.RawMessage(`{nope`)})
	assert.Error(t, err, "a raw payload must be JSON")
}

func TestEnqueueJobFollowsItsTransaction(t *testing.T) {
	ctx := context.Background()
	failed := errors.New("the change failed")
	err := store.InTx(db.Store, ctx, func(tx *sqlx.Tx) error {
		_, err := db.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: "tx", UniqueKey: "tx-rolled-back"})
		require.NoError(t, err)
		return failed
	})
	require.ErrorIs(t, err, failed)
	assert.Zero(t, jobCount(t, "tx"), "a rolled-back change leaves no job")

	// The key of a rolled-back job is free again.
	require.NoError(t, store.InTx(db.Store, ctx, func(tx *sqlx.Tx) error {
		_, err := db.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: "tx", UniqueKey: "tx-rolled-back"})
		return err
	}))
	assert.Equal(t, 1, jobCount(t, "tx"), "a committed change has its job")
}

func TestClaimCompleteAndLease(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC)
	id, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "lease", Payload: map[string]string{"x": "y"}, RunAt: t0})
	require.NoError(t, err)
	later, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "lease", RunAt: t0.Add(time.Hour)})
	require.NoError(t, err)

	_, err = db.Store.ClaimJob(ctx, "a", []string{"lease"}, t0.Add(-time.Second), time.Minute)
	assert.ErrorIs(t, err, store.ErrNotFound, "nothing is due before run_at")
	_, err = db.Store.ClaimJob(ctx, "a", []string{"other"}, t0, time.Minute)
	assert.ErrorIs(t, err, store.ErrNotFound, "only the kinds asked for")

	j, err := db.Store.ClaimJob(ctx, "a", []string{"lease"}, t0, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, id, j.ID)
	assert.Equal(t, store.JobRunning, j.Status)
	assert.Equal(t, 1, j.Attempts)
	assert.Equal(t, "a", *j.LockedBy)
	assert.True(t, j.LockedUntil.Equal(t0.Add(time.Minute)), "leased until %v", j.LockedUntil)
	assert.JSONEq(t, `{"x":"y"}`, string(j.Payload))

	_, err = db.Store.ClaimJob(ctx, "b", []string{"lease"}, t0.Add(59*time.Second), time.Minute)
	assert.ErrorIs(t, err, store.ErrNotFound, "a leased job is not taken while the lease lasts")

	// The worker died: after the lease another worker takes the job, and the first
	// one's late answer no longer counts.
	j2, err := db.Store.ClaimJob(ctx, "b", []string{"lease"}, t0.Add(61*time.Second), time.Minute)
	require.NoError(t, err)
	assert.Equal(t, id, j2.ID)
	assert.Equal(t, 2, j2.Attempts)
	assert.Equal(t, "b", *j2.LockedBy)
	assert.ErrorIs(t, db.Store.CompleteJob(ctx, id, "a", time.Time{}), store.ErrNotFound)
	_, err = db.Store.FailJob(ctx, id, "a", "late", time.Time{}, time.Second)
	assert.ErrorIs(t, err, store.ErrNotFound)
	assert.ErrorIs(t, db.Store.ExtendJobLease(ctx, id, "a", time.Time{}, time.Minute), store.ErrNotFound)

	// A live worker extends its lease.
	require.NoError(t, db.Store.ExtendJobLease(ctx, id, "b", t0.Add(100*time.Second), time.Minute))
	_, err = db.Store.ClaimJob(ctx, "c", []string{"lease"}, t0.Add(150*time.Second), time.Minute)
	assert.ErrorIs(t, err, store.ErrNotFound, "the extended lease holds")

	require.NoError(t, db.Store.CompleteJob(ctx, id, "b", t0.Add(110*time.Second)))
	done, err := db.Store.Job(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, store.JobSucceeded, done.Status)
	assert.Nil(t, done.LockedUntil)
	assert.True(t, done.FinishedAt.Equal(t0.Add(110*time.Second)))
	assert.ErrorIs(t, db.Store.CompleteJob(ctx, id, "b", time.Time{}), store.ErrNotFound, "once")

	next, err := db.Store.ClaimJob(ctx, "c", []string{"lease"}, t0.Add(2*time.Hour), time.Minute)
	require.NoError(t, err)
	assert.Equal(t, later, next.ID)
	require.NoError(t, db.Store.CompleteJob(ctx, later, "c", time.Time{}))
}

func TestFailedJobRetriesThenStaysFailedWithItsError(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2030, 2, 1, 9, 0, 0, 0, time.UTC)
	id, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "fail", RunAt: t0, MaxAttempts: 2})
	require.NoError(t, err)

	j, err := db.Store.ClaimJob(ctx, "w", []string{"fail"}, t0, time.Minute)
	require.NoError(t, err)
	final, err := db.Store.FailJob(ctx, id, "w", "smtp: 451 try again", t0.Add(time.Second), 30*time.Second)
	require.NoError(t, err)
	assert.False(t, final)
	j, err = db.Store.Job(ctx, j.ID)
	require.NoError(t, err)
	assert.Equal(t, store.JobQueued, j.Status)
	assert.True(t, j.RunAt.Equal(t0.Add(31*time.Second)), "retried after the backoff: %v", j.RunAt)
	assert.Equal(t, "smtp: 451 try again", *j.LastError)
	assert.Nil(t, j.LockedUntil)

	_, err = db.Store.ClaimJob(ctx, "w", []string{"fail"}, t0.Add(30*time.Second), time.Minute)
	assert.ErrorIs(t, err, store.ErrNotFound, "not before its retry time")
	j, err = db.Store.ClaimJob(ctx, "w", []string{"fail"}, t0.Add(31*time.Second), time.Minute)
	require.NoError(t, err)
	assert.Equal(t, 2, j.Attempts)
	long := make([]byte, 5000)
	for i := range long {
		long[i] = 'x'
	}
	final, err = db.Store.FailJob(ctx, id, "w", "smtp: 550 mailbox unavailable "+string(long), t0.Add(40*time.Second), time.Minute)
	require.NoError(t, err)
	assert.True(t, final, "no attempts left")

	j, err = db.Store.Job(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, store.JobFailed, j.Status)
	assert.Contains(t, *j.LastError, "550 mailbox unavailable")
	assert.LessOrEqual(t, len(*j.LastError), 2000, "the error is kept short")
	assert.True(t, j.FinishedAt.Equal(t0.Add(40*time.Second)))
	_, err = db.Store.ClaimJob(ctx, "w", []string{"fail"}, t0.Add(time.Hour), time.Minute)
	assert.ErrorIs(t, err, store.ErrNotFound, "a failed job is not run again")

	failed, err := db.Store.FailedJobs(ctx, 100)
	require.NoError(t, err)
	var seen bool
	for _, f := range failed {
		seen = seen || f.ID == id
	}
	assert.True(t, seen, "the failed job is listed for an operator")
}

func TestJobWhoseWorkerDiesOnItsLastAttemptFails(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2030, 3, 1, 9, 0, 0, 0, time.UTC)
	id, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "dies", RunAt: t0, MaxAttempts: 1})
	require.NoError(t, err)
	_, err = db.Store.ClaimJob(ctx, "w", []string{"dies"}, t0, time.Minute)
	require.NoError(t, err)
	_, err = db.Store.ClaimJob(ctx, "v", []string{"dies"}, t0.Add(2*time.Minute), time.Minute)
	assert.ErrorIs(t, err, store.ErrNotFound, "not run beyond its attempts")
	j, err := db.Store.Job(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, store.JobFailed, j.Status)
	assert.Equal(t, 1, j.Attempts)
	assert.Contains(t, *j.LastError, "lease expired")
}

// Idle workers are woken by an enqueue once its transaction commits, and not by one
// that rolls back.
func TestListenJobsWakesOnCommit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	wake, err := db.Store.ListenJobs(ctx)
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond) // the listener connects
	drain := func() {
		for {
			select {
			case <-wake:
			case <-time.After(50 * time.Millisecond):
				return
			}
		}
	}
	drain()

	tx, err := db.Store.DB.BeginTxx(ctx, nil)
	require.NoError(t, err)
	_, err = db.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: "listen"})
	require.NoError(t, err)
	select {
	case <-wake:
		t.Fatal("woken before the commit")
	case <-time.After(100 * time.Millisecond):
	}
	require.NoError(t, tx.Rollback())
	select {
	case <-wake:
		t.Fatal("woken by a rolled-back enqueue")
	case <-time.After(100 * time.Millisecond):
	}

	_, err = db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "listen"})
	require.NoError(t, err)
	select {
	case <-wake:
	case <-time.After(5 * time.Second):
		t.Fatal("not woken by a committed enqueue")
	}
	cancel()
	for range wake { // closes when ctx ends
	}

	_, err = (&store.Store{DB: db.Store.DB}).ListenJobs(context.Background())
	assert.Error(t, err, "a Store not made by Open cannot listen")
}

func TestPendingJobs(t *testing.T) {
	ctx := context.Background()
	before, err := db.Store.PendingJobs(ctx, "pending-a", "pending-b")
	require.NoError(t, err)
	require.Zero(t, before)
	_, err = db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "pending-a"})
	require.NoError(t, err)
	_, err = db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "pending-b"})
	require.NoError(t, err)
	_, err = db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "pending-a", RunAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	n, err := db.Store.PendingJobs(ctx, "pending-a")
	require.NoError(t, err)
	assert.Equal(t, 1, n, "a job due later is not pending yet")
	n, err = db.Store.PendingJobs(ctx, "pending-a", "pending-b")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	all, err := db.Store.PendingJobs(ctx)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, all, 2, "no kinds: every kind")
}
