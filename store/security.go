package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// HitRateLimit counts one request against (rule, keyHash) in the fixed window starting at
// windowStart and says how many the window holds now, this one included. One upsert, so
// that parallel requests on any instance each see their own count.
func (s *Store) HitRateLimit(ctx context.Context, rule, keyHash string, windowStart, expiresAt time.Time) (int, error) {
	var n int
	err := s.DB.GetContext(ctx, &n, `INSERT INTO rate_limit_hits (rule, key_hash, window_start, hits, expires_at)
		VALUES ($1, $2, $3, 1, $4)
		ON CONFLICT (rule, key_hash, window_start) DO UPDATE SET hits = rate_limit_hits.hits + 1
		RETURNING hits`, rule, keyHash, windowStart, expiresAt)
	if err != nil {
		return 0, fmt.Errorf("store: rate limit %s: %w", rule, err)
	}
	return n, nil
}

// RateLimitHits is how many requests the window of (rule, keyHash) starting at
// windowStart holds, without counting one: for a rule counted by one action (a declined
// card check) and checked before another (the next check).
func (s *Store) RateLimitHits(ctx context.Context, rule, keyHash string, windowStart time.Time) (int, error) {
	var n int
	err := s.DB.GetContext(ctx, &n, `SELECT COALESCE((SELECT hits FROM rate_limit_hits
		WHERE rule = $1 AND key_hash = $2 AND window_start = $3), 0)`, rule, keyHash, windowStart)
	if err != nil {
		return 0, fmt.Errorf("store: rate limit %s: %w", rule, err)
	}
	return n, nil
}

// SignInThrottle is the failure count of one throttle key (an address for unknown
// devices, or a known device).
type SignInThrottle struct {
	Key          string     `db:"key"`
	Failures     int        `db:"failures"`
	LastFailedAt time.Time  `db:"last_failed_at"`
	LockedUntil  *time.Time `db:"locked_until"`
}

// SignInThrottle reads key's counters; a key that never failed has none (zero value).
func (s *Store) SignInThrottle(ctx context.Context, key string) (SignInThrottle, error) {
	var t SignInThrottle
	err := s.DB.GetContext(ctx, &t, `SELECT key, failures, last_failed_at, locked_until FROM sign_in_throttles WHERE key = $1`, key)
	if notFound(err) {
		return SignInThrottle{Key: key}, nil
	}
	if err != nil {
		return t, fmt.Errorf("store: sign-in throttle: %w", err)
	}
	return t, nil
}

// FailedSignIn is the attempt of an account that AddSignInFailure records with the count.
type FailedSignIn struct {
	UserID    int64
	IP        string
	UserAgent string
}

// AddSignInFailure counts one failure of key atomically and returns the new count; with
// an attempt of an existing account, it records that attempt (sign_in_events) in the
// same statement. One statement either way, so that an address with an account costs
// the same round trips and commits as one without: the time of the answer tells
// nothing.
func (s *Store) AddSignInFailure(ctx context.Context, key string, at time.Time, attempt ...FailedSignIn) (int, error) {
	var a FailedSignIn
	if len(attempt) > 0 {
		a = attempt[0]
	}
	var n int
	err := s.DB.GetContext(ctx, &n, `WITH event AS (
			INSERT INTO sign_in_events (user_id, succeeded, ip_address, user_agent)
			SELECT $3::bigint, false, $4::text, $5::text WHERE $3::bigint > 0)
		INSERT INTO sign_in_throttles (key, failures, last_failed_at) VALUES ($1, 1, $2)
		ON CONFLICT (key) DO UPDATE SET failures = sign_in_throttles.failures + 1, last_failed_at = $2
		RETURNING failures`, key, at, a.UserID, a.IP, cutUserAgent(a.UserAgent))
	if err != nil {
		return 0, fmt.Errorf("store: sign-in failure: %w", err)
	}
	return n, nil
}

