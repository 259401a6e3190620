package handlers

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/mail/mailtest"
)

func TestReregistrationPage(t *testing.T) {
	c := newTestApp(t).client(t)
	res := c.get("/password/reregistration")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.body, "<title>登録のやり直し | 請求書カード払い</title>")
	assert.Equal(t, 1, strings.Count(res.body, "<h1"))
	assert.Contains(t, res.body, `<form method="post" action="/password/reregistration" novalidate`)
	assert.Contains(t, res.body, `href="/signup"`)

	for _, tt := range []struct{ email, message string }{
		{"", "メールアドレスを入力してください"},
		{"yamada", "メールアドレスを正しい形式で入力してください"},
		{"\xff@example.jp", "メールアドレスを正しい形式で入力してください"},
	} {
		res = c.post("/password/reregistration", url.Values{"email_address": {tt.email}})
		assertSignupFieldError(t, res, "email_address", tt.message)
		assert.Contains(t, res.body, "<title>エラー：登録のやり直し | 請求書カード払い</title>")
	}
	assert.Equal(t, "/signup", c.get("/signup/code").Header.Get("Location"), "nothing in the session")
}

// Re-registration never tells whether an address has an unfinished sign-up: the same
// redirect, the same page, the same answers to codes; only the mailbox knows.
func TestReregistrationAnswersTheSameForKnownAndUnknownAddresses(t *testing.T) {
	clk := &clock{t: time.Now()}
	ta := newTestApp(t, func(o *Options) { o.Now = clk.Now })
	known, unknown := signupEmail(t), signupEmail(t)
	registered := registeredAddress(t)
	ta.signUp(t, ta.client(t), known) // started, never finished

	k, u, r := ta.client(t), ta.client(t), ta.client(t)
	rk := k.post("/password/reregistration", url.Values{"email_address": {known}})
	ru := u.post("/password/reregistration", url.Values{"email_address": {unknown}})
	rr := r.post("/password/reregistration", url.Values{"email_address": {registered}})
	for _, res := range []response{rk, ru, rr} {
		assert.Equal(t, http.StatusSeeOther, res.StatusCode)
		assert.Equal(t, "/signup/code", res.Header.Get("Location"))
	}
	same := func(what string, a, b, c response) {
		t.Helper()
		assert.Equal(t, a.StatusCode, b.StatusCode, what)
		assert.Equal(t, a.StatusCode, c.StatusCode, what)
		want := stripAddress(a.body, known)
		assert.Equal(t, want, stripAddress(b.body, unknown), what)
		assert.Equal(t, want, stripAddress(c.body, registered), what)
	}
	pk, pu, pr := k.get("/signup/code"), u.get("/signup/code"), r.get("/signup/code")
	same("the code page", pk, pu, pr)
	assert.Contains(t, pk.body, "登録途中のお申し込みがある場合は、")
	assert.Contains(t, pk.body, `href="/signup"`)

	code := mailtest.Code(ta.mail.WaitFor(t, known, 5*time.Second).Text)
	require.Len(t, code, 6, "the unfinished sign-up gets a new code")
	for range 6 {
		same("a wrong code", k.post("/signup/code", url.Values{"code": {wrongCode(code)}}),
			u.post("/signup/code", url.Values{"code": {wrongCode(code)}}), r.post("/signup/code", url.Values{"code": {wrongCode(code)}}))
	}
	same("resending", k.post("/signup/code/resend", nil), u.post("/signup/code/resend", nil), r.post("/signup/code/resend", nil))
	same("the code page after resending", k.get("/signup/code"), u.get("/signup/code"), r.get("/signup/code"))
	code = mailtest.Code(ta.mail.WaitFor(t, known, 5*time.Second).Text)
	clk.Add(11 * time.Minute)
	same("an expired code", k.post("/signup/code", url.Values{"code": {code}}),
		u.post("/signup/code", url.Values{"code": {code}}), r.post("/signup/code", url.Values{"code": {code}}))
	assert.Len(t, ta.mail.Messages(), 3, "mail went to the unfinished sign-up only")

	// A fresh code finishes what was started.
	k.post("/signup/code/resend", nil)
	code = mailtest.Code(ta.mail.WaitFor(t, known, 5*time.Second).Text)
	res := k.post("/signup/code", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	assert.Equal(t, "/registration", res.Header.Get("Location"))
	assert.Equal(t, http.StatusOK, k.get("/registration").StatusCode)
}
