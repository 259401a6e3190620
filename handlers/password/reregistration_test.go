package password_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/mail/mailtest"
)

func TestReregistrationPage(t *testing.T) {
	c := webtest.New(t).Client(t)
	res := c.Get("/password/reregistration")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "<title>登録のやり直し | 請求書カード払い</title>")
	assert.Equal(t, 1, strings.Count(res.Body, "<h1"))
	assert.Contains(t, res.Body, `<form method="post" action="/password/reregistration" novalidate`)
	assert.Contains(t, res.Body, `href="/signup"`)

	for _, tt := range []struct{ email, message string }{
		{"", "メールアドレスを入力してください"},
		{"yamada", "メールアドレスを正しい形式で入力してください"},
		{"\xff@example.jp", "メールアドレスを正しい形式で入力してください"},
	} {
		res = c.Post("/password/reregistration", url.Values{"email_address": {tt.email}})
		webtest.AssertSignupFieldError(t, res, "email_address", tt.message)
		assert.Contains(t, res.Body, "<title>エラー：登録のやり直し | 請求書カード払い</title>")
	}
	assert.Equal(t, "/signup", c.Get("/signup/code").Header.Get("Location"), "nothing in the session")
}

// Re-registration never tells whether an address has an unfinished sign-up: the same
// redirect, the same page, the same answers to codes; only the mailbox knows.
func TestReregistrationAnswersTheSameForKnownAndUnknownAddresses(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	env := webtest.New(t, func(d *web.Deps) { d.Clock = clk.Now })
	known, unknown := webtest.SignupEmail(t), webtest.SignupEmail(t)
	registered := webtest.RegisteredAddress(t)
	webtest.SignUp(t, env, env.Client(t), known) // started, never finished

	k, u, r := env.Client(t), env.Client(t), env.Client(t)
	rk := k.Post("/password/reregistration", url.Values{"email_address": {known}})
	ru := u.Post("/password/reregistration", url.Values{"email_address": {unknown}})
	rr := r.Post("/password/reregistration", url.Values{"email_address": {registered}})
	for _, res := range []webtest.Response{rk, ru, rr} {
		assert.Equal(t, http.StatusSeeOther, res.StatusCode)
		assert.Equal(t, "/signup/code", res.Header.Get("Location"))
	}
	same := func(what string, a, b, c webtest.Response) {
		t.Helper()
		assert.Equal(t, a.StatusCode, b.StatusCode, what)
		assert.Equal(t, a.StatusCode, c.StatusCode, what)
		want := webtest.StripAddress(a.Body, known)
		assert.Equal(t, want, webtest.StripAddress(b.Body, unknown), what)
		assert.Equal(t, want, webtest.StripAddress(c.Body, registered), what)
	}
	pk, pu, pr := k.Get("/signup/code"), u.Get("/signup/code"), r.Get("/signup/code")
	same("the code page", pk, pu, pr)
	assert.Contains(t, pk.Body, "登録途中のお申し込みがある場合は、")
	assert.Contains(t, pk.Body, `href="/signup"`)

	code := mailtest.Code(env.Mail.WaitFor(t, known, 5*time.Second).Text)
	require.Len(t, code, 6, "the unfinished sign-up gets a new code")
	for range 6 {
		same("a wrong code", k.Post("/signup/code", url.Values{"code": {webtest.WrongCode(code)}}),
			u.Post("/signup/code", url.Values{"code": {webtest.WrongCode(code)}}), r.Post("/signup/code", url.Values{"code": {webtest.WrongCode(code)}}))
	}
	same("resending", k.Post("/signup/code/resend", nil), u.Post("/signup/code/resend", nil), r.Post("/signup/code/resend", nil))
	same("the code page after resending", k.Get("/signup/code"), u.Get("/signup/code"), r.Get("/signup/code"))
	code = mailtest.Code(env.Mail.WaitFor(t, known, 5*time.Second).Text)
	clk.Add(11 * time.Minute)
	same("an expired code", k.Post("/signup/code", url.Values{"code": {code}}),
		u.Post("/signup/code", url.Values{"code": {code}}), r.Post("/signup/code", url.Values{"code": {code}}))
	env.Settle(t)
	assert.Len(t, env.Mail.Messages(), 3, "mail went to the unfinished sign-up only")

	// A fresh code finishes what was started.
	k.Post("/signup/code/resend", nil)
	code = mailtest.Code(env.Mail.WaitFor(t, known, 5*time.Second).Text)
	res := k.Post("/signup/code", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/registration", res.Header.Get("Location"))
	assert.Equal(t, http.StatusOK, k.Get("/registration").StatusCode)
}
