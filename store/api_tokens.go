package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// Token kinds of api_tokens.
const (
	APIAccessToken  = "access"
	APIRefreshToken = "refresh"
)

var (
	// ErrAPITokenInvalid is the one answer for a token that does not exist, expired, was
	// revoked, or whose user's password changed since: callers must not tell them apart.
	ErrAPITokenInvalid = errors.New("store: API token invalid")
	// ErrAPITokenReused says a refresh token was presented after it had been rotated:
	// someone holds a copy, so its whole family has just been revoked.
	ErrAPITokenReused = errors.New("store: API refresh token reused; family revoked")
)

// NewAPIToken is a token to store: its hash and its end.
type NewAPIToken struct {
	Hash      string
	ExpiresAt time.Time
}

// APITokenFamily is one API sign-in and whom it signs in.
type APITokenFamily struct {
	ID           int64      `db:"id"`
	UserID       int64      `db:"user_id"`
	BuyerID      int64      `db:"buyer_id"`
	SessionEpoch int        `db:"session_epoch"`
	CreatedAt    time.Time  `db:"created_at"`
	RevokedAt    *time.Time `db:"revoked_at"`
	// SessionID and DeviceID are the sign-in's user_sessions row and its device (read
	// with an access token only).
	SessionID int64 `db:"session_id"`
	DeviceID  int64 `db:"device_id"`
}

// APIAccess is a presented access token with its family.
type APIAccess struct {
	TokenID   int64      `db:"token_id"`
	ExpiresAt time.Time  `db:"expires_at"`
	RevokedAt *time.Time `db:"token_revoked_at"`
	Family    APITokenFamily
}

// CreateAPITokenFamily starts a family for a signed-in user with its first access and
// refresh tokens, in one transaction.
func (s *Store) CreateAPITokenFamily(ctx context.Context, buyerID, userID int64, epoch int, access, refresh NewAPIToken) (APITokenFamily, error) {
	var created APITokenFamily
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var f APITokenFamily
		err := tx.GetContext(ctx, &f, `INSERT INTO api_token_families (user_id, buyer_id, session_epoch)
			SELECT id, buyer_id, $3 FROM users WHERE buyer_id = $1 AND id = $2
			RETURNING id, user_id, buyer_id, session_epoch, created_at, revoked_at`, buyerID, userID, epoch)
		if notFound(err) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("store: API token family of user %d: %w", userID, err)
		}
		if err := insertAPITokens(ctx, tx, f.ID, access, refresh); err != nil {
			return err
		}
		created = f
		return nil
	})
	return created, err
}

