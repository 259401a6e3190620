// Package jobs runs the background jobs of store/jobs.go inside the server process:
// mails now, card calls, OCR and transfers later. A Runner's workers claim due jobs with
// FOR UPDATE SKIP LOCKED under a lease they keep extending while they work, so that any
// number of instances on one database run each job once, and a job whose worker died is
// taken up again when its lease runs out. A failed run is retried after an exponential
// backoff with a cap; after the job's last attempt it stays failed with its error.
//
//	r := &jobs.Runner{Store: st, Workers: 2, Logger: logger}
//	r.Register("mail", acct.DeliverMail)
//	r.Start(ctx)
//	defer r.Stop()
package jobs

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"cardpay/store"
)

// Handler does one job. An error (or a panic) is a failed attempt; the job is retried
// until its attempts run out. ctx ends when the job's timeout passes, when the worker
// loses the job's lease, or when the Runner stops.
type Handler func(ctx context.Context, payload json.RawMessage) error

// Defaults of the Runner's settings.
const (
	DefaultPollInterval = time.Second
	DefaultIdleInterval = 30 * time.Second
	DefaultLease        = time.Minute
	DefaultTimeout      = 5 * time.Minute
	DefaultBaseBackoff  = 5 * time.Second
	DefaultMaxBackoff   = 30 * time.Minute
	DefaultStopGrace    = 10 * time.Second
)

// Runner runs the registered kinds of job with Workers goroutines. Set the fields, then
// Register handlers, then Start; the zero values of the durations are the defaults.
type Runner struct {
	Store *store.Store
	// Workers is the number of jobs run at once; 0 runs none on this instance (other
	// instances still do).
	Workers int
	Logger  *slog.Logger
	// Clock is nil in production: due times and leases are then the database's clock,
	// which all instances share. Tests set it to drive retries.
	Clock func() time.Time
	// PollInterval is how often an idle worker looks for due jobs when it cannot listen
	// for them (LISTEN failed) or runs on a test's Clock.
	PollInterval time.Duration
	// IdleInterval is the longest an idle worker rests while it listens: an enqueued job
	// wakes it at once (LISTEN/NOTIFY, and a re-established connection wakes it too), and
	// it sleeps until the next job falls due (a retry, a scheduled job, a dead worker's
	// lease ending) or IdleInterval, whichever comes first. So an idle server makes a
	// transaction or two per worker per IdleInterval, not one per poll.
	IdleInterval time.Duration
	// Lease is how long a claimed job stays with its worker without news; the worker
	// renews it every third of it while the handler runs. A worker that dies (process
	// killed, machine lost) stops renewing, and another worker takes the job up after
	// at most Lease.
	Lease time.Duration
	// Timeout bounds one run of a handler.
	Timeout time.Duration
	// BaseBackoff is the wait after the first failure; it doubles with each further
	// failure up to MaxBackoff (less up to a tenth, at random, so that jobs that failed
	// together do not all come back at the same moment).
	BaseBackoff, MaxBackoff time.Duration
	// StopGrace is how long Stop lets running handlers finish before cancelling them.
	StopGrace time.Duration
	// ID names this runner in locked_by (host, process and a random part by default);
	// each worker adds its number.
	ID string

	mu       sync.Mutex
	handlers map[string]Handler
	started  bool
	stopping chan struct{} // closed by Stop: claim no more
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// Register sets the handler of a kind of job. Only registered kinds are claimed, so an
// instance never takes a job it cannot do. Register before Start.
func (r *Runner) Register(kind string, h Handler) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		panic("jobs: Register after Start")
	}
	if r.handlers == nil {
		r.handlers = map[string]Handler{}
	}
	r.handlers[kind] = h
}

// Kinds are the registered kinds of job, sorted.
func (r *Runner) Kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	kinds := make([]string, 0, len(r.handlers))
	for k := range r.handlers {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

// Start starts the workers; they stop when ctx ends or Stop is called. With no workers
// or nothing registered it does nothing.
func (r *Runner) Start(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		panic("jobs: Start twice")
	}
	r.started = true
	r.stopping = make(chan struct{})
	r.defaults()
	if r.Workers <= 0 || len(r.handlers) == 0 {
		return
	}
	kinds := make([]string, 0, len(r.handlers))
	for k := range r.handlers {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds) // Kinds would lock r.mu again

	// Handlers run under a context of their own: Stop first stops claiming and gives
	// running handlers StopGrace to finish before it cancels them.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	go func() {
		select {
		case <-ctx.Done():
			r.stop()
		case <-r.stopping:
		}
	}()

	wakes := make([]chan struct{}, r.Workers)
	for i := range wakes {
		wakes[i] = make(chan struct{}, 1)
	}
	listening := false
	if notified, err := r.Store.ListenJobs(runCtx); err != nil {
		r.Logger.Info("jobs: polling only", "every", r.PollInterval, "reason", err)
	} else {
		listening = true
		go func() {
			for range notified {
				for _, w := range wakes {
					select {
					case w <- struct{}{}:
					default:
					}
				}
			}
		}()
	}
	for i := range r.Workers {
		w := &worker{r: r, id: fmt.Sprintf("%s/%d", r.ID, i+1), kinds: kinds, wake: wakes[i], listening: listening}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			w.loop(runCtx)
		}()
	}
}

// Stop stops claiming jobs, waits up to StopGrace for running handlers, cancels the
// rest (their jobs fail this attempt and are retried) and returns when every worker
// has finished. It may be called more than once.
func (r *Runner) Stop() {
	r.stop()
	r.wg.Wait()
}

