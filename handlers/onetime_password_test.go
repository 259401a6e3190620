package handlers

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/auth"
	"cardpay/mail/mailtest"
	"cardpay/pay"
)

func TestThrottleThenLock(t *testing.T) {
	clk := &clock{t: time.Now()}
	ta := newTestApp(t, func(o *Options) { o.Now = clk.Now })
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	wrong := url.Values{"email_address": {u.EmailAddress}, "password": {"wrong password 1"}}
	right := url.Values{"email_address": {u.EmailAddress}, "password": {testPassword}}

	for i := 1; i <= 3; i++ {
		res := c.post("/signin", wrong)
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
		assert.Contains(t, res.body, "メールアドレスまたはパスワードが正しくありません", "failure %d", i)
	}
	res := c.post("/signin", right)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "after 3 failures even the right password must wait")
	assert.Contains(t, res.body, "待ってからもう一度お試しください")

	for i := 4; i <= 10; i++ {
		clk.Add(31 * time.Second)
		res = c.post("/signin", wrong)
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	}
	assert.Contains(t, res.body, "アカウントを一時的にロックしました", "the 10th failure locks")
	locked := ta.mail.WaitFor(t, u.EmailAddress, 5*time.Second)
	assert.Contains(t, locked.Subject, "請求書カード払い")

	clk.Add(time.Minute)
	res = c.post("/signin", right)
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "locked: the right password is refused")
	assert.Contains(t, res.body, "ロック")
	assert.NotContains(t, res.body, "goroutine")

	clk.Add(15 * time.Minute)
	res = c.post("/signin", right)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "after the lock the right password works")
	got, err := db.Store.User(context.Background(), u.BuyerID, u.ID)
	require.NoError(t, err)
	assert.Zero(t, got.FailedSignIns, "success resets the count")
	ev, err := db.Store.SignInEvents(context.Background(), u.BuyerID, u.ID, 50)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(ev), 11, "attempts are recorded")
}

func TestTwoFactorByMail(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	require.NoError(t, db.Store.SetTwoFactor(context.Background(), u.BuyerID, u.ID, "email", ""))
	c := ta.client(t)

	res := c.post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {testPassword}, "redirect": {"/myaccount"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/onetime-password", res.Header.Get("Location"))
	assert.Equal(t, http.StatusSeeOther, c.get("/myaccount").StatusCode, "not signed in before the second factor")

	page := c.get("/onetime-password")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.body, `autocomplete="one-time-code"`)
	msg := ta.mail.WaitFor(t, u.EmailAddress, 5*time.Second)
	code := mailtest.Code(msg.Text)
	require.Len(t, code, 6)

	res = c.post("/onetime-password", url.Values{"code": {wrongCode(code)}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	assert.Contains(t, res.body, "確認コードが正しくありません")
	res = c.post("/onetime-password", url.Values{"code": {""}})
	assert.Contains(t, res.body, "確認コードを入力してください")

	res = c.post("/onetime-password", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	assert.Equal(t, "/myaccount", res.Header.Get("Location"))
	assert.Equal(t, http.StatusOK, c.get("/myaccount").StatusCode)

	// The code works once: a second sign-in cannot reuse it.
	c2 := ta.client(t)
	c2.post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {testPassword}})
	res = c2.post("/onetime-password", url.Values{"code": {code}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	// Resend mails a new one that works.
	ta.mail.WaitFor(t, u.EmailAddress, 5*time.Second)
	require.Equal(t, http.StatusSeeOther, c2.post("/onetime-password/resend", nil).StatusCode)
	fresh := mailtest.Code(ta.mail.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	require.Equal(t, http.StatusSeeOther, c2.post("/onetime-password", url.Values{"code": {fresh}}).StatusCode)
}

func TestTwoFactorByAuthenticatorApp(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	key, err := auth.NewTOTP("請求書カード払い", u.EmailAddress)
	require.NoError(t, err)
	sealed, err := auth.NewSealer("test secret key").Seal(key.Secret)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, db.Store.SetTwoFactor(ctx, u.BuyerID, u.ID, "totp", sealed))
	codes, hashes, err := auth.NewRecoveryCodes(auth.RecoveryCodeCount)
	require.NoError(t, err)
	require.NoError(t, db.Store.ReplaceRecoveryCodes(ctx, u.BuyerID, u.ID, hashes))

	signInTo2FA := func() *client {
		c := ta.client(t)
		res := c.post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {testPassword}})
		require.Equal(t, "/onetime-password", res.Header.Get("Location"))
		return c
	}
	c := signInTo2FA()
	now, err := totp.GenerateCode(key.Secret, time.Now())
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, c.post("/onetime-password", url.Values{"code": {now}}).StatusCode)
	assert.Equal(t, http.StatusOK, c.get("/payments/create").StatusCode)

	replay := signInTo2FA()
	res := replay.post("/onetime-password", url.Values{"code": {now}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "an authenticator code works once")

	res = replay.post("/onetime-password", url.Values{"code": {codes[0]}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "a recovery code signs in")
	again := signInTo2FA()
	res = again.post("/onetime-password", url.Values{"code": {codes[0]}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "a recovery code works once")
}

func TestOnetimePasswordNeedsAPendingSignIn(t *testing.T) {
	c := newTestApp(t).client(t)
	assert.Equal(t, "/signin", c.get("/onetime-password").Header.Get("Location"))
	assert.Equal(t, "/signin", c.post("/onetime-password", url.Values{"code": {"123456"}}).Header.Get("Location"))
}

func wrongCode(code string) string {
	if code == "000000" {
		return "111111"
	}
	return "000000"
}
