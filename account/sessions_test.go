package account_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/pay"
	"cardpay/store"
)

const currentPasswordWrong = "現在のパスワードが正しくありません"

// signedIn signs u in from a new device and starts a browser session: the caller's
// context a page of that session would have.
func signedIn(t *testing.T, s *account.Service, u store.User, ip string) (context.Context, account.Caller) {
	t.Helper()
	ctx := context.Background()
	cl := account.Client{IP: ip, UserAgent: "Mozilla/5.0 (Windows NT 10.0) Chrome/140.0"}
	res, err := s.SignIn(ctx, u.EmailAddress, accountPassword, cl)
	require.NoError(t, err)
	require.NotZero(t, res.DeviceID)
	sid, err := s.StartSession(ctx, u, store.SessionBrowser, res.DeviceID, cl)
	require.NoError(t, err)
	cl.DeviceToken = res.DeviceToken
	c := account.Caller{SessionID: sid, DeviceID: res.DeviceID, Client: cl}
	return account.WithCaller(ctx, c), c
}

// onTheField checks that a throttle's refusal is on the current-password field and
// carries its wait (the pages and the API answer 429 with Retry-After).
func onTheField(t *testing.T, r *account.Refusal) {
	t.Helper()
	assert.Equal(t, "current_password", r.Field)
	assert.Positive(t, r.RetryAfter)
}

func TestWrongCurrentPasswordsLockTheCallersDevice(t *testing.T) {
	s, _, clk := deviceService(t)
	u := newUser(t, "change@sessions.example")
	ctx, caller := signedIn(t, s, u, "192.0.2.80")
	deviceKey := "device:" + strconv.FormatInt(caller.DeviceID, 10)

	for i := 1; i <= 9; i++ {
		clk.Add(attemptGap)
		_, errs, err := s.ChangePassword(ctx, u, fmt.Sprintf("wrong current %d", i), "brandnew2030pass")
		require.NoError(t, err)
		assert.Equal(t, currentPasswordWrong, errs.For("current_password"), "attempt %d", i)
		th, err := db.Store.SignInThrottle(ctx, deviceKey)
		require.NoError(t, err)
		assert.Equal(t, i, th.Failures, "counted against the caller's device")
	}
	clk.Add(attemptGap)
	until := clk.Now().Add(15 * time.Minute)
	_, _, err := s.ChangePassword(ctx, u, "wrong current 10", "brandnew2030pass")
	onTheField(t, refusal(t, err, auth.LockedMessage(until), "the tenth locks"))

	clk.Add(attemptGap)
	_, _, err = s.ChangePassword(ctx, u, accountPassword, "brandnew2030pass")
	onTheField(t, refusal(t, err, auth.LockedMessage(until), "the 11th answer is the lock, even with the right password"))
	assert.Equal(t, u.PasswordHash, reload(t, u).PasswordHash, "the password was not changed")

	// The lock is the device's: it cannot sign in either, while the address's unknown
	// devices were not counted.
	_, err = s.SignIn(context.Background(), u.EmailAddress, accountPassword, caller.Client)
	refusal(t, err, auth.LockedMessage(until))
	th, err := db.Store.SignInThrottle(ctx, "address:"+sha256Hex(u.EmailAddress))
	require.NoError(t, err)
	assert.Zero(t, th.Failures)
	_, err = s.SignIn(context.Background(), u.EmailAddress, accountPassword, account.Client{IP: "192.0.2.81"})
	require.NoError(t, err, "another device signs in")

	// Once the lock ends the right password changes it.
	clk.Set(until.Add(time.Second))
	_, errs, err := s.ChangePassword(ctx, u, accountPassword, "brandnew2030pass")
	require.NoError(t, err)
	require.Empty(t, errs)
	assert.NotEqual(t, u.PasswordHash, reload(t, u).PasswordHash)
}

