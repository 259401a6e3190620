package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// TermsAcceptance is when a user accepted a version of the terms of service.
type TermsAcceptance struct {
	Version    int       `db:"version"`
	AcceptedAt time.Time `db:"accepted_at"`
}

// recordTermsAcceptance writes the dated record of an acceptance inside tx (the
// registration's, or AcceptTerms'); the first date of a version stays. A zero at is the
// database's now (a buyer made without a sign-up: the demo data, tests).
func recordTermsAcceptance(ctx context.Context, tx sqlx.ExecerContext, buyerID, userID int64, version int, at time.Time) error {
	if version < 1 {
		return nil // "accepted nothing" (a test's outdated user) is no acceptance
	}
	var when any = at
	if at.IsZero() {
		when = nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO terms_acceptances (buyer_id, user_id, version, accepted_at)
		VALUES ($1, $2, $3, COALESCE($4::timestamptz, now())) ON CONFLICT (user_id, version) DO NOTHING`,
		buyerID, userID, version, when); err != nil {
		return fmt.Errorf("store: terms acceptance of user %d: %w", userID, err)
	}
	return nil
}

// TermsAcceptance is the user's acceptance of version, or ErrNotFound when none is
// recorded (a user who accepted before the record existed, or not at all).
func (s *Store) TermsAcceptance(ctx context.Context, buyerID, userID int64, version int) (TermsAcceptance, error) {
	return getOne[TermsAcceptance](ctx, s.DB, "terms acceptance", `SELECT version, accepted_at FROM terms_acceptances
		WHERE buyer_id = $1 AND user_id = $2 AND version = $3`, buyerID, userID, version)
}

// ForgetTermsAfter makes the user one who accepted no version of the terms later than
// version (development only: `server -terms-version`, for trying a revision's
// re-acceptance): the later acceptances go and the user's version is set back.
func (s *Store) ForgetTermsAfter(ctx context.Context, buyerID, userID int64, version int) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM terms_acceptances WHERE buyer_id = $1 AND user_id = $2 AND version > $3`,
			buyerID, userID, version); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE users SET terms_version = $3 WHERE buyer_id = $1 AND id = $2`, buyerID, userID, version)
		return err
	})
}
