package account_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/store"
)

// secClock is a settable clock for the security tests (the limiter's windows, the
// throttle's delays and locks, the session timeouts).
type secClock struct {
	mu sync.Mutex
	t  time.Time
}

func newSecClock(t time.Time) *secClock { return &secClock{t: t} }

func (c *secClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *secClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *secClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func TestParseLimits(t *testing.T) {
	base := account.DefaultLimits
	with := func(changes account.Limits) account.Limits {
		out := maps.Clone(base)
		maps.Copy(out, changes)
		return out
	}
	every := func(scope string, l account.Limit) account.Limits {
		out := account.Limits{}
		for _, a := range []string{account.ActSignIn, account.ActSignup, account.ActCode, account.ActPasswordReset,
			account.ActReregistration, account.ActEmailChange, account.ActTwoFactor, account.ActToken,
			account.ActRequestKey, account.ActRequestMail, account.ActCardCheck, account.ActCardDecline,
			account.ActUploadLink, account.ActSupplierUpload, account.ActInquiry} {
			out[a+"."+scope] = l
		}
		return out
	}
	valid := []struct {
		name, in string
		want     account.Limits
	}{
		{"empty", "", base},
		{"only commas and spaces", " , ,", base},
		{"one rule", "signin.ip=100/15m", with(account.Limits{"signin.ip": {N: 100, Window: 15 * time.Minute}})},
		{"two rules", "signin.ip=5/1h,signup.target=2/30s", with(account.Limits{
			"signin.ip": {N: 5, Window: time.Hour}, "signup.target": {N: 2, Window: 30 * time.Second}})},
		{"spaces everywhere", "  signin.ip = 7 / 10m , code.target=3/1m  ,", with(account.Limits{
			"signin.ip": {N: 7, Window: 10 * time.Minute}, "code.target": {N: 3, Window: time.Minute}})},
		{"N = 0 turns a rule off", "password_reset.target=0/1h", with(account.Limits{"password_reset.target": {N: 0, Window: time.Hour}})},
		{"a rule the defaults lack", "token.target=3/1m", with(account.Limits{"token.target": {N: 3, Window: time.Minute}})},
		{"every IP rule", "*.ip=1000/1m", with(every("ip", account.Limit{N: 1000, Window: time.Minute}))},
		{"every target rule off", "*.target=0/1h", with(every("target", account.Limit{N: 0, Window: time.Hour}))},
		{"a later rule wins", "*.ip=1/1m,signin.ip=50/2m", func() account.Limits {
			m := with(every("ip", account.Limit{N: 1, Window: time.Minute}))
			m["signin.ip"] = account.Limit{N: 50, Window: 2 * time.Minute}
			return m
		}()},
		{"the same rule twice", "signup.ip=1/1m,signup.ip=2/2m", with(account.Limits{"signup.ip": {N: 2, Window: 2 * time.Minute}})},
		{"a one-second window", "twofactor.ip=1/1s", with(account.Limits{"twofactor.ip": {N: 1, Window: time.Second}})},
		{"every action by name", "request_mail.target=1/1m,request_key.ip=2/1m,reregistration.ip=3/1m,email_change.target=4/1m",
			with(account.Limits{"request_mail.target": {N: 1, Window: time.Minute}, "request_key.ip": {N: 2, Window: time.Minute},
				"reregistration.ip": {N: 3, Window: time.Minute}, "email_change.target": {N: 4, Window: time.Minute}})},
		{"the card checks' rules", "card_check.target=3/1h,card_decline.ip=2/24h",
			with(account.Limits{"card_check.target": {N: 3, Window: time.Hour}, "card_decline.ip": {N: 2, Window: 24 * time.Hour}})},
	}
	for _, tc := range valid {
		t.Run(tc.name, func(t *testing.T) {
			got, err := account.ParseLimits(tc.in, base)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}

	invalid := []struct {
		name, in, want string
	}{
		{"unknown action", "login.ip=1/1m", `unknown action "login"`},
		{"action in capitals", "SIGNIN.ip=1/1m", "unknown action"},
		{"empty action", ".ip=1/1m", "unknown action"},
		{"no scope", "signin=1/1m", ".ip or .target"},
		{"bad scope", "signin.mail=1/1m", ".ip or .target"},
		{"scope with more dots", "signin.ip.x=1/1m", ".ip or .target"},
		{"wildcard scope", "*.*=1/1m", ".ip or .target"},
		{"bare wildcard", "*=1/1m", ".ip or .target"},
		{"no =", "signin.ip", "is not rule=N/window"},
		{"no / ", "signin.ip=5", "is not rule=N/window"},
		{"colon for =", "signin.ip:5/1m", "is not rule=N/window"},
		{"negative N", "signin.ip=-1/1m", "N must be a whole number"},
		{"fractional N", "signin.ip=1.5/1m", "N must be a whole number"},
		{"word N", "signin.ip=many/1m", "N must be a whole number"},
		{"missing N", "signin.ip=/1m", "N must be a whole number"},
		{"window without unit", "signin.ip=1/15", "window must be a duration"},
		{"window a word", "signin.ip=1/hour", "window must be a duration"},
		{"zero window", "signin.ip=1/0s", "at least 1s"},
		{"window under a second", "signin.ip=1/500ms", "at least 1s"},
		{"negative window", "signin.ip=1/-1m", "at least 1s"},
		{"missing window", "signin.ip=1/", "window must be a duration"},
		{"one bad among good", "signin.ip=1/1m,signup.ip=x/1m", `"signup.ip=x/1m"`},
	}
	for _, tc := range invalid {
		t.Run(tc.name, func(t *testing.T) {
			got, err := account.ParseLimits(tc.in, base)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.Contains(t, err.Error(), "RATE_LIMITS")
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	t.Run("the base is not changed", func(t *testing.T) {
		before := maps.Clone(account.DefaultLimits)
		got, err := account.ParseLimits("*.ip=1/1m,signin.target=0/1h", account.DefaultLimits)
		require.NoError(t, err)
		got["signup.ip"] = account.Limit{N: 9, Window: time.Second}
		assert.Equal(t, before, account.DefaultLimits)
	})
	t.Run("a nil base", func(t *testing.T) {
		got, err := account.ParseLimits("signin.ip=1/1m", nil)
		require.NoError(t, err)
		assert.Equal(t, account.Limits{"signin.ip": {N: 1, Window: time.Minute}}, got)
	})
}

// hits is how many requests the counters hold for (rule, key), every window together.
func hits(t *testing.T, rule, key string) int {
	t.Helper()
	sum := sha256.Sum256([]byte(rule + "\x00" + key))
	var n int
	require.NoError(t, db.Store.DB.Get(&n, `SELECT COALESCE(sum(hits), 0) FROM rate_limit_hits WHERE rule = $1 AND key_hash = $2`,
		rule, hex.EncodeToString(sum[:])))
	return n
}

// limited asserts that err is a *Limited until the end of the window and returns it.
func limited(t *testing.T, err error, until time.Time, now time.Time) *account.Limited {
	t.Helper()
	l, ok := account.AsLimited(err)
	require.True(t, ok, "want *Limited, got %v", err)
	assert.True(t, until.Equal(l.Until), "Until %v, want %v", l.Until, until)
	assert.Equal(t, until.Sub(now), l.RetryAfter)
	return l
}

func TestLimit(t *testing.T) {
	ctx := context.Background()
	// 10 s into a minute: the window ends 50 s later.
	start := time.Date(2030, 1, 15, 9, 0, 10, 0, time.UTC)
	windowEnd := time.Date(2030, 1, 15, 9, 1, 0, 0, time.UTC)
	clk := newSecClock(start)
	lim := account.Limits{"signup.ip": {N: 3, Window: time.Minute}, "signup.target": {N: 2, Window: time.Minute}}
	s := &account.Service{Store: db.Store, Limits: lim, Now: clk.Now}

	t.Run("the IP's fourth request in a minute", func(t *testing.T) {
		clk.Set(start)
		const ip = "192.0.2.1"
		for i := range 3 {
			require.NoError(t, s.Limit(ctx, account.ActSignup, ip, ""), "request %d", i+1)
		}
		l := limited(t, s.Limit(ctx, account.ActSignup, ip, ""), windowEnd, start)
		assert.Equal(t, 50*time.Second, l.RetryAfter)
		assert.Equal(t, 50, l.RetryAfterSeconds())
		// Later in the same window: still refused, with less to wait.
		clk.Set(windowEnd.Add(-time.Second))
		l = limited(t, s.Limit(ctx, account.ActSignup, ip, ""), windowEnd, windowEnd.Add(-time.Second))
		assert.Equal(t, 1, l.RetryAfterSeconds())
		// The next window allows again, N times.
		clk.Set(windowEnd)
		for i := range 3 {
			require.NoError(t, s.Limit(ctx, account.ActSignup, ip, ""), "next window, request %d", i+1)
		}
		limited(t, s.Limit(ctx, account.ActSignup, ip, ""), windowEnd.Add(time.Minute), windowEnd)
		// Another IP was never limited.
		require.NoError(t, s.Limit(ctx, account.ActSignup, "192.0.2.2", ""))
		// Another action has its own counts (and no rule here).
		require.NoError(t, s.Limit(ctx, account.ActPasswordReset, ip, ""))
	})

	t.Run("the target ignores case and spaces", func(t *testing.T) {
		clk.Set(start)
		require.NoError(t, s.Limit(ctx, account.ActSignup, "192.0.2.11", "Owner@Example.JP"))
		require.NoError(t, s.Limit(ctx, account.ActSignup, "192.0.2.12", "  owner@example.jp\t"))
		limited(t, s.Limit(ctx, account.ActSignup, "192.0.2.13", "OWNER@EXAMPLE.JP "), windowEnd, start)
		// Another target from the same IP is still allowed.
		require.NoError(t, s.Limit(ctx, account.ActSignup, "192.0.2.13", "other@example.jp"))
		assert.Equal(t, 3, hits(t, "signup.target", "owner@example.jp"), "one counter for every spelling")
		assert.Zero(t, hits(t, "signup.target", "Owner@Example.JP"))
	})

	t.Run("a refusal for the IP does not use the target's allowance", func(t *testing.T) {
		clk.Set(start)
		const ip, target = "192.0.2.21", "victim@example.jp"
		for range 3 {
			require.NoError(t, s.Limit(ctx, account.ActSignup, ip, ""))
		}
		for range 5 {
			limited(t, s.Limit(ctx, account.ActSignup, ip, target), windowEnd, start)
		}
		require.NoError(t, s.Limit(ctx, account.ActSignup, "192.0.2.22", target))
		require.NoError(t, s.Limit(ctx, account.ActSignup, "192.0.2.23", target))
		limited(t, s.Limit(ctx, account.ActSignup, "192.0.2.24", target), windowEnd, start)
		assert.Equal(t, 3, hits(t, "signup.target", target), "the five refused for their IP were not counted for the target")
		assert.Equal(t, 8, hits(t, "signup.ip", ip))
	})

	t.Run("a missing rule and N = 0 never limit", func(t *testing.T) {
		clk.Set(start)
		off := &account.Service{Store: db.Store, Now: clk.Now, Limits: account.Limits{
			"signup.ip": {N: 0, Window: time.Minute}, "signup.target": {N: 0, Window: time.Minute}}}
		for i := range 50 {
			require.NoError(t, off.Limit(ctx, account.ActSignup, "192.0.2.31", "same@example.jp"), "N = 0, request %d", i+1)
			require.NoError(t, s.Limit(ctx, account.ActCode, "192.0.2.31", "same@example.jp"), "no rule, request %d", i+1)
		}
		assert.Zero(t, hits(t, "signup.ip", "192.0.2.31"), "N = 0 counts nothing")
		assert.Zero(t, hits(t, "signup.target", "same@example.jp"), "N = 0 counts nothing")
		assert.Zero(t, hits(t, "code.ip", "192.0.2.31"), "a missing rule counts nothing")
	})

	t.Run("nil Limits are the defaults", func(t *testing.T) {
		clk.Set(start)
		def := &account.Service{Store: db.Store, Now: clk.Now}
		for i := range account.DefaultLimits["password_reset.target"].N {
			require.NoError(t, def.Limit(ctx, account.ActPasswordReset, fmt.Sprintf("192.0.2.%d", 40+i), "defaults@example.jp"))
		}
		hourEnd := start.Truncate(time.Hour).Add(time.Hour)
		limited(t, def.Limit(ctx, account.ActPasswordReset, "192.0.2.49", "defaults@example.jp"), hourEnd, start)
	})

	t.Run("two instances on one database count together", func(t *testing.T) {
		clk.Set(start)
		other, err := store.Open(ctx, db.Server.DSN(db.Name))
		require.NoError(t, err)
		defer other.Close()
		s2 := &account.Service{Store: other, Limits: lim, Now: clk.Now}
		const ip = "192.0.2.51"
		require.NoError(t, s.Limit(ctx, account.ActSignup, ip, ""))
		require.NoError(t, s2.Limit(ctx, account.ActSignup, ip, ""))
		require.NoError(t, s.Limit(ctx, account.ActSignup, ip, ""))
		limited(t, s2.Limit(ctx, account.ActSignup, ip, ""), windowEnd, start)
		limited(t, s.Limit(ctx, account.ActSignup, ip, ""), windowEnd, start)
	})

	t.Run("parallel requests get exactly N", func(t *testing.T) {
		clk.Set(start)
		var wg sync.WaitGroup
		var mu sync.Mutex
		allowed, refused := 0, 0
		for range 20 {
			wg.Go(func() {
				err := s.Limit(ctx, account.ActSignup, "192.0.2.61", "")
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					allowed++
				} else if _, ok := account.AsLimited(err); ok {
					refused++
				} else {
					t.Errorf("unexpected error: %v", err)
				}
			})
		}
		wg.Wait()
		assert.Equal(t, 3, allowed)
		assert.Equal(t, 17, refused)
	})

	t.Run("LimitCaller counts the caller's IP", func(t *testing.T) {
		clk.Set(start)
		cctx := account.WithCaller(ctx, account.Caller{Client: account.Client{IP: "192.0.2.71"}})
		for range 3 {
			require.NoError(t, s.LimitCaller(cctx, account.ActSignup, ""))
		}
		limited(t, s.LimitCaller(cctx, account.ActSignup, ""), windowEnd, start)
		limited(t, s.Limit(ctx, account.ActSignup, "192.0.2.71", ""), windowEnd, start)
	})

	t.Run("the counters keep no address or IP in clear", func(t *testing.T) {
		var n int
		require.NoError(t, db.Store.DB.Get(&n, `SELECT count(*) FROM rate_limit_hits WHERE key_hash LIKE '%@%' OR key_hash LIKE '192.0.2.%'`))
		assert.Zero(t, n)
	})
}

func TestLimitedMessage(t *testing.T) {
	const prefix = "短時間に操作が繰り返されたため、受け付けを一時的に停止しています。"
	const suffix = " 以降にもう一度お試しください。"
	cases := []struct {
		name  string
		until time.Time
		want  string
	}{
		{"a whole minute", time.Date(2030, 1, 15, 0, 0, 0, 0, time.UTC), "1月15日 09:00"},
		{"a second past rounds up", time.Date(2030, 1, 15, 0, 0, 1, 0, time.UTC), "1月15日 09:01"},
		{"a nanosecond past rounds up", time.Date(2030, 1, 15, 0, 0, 0, 1, time.UTC), "1月15日 09:01"},
		{"rounding up crosses midnight in Japan", time.Date(2030, 1, 15, 14, 59, 30, 0, time.UTC), "1月16日 00:00"},
		{"the new year in Japan, still the old one in UTC", time.Date(2030, 12, 31, 15, 0, 0, 500_000_000, time.UTC), "1月1日 00:01"},
		{"a time given in another zone", time.Date(2030, 6, 30, 20, 44, 59, 0, time.FixedZone("EDT", -4*60*60)), "7月1日 09:45"},
		{"already Japan time", time.Date(2030, 3, 5, 18, 30, 0, 0, time.FixedZone("JST", 9*60*60)), "3月5日 18:30"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := &account.Limited{Until: tc.until, RetryAfter: time.Minute}
			assert.Equal(t, prefix+tc.want+suffix, l.Message())
			assert.Equal(t, l.Message(), l.Error())
		})
	}
}

func TestLimitedRetryAfterSeconds(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want int
	}{
		{0, 1},
		{time.Nanosecond, 1},
		{200 * time.Millisecond, 1},
		{time.Second, 1},
		{1100 * time.Millisecond, 2},
		{time.Second + time.Nanosecond, 2},
		{50 * time.Second, 50},
		{59*time.Second + time.Millisecond, 60},
		{time.Hour, 3600},
		{-time.Second, 1},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, (&account.Limited{RetryAfter: tc.d}).RetryAfterSeconds(), "%v", tc.d)
	}
}

func TestAsLimited(t *testing.T) {
	l := &account.Limited{Until: time.Now(), RetryAfter: time.Second}
	got, ok := account.AsLimited(fmt.Errorf("page: %w", l))
	assert.True(t, ok)
	assert.Same(t, l, got)
	_, ok = account.AsLimited(errors.New("other"))
	assert.False(t, ok)
	_, ok = account.AsLimited(nil)
	assert.False(t, ok)
	_, ok = account.AsLimited(&account.Refusal{Message: "x"})
	assert.False(t, ok)
}

// TestCardCheckLimits: card checks are counted per buyer and per IP, and an IP whose
// declined checks filled card_decline.ip is refused before its next check.
func TestCardCheckLimits(t *testing.T) {
	start := time.Date(2030, 1, 15, 9, 0, 10, 0, time.UTC)
	clk := newSecClock(start)
	lim := account.Limits{"card_check.ip": {N: 4, Window: time.Hour}, "card_check.target": {N: 2, Window: time.Hour},
		"card_decline.ip": {N: 3, Window: 24 * time.Hour}}
	s := &account.Service{Store: db.Store, Limits: lim, Now: clk.Now}
	from := func(ip string) context.Context {
		return account.WithCaller(context.Background(), account.Caller{Client: account.Client{IP: ip}})
	}
	hour := time.Date(2030, 1, 15, 10, 0, 0, 0, time.UTC)

	t.Run("per buyer and per IP an hour", func(t *testing.T) {
		ctx := from("198.51.100.1")
		require.NoError(t, s.LimitCardCheck(ctx, 901))
		require.NoError(t, s.LimitCardCheck(ctx, 901))
		limited(t, s.LimitCardCheck(ctx, 901), hour, start)
		require.NoError(t, s.LimitCardCheck(ctx, 902), "another buyer from the same IP")
		limited(t, s.LimitCardCheck(ctx, 903), hour, start)
		require.NoError(t, s.LimitCardCheck(from("198.51.100.2"), 903), "another IP")
	})

	t.Run("declines per IP a day", func(t *testing.T) {
		ctx := from("198.51.100.9")
		day := time.Date(2030, 1, 16, 0, 0, 0, 0, time.UTC)
		for range 3 {
			require.NoError(t, s.LimitCardCheck(ctx, 910))
			require.NoError(t, s.CountCardDecline(ctx))
			clk.Add(time.Hour) // keep under the hourly rules
		}
		now := clk.Now()
		limited(t, s.LimitCardCheck(ctx, 911), day, now)
		assert.Equal(t, 3, hits(t, "card_decline.ip", "198.51.100.9"), "a refused check is not a decline")
		require.NoError(t, s.CountCardDecline(ctx), "counting past the limit is no error")
		require.NoError(t, s.LimitCardCheck(from("198.51.100.10"), 911), "another IP")
		require.NoError(t, s.CountCardDecline(context.Background()), "no IP (a webhook): nothing counted")
	})
}
