package account

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"cardpay/store"
)

// CleanupJobKind is the hourly job that deletes what the account rules no longer need
// (store.PruneSecurity): rate-limit windows, old failure counters, expired devices,
// codes and tokens, sign-ups never finished, sessions long over. Each hour's run is
// enqueued once by its unique key, whichever instance gets there first, and each run
// enqueues the next.
const CleanupJobKind = "account-cleanup"

// Kept after their end: unfinished sign-ups a week (a re-registration can restart one),
// ended sessions 30 days (the security page shows only live ones; the rows help an
// investigation).
const (
	signupKeep  = 7 * 24 * time.Hour
	sessionKeep = 30 * 24 * time.Hour
)

type cleanupJob struct {
	Hour string `json:"hour"` // 2006-01-02T15, UTC
}

// ScheduleCleanup enqueues the cleanup of the hour after at (once, by its unique key).
func (s *Service) ScheduleCleanup(ctx context.Context, at time.Time) error {
	next := at.UTC().Truncate(time.Hour).Add(time.Hour)
	hour := next.Format("2006-01-02T15")
	_, err := s.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: CleanupJobKind, Payload: cleanupJob{Hour: hour},
		UniqueKey: "account-cleanup-" + hour, RunAt: next})
	return err
}

// RunCleanupJob is the CleanupJobKind job: the cleanup, then the next hour's scheduled.
func (s *Service) RunCleanupJob(ctx context.Context, _ json.RawMessage) error {
	if _, err := s.Cleanup(ctx); err != nil {
		return err
	}
	return s.ScheduleCleanup(ctx, s.now())
}

// Cleanup deletes now what has no use any more and says how many rows, by table.
func (s *Service) Cleanup(ctx context.Context) (store.Pruned, error) {
	now := s.now()
	pruned, err := s.Store.PruneSecurity(ctx, now, now.Add(-signupKeep), now.Add(-sessionKeep))
	if err != nil {
		return pruned, err
	}
	var total int64
	for _, n := range pruned {
		total += n
	}
	if total > 0 {
		slog.Default().Info("account cleanup", "rows", total)
	}
	return pruned, nil
}
