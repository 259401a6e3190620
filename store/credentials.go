package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// SetUserName changes the user's own name (PUT users/user_name).
func (s *Store) SetUserName(ctx context.Context, buyerID, userID int64, last, first string) error {
	return s.execOne(ctx, fmt.Sprintf("name of user %d", userID),
		`UPDATE users SET user_last_name = $3, user_first_name = $4 WHERE buyer_id = $1 AND id = $2`, buyerID, userID, last, first)
}

// SetEmailAddress changes the sign-in address after the new one was confirmed, and
// enqueues jobs (the notice to the old address) in the same transaction.
func (s *Store) SetEmailAddress(ctx context.Context, buyerID, userID int64, email string, jobs ...NewJob) error {
	return s.withJobs(ctx, jobs, func(q sqlx.ExtContext) error {
		return execOneOn(ctx, q, fmt.Sprintf("e-mail of user %d", userID),
			`UPDATE users SET email_address = $3 WHERE buyer_id = $1 AND id = $2`, buyerID, userID, strings.TrimSpace(email))
	})
}

// EmailTaken says whether any user signs in with email already.
func (s *Store) EmailTaken(ctx context.Context, email string) (bool, error) {
	var taken bool
	err := s.DB.GetContext(ctx, &taken, `SELECT EXISTS (SELECT 1 FROM users WHERE lower(email_address) = lower($1))`, strings.TrimSpace(email))
	if err != nil {
		return false, fmt.Errorf("store: e-mail taken: %w", err)
	}
	return taken, nil
}