// The password, e-mail and two-factor forms share the device's count.
func TestCurrentPasswordFormsShareOneCount(t *testing.T) {
	s, _, clk := deviceService(t)
	u := newUser(t, "forms@sessions.example")
	ctx, caller := signedIn(t, s, u, "192.0.2.82")

	// answer is the message on the current-password field: a field error, or the
	// throttle's refusal (429 with Retry-After) while the device waits or is locked.
	answer := func(errs pay.FieldErrors, err error) string {
		if err != nil {
			r, ok := account.AsRefusal(err)
			require.True(t, ok, "want a *Refusal, got %v", err)
			onTheField(t, r)
			return r.Message
		}
		return errs.For("current_password")
	}
	forms := []func(password string) string{
		func(p string) string {
			_, errs, err := s.ChangePassword(ctx, u, p, "brandnew2030pass")
			return answer(errs, err)
		},
		func(p string) string {
			return answer(s.StartEmailChange(ctx, u, "new-forms@sessions.example", p))
		},
		func(p string) string {
			return answer(s.DisableTwoFactor(ctx, u, p))
		},
	}
	var until time.Time
	for i := 1; i <= 10; i++ {
		clk.Add(attemptGap)
		until = clk.Now().Add(15 * time.Minute)
		got := forms[i%3](fmt.Sprintf("wrong current %d", i))
		if i < 10 {
			assert.Equal(t, currentPasswordWrong, got, "attempt %d", i)
		} else {
			assert.Equal(t, auth.LockedMessage(until), got, "the tenth, whichever form, locks")
		}
	}
	for i, form := range forms {
		clk.Add(time.Second)
		assert.Equal(t, auth.LockedMessage(until), form(accountPassword), "form %d while locked", i)
	}
	th, err := db.Store.SignInThrottle(context.Background(), "device:"+strconv.FormatInt(caller.DeviceID, 10))
	require.NoError(t, err)
	assert.Equal(t, 10, th.Failures)
}

func TestEndOtherSessions(t *testing.T) {
	s, _, _ := deviceService(t)
	u := newUser(t, "end-others@sessions.example")
	v := newUser(t, "bystander@sessions.example")
	_, first := signedIn(t, s, u, "192.0.2.90")
	ctx, mine := signedIn(t, s, u, "192.0.2.91")
	_, third := signedIn(t, s, u, "192.0.2.92")
	api := apiSession(t, s, u, time.Now().Add(30*24*time.Hour))
	_, theirs := signedIn(t, s, v, "192.0.2.93")

	live := func(u store.User) []int64 {
		t.Helper()
		list, err := s.Sessions(context.Background(), u)
		require.NoError(t, err)
		ids := make([]int64, len(list))
		for i, us := range list {
			ids[i] = us.ID
		}
		return ids
	}
	assert.ElementsMatch(t, []int64{first.SessionID, mine.SessionID, third.SessionID, api.session}, live(u))

	// Ending someone else's session by id does nothing.
	require.NoError(t, s.EndSession(ctx, u, theirs.SessionID))
	assert.Equal(t, []int64{theirs.SessionID}, live(v))

	require.NoError(t, s.EndOtherSessions(ctx, u))
	assert.Equal(t, []int64{mine.SessionID}, live(u), "only the caller's session is left")
	assert.Equal(t, []int64{theirs.SessionID}, live(v), "another user's sessions are untouched")
	for _, id := range []int64{first.SessionID, third.SessionID, api.session} {
		us, err := db.Store.UserSession(context.Background(), u.BuyerID, u.ID, id)
		require.NoError(t, err)
		assert.NotNil(t, us.EndedAt, "session %d ended", id)
	}
	var unrevoked int
	require.NoError(t, db.Store.DB.Get(&unrevoked, `SELECT count(*) FROM api_tokens WHERE family_id = $1 AND revoked_at IS NULL`, api.family))
	assert.Zero(t, unrevoked, "the ended API session's tokens are revoked")
	var familyRevoked bool
	require.NoError(t, db.Store.DB.Get(&familyRevoked, `SELECT revoked_at IS NOT NULL FROM api_token_families WHERE id = $1`, api.family))
	assert.True(t, familyRevoked)

	// Without a caller (a password reset) every session ends.
	require.NoError(t, s.EndOtherSessions(context.Background(), u))
	assert.Empty(t, live(u))
	assert.Equal(t, []int64{theirs.SessionID}, live(v))
}

