package account_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/store"
)

var cleanupSeq int

// seedRow inserts one row with q (which returns its id) and gives the id.
func seedRow(t *testing.T, q string, args ...any) int64 {
	t.Helper()
	var id int64
	require.NoError(t, db.Store.DB.Get(&id, q, args...), q)
	return id
}

// unique is a value no other row of this test run holds.
func unique(name string) string {
	cleanupSeq++
	// Base 36: a long run of digits could be taken for a card number by storetest's scan.
	return fmt.Sprintf("cleanup-%s-%s-%d", name, strconv.FormatInt(time.Now().UnixNano(), 36), cleanupSeq)
}

// exists says whether table still holds the row whose id column is id.
func exists(t *testing.T, table, column string, id any) bool {
	t.Helper()
	var n int
	require.NoError(t, db.Store.DB.Get(&n, `SELECT count(*) FROM `+table+` WHERE `+column+` = $1`, id))
	return n == 1
}

func TestCleanup(t *testing.T) {
	ctx := context.Background()
	now := time.Now().Truncate(time.Second)
	s := &account.Service{Store: db.Store, Now: func() time.Time { return now }}
	u := newUser(t, "cleanup@cleanup.example")

	// What other tests left that is due now goes first, so that the counts below are
	// this test's rows only.
	_, err := s.Cleanup(ctx)
	require.NoError(t, err)

	type row struct {
		table, column string
		id            any
	}
	var gone, kept []row
	add := func(keep bool, table string, id int64) {
		r := row{table, "id", id}
		if keep {
			kept = append(kept, r)
		} else {
			gone = append(gone, r)
		}
	}
	const day = 24 * time.Hour

	// rate_limit_hits: a window that ended (and one ending now) go; a running one stays.
	for _, c := range []struct {
		keep bool
		end  time.Time
	}{{false, now.Add(-time.Minute)}, {false, now}, {true, now.Add(time.Second)}} {
		key := unique("rate")
		_, err := db.Store.DB.Exec(`INSERT INTO rate_limit_hits (rule, key_hash, window_start, hits, expires_at)
			VALUES ('signin.ip', $1, $2, 3, $3)`, key, c.end.Add(-time.Hour), c.end)
		require.NoError(t, err)
		r := row{"rate_limit_hits", "key_hash", key}
		if c.keep {
			kept = append(kept, r)
		} else {
			gone = append(gone, r)
		}
	}

	// sign_in_throttles: a day-old count without a lock (or with a lock over) goes; a
	// running lock and a recent count stay.
	for _, c := range []struct {
		keep   bool
		last   time.Time
		locked *time.Time
	}{
		{false, now.Add(-day - time.Second), nil},
		{false, now.Add(-2 * day), new(now.Add(-time.Hour))},
		{true, now.Add(-day - time.Second), new(now.Add(10 * time.Minute))},
		{true, now.Add(-day + time.Minute), nil},
	} {
		key := unique("throttle")
		_, err := db.Store.DB.Exec(`INSERT INTO sign_in_throttles (key, failures, last_failed_at, locked_until) VALUES ($1, 10, $2, $3)`,
			key, c.last, c.locked)
		require.NoError(t, err)
		r := row{"sign_in_throttles", "key", key}
		if c.keep {
			kept = append(kept, r)
		} else {
			gone = append(gone, r)
		}
	}

	// devices: an expired one goes, a known one stays.
	deviceQ := `INSERT INTO devices (user_id, nonce_hash, created_at, last_used_at, expires_at) VALUES ($1, $2, $3, $3, $4) RETURNING id`
	add(false, "devices", seedRow(t, deviceQ, u.ID, unique("nonce"), now.Add(-200*day), now.Add(-time.Second)))
	add(true, "devices", seedRow(t, deviceQ, u.ID, unique("nonce"), now.Add(-10*day), now.Add(170*day)))

	// one_time_codes: a day after their end they go.
	codeQ := `INSERT INTO one_time_codes (purpose, subject, code_hash, expires_at) VALUES ('signin', $1, $2, $3) RETURNING id`
	add(false, "one_time_codes", seedRow(t, codeQ, unique("subject"), unique("code"), now.Add(-day-time.Minute)))
	add(true, "one_time_codes", seedRow(t, codeQ, unique("subject"), unique("code"), now.Add(-day+time.Minute)))
	add(true, "one_time_codes", seedRow(t, codeQ, unique("subject"), unique("code"), now.Add(5*time.Minute)))

	// api_login_challenges.
	challengeQ := `INSERT INTO api_login_challenges (user_id, buyer_id, token_hash, expires_at) VALUES ($1, $2, $3, $4) RETURNING id`
	add(false, "api_login_challenges", seedRow(t, challengeQ, u.ID, u.BuyerID, unique("challenge"), now.Add(-time.Second)))
	add(true, "api_login_challenges", seedRow(t, challengeQ, u.ID, u.BuyerID, unique("challenge"), now.Add(time.Minute)))

	// signups: unfinished ones a week old go; a completed one stays however old, and so
	// does a recent unfinished one.
	signupQ := `INSERT INTO signups (email_address, password_hash, terms_version, completed_at, created_at) VALUES ($1, 'x', 1, $2, $3) RETURNING id`
	add(false, "signups", seedRow(t, signupQ, unique("old")+"@cleanup.example", nil, now.Add(-8*day)))
	completed := seedRow(t, signupQ, unique("done")+"@cleanup.example", now.Add(-8*day), now.Add(-9*day))
	add(true, "signups", completed)
	add(true, "signups", seedRow(t, signupQ, unique("recent")+"@cleanup.example", nil, now.Add(-6*day)))

	// api_signup_tokens (on the completed sign-up, which stays).
	signupTokenQ := `INSERT INTO api_signup_tokens (signup_id, token_hash, expires_at) VALUES ($1, $2, $3) RETURNING id`
	add(false, "api_signup_tokens", seedRow(t, signupTokenQ, completed, unique("signup-token"), now.Add(-time.Second)))
	add(true, "api_signup_tokens", seedRow(t, signupTokenQ, completed, unique("signup-token"), now.Add(time.Hour)))

	// user_sessions: ended (or last seen) over 30 days ago they go, unless a token
	// family still points at them.
	sessionQ := `INSERT INTO user_sessions (user_id, buyer_id, kind, signed_in_at, last_seen_at, ended_at) VALUES ($1, $2, $3, $4, $4, $5) RETURNING id`
	add(false, "user_sessions", seedRow(t, sessionQ, u.ID, u.BuyerID, "browser", now.Add(-40*day), now.Add(-31*day)))
	add(false, "user_sessions", seedRow(t, sessionQ, u.ID, u.BuyerID, "browser", now.Add(-31*day), nil))
	add(true, "user_sessions", seedRow(t, sessionQ, u.ID, u.BuyerID, "browser", now.Add(-40*day), now.Add(-29*day)))
	add(true, "user_sessions", seedRow(t, sessionQ, u.ID, u.BuyerID, "browser", now.Add(-29*day), nil))
	// An old API session whose family has only expired tokens: tokens, family and
	// session all go in one run.
	oldAPI := seedRow(t, sessionQ, u.ID, u.BuyerID, "api", now.Add(-40*day), now.Add(-31*day))
	add(false, "user_sessions", oldAPI)
	// An old API session whose family still holds a live token stays with it.
	liveAPI := seedRow(t, sessionQ, u.ID, u.BuyerID, "api", now.Add(-40*day), now.Add(-31*day))
	add(true, "user_sessions", liveAPI)

	// api_tokens and api_token_families.
	familyQ := `INSERT INTO api_token_families (user_id, buyer_id, session_epoch, created_at, user_session_id) VALUES ($1, $2, 0, $3, $4) RETURNING id`
	tokenQ := `INSERT INTO api_tokens (family_id, kind, token_hash, expires_at) VALUES ($1, $2, $3, $4) RETURNING id`
	deadFamily := seedRow(t, familyQ, u.ID, u.BuyerID, now.Add(-40*day), oldAPI)
	add(false, "api_token_families", deadFamily)
	add(false, "api_tokens", seedRow(t, tokenQ, deadFamily, "access", unique("token"), now.Add(-39*day)))
	add(false, "api_tokens", seedRow(t, tokenQ, deadFamily, "refresh", unique("token"), now.Add(-time.Second)))
	liveFamily := seedRow(t, familyQ, u.ID, u.BuyerID, now.Add(-40*day), liveAPI)
	add(true, "api_token_families", liveFamily)
	add(false, "api_tokens", seedRow(t, tokenQ, liveFamily, "access", unique("token"), now))
	add(true, "api_tokens", seedRow(t, tokenQ, liveFamily, "refresh", unique("token"), now.Add(time.Second)))
	// A family without tokens that is less than a day old (being created) stays.
	add(true, "api_token_families", seedRow(t, familyQ, u.ID, u.BuyerID, now.Add(-time.Hour), nil))

	// request_key_misses: a day old they go.
	missQ := `INSERT INTO request_key_misses (buyer_id, at) VALUES ($1, $2) RETURNING id`
	add(false, "request_key_misses", seedRow(t, missQ, u.BuyerID, now.Add(-day-time.Second)))
	add(true, "request_key_misses", seedRow(t, missQ, u.BuyerID, now.Add(-day+time.Minute)))

	// oauth_tokens: a day past their end they go (a rotated refresh token stays until
	// then, so that its reuse is known).
	_, err = db.Store.DB.Exec(`INSERT INTO oauth_clients (id, name, redirect_uris, scopes) VALUES ('cleanup-app', 'x', '{https://x.example/cb}', '{payments:read}')
		ON CONFLICT DO NOTHING`)
	require.NoError(t, err)
	oauthQ := `INSERT INTO oauth_tokens (signature, kind, request_id, client_id, buyer_id, user_id, requested_at, expires_at, active)
		VALUES ($1, 'refresh', 'req', 'cleanup-app', $2, $3, $4, $4, false)`
	for sig, at := range map[string]time.Time{"cleanup-old": now.Add(-day - time.Second), "cleanup-rotated": now.Add(-time.Hour)} {
		_, err := db.Store.DB.Exec(oauthQ, sig, u.BuyerID, u.ID, at)
		require.NoError(t, err)
	}
	gone = append(gone, row{"oauth_tokens", "signature", "cleanup-old"})
	kept = append(kept, row{"oauth_tokens", "signature", "cleanup-rotated"})

	pruned, err := s.Cleanup(ctx)
	require.NoError(t, err)
	want := store.Pruned{
		"rate_limit_hits": 2, "sign_in_throttles": 2, "one_time_codes": 1, "api_login_challenges": 1,
		"api_signup_tokens": 1, "api_tokens": 3, "api_token_families": 1, "user_sessions": 3, "devices": 1,
		"signups": 1, "request_key_misses": 1, "oauth_tokens": 1,
	}
	assert.Equal(t, want, pruned)
	for _, r := range gone {
		assert.False(t, exists(t, r.table, r.column, r.id), "%s %v should be gone", r.table, r.id)
	}
	for _, r := range kept {
		assert.True(t, exists(t, r.table, r.column, r.id), "%s %v should stay", r.table, r.id)
	}

	// A second run finds nothing more.
	pruned, err = s.Cleanup(ctx)
	require.NoError(t, err)
	for table, n := range pruned {
		assert.Zero(t, n, table)
	}
}

