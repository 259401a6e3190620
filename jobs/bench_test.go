package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"cardpay/jobs"
	"cardpay/store"
)

// The figures of `task jobs-bench`: how many no-op jobs two workers run per second, and
// how long a job waits between its enqueue and its start on an idle queue.

// BenchmarkNoopJobsTwoWorkers enqueues b.N no-op jobs, then times two workers (one
// runner with the production settings) running them all.
func BenchmarkNoopJobsTwoWorkers(b *testing.B) {
	ctx := context.Background()
	kind := fmt.Sprintf("noop-%d", time.Now().UnixNano())
	tx, err := db.Store.DB.BeginTxx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range b.N {
		if _, err := db.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: kind, Payload: map[string]int{"n": i}}); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	// The planner's statistics as autovacuum keeps them in a running system, rather than
	// those of an empty table that just received b.N rows.
	if _, err := db.Store.DB.ExecContext(ctx, `ANALYZE jobs`); err != nil {
		b.Fatal(err)
	}
	var done atomic.Int64
	all := make(chan struct{})
	r := &jobs.Runner{Store: db.Store, Workers: 2}
	r.Register(kind, func(context.Context, json.RawMessage) error {
		if done.Add(1) == int64(b.N) {
			close(all)
		}
		return nil
	})
	b.ResetTimer()
	start := time.Now()
	r.Start(ctx)
	<-all
	elapsed := time.Since(start)
	b.StopTimer()
	r.Stop()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
}

// BenchmarkClaimLatency enqueues one job at a time on an idle queue (two workers
// waiting, polling once a second as in production) and measures from the enqueue to
// the handler's start: what LISTEN/NOTIFY makes of it.
func BenchmarkClaimLatency(b *testing.B) {
	ctx := context.Background()
	kind := fmt.Sprintf("latency-%d", time.Now().UnixNano())
	started := make(chan time.Time, 1)
	r := &jobs.Runner{Store: db.Store, Workers: 2}
	r.Register(kind, func(context.Context, json.RawMessage) error {
		started <- time.Now()
		return nil
	})
	r.Start(ctx)
	defer r.Stop()
	time.Sleep(200 * time.Millisecond) // the workers are idle and listening
	latencies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		at := time.Now()
		// As the app does it: in the transaction of the change.
		tx, err := db.Store.DB.BeginTxx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: kind}); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		select {
		case s := <-started:
			latencies = append(latencies, s.Sub(at))
		case <-time.After(10 * time.Second):
			b.Fatal("the job did not start")
		}
	}
	b.StopTimer()
	slices.Sort(latencies)
	q := func(p int) float64 {
		i := max((len(latencies)*p+99)/100-1, 0)
		return float64(latencies[i]) / float64(time.Millisecond)
	}
	b.ReportMetric(q(50), "p50-ms")
	b.ReportMetric(q(95), "p95-ms")
	b.ReportMetric(q(100), "max-ms")
}