func insertAPITokens(ctx context.Context, tx *sqlx.Tx, familyID int64, access, refresh NewAPIToken) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO api_tokens (family_id, kind, token_hash, expires_at)
		VALUES ($1, 'access', $2, $3), ($1, 'refresh', $4, $5)`,
		familyID, access.Hash, access.ExpiresAt, refresh.Hash, refresh.ExpiresAt)
	if err != nil {
		return fmt.Errorf("store: API tokens of family %d: %w", familyID, err)
	}
	return nil
}

// APIAccessByHash finds an access token by its hash, whatever its state: the caller
// tells "expired" (the client should refresh) from "revoked" (it must sign in again).
// Finding a token is not authorisation; the family says whose it is.
func (s *Store) APIAccessByHash(ctx context.Context, hash string) (APIAccess, error) {
	var row struct {
		TokenID   int64      `db:"token_id"`
		ExpiresAt time.Time  `db:"expires_at"`
		RevokedAt *time.Time `db:"token_revoked_at"`
		APITokenFamily
	}
	err := s.DB.GetContext(ctx, &row, `SELECT t.id AS token_id, t.expires_at, t.revoked_at AS token_revoked_at,
			f.id, f.user_id, f.buyer_id, f.session_epoch, f.created_at, f.revoked_at,
			COALESCE(f.user_session_id, 0) AS session_id, COALESCE(us.device_id, 0) AS device_id
		FROM api_tokens t JOIN api_token_families f ON f.id = t.family_id
		LEFT JOIN user_sessions us ON us.id = f.user_session_id
		WHERE t.token_hash = $1 AND t.kind = 'access'`, hash)
	if notFound(err) {
		return APIAccess{}, ErrNotFound
	}
	if err != nil {
		return APIAccess{}, fmt.Errorf("store: API access token: %w", err)
	}
	return APIAccess{TokenID: row.TokenID, ExpiresAt: row.ExpiresAt, RevokedAt: row.RevokedAt, Family: row.APITokenFamily}, nil
}

// RotateAPIRefreshToken exchanges the refresh token with hash for a new access and
// refresh token in the same family, at now, in one transaction. The presented token is
// locked, so two concurrent exchanges of one token cannot both succeed: the second is
// a reuse. Errors:
//   - ErrAPITokenReused when the token had been exchanged before; the family is revoked
//     (and that revocation is committed) before returning;
//   - ErrAPITokenInvalid when it does not exist, expired, was revoked, or the user's
//     session epoch moved on (a password change); a stale family is revoked too.
func (s *Store) RotateAPIRefreshToken(ctx context.Context, hash string, now time.Time, access, refresh NewAPIToken) (APITokenFamily, error) {
	var rotated APITokenFamily
	// refused is the answer for a token whose family this transaction revokes: the
	// revocation must be committed, so fn returns nil and the refusal comes after.
	var refused error
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var row struct {
			TokenID      int64      `db:"token_id"`
			ExpiresAt    time.Time  `db:"expires_at"`
			UsedAt       *time.Time `db:"used_at"`
			TokenRevoked *time.Time `db:"token_revoked_at"`
			UserEpoch    *int       `db:"user_epoch"`
			APITokenFamily
		}
		err := tx.GetContext(ctx, &row, `SELECT t.id AS token_id, t.expires_at, t.used_at, t.revoked_at AS token_revoked_at,
				f.id, f.user_id, f.buyer_id, f.session_epoch, f.created_at, f.revoked_at,
				u.session_epoch AS user_epoch
			FROM api_tokens t
			JOIN api_token_families f ON f.id = t.family_id
			LEFT JOIN users u ON u.id = f.user_id AND u.buyer_id = f.buyer_id
			WHERE t.token_hash = $1 AND t.kind = 'refresh'
			FOR UPDATE OF t, f`, hash)
		if notFound(err) {
			return ErrAPITokenInvalid
		}
		if err != nil {
			return fmt.Errorf("store: API refresh token: %w", err)
		}
		f := row.APITokenFamily
		switch {
		case f.RevokedAt != nil || row.TokenRevoked != nil:
			return ErrAPITokenInvalid
		case row.UsedAt != nil:
			refused = ErrAPITokenReused
			return revokeFamilyTx(ctx, tx, f.ID, now)
		case row.UserEpoch == nil || *row.UserEpoch != f.SessionEpoch:
			refused = ErrAPITokenInvalid
			return revokeFamilyTx(ctx, tx, f.ID, now)
		case !now.Before(row.ExpiresAt):
			return ErrAPITokenInvalid
		}
		if _, err := tx.ExecContext(ctx, `UPDATE api_tokens SET used_at = $2 WHERE id = $1`, row.TokenID, now); err != nil {
			return fmt.Errorf("store: use API refresh token %d: %w", row.TokenID, err)
		}
		if err := insertAPITokens(ctx, tx, f.ID, access, refresh); err != nil {
			return err
		}
		// Tokens of this family that ended a day ago are of no use, not even for noticing a
		// reuse (an expired refresh token is refused anyway): drop them as the family grows.
		if _, err := tx.ExecContext(ctx, `DELETE FROM api_tokens WHERE family_id = $1 AND expires_at < $2`, f.ID, now.Add(-24*time.Hour)); err != nil {
			return fmt.Errorf("store: prune API tokens of family %d: %w", f.ID, err)
		}
		rotated = f
		return nil
	})
	if err == nil && refused != nil {
		return APITokenFamily{}, refused
	}
	return rotated, err
}

func revokeFamilyTx(ctx context.Context, tx *sqlx.Tx, familyID int64, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `UPDATE api_token_families SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, familyID, now); err != nil {
		return fmt.Errorf("store: revoke API token family %d: %w", familyID, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL`, familyID, now); err != nil {
		return fmt.Errorf("store: revoke API tokens of family %d: %w", familyID, err)
	}
	return nil
}

// RevokeAPITokenFamily ends one sign-in (POST /api/v1/logout): every access and refresh
// token of the family stops working. The family must belong to the buyer's user.
func (s *Store) RevokeAPITokenFamily(ctx context.Context, buyerID, userID, familyID int64, now time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var ok bool
		if err := tx.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM api_token_families WHERE id = $1 AND buyer_id = $2 AND user_id = $3)`,
			familyID, buyerID, userID); err != nil {
			return fmt.Errorf("store: API token family %d: %w", familyID, err)
		}
		if !ok {
			return ErrNotFound
		}
		return revokeFamilyTx(ctx, tx, familyID, now)
	})
}

// SetAPITokenFamilyEpoch keeps the caller's own sign-in valid after it changed the
// password (which raised the user's epoch and so ended every other sign-in).
func (s *Store) SetAPITokenFamilyEpoch(ctx context.Context, buyerID, userID, familyID int64, epoch int) error {
	return s.execOne(ctx, fmt.Sprintf("epoch of API token family %d", familyID),
		`UPDATE api_token_families SET session_epoch = $4 WHERE id = $1 AND buyer_id = $2 AND user_id = $3 AND revoked_at IS NULL`,
		familyID, buyerID, userID, epoch)
}

