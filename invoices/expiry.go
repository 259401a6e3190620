package invoices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/pay"
	"cardpay/store"
)

// The daily expiry (期限切れ): a payment whose transfer date passed without the transfer,
// or whose card authorisation would lapse before screening can capture it, expires and
// its money goes back to the card (void, or refund once captured); a card-payment request
// not paid by its deadline expires too (nothing to give back). The job runs once a
// day whichever instance takes it: its unique key is the day's, and a day recorded as
// done (store.TakeDailyRun) is not run again.

// ExpiryJobKind is the daily expiry's job.
const ExpiryJobKind = "daily_expiry"

// ExpiryJob is its payload: the day (Japan's calendar) it runs for.
type ExpiryJob struct {
	Date string `json:"date"`
}

// Reasons on the timeline and in the buyer's notification.
const (
	MsgExpiredTransferDate  = "振込日までに手続きが完了しなかったため、期限切れになりました。カードのご利用は取り消されます"
	MsgExpiredAuthorisation = "カードの与信の有効期限までに審査が完了しなかったため、期限切れになりました。カードのご利用は取り消されます"
)

// AuthorizationLifetime is how long a card's authorisation holds at the PSP (the
// sandbox's default; card companies keep them about a week). ExpiryMargin is how long
// before that the daily expiry ends an uncaptured payment, so that the void reaches the
// PSP before the hold lapses on its own.
const (
	AuthorizationLifetime = 7 * 24 * time.Hour
	ExpiryMargin          = 24 * time.Hour
)

// ExpiryRunAt is when the day's expiry runs: 01:00 in Japan, after the day changed.
func ExpiryRunAt(day time.Time) time.Time {
	d := day.In(pay.Tokyo())
	return time.Date(d.Year(), d.Month(), d.Day(), 1, 0, 0, 0, pay.Tokyo())
}

// ScheduleExpiry enqueues day's expiry job (once: its key is the day's).
func (s *Payments) ScheduleExpiry(ctx context.Context, day time.Time) error {
	date := day.In(pay.Tokyo()).Format("2006-01-02")
	_, err := s.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: ExpiryJobKind, Payload: ExpiryJob{Date: date},
		UniqueKey: "expiry-" + date, RunAt: ExpiryRunAt(day)})
	return err
}

// RunExpiryJob is the ExpiryJobKind job: the day's expiry, then tomorrow's scheduled.
func (s *Payments) RunExpiryJob(ctx context.Context, payload json.RawMessage) error {
	var j ExpiryJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return fmt.Errorf("invoices: expiry job payload: %w", err)
	}
	day, err := time.ParseInLocation("2006-01-02", j.Date, pay.Tokyo())
	if err != nil {
		return fmt.Errorf("invoices: expiry job date %q: %w", j.Date, err)
	}
	if _, err := s.ExpireDue(ctx, day); err != nil {
		return err
	}
	return s.ScheduleExpiry(ctx, day.AddDate(0, 0, 1))
}

// ExpireDue ends the payments due to expire on day, once per day, and says how many.
func (s *Payments) ExpireDue(ctx context.Context, day time.Time) (int, error) {
	done, err := s.Store.DailyRunDone(ctx, ExpiryJobKind, day)
	if err != nil || done {
		return 0, err
	}
	list, err := s.Store.ExpiringPayments(ctx, day, s.now().Add(-(AuthorizationLifetime - ExpiryMargin)))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range list {
		reason := MsgExpiredTransferDate
		if e.Lapsing {
			reason = MsgExpiredAuthorisation
		}
		_, err := s.Store.Transition(ctx, e.BuyerID, e.ID, pay.ActExpire, "system", reason, s.now(), func(tx *sqlx.Tx, p store.Payment) error {
			_, err := s.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: CardJobKind,
				Payload: PaymentJob{BuyerID: e.BuyerID, ID: e.ID, Ref: p.PaymentRef}, UniqueKey: "release-" + p.PaymentRef})
			return err
		})
		switch {
		case errors.Is(err, pay.ErrTransition), errors.Is(err, store.ErrStateChanged):
			continue // moved on meanwhile
		case err != nil:
			return n, err
		}
		n++
	}
	// Card-payment requests not paid by their deadline (the day before day, or earlier).
	requests, err := s.Store.ExpireRequests(ctx, day, s.now())
	if err != nil {
		return n, err
	}
	n += requests
	s.logger().Info("daily expiry", "date", day.Format("2006-01-02"), "expired", n, "requests", requests)
	// Recorded once it all went through: a run that failed half-way is run again by the
	// job's retry, and each change is conditional, so nothing is expired twice.
	_, err = s.Store.TakeDailyRun(ctx, ExpiryJobKind, day)
	return n, err
}
