package securitysuite_test

// Sessions (README "Sign-in limits"): 30 minutes idle, 12 hours at most, on a clock the
// test moves (webtest.Clock as Deps.Clock); and the session token (the cookie's value)
// renewed on sign-in and on every privilege change — the password, the second factor —
// while the user stays signed in, the old value being worthless from then on (no
// session fixation, no stolen pre-change cookie).

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/mail/mailtest"
	"cardpay/pay"
)

const sessionCookie = "cardpay_session"

// signedInAt says whether c opens a signed-in page; false means it was sent to /signin.
func signedInAt(t *testing.T, c *webtest.Client) bool {
	t.Helper()
	res := c.Get("/myaccount")
	switch {
	case res.StatusCode == http.StatusOK:
		return true
	case res.StatusCode == http.StatusSeeOther && strings.HasPrefix(res.Header.Get("Location"), "/signin"):
		return false
	}
	t.Fatalf("GET /myaccount: %d %s", res.StatusCode, res.Header.Get("Location"))
	return false
}

// withSessionCookie is a new browser holding only the given session token.
func withSessionCookie(t *testing.T, env *webtest.Env, token string) *webtest.Client {
	t.Helper()
	c := env.Client(t)
	u, err := url.Parse(env.URL)
	require.NoError(t, err)
	c.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: token, Path: "/"}})
	return c
}

func TestSessionIdleTimeout(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	env := webtest.New(t, func(d *web.Deps) { d.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	clk.Add(29 * time.Minute)
	at29 := signedInAt(t, c)
	clk.Add(29 * time.Minute)
	again := signedInAt(t, c) // 58 minutes after sign-in, 29 after the last request
	clk.Add(31 * time.Minute)
	at31 := signedInAt(t, c)
	notice := strings.Contains(c.Get("/signin").Body, "一定時間操作がなかったため、ログアウトしました")
	record(t, "sessions", "idle timeout (30 min)",
		fmt.Sprintf("29 min idle: %s; 29 min idle again: %s; 31 min idle: %s, notice shown: %s", inOut(at29), inOut(again), inOut(at31), yesNo(notice)),
		at29 && again && !at31 && notice)
}

func TestSessionAbsoluteTimeout(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	env := webtest.New(t, func(d *web.Deps) { d.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	requests, in := 0, 0
	elapsed := time.Duration(0)
	for elapsed+20*time.Minute < web.AbsoluteTimeout {
		clk.Add(20 * time.Minute)
		elapsed += 20 * time.Minute
		requests++
		if signedInAt(t, c) {
			in++
		}
	}
	clk.Add(25 * time.Minute) // past 12 hours, 25 minutes after the last request
	elapsed += 25 * time.Minute
	out := !signedInAt(t, c)
	record(t, "sessions", "absolute timeout (12 h) despite activity every 20 min",
		fmt.Sprintf("%d of %d requests 20 min apart signed in (up to %s); at %s (25 min idle): %s", in, requests,
			hm(elapsed-25*time.Minute), hm(elapsed), inOut(!out)),
		in == requests && out)
}

func inOut(signedIn bool) string {
	if signedIn {
		return "signed in"
	}
	return "signed out"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func hm(d time.Duration) string {
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func TestSessionTokenRenewedOnSignIn(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	// An anonymous session first (a card-payment request's link keeps its key in one):
	// the token an attacker could have planted.
	c.Get("/payments/request/planted-key-0000")
	planted := c.Cookie(sessionCookie)
	require.NotEmpty(t, planted, "an anonymous session exists before sign-in")
	c.SignIn(u.EmailAddress)
	fresh := c.Cookie(sessionCookie)
	// The key rides along into the signed-in session (its data is kept, its token is
	// not): the first signed-in page tries it and says it failed.
	require.Contains(t, c.Get("/toppage").Body, "請求支払の取得に失敗しました")
	in := signedInAt(t, c)
	old := signedInAt(t, withSessionCookie(t, env, planted))
	record(t, "sessions", "session token renewed on sign-in (fixation)",
		fmt.Sprintf("POST /signin: cookie changed: %s; the new value: %s; the pre-sign-in value: %s", yesNo(fresh != planted), inOut(in), inOut(old)),
		fresh != "" && fresh != planted && in && !old)
}

func TestSessionTokenRenewedOnPasswordChange(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	before := c.Cookie(sessionCookie)
	const newPassword = "renewed session horse 8"
	res := c.Post("/myaccount/edit-password", url.Values{"current_password": {webtest.Password},
		"password": {newPassword}, "password_confirmation": {newPassword}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	after := c.Cookie(sessionCookie)
	in := signedInAt(t, c)
	old := signedInAt(t, withSessionCookie(t, env, before))
	record(t, "sessions", "session token renewed on a password change",
		fmt.Sprintf("POST /myaccount/edit-password %d: cookie changed: %s; the new value: %s; the old value: %s", res.StatusCode, yesNo(after != before), inOut(in), inOut(old)),
		after != "" && after != before && in && !old)
}

func TestSessionTokenRenewedOnTwoFactorChange(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	res := c.Post("/myaccount/security", url.Values{"two_factor_method": {"email"}, "current_password": {webtest.Password}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/myaccount/security/email", res.Header.Get("Location"))
	code := mailtest.Code(env.Mail.WaitFor(t, u.EmailAddress, 10*time.Second).Text)
	require.Len(t, code, 6)

	before := c.Cookie(sessionCookie)
	res = c.Post("/myaccount/security/email", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	after := c.Cookie(sessionCookie)
	method := webtest.ReloadUser(t, u).TwoFactorMethod
	in := signedInAt(t, c)
	old := signedInAt(t, withSessionCookie(t, env, before))
	record(t, "sessions", "session token renewed on a two-factor change",
		fmt.Sprintf("POST /myaccount/security/email (mail two-factor %q): cookie changed: %s; the new value: %s; the old value: %s", method, yesNo(after != before), inOut(in), inOut(old)),
		method != "" && after != "" && after != before && in && !old)
}