func (r *Runner) stop() {
	r.mu.Lock()
	if !r.started || r.stopping == nil {
		r.mu.Unlock()
		return
	}
	select {
	case <-r.stopping:
		r.mu.Unlock()
		return
	default:
	}
	close(r.stopping)
	cancel := r.cancel
	r.mu.Unlock()
	if cancel == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(r.StopGrace):
	}
	cancel()
}

func (r *Runner) defaults() {
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{
		{&r.PollInterval, DefaultPollInterval}, {&r.IdleInterval, DefaultIdleInterval}, {&r.Lease, DefaultLease}, {&r.Timeout, DefaultTimeout},
		{&r.BaseBackoff, DefaultBaseBackoff}, {&r.MaxBackoff, DefaultMaxBackoff}, {&r.StopGrace, DefaultStopGrace},
	} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	if r.ID == "" {
		host, _ := os.Hostname()
		b := make([]byte, 4)
		_, _ = crand.Read(b)
		r.ID = fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b))
	}
}

// now is the Runner's clock for the store: the zero time means the database's clock.
func (r *Runner) now() time.Time {
	if r.Clock != nil {
		return r.Clock()
	}
	return time.Time{}
}

// Backoff is the wait before the next try after a job's attempt-th failure: base, then
// doubling, at most ceiling.
func Backoff(attempt int, base, ceiling time.Duration) time.Duration {
	d := base
	for i := 1; i < attempt && d < ceiling; i++ {
		d *= 2
	}
	return min(d, ceiling)
}

// retryIn is Backoff less up to a tenth at random.
func (r *Runner) retryIn(attempt int) time.Duration {
	d := Backoff(attempt, r.BaseBackoff, r.MaxBackoff)
	return d - time.Duration(rand.Int64N(int64(d)/10+1))
}

type worker struct {
	r         *Runner
	id        string
	kinds     []string
	wake      chan struct{}
	listening bool // LISTEN works: rest until woken or the next job is due
}

// rest is how long an idle worker waits before it looks again.
func (w *worker) rest(ctx context.Context) time.Duration {
	r := w.r
	if !w.listening || r.Clock != nil {
		return r.PollInterval
	}
	d, ok, err := r.Store.NextJobIn(ctx, w.kinds)
	switch {
	case err != nil:
		return r.PollInterval // the database is in trouble: look again soon
	case !ok:
		return r.IdleInterval
	case d <= 0:
		// Due, yet not claimed: another worker's claim holds it. If that one fails to
		// take it, look again soon.
		return r.PollInterval
	}
	return min(d+time.Millisecond, r.IdleInterval)
}

func (w *worker) loop(ctx context.Context) {
	idle := time.NewTimer(time.Hour)
	defer idle.Stop()
	for {
		select {
		case <-w.r.stopping:
			return
		default:
		}
		j, err := w.r.Store.ClaimJob(ctx, w.id, w.kinds, w.r.now(), w.r.Lease)
		wait := w.r.PollInterval
		switch {
		case err == nil:
			w.run(ctx, j)
			continue // there may be more
		case errors.Is(err, store.ErrNotFound):
			wait = w.rest(ctx)
		case ctx.Err() != nil:
			return
		default:
			w.r.Logger.Error("jobs: claim", "worker", w.id, "error", err)
		}
		idle.Reset(wait)
		select {
		case <-w.r.stopping:
			return
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-idle.C:
		}
	}
}

// run runs one claimed job under its lease and records the outcome.
func (w *worker) run(ctx context.Context, j store.Job) {
	r := w.r
	h := r.handlers[j.Kind] // read-only after Start
	jobCtx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()

	// Keep the lease while the handler works; if it is lost (the database was out of
	// reach for a whole lease and another worker took the job), stop the handler.
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(r.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-jobCtx.Done():
				return
			case <-t.C:
				err := r.Store.ExtendJobLease(jobCtx, j.ID, w.id, r.now(), r.Lease)
				if errors.Is(err, store.ErrNotFound) {
					r.Logger.Warn("jobs: lease lost", "kind", j.Kind, "id", j.ID, "attempt", j.Attempts)
					cancel()
					return
				}
			}
		}
	}()
	err := call(jobCtx, h, j.Payload)
	cancel()
	<-renewed

	// Record the outcome even when the runner is stopping.
	rec, done := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer done()
	if err == nil {
		if cerr := r.Store.CompleteJob(rec, j.ID, w.id, r.now()); cerr != nil && !errors.Is(cerr, store.ErrNotFound) {
			r.Logger.Error("jobs: complete", "kind", j.Kind, "id", j.ID, "attempt", j.Attempts, "error", cerr)
		}
		return
	}
	final, ferr := r.Store.FailJob(rec, j.ID, w.id, err.Error(), r.now(), r.retryIn(j.Attempts))
	switch {
	case errors.Is(ferr, store.ErrNotFound):
		return // another worker has the job now
	case ferr != nil:
		r.Logger.Error("jobs: record failure", "kind", j.Kind, "id", j.ID, "attempt", j.Attempts, "error", ferr)
	case final:
		r.Logger.Error("jobs: failed for good", "kind", j.Kind, "id", j.ID, "attempt", j.Attempts, "max_attempts", j.MaxAttempts, "error", err)
	default:
		r.Logger.Warn("jobs: failed, will retry", "kind", j.Kind, "id", j.ID, "attempt", j.Attempts, "max_attempts", j.MaxAttempts, "error", err)
	}
}

// call runs h, turning a panic into an error: one bad job must not take the server down.
// The stack goes to the error (and so to last_error), never the payload.
func call(ctx context.Context, h Handler, payload json.RawMessage) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	if h == nil {
		return errors.New("no handler registered")
	}
	return h(ctx, payload)
}
