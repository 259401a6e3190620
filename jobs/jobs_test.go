package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/jobs"
	"cardpay/store"
	"cardpay/store/storetest"
)

var db *storetest.DB

func TestMain(m *testing.M) { storetest.Run(m, &db) }

// eventually waits for cond, failing the test after timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func job(t *testing.T, id int64) store.Job {
	t.Helper()
	j, err := db.Store.Job(context.Background(), id)
	require.NoError(t, err)
	return j
}

// start runs r until the test ends.
func start(t *testing.T, r *jobs.Runner) {
	t.Helper()
	r.Start(context.Background())
	t.Cleanup(r.Stop)
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func TestBackoff(t *testing.T) {
	var got []time.Duration
	for a := 1; a <= 8; a++ {
		got = append(got, jobs.Backoff(a, time.Second, 30*time.Second))
	}
	assert.Equal(t, []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
		16 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second}, got)
	assert.Equal(t, 30*time.Second, jobs.Backoff(1000, time.Second, 30*time.Second), "no overflow")
}

// A failing job comes back after a wait that doubles and stops at the cap, then stays
// failed with its last error once its attempts are spent.
func TestRetryBacksOffExponentiallyUpToTheCap(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2031, 4, 1, 9, 0, 0, 0, time.UTC)}
	attempts := make(chan int, 10)
	var n atomic.Int32
	logs := &storetest.Logs{}
	r := &jobs.Runner{Store: db.Store, Workers: 1, Clock: clk.Now, PollInterval: 5 * time.Millisecond,
		BaseBackoff: time.Second, MaxBackoff: 8 * time.Second, Logger: slog.New(slog.NewTextHandler(logs, nil))}
	r.Register("retry", func(ctx context.Context, payload json.RawMessage) error {
		i := int(n.Add(1))
		attempts <- i
		return fmt.Errorf("smtp: 451 temporary failure (try %d)", i)
	})
	const maxAttempts = 7
	id, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "retry", Payload: map[string]string{"secret": "payload-not-for-logs"},
		RunAt: clk.Now(), MaxAttempts: maxAttempts})
	require.NoError(t, err)
	start(t, r)

	var waits []time.Duration
	for a := 1; a <= maxAttempts; a++ {
		select {
		case got := <-attempts:
			require.Equal(t, a, got)
		case <-time.After(10 * time.Second):
			t.Fatalf("attempt %d did not run", a)
		}
		want := store.JobQueued
		if a == maxAttempts {
			want = store.JobFailed
		}
		eventually(t, 10*time.Second, "the failure is recorded", func() bool { return job(t, id).Status == want })
		if a == maxAttempts {
			break
		}
		j := job(t, id)
		waits = append(waits, j.RunAt.Sub(clk.Now()))
		assert.Equal(t, a, j.Attempts)
		// Nothing runs before the retry time: the clock stands still just before it.
		clk.Set(j.RunAt.Add(-time.Millisecond))
		time.Sleep(30 * time.Millisecond)
		assert.Equal(t, int32(a), n.Load(), "not retried before run_at")
		clk.Set(j.RunAt)
	}
	require.Len(t, waits, maxAttempts-1)
	for i, w := range waits {
		full := jobs.Backoff(i+1, time.Second, 8*time.Second)
		assert.LessOrEqual(t, w, full, "wait %d", i+1)
		assert.GreaterOrEqual(t, w, full-full/10, "wait %d: at most a tenth of jitter", i+1)
		if i > 0 && full > jobs.Backoff(i, time.Second, 8*time.Second) {
			assert.Greater(t, w, waits[i-1], "the wait grows: %v", waits)
		}
	}
	assert.Greater(t, waits[1], waits[0])
	assert.Greater(t, waits[3], waits[2])
	for _, w := range waits[3:] {
		assert.LessOrEqual(t, w, 8*time.Second, "capped: %v", waits)
	}

	j := job(t, id)
	assert.Equal(t, store.JobFailed, j.Status)
	assert.Equal(t, maxAttempts, j.Attempts)
	assert.Equal(t, "smtp: 451 temporary failure (try 7)", *j.LastError, "the last error stays visible")
	require.NotNil(t, j.FinishedAt)

	// The runner logs the final failure after recording it: on a busy machine the row says
	// failed a moment before the line is written.
	eventually(t, 10*time.Second, "the final failure is logged", func() bool { return strings.Contains(logs.String(), "failed for good") })
	out := logs.String()
	assert.Contains(t, out, "kind=retry")
	assert.Contains(t, out, fmt.Sprintf("id=%d", id))
	assert.Contains(t, out, "attempt=7")
	assert.Contains(t, out, "failed for good")
	assert.NotContains(t, out, "payload-not-for-logs", "payloads never reach the log")
}

