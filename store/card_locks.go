package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// DeclineCount asks FinishCardCheck to count a declined check against the buyer's day
// (card_check_locks) and to lock adding cards when the day's declines reach Limit.
type DeclineCount struct {
	Day   string // the Japan day, YYYY-MM-DD
	Limit int
}

// countDecline adds one decline to the buyer's day and sets the lock when the count
// reaches the limit: one upsert, so parallel declines each add theirs.
func countDecline(ctx context.Context, tx *sqlx.Tx, buyerID int64, d DeclineCount, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO card_check_locks (buyer_id, day, declines, last_declined_at, locked_at)
		VALUES ($1, $2::date, 1, $3, CASE WHEN 1 >= $4 THEN $3::timestamptz END)
		ON CONFLICT (buyer_id, day) DO UPDATE SET declines = card_check_locks.declines + 1, last_declined_at = $3,
			locked_at = COALESCE(card_check_locks.locked_at,
				CASE WHEN card_check_locks.declines + 1 >= $4 THEN $3::timestamptz END)`, buyerID, d.Day, now, d.Limit)
	if err != nil {
		return fmt.Errorf("store: count card decline of buyer %d: %w", buyerID, err)
	}
	return nil
}

// CardCheckLock is one buyer's declined card checks on one Japan day.
type CardCheckLock struct {
	BuyerID        int64      `db:"buyer_id"`
	BuyerName      string     `db:"buyer_name"`
	Declines       int        `db:"declines"`
	LastDeclinedAt time.Time  `db:"last_declined_at"`
	LockedAt       *time.Time `db:"locked_at"`
	UnlockedAt     *time.Time `db:"unlocked_at"`
}

// Locked says whether adding cards is locked.
func (l CardCheckLock) Locked() bool { return l.LockedAt != nil }

const cardCheckLockColumns = `l.buyer_id, CASE WHEN b.business_form = 1 THEN b.corporate_name ELSE b.business_name END AS buyer_name,
	l.declines, l.last_declined_at, l.locked_at, l.unlocked_at`

// CardCheckLock is the buyer's row for day (YYYY-MM-DD, Japan time); a day without
// declines is the zero value (not locked).
func (s *Store) CardCheckLock(ctx context.Context, buyerID int64, day string) (CardCheckLock, error) {
	var l CardCheckLock
	err := s.DB.GetContext(ctx, &l, `SELECT `+cardCheckLockColumns+` FROM card_check_locks l JOIN buyers b ON b.id = l.buyer_id
		WHERE l.buyer_id = $1 AND l.day = $2::date`, buyerID, day)
	if notFound(err) {
		return CardCheckLock{BuyerID: buyerID}, nil
	}
	if err != nil {
		return l, fmt.Errorf("store: card check lock of buyer %d: %w", buyerID, err)
	}
	return l, nil
}

// CardCheckLocks lists the buyers whose card checks are locked on day, the newest lock
// first (the operators' console).
func (s *Store) CardCheckLocks(ctx context.Context, day string) ([]CardCheckLock, error) {
	list := []CardCheckLock{}
	err := s.DB.SelectContext(ctx, &list, `SELECT `+cardCheckLockColumns+` FROM card_check_locks l JOIN buyers b ON b.id = l.buyer_id
		WHERE l.day = $1::date AND l.locked_at IS NOT NULL ORDER BY l.locked_at DESC, l.buyer_id`, day)
	if err != nil {
		return nil, fmt.Errorf("store: card check locks: %w", err)
	}
	return list, nil
}

// UnlockCardChecks lifts the buyer's lock of day, with its audit row, in one
// transaction: the day's declines start again from zero. ErrStateChanged when the buyer
// is not locked (another operator unlocked it, or the day is over).
func (s *Store) UnlockCardChecks(ctx context.Context, buyerID int64, day string, operatorID int64, reason string, now time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var before struct {
			Declines int       `db:"declines" json:"declines"`
			LockedAt time.Time `db:"locked_at" json:"locked_at"`
		}
		err := tx.GetContext(ctx, &before, `SELECT declines, locked_at FROM card_check_locks
			WHERE buyer_id = $1 AND day = $2::date AND locked_at IS NOT NULL FOR UPDATE`, buyerID, day)
		if notFound(err) {
			return fmt.Errorf("store: unlock card checks of buyer %d: %w", buyerID, ErrStateChanged)
		}
		if err != nil {
			return fmt.Errorf("store: unlock card checks of buyer %d: %w", buyerID, err)
		}
		res, err := tx.ExecContext(ctx, `UPDATE card_check_locks SET declines = 0, locked_at = NULL, unlocked_at = $3, unlocked_by = $4
			WHERE buyer_id = $1 AND day = $2::date AND locked_at IS NOT NULL`, buyerID, day, now, operatorID)
		if err != nil {
			return fmt.Errorf("store: unlock card checks of buyer %d: %w", buyerID, err)
		}
		if rowsAffected(res) != 1 {
			return fmt.Errorf("store: unlock card checks of buyer %d: %w", buyerID, ErrStateChanged)
		}
		return s.AddAudit(ctx, tx, NewAudit{OperatorID: operatorID, ObjectType: AuditBuyer, ObjectID: buyerID, Action: "unlock_card_checks",
			Before: before, After: map[string]any{"declines": 0, "locked": false}, Reason: reason}, now)
	})
}