// LockSignIns locks key until until, unless a lock is already running at now, and
// enqueues jobs (the owner's notice) only when this call set the lock: once per lock,
// however many requests fail at the same moment.
func (s *Store) LockSignIns(ctx context.Context, key string, until, now time.Time, jobs ...NewJob) (bool, error) {
	var locked bool
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sign_in_throttles SET locked_until = $2
			WHERE key = $1 AND (locked_until IS NULL OR locked_until <= $3)`, key, until, now)
		if err != nil {
			return fmt.Errorf("store: lock sign-ins: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if locked = n == 1; locked {
			for _, j := range jobs {
				if _, err := enqueueJob(ctx, tx, j); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return locked, err
}

// ClearSignInFailures forgets keys' failures and locks (a success, a password reset).
func (s *Store) ClearSignInFailures(ctx context.Context, keys ...string) error {
	_, err := s.DB.ExecContext(ctx, `DELETE FROM sign_in_throttles WHERE key = ANY($1)`, pq.Array(keys))
	if err != nil {
		return fmt.Errorf("store: clear sign-in failures: %w", err)
	}
	return nil
}

// Device is a browser or API client that signed in successfully.
type Device struct {
	ID         int64     `db:"id"`
	UserID     int64     `db:"user_id"`
	CreatedAt  time.Time `db:"created_at"`
	LastUsedAt time.Time `db:"last_used_at"`
	ExpiresAt  time.Time `db:"expires_at"`
}

// CreateDevice records a device of userID by its nonce's hash.
func (s *Store) CreateDevice(ctx context.Context, userID int64, nonceHash string, now, expiresAt time.Time) (int64, error) {
	var id int64
	err := s.DB.GetContext(ctx, &id, `INSERT INTO devices (user_id, nonce_hash, created_at, last_used_at, expires_at)
		VALUES ($1, $2, $3, $3, $4) RETURNING id`, userID, nonceHash, now, expiresAt)
	if err != nil {
		return 0, fmt.Errorf("store: device of user %d: %w", userID, err)
	}
	return id, nil
}

// Device finds userID's unexpired device by its nonce's hash.
func (s *Store) Device(ctx context.Context, userID int64, nonceHash string, now time.Time) (Device, error) {
	return getOne[Device](ctx, s.DB, fmt.Sprintf("device of user %d", userID),
		`SELECT id, user_id, created_at, last_used_at, expires_at FROM devices
		WHERE user_id = $1 AND nonce_hash = $2 AND expires_at > $3`, userID, nonceHash, now)
}

// UseDevice moves a device's last use and end on (each sign-in keeps it known longer).
func (s *Store) UseDevice(ctx context.Context, id int64, now, expiresAt time.Time) error {
	return s.execOne(ctx, fmt.Sprintf("device %d", id),
		`UPDATE devices SET last_used_at = $2, expires_at = $3 WHERE id = $1`, id, now, expiresAt)
}

// Session kinds.
const (
	SessionBrowser = "browser"
	SessionAPI     = "api"
)

// UserSession is one signed-in browser or API client.
type UserSession struct {
	ID         int64      `db:"id"`
	UserID     int64      `db:"user_id"`
	BuyerID    int64      `db:"buyer_id"`
	DeviceID   *int64     `db:"device_id"`
	Kind       string     `db:"kind"`
	IPAddress  string     `db:"ip_address"`
	UserAgent  string     `db:"user_agent"`
	SignedInAt time.Time  `db:"signed_in_at"`
	LastSeenAt time.Time  `db:"last_seen_at"`
	EndedAt    *time.Time `db:"ended_at"`
}

const userSessionColumns = `id, user_id, buyer_id, device_id, kind, ip_address, user_agent, signed_in_at, last_seen_at, ended_at`

// StartUserSession records a sign-in (the user agent cut to 500 characters).
func (s *Store) StartUserSession(ctx context.Context, us UserSession) (int64, error) {
	var id int64
	err := s.DB.GetContext(ctx, &id, `INSERT INTO user_sessions (user_id, buyer_id, device_id, kind, ip_address, user_agent, signed_in_at, last_seen_at)
		SELECT id, buyer_id, $3, $4, $5, $6, $7, $7 FROM users WHERE buyer_id = $1 AND id = $2 RETURNING id`,
		us.BuyerID, us.UserID, us.DeviceID, us.Kind, us.IPAddress, cutUserAgent(us.UserAgent), us.SignedInAt)
	if notFound(err) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("store: session of user %d: %w", us.UserID, err)
	}
	return id, nil
}

// UserSession is one of the user's sessions, live or ended.
func (s *Store) UserSession(ctx context.Context, buyerID, userID, id int64) (UserSession, error) {
	return getOne[UserSession](ctx, s.DB, fmt.Sprintf("session %d", id),
		`SELECT `+userSessionColumns+` FROM user_sessions WHERE buyer_id = $1 AND user_id = $2 AND id = $3`, buyerID, userID, id)
}

// LiveUserSessions are the user's sessions not ended and seen since idleSince (browser
// sessions idle longer have timed out), newest sign-in first.
func (s *Store) LiveUserSessions(ctx context.Context, buyerID, userID int64, browserIdleSince, signedInSince time.Time) ([]UserSession, error) {
	var list []UserSession
	err := s.DB.SelectContext(ctx, &list, `SELECT `+userSessionColumns+` FROM user_sessions
		WHERE buyer_id = $1 AND user_id = $2 AND ended_at IS NULL
		  AND (kind = 'api' OR (last_seen_at > $3 AND signed_in_at > $4))
		  AND (kind = 'browser' OR EXISTS (SELECT 1 FROM api_token_families f
		       WHERE f.user_session_id = user_sessions.id AND f.revoked_at IS NULL
		         AND EXISTS (SELECT 1 FROM api_tokens t WHERE t.family_id = f.id AND t.kind = 'refresh'
		                     AND t.used_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > now())))
		ORDER BY signed_in_at DESC, id DESC`, buyerID, userID, browserIdleSince, signedInSince)
	if err != nil {
		return nil, fmt.Errorf("store: sessions of user %d: %w", userID, err)
	}
	return list, nil
}

// SeeUserSession moves a session's last-seen time (at most once a minute, by the caller).
func (s *Store) SeeUserSession(ctx context.Context, id int64, now time.Time) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE user_sessions SET last_seen_at = $2 WHERE id = $1`, id, now)
	if err != nil {
		return fmt.Errorf("store: see session %d: %w", id, err)
	}
	return nil
}

