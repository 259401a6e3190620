package signin_test

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
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/mail/mailtest"
	"cardpay/pay"
)

func TestThrottleThenLock(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	env := webtest.New(t, func(d *web.Deps) { d.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	wrong := url.Values{"email_address": {u.EmailAddress}, "password": {"wrong password 1"}}
	right := url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}}

	for i := 1; i <= 3; i++ {
		res := c.Post("/signin", wrong)
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
		assert.Contains(t, res.Body, "メールアドレスまたはパスワードが正しくありません", "failure %d", i)
	}
	res := c.Post("/signin", right)
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "after 3 failures even the right password must wait")
	assert.NotEmpty(t, res.Header.Get("Retry-After"))
	assert.Contains(t, res.Body, "待ってからもう一度お試しください")

	for i := 4; i <= 10; i++ {
		clk.Add(31 * time.Second)
		res = c.Post("/signin", wrong)
		want := http.StatusUnprocessableEntity
		if i == 10 {
			want = http.StatusTooManyRequests // the lock, with Retry-After
		}
		require.Equal(t, want, res.StatusCode, "failure %d", i)
	}
	assert.Contains(t, res.Body, "アカウントを一時的にロックしました", "the 10th failure locks")
	locked := env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second)
	assert.Contains(t, locked.Subject, "請求書カード払い")

	clk.Add(time.Minute)
	res = c.Post("/signin", right)
	assert.Equal(t, http.StatusTooManyRequests, res.StatusCode, "locked: the right password is refused")
	assert.NotEmpty(t, res.Header.Get("Retry-After"))
	assert.Contains(t, res.Body, "ロック")
	assert.NotContains(t, res.Body, "goroutine")

	clk.Add(15 * time.Minute)
	res = c.Post("/signin", right)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "after the lock the right password works")
	// A success from this (now known) device cleared the address's count: one more
	// wrong password is no longer a lock.
	res = webtest.NewClientLike(c).Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {"wrong password"}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "success resets the count")
	ev, err := webtest.Store().SignInEvents(context.Background(), u.BuyerID, u.ID, 50)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(ev), 11, "attempts are recorded")
}

func TestTwoFactorByMail(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	require.NoError(t, webtest.Store().SetTwoFactor(context.Background(), u.BuyerID, u.ID, "email", ""))
	c := env.Client(t)

	res := c.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}, "redirect": {"/myaccount"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/onetime-password", res.Header.Get("Location"))
	assert.Equal(t, http.StatusSeeOther, c.Get("/myaccount").StatusCode, "not signed in before the second factor")

	page := c.Get("/onetime-password")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, `autocomplete="one-time-code"`)
	msg := env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second)
	code := mailtest.Code(msg.Text)
	require.Len(t, code, 6)

	res = c.Post("/onetime-password", url.Values{"code": {webtest.WrongCode(code)}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	assert.Contains(t, res.Body, "確認コードが正しくありません")
	res = c.Post("/onetime-password", url.Values{"code": {""}})
	assert.Contains(t, res.Body, "確認コードを入力してください")

	res = c.Post("/onetime-password", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/myaccount", res.Header.Get("Location"))
	assert.Equal(t, http.StatusOK, c.Get("/myaccount").StatusCode)

	// The code works once: a second sign-in cannot reuse it.
	c2 := env.Client(t)
	c2.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}})
	res = c2.Post("/onetime-password", url.Values{"code": {code}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	// Resend mails a new one that works.
	env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second)
	require.Equal(t, http.StatusSeeOther, c2.Post("/onetime-password/resend", nil).StatusCode)
	fresh := mailtest.Code(env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	require.Equal(t, http.StatusSeeOther, c2.Post("/onetime-password", url.Values{"code": {fresh}}).StatusCode)
}

func TestTwoFactorByAuthenticatorApp(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	key, err := auth.NewTOTP("請求書カード払い", u.EmailAddress)
	require.NoError(t, err)
	sealed, err := auth.NewSealer(webtest.SecretKey).Seal(key.Secret)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, webtest.Store().SetTwoFactor(ctx, u.BuyerID, u.ID, "totp", sealed))
	codes, hashes, err := auth.NewRecoveryCodes(auth.RecoveryCodeCount)
	require.NoError(t, err)
	require.NoError(t, webtest.Store().ReplaceRecoveryCodes(ctx, u.BuyerID, u.ID, hashes))

	signInTo2FA := func() *webtest.Client {
		c := env.Client(t)
		res := c.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}})
		require.Equal(t, "/onetime-password", res.Header.Get("Location"))
		return c
	}
	c := signInTo2FA()
	now, err := totp.GenerateCode(key.Secret, time.Now())
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, c.Post("/onetime-password", url.Values{"code": {now}}).StatusCode)
	assert.Equal(t, http.StatusOK, c.Get("/payments/create").StatusCode)

	replay := signInTo2FA()
	res := replay.Post("/onetime-password", url.Values{"code": {now}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "an authenticator code works once")

	res = replay.Post("/onetime-password", url.Values{"code": {codes[0]}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "a recovery code signs in")
	again := signInTo2FA()
	res = again.Post("/onetime-password", url.Values{"code": {codes[0]}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "a recovery code works once")
}

func TestOnetimePasswordNeedsAPendingSignIn(t *testing.T) {
	c := webtest.New(t).Client(t)
	assert.Equal(t, "/signin", c.Get("/onetime-password").Header.Get("Location"))
	assert.Equal(t, "/signin", c.Post("/onetime-password", url.Values{"code": {"123456"}}).Header.Get("Location"))
}