// SetPasswordAndEndSessions replaces the password hash and raises the session epoch,
// which signs out every session that was opened before; it returns the new epoch so
// the caller's own session can stay signed in. jobs (the notice) are enqueued in the
// same transaction.
func (s *Store) SetPasswordAndEndSessions(ctx context.Context, buyerID, userID int64, hash string, jobs ...NewJob) (int, error) {
	var epoch int
	err := s.withJobs(ctx, jobs, func(q sqlx.ExtContext) error {
		err := sqlx.GetContext(ctx, q, &epoch, `UPDATE users SET password_hash = $3, session_epoch = session_epoch + 1 WHERE buyer_id = $1 AND id = $2 RETURNING session_epoch`, buyerID, userID, hash)
		if notFound(err) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("store: password of user %d: %w", userID, err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return epoch, nil
}

// SetTwoFactor turns two-factor authentication on ("email" or "totp", with its sealed
// secret) or off (""), and enqueues jobs (the notice) in the same transaction.
func (s *Store) SetTwoFactor(ctx context.Context, buyerID, userID int64, method, sealedSecret string, jobs ...NewJob) error {
	return s.withJobs(ctx, jobs, func(q sqlx.ExtContext) error {
		return execOneOn(ctx, q, fmt.Sprintf("two-factor of user %d", userID),
			`UPDATE users SET two_factor_method = $3, totp_secret_sealed = $4, totp_last_step = 0 WHERE buyer_id = $1 AND id = $2`,
			buyerID, userID, method, sealedSecret)
	})
}

// UseTOTPStep records the time step of an accepted TOTP code so that it cannot be used
// again; it fails when a concurrent request used the same or a later step first.
func (s *Store) UseTOTPStep(ctx context.Context, userID, step int64) error {
	return s.execOne(ctx, fmt.Sprintf("totp step of user %d", userID),
		`UPDATE users SET totp_last_step = $2 WHERE id = $1 AND totp_last_step < $2`, userID, step)
}

// AcceptTerms records that the user accepted the terms of version at at (PUT
// users/license, /termsofservice): the user's version, which the gate reads, and the
// dated record of the acceptance (terms_acceptances), in one transaction. Accepting a
// version again keeps its first date.
func (s *Store) AcceptTerms(ctx context.Context, buyerID, userID int64, version int, at time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := execOneOn(ctx, tx, fmt.Sprintf("terms of user %d", userID),
			`UPDATE users SET terms_version = $3 WHERE buyer_id = $1 AND id = $2`, buyerID, userID, version); err != nil {
			return err
		}
		return recordTermsAcceptance(ctx, tx, buyerID, userID, version, at)
	})
}

// SignInEvent is one line of the sign-in history.
type SignInEvent struct {
	ID        int64     `db:"id"`
	Succeeded bool      `db:"succeeded"`
	IPAddress string    `db:"ip_address"`
	UserAgent string    `db:"user_agent"`
	CreatedAt time.Time `db:"created_at"`
}

// MaxUserAgentLen is SPEC.md §9's cap on a stored user-agent string.
const MaxUserAgentLen = 500

// cutUserAgent keeps the first MaxUserAgentLen characters, as valid UTF-8.
func cutUserAgent(ua string) string {
	if r := []rune(ua); len(r) > MaxUserAgentLen {
		ua = string(r[:MaxUserAgentLen])
	}
	return strings.ToValidUTF8(ua, "?")
}

// AddSignInEvent records an attempt; the user agent is cut to 500 characters.
func (s *Store) AddSignInEvent(ctx context.Context, userID int64, succeeded bool, ip, userAgent string) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO sign_in_events (user_id, succeeded, ip_address, user_agent) VALUES ($1, $2, $3, $4)`,
		userID, succeeded, ip, cutUserAgent(userAgent))
	if err != nil {
		return fmt.Errorf("store: sign-in event of user %d: %w", userID, err)
	}
	return nil
}

// SignInEvents lists a user's recent sign-ins, newest first.
func (s *Store) SignInEvents(ctx context.Context, buyerID, userID int64, limit int) ([]SignInEvent, error) {
	var ev []SignInEvent
	err := s.DB.SelectContext(ctx, &ev, `SELECT e.id, e.succeeded, e.ip_address, e.user_agent, e.created_at
		FROM sign_in_events e JOIN users u ON u.id = e.user_id
		WHERE u.buyer_id = $1 AND u.id = $2 ORDER BY e.created_at DESC, e.id DESC LIMIT $3`, buyerID, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: sign-in events of user %d: %w", userID, err)
	}
	return ev, nil
}

// ReplaceRecoveryCodes stores a new set of recovery-code hashes, dropping the old set.
func (s *Store) ReplaceRecoveryCodes(ctx context.Context, buyerID, userID int64, hashes []string) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var ok bool
		if err := tx.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM users WHERE buyer_id = $1 AND id = $2)`, buyerID, userID); err != nil {
			return fmt.Errorf("store: recovery codes of user %d: %w", userID, err)
		}
		if !ok {
			return ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM recovery_codes WHERE user_id = $1`, userID); err != nil {
			return fmt.Errorf("store: recovery codes of user %d: %w", userID, err)
		}
		for _, h := range hashes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO recovery_codes (user_id, code_hash) VALUES ($1, $2)`, userID, h); err != nil {
				return fmt.Errorf("store: recovery codes of user %d: %w", userID, err)
			}
		}
		return nil
	})
}

// RecoveryCode is a stored, unused recovery code.
type RecoveryCode struct {
	ID       int64  `db:"id"`
	CodeHash string `db:"code_hash"`
}

// UnusedRecoveryCodes lists the codes still usable by userID.
func (s *Store) UnusedRecoveryCodes(ctx context.Context, userID int64) ([]RecoveryCode, error) {
	var rc []RecoveryCode
	err := s.DB.SelectContext(ctx, &rc, `SELECT id, code_hash FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL ORDER BY id`, userID)
	if err != nil {
		return nil, fmt.Errorf("store: recovery codes of user %d: %w", userID, err)
	}
	return rc, nil
}

// UseRecoveryCode marks a code used; a code used concurrently is ErrNotFound.
func (s *Store) UseRecoveryCode(ctx context.Context, userID, id int64) error {
	return s.execOne(ctx, fmt.Sprintf("recovery code %d", id),
		`UPDATE recovery_codes SET used_at = now() WHERE user_id = $1 AND id = $2 AND used_at IS NULL`, userID, id)
}
