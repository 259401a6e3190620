package handlers

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

// clock is a test clock the app reads through Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func signedIn(res response) bool { return res.StatusCode == http.StatusOK }

func TestIdleTimeout(t *testing.T) {
	clk := &clock{t: time.Now()}
	ta := newTestApp(t, func(o *Options) { o.Now = clk.Now })
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)

	for range 3 {
		clk.Add(29 * time.Minute)
		require.True(t, signedIn(c.get("/payments/create")), "activity within 30 minutes keeps the session")
	}
	clk.Add(31 * time.Minute)
	res := c.get("/payments/create")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/signin?redirect="))
	res = c.get("/signin")
	assert.Contains(t, res.body, "一定時間操作がなかったため、ログアウトしました")
}

func TestAbsoluteTimeout(t *testing.T) {
	clk := &clock{t: time.Now()}
	ta := newTestApp(t, func(o *Options) { o.Now = clk.Now })
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	for elapsed := time.Duration(0); elapsed < AbsoluteTimeout-20*time.Minute; elapsed += 20 * time.Minute {
		clk.Add(20 * time.Minute)
		require.True(t, signedIn(c.get("/payments/create")), "at %s", elapsed)
	}
	clk.Add(25 * time.Minute)
	assert.Equal(t, http.StatusSeeOther, c.get("/payments/create").StatusCode, "12 hours after sign-in the session ends")
}

func TestSeenIsWrittenAtMostOncePerMinute(t *testing.T) {
	clk := &clock{t: time.Now()}
	ta := newTestApp(t, func(o *Options) { o.Now = clk.Now })
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	c.get("/payments/create") // shows and clears the flash: a write
	token := c.cookie("cardpay_session")
	var before time.Time
	require.NoError(t, db.Store.DB.GetContext(context.Background(), &before, `SELECT expiry FROM sessions WHERE token = $1`, token))
	var data1, data2 []byte
	require.NoError(t, db.Store.DB.GetContext(context.Background(), &data1, `SELECT data FROM sessions WHERE token = $1`, token))
	for range 5 {
		clk.Add(5 * time.Second)
		require.True(t, signedIn(c.get("/payments/create")))
	}
	require.NoError(t, db.Store.DB.GetContext(context.Background(), &data2, `SELECT data FROM sessions WHERE token = $1`, token))
	assert.Equal(t, data1, data2, "read-only requests within a minute write nothing")
	clk.Add(2 * time.Minute)
	require.True(t, signedIn(c.get("/payments/create")))
	require.NoError(t, db.Store.DB.GetContext(context.Background(), &data2, `SELECT data FROM sessions WHERE token = $1`, token))
	assert.NotEqual(t, data1, data2, "after a minute the last-seen time is refreshed")
}

func TestRaisedEpochEndsOtherSessions(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	phone, laptop := ta.client(t), ta.client(t)
	phone.signIn(u.EmailAddress)
	laptop.signIn(u.EmailAddress)
	require.True(t, signedIn(phone.get("/payments/create")))

	_, err := db.Store.SetPasswordAndEndSessions(context.Background(), u.BuyerID, u.ID, testHash)
	require.NoError(t, err)
	for _, c := range []*client{phone, laptop} {
		assert.Equal(t, http.StatusSeeOther, c.get("/payments/create").StatusCode)
		assert.Contains(t, c.get("/signin").body, "パスワードが変更されたため")
	}
}