type apiSess struct{ session, family int64 }

// apiSession is an API sign-in of u: a session row of kind api and a token family
// whose refresh token expires at refreshExpires.
func apiSession(t *testing.T, s *account.Service, u store.User, refreshExpires time.Time) apiSess {
	t.Helper()
	ctx := context.Background()
	sid, err := s.StartSession(ctx, u, store.SessionAPI, 0, account.Client{IP: "192.0.2.99", UserAgent: "api client"})
	require.NoError(t, err)
	// Base 36: a long run of digits could be taken for a card number by storetest's scan.
	n := strconv.FormatInt(time.Now().UnixNano(), 36)
	f, err := db.Store.CreateAPITokenFamily(ctx, u.BuyerID, u.ID, u.SessionEpoch,
		store.NewAPIToken{Hash: fmt.Sprintf("sessions-test-access-%s", n), ExpiresAt: time.Now().Add(15 * time.Minute)},
		store.NewAPIToken{Hash: fmt.Sprintf("sessions-test-refresh-%s", n), ExpiresAt: refreshExpires})
	require.NoError(t, err)
	require.NoError(t, db.Store.SetFamilySession(ctx, f.ID, sid))
	return apiSess{session: sid, family: f.ID}
}

func TestSessionTimeouts(t *testing.T) {
	ctx := context.Background()
	s, _, clk := deviceService(t)
	u := newUser(t, "timeouts@sessions.example")
	t0 := clk.Now()
	ids := func() []int64 {
		t.Helper()
		list, err := s.Sessions(ctx, u)
		require.NoError(t, err)
		out := make([]int64, len(list))
		for i, us := range list {
			out[i] = us.ID
		}
		return out
	}

	browser, err := s.StartSession(ctx, u, store.SessionBrowser, 0, account.Client{IP: "192.0.2.100", UserAgent: "browser"})
	require.NoError(t, err)
	api := apiSession(t, s, u, time.Now().Add(30*24*time.Hour))
	bare, err := s.StartSession(ctx, u, store.SessionAPI, 0, account.Client{IP: "192.0.2.101"})
	require.NoError(t, err)
	assert.Equal(t, []int64{api.session, browser}, ids(), "newest first; an API row without a live refresh token is not listed")
	assert.NotContains(t, ids(), bare)

	clk.Set(t0.Add(account.IdleTimeout - time.Second))
	assert.Equal(t, []int64{api.session, browser}, ids(), "29:59 idle: still live")
	clk.Set(t0.Add(account.IdleTimeout))
	assert.Equal(t, []int64{api.session}, ids(), "30 min idle: the browser session timed out; the API one lives with its refresh token")

	// A browser session in use ends 12 hours after sign-in all the same.
	t1 := clk.Now()
	busy, err := s.StartSession(ctx, u, store.SessionBrowser, 0, account.Client{IP: "192.0.2.102", UserAgent: "browser"})
	require.NoError(t, err)
	for d := 20 * time.Minute; d < account.AbsoluteTimeout; d += 20 * time.Minute {
		clk.Set(t1.Add(d))
		require.NoError(t, db.Store.SeeUserSession(ctx, busy, clk.Now()))
	}
	clk.Set(t1.Add(account.AbsoluteTimeout - time.Second))
	assert.Contains(t, ids(), busy, "seen 20 minutes ago, 11:59:59 after sign-in")
	clk.Set(t1.Add(account.AbsoluteTimeout))
	assert.NotContains(t, ids(), busy, "12 hours after sign-in")
	assert.Contains(t, ids(), api.session, "API sessions have no absolute timeout here; their refresh token ends them")

	// The API session goes when its refresh token is used up (rotated without a new
	// one) or revoked.
	_, err = db.Store.DB.Exec(`UPDATE api_tokens SET used_at = now() WHERE family_id = $1 AND kind = 'refresh'`, api.family)
	require.NoError(t, err)
	assert.NotContains(t, ids(), api.session)
}