// EndUserSession ends one of the user's sessions and revokes its API tokens.
func (s *Store) EndUserSession(ctx context.Context, buyerID, userID, id int64, now time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		return endSessionsTx(ctx, tx, `id = $3`, now, buyerID, userID, id)
	})
}

// EndOtherUserSessions ends every session of the user but keep (0 ends them all), and
// revokes those sessions' API tokens; jobs (a notice) go in the same transaction.
func (s *Store) EndOtherUserSessions(ctx context.Context, buyerID, userID, keep int64, now time.Time, jobs ...NewJob) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := endSessionsTx(ctx, tx, `id <> $3`, now, buyerID, userID, keep); err != nil {
			return err
		}
		for _, j := range jobs {
			if _, err := enqueueJob(ctx, tx, j); err != nil {
				return err
			}
		}
		return nil
	})
}

// endSessionsTx ends the user's live sessions that match which ($3 being the session
// id) and revokes every API token family and token they hold.
func endSessionsTx(ctx context.Context, tx *sqlx.Tx, which string, now time.Time, buyerID, userID, id int64) error {
	q := `WITH ended AS (UPDATE user_sessions SET ended_at = $4
			WHERE buyer_id = $1 AND user_id = $2 AND ended_at IS NULL AND ` + which + ` RETURNING id),
		fams AS (UPDATE api_token_families SET revoked_at = $4 WHERE revoked_at IS NULL
			AND user_session_id IN (SELECT id FROM ended) RETURNING id)
		UPDATE api_tokens SET revoked_at = $4 WHERE revoked_at IS NULL AND family_id IN (SELECT id FROM fams)`
	if _, err := tx.ExecContext(ctx, q, buyerID, userID, id, now); err != nil {
		return fmt.Errorf("store: end sessions: %w", err)
	}
	return nil
}

// SetFamilySession links an API token family to its session row.
func (s *Store) SetFamilySession(ctx context.Context, familyID, sessionID int64) error {
	return s.execOne(ctx, fmt.Sprintf("family %d", familyID),
		`UPDATE api_token_families SET user_session_id = $2 WHERE id = $1`, familyID, sessionID)
}

// Pruned says how many rows Prune deleted, by table.
type Pruned map[string]int64