// PruneAPITokens deletes a user's tokens that ended before `before`, and families left
// without tokens. Called at each API sign-in so that tokens do not pile up.
func (s *Store) PruneAPITokens(ctx context.Context, buyerID, userID int64, before time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM api_tokens WHERE expires_at < $3 AND family_id IN
			(SELECT id FROM api_token_families WHERE buyer_id = $1 AND user_id = $2)`, buyerID, userID, before); err != nil {
			return fmt.Errorf("store: prune API tokens of user %d: %w", userID, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM api_token_families f WHERE buyer_id = $1 AND user_id = $2 AND created_at < $3
			AND NOT EXISTS (SELECT 1 FROM api_tokens t WHERE t.family_id = f.id)`, buyerID, userID, before); err != nil {
			return fmt.Errorf("store: prune API token families of user %d: %w", userID, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM api_login_challenges WHERE buyer_id = $1 AND user_id = $2 AND expires_at < $3`,
			buyerID, userID, before); err != nil {
			return fmt.Errorf("store: prune API login challenges of user %d: %w", userID, err)
		}
		return nil
	})
}

// APILoginChallenge is a sign-in waiting for its second factor.
type APILoginChallenge struct {
	ID        int64      `db:"id"`
	UserID    int64      `db:"user_id"`
	BuyerID   int64      `db:"buyer_id"`
	ExpiresAt time.Time  `db:"expires_at"`
	UsedAt    *time.Time `db:"used_at"`
}

// CreateAPILoginChallenge stores the session_token of a half-finished API sign-in.
func (s *Store) CreateAPILoginChallenge(ctx context.Context, buyerID, userID int64, hash string, expiresAt time.Time) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO api_login_challenges (user_id, buyer_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)`,
		userID, buyerID, hash, expiresAt)
	if err != nil {
		return fmt.Errorf("store: API login challenge of user %d: %w", userID, err)
	}
	return nil
}

// APILoginChallengeByHash finds a challenge by its token hash, used or not.
func (s *Store) APILoginChallengeByHash(ctx context.Context, hash string) (APILoginChallenge, error) {
	var c APILoginChallenge
	err := s.DB.GetContext(ctx, &c, `SELECT id, user_id, buyer_id, expires_at, used_at FROM api_login_challenges WHERE token_hash = $1`, hash)
	if notFound(err) {
		return APILoginChallenge{}, ErrNotFound
	}
	if err != nil {
		return APILoginChallenge{}, fmt.Errorf("store: API login challenge: %w", err)
	}
	return c, nil
}

// UseAPILoginChallenge marks a challenge used; ErrNotFound when it was used
// concurrently, so one challenge signs in once.
func (s *Store) UseAPILoginChallenge(ctx context.Context, id int64) error {
	return s.execOne(ctx, fmt.Sprintf("use API login challenge %d", id),
		`UPDATE api_login_challenges SET used_at = now() WHERE id = $1 AND used_at IS NULL`, id)
}

// APISignupToken is the API's handle on a sign-up.
type APISignupToken struct {
	ID         int64      `db:"id"`
	SignupID   int64      `db:"signup_id"`
	ExpiresAt  time.Time  `db:"expires_at"`
	VerifiedAt *time.Time `db:"verified_at"`
}

// CreateAPISignupToken stores the signup_token handed out for a sign-up.
func (s *Store) CreateAPISignupToken(ctx context.Context, signupID int64, hash string, expiresAt time.Time) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO api_signup_tokens (signup_id, token_hash, expires_at) VALUES ($1, $2, $3)`,
		signupID, hash, expiresAt)
	if err != nil {
		return fmt.Errorf("store: API sign-up token of sign-up %d: %w", signupID, err)
	}
	return nil
}

// APISignupTokenByHash finds a sign-up token by its hash.
func (s *Store) APISignupTokenByHash(ctx context.Context, hash string) (APISignupToken, error) {
	var t APISignupToken
	err := s.DB.GetContext(ctx, &t, `SELECT id, signup_id, expires_at, verified_at FROM api_signup_tokens WHERE token_hash = $1`, hash)
	if notFound(err) {
		return APISignupToken{}, ErrNotFound
	}
	if err != nil {
		return APISignupToken{}, fmt.Errorf("store: API sign-up token: %w", err)
	}
	return t, nil
}

// VerifyAPISignupToken records that this token's holder entered the mailed code.
func (s *Store) VerifyAPISignupToken(ctx context.Context, id int64) error {
	return s.execOne(ctx, fmt.Sprintf("verify API sign-up token %d", id),
		`UPDATE api_signup_tokens SET verified_at = now() WHERE id = $1`, id)
}
