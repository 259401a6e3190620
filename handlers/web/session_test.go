package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

func signedIn(res webtest.Response) bool { return res.StatusCode == http.StatusOK }

func TestIdleTimeout(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	ta := webtest.New(t, func(o *web.Deps) { o.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := ta.Client(t)
	c.SignIn(u.EmailAddress)

	for range 3 {
		clk.Add(29 * time.Minute)
		require.True(t, signedIn(c.Get("/payments/create")), "activity within 30 minutes keeps the session")
	}
	clk.Add(31 * time.Minute)
	res := c.Get("/payments/create")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/signin?redirect="))
	res = c.Get("/signin")
	assert.Contains(t, res.Body, "一定時間操作がなかったため、ログアウトしました")
}

func TestAbsoluteTimeout(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	ta := webtest.New(t, func(o *web.Deps) { o.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := ta.Client(t)
	c.SignIn(u.EmailAddress)
	for elapsed := time.Duration(0); elapsed < web.AbsoluteTimeout-20*time.Minute; elapsed += 20 * time.Minute {
		clk.Add(20 * time.Minute)
		require.True(t, signedIn(c.Get("/payments/create")), "at %s", elapsed)
	}
	clk.Add(25 * time.Minute)
	assert.Equal(t, http.StatusSeeOther, c.Get("/payments/create").StatusCode, "12 hours after sign-in the session ends")
}

func TestSeenIsWrittenAtMostOncePerMinute(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	ta := webtest.New(t, func(o *web.Deps) { o.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := ta.Client(t)
	c.SignIn(u.EmailAddress)
	c.Get("/payments/create") // shows and clears the flash: a write
	token := c.Cookie("cardpay_session")
	var before time.Time
	require.NoError(t, webtest.Store().DB.GetContext(context.Background(), &before, `SELECT expiry FROM sessions WHERE token = $1`, token))
	var data1, data2 []byte
	require.NoError(t, webtest.Store().DB.GetContext(context.Background(), &data1, `SELECT data FROM sessions WHERE token = $1`, token))
	for range 5 {
		clk.Add(5 * time.Second)
		require.True(t, signedIn(c.Get("/payments/create")))
	}
	require.NoError(t, webtest.Store().DB.GetContext(context.Background(), &data2, `SELECT data FROM sessions WHERE token = $1`, token))
	assert.Equal(t, data1, data2, "read-only requests within a minute write nothing")
	clk.Add(2 * time.Minute)
	require.True(t, signedIn(c.Get("/payments/create")))
	require.NoError(t, webtest.Store().DB.GetContext(context.Background(), &data2, `SELECT data FROM sessions WHERE token = $1`, token))
	assert.NotEqual(t, data1, data2, "after a minute the last-seen time is refreshed")
}

func TestRaisedEpochEndsOtherSessions(t *testing.T) {
	ta := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	phone, laptop := ta.Client(t), ta.Client(t)
	phone.SignIn(u.EmailAddress)
	laptop.SignIn(u.EmailAddress)
	require.True(t, signedIn(phone.Get("/payments/create")))

	_, err := webtest.Store().SetPasswordAndEndSessions(context.Background(), u.BuyerID, u.ID, webtest.PasswordHash())
	require.NoError(t, err)
	for _, c := range []*webtest.Client{phone, laptop} {
		assert.Equal(t, http.StatusSeeOther, c.Get("/payments/create").StatusCode)
		assert.Contains(t, c.Get("/signin").Body, "パスワードが変更されたため")
	}
}

func TestMain(m *testing.M) { webtest.Main(m) }
