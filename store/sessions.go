package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/alexedwards/scs/postgresstore"
	"github.com/alexedwards/scs/v2"
)

var _ scs.CtxStore = (*SessionStore)(nil)

// SessionStore keeps the web sessions (scs) in the sessions table of
// github.com/alexedwards/scs/postgresstore, whose clean-up and iteration it keeps, with
// the three statements every request may make prepared (one round trip each instead of
// two): finding a session, saving it, deleting it.
type SessionStore struct {
	*postgresstore.PostgresStore
	s *Store
}

// Sessions is the session store on s; cleanup is how often expired sessions are deleted
// (0: never, for tests).
func (s *Store) Sessions(cleanup time.Duration) *SessionStore {
	return &SessionStore{PostgresStore: postgresstore.NewWithCleanupInterval(s.DB.DB, cleanup), s: s}
}

// FindCtx answers a live session's data.
func (ss *SessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var b []byte
	err := ss.s.getPrepared(ctx, &b, `SELECT data FROM sessions WHERE token = $1 AND current_timestamp < expiry`, token)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: session: %w", err)
	}
	return b, true, nil
}

// CommitCtx saves a session's data until expiry.
func (ss *SessionStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	st, err := ss.s.prepared(ctx, `INSERT INTO sessions (token, data, expiry) VALUES ($1, $2, $3)
		ON CONFLICT (token) DO UPDATE SET data = EXCLUDED.data, expiry = EXCLUDED.expiry`)
	if err == nil {
		_, err = st.ExecContext(ctx, token, b, expiry)
	}
	if err != nil {
		return fmt.Errorf("store: save session: %w", err)
	}
	return nil
}

// DeleteCtx ends a session.
func (ss *SessionStore) DeleteCtx(ctx context.Context, token string) error {
	st, err := ss.s.prepared(ctx, `DELETE FROM sessions WHERE token = $1`)
	if err == nil {
		_, err = st.ExecContext(ctx, token)
	}
	if err != nil {
		return fmt.Errorf("store: delete session: %w", err)
	}
	return nil
}
