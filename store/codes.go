package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// Code purposes.
const (
	PurposeSignup        = "signup"
	PurposeSignIn        = "signin"
	PurposePasswordReset = "password_reset"
	PurposeEmailChange   = "email_change"
)

// OneTimeCode is a mailed code as stored: only its hash.
type OneTimeCode struct {
	ID        int64      `db:"id"`
	Purpose   string     `db:"purpose"`
	Subject   string     `db:"subject"`
	CodeHash  string     `db:"code_hash"`
	Payload   string     `db:"payload"`
	ExpiresAt time.Time  `db:"expires_at"`
	Attempts  int        `db:"attempts"`
	UsedAt    *time.Time `db:"used_at"`
	CreatedAt time.Time  `db:"created_at"`
}

// CreateCode stores a new code for (purpose, subject) and retires the earlier unused
// ones, so only the newest mailed code works. jobs (the code's mail) are enqueued in the
// same transaction: a code exists exactly when its mail is on its way.
func (s *Store) CreateCode(ctx context.Context, purpose, subject, hash, payload string, expiresAt time.Time, jobs ...NewJob) (int64, error) {
	var created int64
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE one_time_codes SET used_at = now() WHERE purpose = $1 AND subject = $2 AND used_at IS NULL`, purpose, subject); err != nil {
			return fmt.Errorf("store: retire codes: %w", err)
		}
		var id int64
		if err := tx.GetContext(ctx, &id, `INSERT INTO one_time_codes (purpose, subject, code_hash, payload, expires_at)
			VALUES ($1, $2, $3, $4, $5) RETURNING id`, purpose, subject, hash, payload, expiresAt); err != nil {
			return fmt.Errorf("store: create code: %w", err)
		}
		created = id
		for _, j := range jobs {
			if _, err := s.EnqueueJob(ctx, tx, j); err != nil {
				return err
			}
		}
		return nil
	})
	return created, err
}

// LatestCode is the newest code for (purpose, subject), used or not, so the caller can
// tell "used" and "expired" apart from "never sent".
func (s *Store) LatestCode(ctx context.Context, purpose, subject string) (OneTimeCode, error) {
	var c OneTimeCode
	err := s.DB.GetContext(ctx, &c, `SELECT id, purpose, subject, code_hash, payload, expires_at, attempts, used_at, created_at
		FROM one_time_codes WHERE purpose = $1 AND subject = $2 ORDER BY created_at DESC, id DESC LIMIT 1`, purpose, subject)
	if notFound(err) {
		return OneTimeCode{}, ErrNotFound
	}
	if err != nil {
		return OneTimeCode{}, fmt.Errorf("store: code %s/%s: %w", purpose, subject, err)
	}
	return c, nil
}

// CountCodeAttempt counts one entry against the newest code for (purpose, subject) and
// returns that code, in the same statement that checks the code may still be tried
// (unused, unexpired at now, fewer than max entries counted): parallel guesses queue on
// the row and each sees the count the previous one left, so no more than max entries
// are ever compared. Every entry counts, the right one included (it uses the code up).
// When nothing was counted, counted is false and the code is the newest one as it
// stands, for the caller to say why (used, expired, too many); ErrNotFound when no code
// was ever sent.
func (s *Store) CountCodeAttempt(ctx context.Context, purpose, subject string, now time.Time, max int) (c OneTimeCode, counted bool, err error) {
	err = s.DB.GetContext(ctx, &c, `UPDATE one_time_codes SET attempts = attempts + 1
		WHERE id = (SELECT id FROM one_time_codes WHERE purpose = $1 AND subject = $2 ORDER BY created_at DESC, id DESC LIMIT 1)
			AND used_at IS NULL AND expires_at > $3 AND attempts < $4
		RETURNING id, purpose, subject, code_hash, payload, expires_at, attempts, used_at, created_at`, purpose, subject, now, max)
	if err == nil {
		return c, true, nil
	}
	if !notFound(err) {
		return OneTimeCode{}, false, fmt.Errorf("store: count code attempt %s/%s: %w", purpose, subject, err)
	}
	c, err = s.LatestCode(ctx, purpose, subject)
	return c, false, err
}

// UseCode marks a code used; ErrNotFound when it was used concurrently, so a code
// works exactly once.
func (s *Store) UseCode(ctx context.Context, id int64) error {
	return s.execOne(ctx, fmt.Sprintf("use code %d", id), `UPDATE one_time_codes SET used_at = now() WHERE id = $1 AND used_at IS NULL`, id)
}