// A worker claims a job and dies without a word (no completion, no lease renewal):
// another runner takes the job up once the lease has run out, and only then.
func TestJobOfAKilledWorkerRunsAgainAfterItsLease(t *testing.T) {
	ctx := context.Background()
	id, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "orphan"})
	require.NoError(t, err)
	const lease = 400 * time.Millisecond
	claimedAt := time.Now()
	dead, err := db.Store.ClaimJob(ctx, "killed-worker", []string{"orphan"}, time.Time{}, lease)
	require.NoError(t, err)
	require.Equal(t, id, dead.ID)

	ran := make(chan time.Time, 2)
	r := &jobs.Runner{Store: db.Store, Workers: 2, PollInterval: 20 * time.Millisecond, Lease: time.Minute, ID: "survivor"}
	r.Register("orphan", func(context.Context, json.RawMessage) error {
		ran <- time.Now()
		return nil
	})
	start(t, r)
	select {
	case at := <-ran:
		assert.GreaterOrEqual(t, at.Sub(claimedAt), lease-50*time.Millisecond, "not taken while the lease lasted")
	case <-time.After(10 * time.Second):
		t.Fatal("the orphaned job was not taken up")
	}
	eventually(t, 5*time.Second, "succeeded", func() bool { return job(t, id).Status == store.JobSucceeded })
	j := job(t, id)
	assert.Equal(t, 2, j.Attempts)
	assert.Contains(t, *j.LockedBy, "survivor/")
	assert.ErrorIs(t, db.Store.CompleteJob(ctx, id, "killed-worker", time.Time{}), store.ErrNotFound, "the dead worker's late word does not count")
	assert.Len(t, ran, 0, "run once")
}

// A slow job whose worker is alive keeps its lease: another runner does not take it even
// after several lease periods.
func TestSlowJobKeepsItsLease(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	var runs atomic.Int32
	handler := func(ctx context.Context, _ json.RawMessage) error {
		runs.Add(1)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	const lease = 300 * time.Millisecond
	a := &jobs.Runner{Store: db.Store, Workers: 1, PollInterval: 10 * time.Millisecond, Lease: lease, ID: "a"}
	a.Register("slow", handler)
	start(t, a)
	id, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "slow"})
	require.NoError(t, err)
	eventually(t, 5*time.Second, "a runs the job", func() bool { return runs.Load() == 1 })

	b := &jobs.Runner{Store: db.Store, Workers: 1, PollInterval: 10 * time.Millisecond, Lease: lease, ID: "b"}
	b.Register("slow", handler)
	start(t, b)
	time.Sleep(4 * lease)
	assert.Equal(t, int32(1), runs.Load(), "the lease was renewed, so nobody else ran the job")
	close(release)
	eventually(t, 5*time.Second, "succeeded", func() bool { return job(t, id).Status == store.JobSucceeded })
	j := job(t, id)
	assert.Equal(t, 1, j.Attempts)
	assert.Contains(t, *j.LockedBy, "a/")
}

// Two server instances (two Stores on one database, two runners) run each of many jobs
// exactly once between them.
func TestTwoInstancesRunEachJobExactlyOnce(t *testing.T) {
	ctx := context.Background()
	second, err := store.Open(ctx, db.Server.DSN(db.Name))
	require.NoError(t, err)
	t.Cleanup(func() { second.Close() })

	const n = 300
	var mu sync.Mutex
	runs := map[int]int{}
	by := map[string]int{}
	handler := func(instance string) jobs.Handler {
		return func(_ context.Context, payload json.RawMessage) error {
			var p struct{ N int }
			if err := json.Unmarshal(payload, &p); err != nil {
				return err
			}
			time.Sleep(time.Millisecond) // long enough for both instances to take part
			mu.Lock()
			defer mu.Unlock()
			runs[p.N]++
			by[instance]++
			return nil
		}
	}
	one := &jobs.Runner{Store: db.Store, Workers: 2, PollInterval: 20 * time.Millisecond}
	one.Register("twice", handler("one"))
	two := &jobs.Runner{Store: second, Workers: 2, PollInterval: 20 * time.Millisecond}
	two.Register("twice", handler("two"))
	start(t, one)
	start(t, two)

	ids := make([]int64, 0, n)
	for i := range n {
		// Half through each instance's own connection pool, as two servers would.
		st := db.Store
		if i%2 == 1 {
			st = second
		}
		id, err := st.EnqueueJob(ctx, nil, store.NewJob{Kind: "twice", Payload: map[string]int{"n": i}})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	eventually(t, 60*time.Second, "every job ran", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(runs) == n
	})
	one.Stop()
	two.Stop()
	mu.Lock()
	defer mu.Unlock()
	for i := range n {
		assert.Equal(t, 1, runs[i], "job %d ran once", i)
	}
	assert.Positive(t, by["one"], "instance one took part: %v", by)
	assert.Positive(t, by["two"], "instance two took part: %v", by)
	for _, id := range ids {
		j := job(t, id)
		assert.Equal(t, store.JobSucceeded, j.Status)
		assert.Equal(t, 1, j.Attempts)
	}
}