// PruneSecurity deletes what has no use any more: rate-limit windows that ended,
// failure counters a day old without a running lock, expired devices, codes, API tokens,
// login challenges and sign-up tokens, sign-ups never completed after signupsBefore,
// sessions ended or timed out before sessionsBefore, and request-key misses a day old.
// Any instance may run it: every statement is a plain DELETE by time.
func (s *Store) PruneSecurity(ctx context.Context, now, signupsBefore, sessionsBefore time.Time) (Pruned, error) {
	stmts := []struct {
		table, q string
		args     []any
	}{
		{"rate_limit_hits", `DELETE FROM rate_limit_hits WHERE expires_at <= $1`, nil},
		{"sign_in_throttles", `DELETE FROM sign_in_throttles WHERE last_failed_at < $1::timestamptz - interval '1 day' AND (locked_until IS NULL OR locked_until <= $1)`, nil},
		{"one_time_codes", `DELETE FROM one_time_codes WHERE expires_at <= $1::timestamptz - interval '1 day'`, nil},
		{"api_login_challenges", `DELETE FROM api_login_challenges WHERE expires_at <= $1`, nil},
		{"api_signup_tokens", `DELETE FROM api_signup_tokens WHERE expires_at <= $1`, nil},
		{"api_tokens", `DELETE FROM api_tokens WHERE expires_at <= $1`, nil},
		{"api_token_families", `DELETE FROM api_token_families f WHERE NOT EXISTS (SELECT 1 FROM api_tokens t WHERE t.family_id = f.id)
			AND f.created_at < $1::timestamptz - interval '1 day'`, nil},
		{"user_sessions", `DELETE FROM user_sessions WHERE COALESCE(ended_at, last_seen_at) < $1
			AND NOT EXISTS (SELECT 1 FROM api_token_families f WHERE f.user_session_id = user_sessions.id)`, []any{sessionsBefore}},
		{"devices", `DELETE FROM devices WHERE expires_at <= $1`, nil},
		{"signups", `DELETE FROM signups WHERE completed_at IS NULL AND created_at < $1`, []any{signupsBefore}},
		{"request_key_misses", `DELETE FROM request_key_misses WHERE at < $1::timestamptz - interval '1 day'`, nil},
		// A partner's codes and tokens a day past their end: a rotated refresh token is
		// kept until then, so its reuse is still known (and revokes its grant).
		{"oauth_tokens", `DELETE FROM oauth_tokens WHERE expires_at <= $1::timestamptz - interval '1 day'`, nil},
	}
	out := Pruned{}
	for _, st := range stmts {
		args := st.args
		if args == nil {
			args = []any{now}
		}
		res, err := s.DB.ExecContext(ctx, st.q, args...)
		if err != nil {
			return out, fmt.Errorf("store: prune %s: %w", st.table, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return out, err
		}
		out[st.table] = n
	}
	return out, nil
}

// SessionUser is the user of a signed-in browser session, scoped by buyer, while that
// session's row is live; an ended (or unknown) session is ErrNotFound.
func (s *Store) SessionUser(ctx context.Context, buyerID, userID, sessionID int64) (User, error) {
	var u User
	err := s.getPrepared(ctx, &u, `SELECT `+userColumns+`
		FROM users u JOIN buyers b ON b.id = u.buyer_id
		JOIN user_sessions s ON s.user_id = u.id AND s.id = $3 AND s.ended_at IS NULL
		WHERE u.buyer_id = $1 AND u.id = $2`, buyerID, userID, sessionID)
	if notFound(err) {
		return u, fmt.Errorf("store: user %d of session %d: %w", userID, sessionID, ErrNotFound)
	}
	if err != nil {
		return u, fmt.Errorf("store: user %d of session %d: %w", userID, sessionID, err)
	}
	return u, nil
}

// SessionFactorAt is when the user's live session id last gave its second factor (nil:
// not since it began); another user's session, or an ended one, is ErrNotFound.
func (s *Store) SessionFactorAt(ctx context.Context, buyerID, userID, id int64) (*time.Time, error) {
	var at *time.Time
	err := s.DB.GetContext(ctx, &at, `SELECT factor_at FROM user_sessions
		WHERE buyer_id = $1 AND user_id = $2 AND id = $3 AND ended_at IS NULL`, buyerID, userID, id)
	if notFound(err) {
		return nil, fmt.Errorf("store: session %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: factor of session %d: %w", id, err)
	}
	return at, nil
}

// SetSessionFactor records that the user's live session id gave its second factor at at.
func (s *Store) SetSessionFactor(ctx context.Context, buyerID, userID, id int64, at time.Time) error {
	return s.execOne(ctx, fmt.Sprintf("factor of session %d", id), `UPDATE user_sessions SET factor_at = $4
		WHERE buyer_id = $1 AND user_id = $2 AND id = $3 AND ended_at IS NULL`, buyerID, userID, id, at)
}