// cleanupJobs are the cleanup jobs queued for hour ("2006-01-02T15", UTC).
func cleanupJobs(t *testing.T, hour string) []store.Job {
	t.Helper()
	var list []store.Job
	require.NoError(t, db.Store.DB.Select(&list, `SELECT id, kind, payload, unique_key, status, attempts, max_attempts, run_at,
		locked_by, locked_until, last_error, created_at, finished_at FROM jobs WHERE kind = $1 AND payload->>'hour' = $2`,
		account.CleanupJobKind, hour))
	return list
}

func TestScheduleCleanup(t *testing.T) {
	ctx := context.Background()
	other, err := store.Open(ctx, db.Server.DSN(db.Name))
	require.NoError(t, err)
	defer other.Close()
	one := &account.Service{Store: db.Store}
	two := &account.Service{Store: other}

	// Two instances schedule during the same hour: one job, for the next hour.
	at := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, one.ScheduleCleanup(ctx, at))
	require.NoError(t, two.ScheduleCleanup(ctx, at.Add(50*time.Minute)))
	require.NoError(t, one.ScheduleCleanup(ctx, at.In(time.FixedZone("JST", 9*60*60))))
	list := cleanupJobs(t, "2020-01-02T04")
	require.Len(t, list, 1)
	j := list[0]
	assert.Equal(t, account.CleanupJobKind, j.Kind)
	require.NotNil(t, j.UniqueKey)
	assert.Equal(t, "account-cleanup-2020-01-02T04", *j.UniqueKey)
	assert.True(t, time.Date(2020, 1, 2, 4, 0, 0, 0, time.UTC).Equal(j.RunAt), "run at %v", j.RunAt)
	assert.Equal(t, store.JobQueued, j.Status)
	var p struct{ Hour string }
	require.NoError(t, json.Unmarshal(j.Payload, &p))
	assert.Equal(t, "2020-01-02T04", p.Hour)

	// At the hour exactly, the next is the hour after.
	require.NoError(t, two.ScheduleCleanup(ctx, time.Date(2020, 1, 2, 4, 0, 0, 0, time.UTC)))
	assert.Len(t, cleanupJobs(t, "2020-01-02T05"), 1)
	assert.Len(t, cleanupJobs(t, "2020-01-02T04"), 1)

	// Many instances at once still make one job.
	done := make(chan error)
	for i := range 8 {
		go func() {
			s := one
			if i%2 == 1 {
				s = two
			}
			done <- s.ScheduleCleanup(ctx, time.Date(2020, 2, 3, 4, 5, 6, i, time.UTC))
		}()
	}
	for range 8 {
		require.NoError(t, <-done)
	}
	assert.Len(t, cleanupJobs(t, "2020-02-03T05"), 1)
}

func TestRunCleanupJob(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2020, 3, 4, 5, 6, 7, 0, time.UTC)
	s := &account.Service{Store: db.Store, Now: func() time.Time { return now }}
	key := unique("run-job")
	_, err := db.Store.DB.Exec(`INSERT INTO rate_limit_hits (rule, key_hash, window_start, hits, expires_at)
		VALUES ('signin.ip', $1, $2, 1, $3)`, key, now.Add(-time.Hour), now.Add(-time.Minute))
	require.NoError(t, err)

	require.NoError(t, s.RunCleanupJob(ctx, json.RawMessage(`{"hour":"2020-03-04T05"}`)))
	assert.False(t, exists(t, "rate_limit_hits", "key_hash", key), "the job cleans up")
	list := cleanupJobs(t, "2020-03-04T06")
	require.Len(t, list, 1, "and schedules the following hour")
	assert.True(t, time.Date(2020, 3, 4, 6, 0, 0, 0, time.UTC).Equal(list[0].RunAt))

	// Run twice (a retry, or two workers): still one next job.
	require.NoError(t, s.RunCleanupJob(ctx, nil))
	assert.Len(t, cleanupJobs(t, "2020-03-04T06"), 1)
}