// A panicking handler fails its attempt like an error; the runner goes on with the next
// job.
func TestPanicIsAFailedAttempt(t *testing.T) {
	ctx := context.Background()
	logs := &storetest.Logs{}
	r := &jobs.Runner{Store: db.Store, Workers: 1, PollInterval: 10 * time.Millisecond, BaseBackoff: time.Hour,
		Logger: slog.New(slog.NewTextHandler(logs, nil))}
	r.Register("panics", func(_ context.Context, payload json.RawMessage) error {
		if string(payload) == `{"boom": true}` {
			var m map[string]int
			m["nil map"] = 1
		}
		return nil
	})
	start(t, r)
	bad, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "panics", Payload: map[string]bool{"boom": true}, MaxAttempts: 3})
	require.NoError(t, err)
	good, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "panics", Payload: map[string]bool{"boom": false}})
	require.NoError(t, err)
	eventually(t, 5*time.Second, "the good job ran", func() bool { return job(t, good).Status == store.JobSucceeded })
	eventually(t, 5*time.Second, "the failure is recorded", func() bool { return job(t, bad).LastError != nil })
	j := job(t, bad)
	assert.Equal(t, store.JobQueued, j.Status, "retried later")
	assert.Equal(t, 1, j.Attempts)
	assert.Contains(t, *j.LastError, "panic: assignment to entry in nil map")
	// Logged after the failure is recorded (the row can say so a moment before the line).
	eventually(t, 5*time.Second, "the retry is logged", func() bool { return strings.Contains(logs.String(), "will retry") })
}

func TestNoWorkersRunNothing(t *testing.T) {
	ctx := context.Background()
	var ran atomic.Bool
	r := &jobs.Runner{Store: db.Store, Workers: 0, PollInterval: 5 * time.Millisecond}
	r.Register("idle", func(context.Context, json.RawMessage) error { ran.Store(true); return nil })
	start(t, r)
	id, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "idle"})
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond)
	assert.False(t, ran.Load())
	assert.Equal(t, store.JobQueued, job(t, id).Status, "left for an instance with workers")
	r.Stop()
	r.Stop() // twice is fine
}

// Stop lets a running handler finish within the grace period; one that does not is
// cancelled and its attempt counts as failed, to be retried by whoever runs next.
func TestStopCancelsAfterTheGracePeriod(t *testing.T) {
	ctx := context.Background()
	started := make(chan struct{})
	r := &jobs.Runner{Store: db.Store, Workers: 1, PollInterval: 10 * time.Millisecond, StopGrace: 50 * time.Millisecond}
	r.Register("stubborn", func(ctx context.Context, _ json.RawMessage) error {
		close(started)
		<-ctx.Done()
		return errors.New("stopped: " + ctx.Err().Error())
	})
	r.Start(ctx)
	id, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "stubborn"})
	require.NoError(t, err)
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("not started")
	}
	r.Stop()
	j := job(t, id)
	assert.Equal(t, store.JobQueued, j.Status)
	assert.Equal(t, 1, j.Attempts)
	assert.Contains(t, *j.LastError, "context canceled")
}

// An idle worker that listens does not poll: with both intervals an hour long, only a
// notification (a job enqueued), the next job's due time (a scheduled job, a retry after
// its backoff) or the end of a dead worker's lease wakes it — and each of those does.
func TestAnIdleWorkerRestsUntilAJobIsEnqueuedOrDue(t *testing.T) {
	ctx := context.Background()
	var runs sync.Map
	failedOnce := atomic.Bool{}
	r := &jobs.Runner{Store: db.Store, Workers: 2, PollInterval: time.Hour, IdleInterval: time.Hour,
		BaseBackoff: 300 * time.Millisecond}
	r.Register("rests", func(_ context.Context, p json.RawMessage) error {
		var body struct{ Name string }
		_ = json.Unmarshal(p, &body)
		if body.Name == "retried" && !failedOnce.Swap(true) {
			return errors.New("first attempt fails")
		}
		runs.Store(body.Name, true)
		return nil
	})
	start(t, r)
	ran := func(name string) func() bool {
		return func() bool { _, ok := runs.Load(name); return ok }
	}
	time.Sleep(100 * time.Millisecond) // the workers found nothing and rest

	_, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "rests", Payload: map[string]string{"Name": "now"}})
	require.NoError(t, err)
	eventually(t, 5*time.Second, "a job enqueued wakes a worker (NOTIFY)", ran("now"))

	_, err = db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "rests", Payload: map[string]string{"Name": "later"},
		RunAt: time.Now().Add(400 * time.Millisecond)})
	require.NoError(t, err)
	eventually(t, 5*time.Second, "a scheduled job runs when it falls due", ran("later"))

	id, err := db.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: "rests", Payload: map[string]string{"Name": "retried"}, MaxAttempts: 3})
	require.NoError(t, err)
	eventually(t, 5*time.Second, "a failed job is retried after its backoff", ran("retried"))
	assert.Equal(t, 2, job(t, id).Attempts)
}
