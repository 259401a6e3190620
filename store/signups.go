package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/pay"
)

// Signup is a sign-up whose user does not exist yet.
type Signup struct {
	ID           int64      `db:"id"`
	EmailAddress string     `db:"email_address"`
	PasswordHash string     `db:"password_hash"`
	TermsVersion int        `db:"terms_version"`
	VerifiedAt   *time.Time `db:"verified_at"`
	CompletedAt  *time.Time `db:"completed_at"`
	CreatedAt    time.Time  `db:"created_at"`
}

// CreateSignup starts a sign-up.
func (s *Store) CreateSignup(ctx context.Context, email, passwordHash string, termsVersion int) (int64, error) {
	var id int64
	err := s.DB.GetContext(ctx, &id, `INSERT INTO signups (email_address, password_hash, terms_version) VALUES ($1, $2, $3) RETURNING id`,
		strings.TrimSpace(email), passwordHash, termsVersion)
	if err != nil {
		return 0, fmt.Errorf("store: create sign-up: %w", err)
	}
	return id, nil
}

// Signup loads a sign-up by the id kept in the visitor's own session.
func (s *Store) Signup(ctx context.Context, id int64) (Signup, error) {
	var su Signup
	err := s.DB.GetContext(ctx, &su, `SELECT id, email_address, password_hash, terms_version, verified_at, completed_at, created_at
		FROM signups WHERE id = $1`, id)
	if notFound(err) {
		return Signup{}, ErrNotFound
	}
	if err != nil {
		return Signup{}, fmt.Errorf("store: sign-up %d: %w", id, err)
	}
	return su, nil
}

// LatestOpenSignup finds the newest unfinished sign-up of an address, for
// re-registration (POST users/resignup).
func (s *Store) LatestOpenSignup(ctx context.Context, email string) (Signup, error) {
	var su Signup
	err := s.DB.GetContext(ctx, &su, `SELECT id, email_address, password_hash, terms_version, verified_at, completed_at, created_at
		FROM signups WHERE lower(email_address) = lower($1) AND completed_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1`, strings.TrimSpace(email))
	if notFound(err) {
		return Signup{}, ErrNotFound
	}
	if err != nil {
		return Signup{}, fmt.Errorf("store: open sign-up: %w", err)
	}
	return su, nil
}

// VerifySignup records that the address was confirmed.
func (s *Store) VerifySignup(ctx context.Context, id int64) error {
	return s.execOne(ctx, fmt.Sprintf("verify sign-up %d", id), `UPDATE signups SET verified_at = now() WHERE id = $1 AND completed_at IS NULL`, id)
}

// CompleteSignupTx closes a verified sign-up inside the registration transaction; a
// sign-up completed concurrently is ErrNotFound, so it registers exactly one buyer.
func CompleteSignupTx(ctx context.Context, tx *sqlx.Tx, id int64) error {
	res, err := tx.ExecContext(ctx, `UPDATE signups SET completed_at = now() WHERE id = $1 AND verified_at IS NOT NULL AND completed_at IS NULL`, id)
	if err != nil {
		return fmt.Errorf("store: complete sign-up %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// Register creates the buyer and its user from a verified sign-up in one transaction.
// A corporation claiming a number an active buyer already holds is created held
// (pay.HoldNumberTaken), and the jobs takenNotice makes for the holders' users (their
// mail) are queued in the same transaction. Claims of one number wait for each other
// (an advisory lock on it), so two at once cannot both become its active holder.
func (s *Store) Register(ctx context.Context, signupID int64, nb NewBuyer, takenNotice func(holders []string) ([]NewJob, error)) (User, error) {
	var u User
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := CompleteSignupTx(ctx, tx, signupID); err != nil {
			return err
		}
		number := nb.CorporateNumber
		if number == "" {
			number = nb.Details.CorporateNumber
		}
		if nb.BusinessForm == pay.Corporation && number != "" {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('buyers.corporate_number:' || $1, 0))`,
				number); err != nil {
				return fmt.Errorf("store: lock corporate number: %w", err)
			}
			var holders []string
			if err := tx.SelectContext(ctx, &holders, `SELECT u.email_address FROM users u JOIN buyers b ON b.id = u.buyer_id
				WHERE b.business_form = 1 AND b.corporate_number = $1 AND b.review_status = 'active' ORDER BY u.id`,
				number); err != nil {
				return fmt.Errorf("store: holders of a corporate number: %w", err)
			}
			if len(holders) > 0 {
				nb.ReviewStatus, nb.ReviewReason = pay.BuyerHeld, pay.HoldNumberTaken
				if takenNotice != nil {
					jobs, err := takenNotice(holders)
					if err != nil {
						return err
					}
					for _, j := range jobs {
						if _, err := enqueueJob(ctx, tx, j); err != nil {
							return err
						}
					}
				}
			}
		}
		var err error
		u, err = CreateBuyerTx(ctx, tx, nb)
		return err
	})
	if err != nil {
		return User{}, err
	}
	return s.User(ctx, u.BuyerID, u.ID)
}
