package handlers

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/mail/mailtest"
	"cardpay/pay"
	"cardpay/store"
)

var signupSeq int

// signupEmail is a fresh address for one test.
func signupEmail(t *testing.T) string {
	t.Helper()
	signupSeq++
	name := strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-"))
	if len(name) > 36 {
		name = name[len(name)-36:]
	}
	return strings.Trim(name, "-") + "-" + time.Now().Format("150405.000000") + string(rune('a'+signupSeq%26)) + "@test.example"
}

const signupPassword = "kanri2026pass"

func signupForm(email string) url.Values {
	return url.Values{"email_address": {email}, "password": {signupPassword}, "consent": {"1"}}
}

// signUp posts the sign-up form and answers the code mailed to email.
func (ta *testApp) signUp(t *testing.T, c *client, email string) string {
	t.Helper()
	res := c.post("/signup", signupForm(email))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	require.Equal(t, "/signup/code", res.Header.Get("Location"))
	code := mailtest.Code(ta.mail.WaitFor(t, email, 5*time.Second).Text)
	require.Len(t, code, 6)
	return code
}

// verifiedClient has signed up as email and entered the code: it is on /registration.
func (ta *testApp) verifiedClient(t *testing.T, email string) *client {
	t.Helper()
	c := ta.client(t)
	code := ta.signUp(t, c, email)
	res := c.post("/signup/code", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	require.Equal(t, "/registration", res.Header.Get("Location"))
	return c
}

// registeredAddress is the address of an existing account (newBuyer's addresses can
// be too long for the sign-up form's rules).
func registeredAddress(t *testing.T) string {
	t.Helper()
	email := signupEmail(t)
	_, err := db.Store.CreateBuyer(context.Background(), store.NewBuyer{
		BusinessForm: pay.Corporation, CorporateName: "既存商事株式会社", EmailAddress: email,
		PasswordHash: testHash, LastName: "山田", FirstName: "太郎",
	})
	require.NoError(t, err)
	return email
}

func countSignups(t *testing.T, email string) int {
	t.Helper()
	var n int
	require.NoError(t, db.Store.DB.GetContext(context.Background(), &n, `SELECT count(*) FROM signups WHERE lower(email_address) = lower($1)`, email))
	return n
}

func countUsers(t *testing.T, email string) int {
	t.Helper()
	var n int
	require.NoError(t, db.Store.DB.GetContext(context.Background(), &n, `SELECT count(*) FROM users WHERE lower(email_address) = lower($1)`, email))
	return n
}

// assertSignupFieldError checks the GOV.UK error pattern for one field: 422, エラー： title,
// the summary linking to the field and the message beside it.
func assertSignupFieldError(t *testing.T, res response, field, message string) {
	t.Helper()
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	assert.Contains(t, res.body, "<title>エラー：")
	assert.Contains(t, res.body, `id="error-summary"`)
	assert.Contains(t, res.body, `href="#`+field+`"`, "the summary links to the field")
	assert.Contains(t, res.body, `id="`+field+`-error"`, "the message sits by the field")
	assert.Regexp(t, `aria-describedby="[^"]*`+regexp.QuoteMeta(field)+`-error"`, res.body)
	assert.Contains(t, res.body, message)
}

func TestSignupPage(t *testing.T) {
	c := newTestApp(t).client(t)
	res := c.get("/signup")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.body, "<title>新規登録 | 請求書カード払い</title>")
	assert.Equal(t, 1, strings.Count(res.body, "<h1"))
	assert.Contains(t, res.body, `<form method="post" action="/signup" novalidate`)
	assert.Contains(t, res.body, `autocomplete="new-password"`)
	assert.Contains(t, res.body, `aria-describedby="password-hint"`, "the password rule is the field's hint")
	assert.Contains(t, res.body, "10文字以上128文字以内で、英字と数字を組み合わせてください")
	assert.Contains(t, res.body, `href="/terms"`)
	assert.Contains(t, res.body, `href="/privacy"`)
	assert.Contains(t, res.body, `type="checkbox"`)
	assert.Contains(t, res.body, `aria-describedby="consent-links"`)
	assert.NotContains(t, res.body, "<script", "no island, no JavaScript")
}

func TestSignupRejectsBadInput(t *testing.T) {
	ta := newTestApp(t)
	email := signupEmail(t)
	tests := []struct {
		name    string
		form    url.Values
		field   string
		message string
	}{
		{"empty form", url.Values{}, "email_address", "メールアドレスを入力してください"},
		{"empty form: password", url.Values{}, "password", "パスワードを入力してください"},
		{"empty form: consent", url.Values{}, "consent", "利用規約とプライバシーポリシーに同意してください"},
		{"invalid e-mail", url.Values{"email_address": {"yamada.example.jp"}, "password": {signupPassword}, "consent": {"1"}}, "email_address", "メールアドレスを正しい形式で入力してください"},
		{"invalid UTF-8 e-mail", url.Values{"email_address": {"\xff\xfe@example.jp"}, "password": {signupPassword}, "consent": {"1"}}, "email_address", "メールアドレスを正しい形式で入力してください"},
		{"weak password", url.Values{"email_address": {email}, "password": {"password"}, "consent": {"1"}}, "password", "パスワードは10文字以上で、英字と数字を組み合わせて入力してください"},
		{"common password", url.Values{"email_address": {email}, "password": {"password123"}, "consent": {"1"}}, "password", "よく使われていて推測されやすい"},
		{"no consent", url.Values{"email_address": {email}, "password": {signupPassword}}, "consent", "利用規約とプライバシーポリシーに同意してください"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ta.client(t)
			res := c.post("/signup", tt.form)
			assertSignupFieldError(t, res, tt.field, tt.message)
			assert.Contains(t, res.body, "<title>エラー：新規登録 | 請求書カード払い</title>")
			assert.NotContains(t, res.body, signupPassword, "the password is never shown back")
			assert.Equal(t, http.StatusSeeOther, c.get("/signup/code").StatusCode, "no sign-up in the session")
		})
	}
	assert.Zero(t, countSignups(t, email), "nothing stored")
	assert.Empty(t, ta.mail.Messages(), "nothing mailed")

	// What was typed comes back, except the password.
	res := ta.client(t).post("/signup", url.Values{"email_address": {"  " + email + " "}, "password": {"short1"}, "consent": {"1"}})
	assert.Contains(t, res.body, `value="`+email+`"`)
	assert.Regexp(t, `id="consent"[^>]*checked`, res.body)
}

func TestSignupCodeRefusals(t *testing.T) {
	clk := &clock{t: time.Now()}
	ta := newTestApp(t, func(o *Options) { o.Now = clk.Now })

	t.Run("empty and wrong", func(t *testing.T) {
		c := ta.client(t)
		code := ta.signUp(t, c, signupEmail(t))
		assertSignupFieldError(t, c.post("/signup/code", url.Values{"code": {""}}), "code", "認証コードを入力してください")
		res := c.post("/signup/code", url.Values{"code": {wrongCode(code)}})
		assertSignupFieldError(t, res, "code", "認証コードが正しくありません。")
		assert.Contains(t, res.body, "<title>エラー：認証コードの入力 | 請求書カード払い</title>")
		assert.Equal(t, http.StatusSeeOther, c.get("/registration").StatusCode, "not verified")
	})
	t.Run("expired", func(t *testing.T) {
		c := ta.client(t)
		code := ta.signUp(t, c, signupEmail(t))
		clk.Add(11 * time.Minute)
		assertSignupFieldError(t, c.post("/signup/code", url.Values{"code": {code}}), "code", "認証コードの有効期限が切れています。")
		assert.Equal(t, http.StatusSeeOther, c.get("/registration").StatusCode, "not verified")
	})
	t.Run("reused", func(t *testing.T) {
		c := ta.client(t)
		code := ta.signUp(t, c, signupEmail(t))
		require.Equal(t, http.StatusSeeOther, c.post("/signup/code", url.Values{"code": {code}}).StatusCode)
		assertSignupFieldError(t, c.post("/signup/code", url.Values{"code": {code}}), "code", "この認証コードは使用済みです。")
	})
	t.Run("too many attempts", func(t *testing.T) {
		c := ta.client(t)
		code := ta.signUp(t, c, signupEmail(t))
		for range 5 {
			assertSignupFieldError(t, c.post("/signup/code", url.Values{"code": {wrongCode(code)}}), "code", "認証コードが正しくありません。")
		}
		assertSignupFieldError(t, c.post("/signup/code", url.Values{"code": {code}}), "code", "認証コードの入力回数が上限を超えました。")
	})
	t.Run("resend mails a new code that works", func(t *testing.T) {
		c := ta.client(t)
		email := signupEmail(t)
		old := ta.signUp(t, c, email)
		clk.Add(11 * time.Minute)
		res := c.post("/signup/code/resend", nil)
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		assert.Equal(t, "/signup/code", res.Header.Get("Location"))
		assert.Contains(t, c.get("/signup/code").body, "認証コードを再送信しました")
		fresh := mailtest.Code(ta.mail.WaitFor(t, email, 5*time.Second).Text)
		if fresh != old {
			assertSignupFieldError(t, c.post("/signup/code", url.Values{"code": {old}}), "code", "認証コードが正しくありません。")
		}
		res = c.post("/signup/code", url.Values{"code": {"  " + fresh[:3] + "-" + fresh[3:]}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode, "spaces and a hyphen are forgiven")
		assert.Equal(t, "/registration", res.Header.Get("Location"))
	})
}

func TestSignupCodeNeedsASignup(t *testing.T) {
	c := newTestApp(t).client(t)
	for _, res := range []response{c.get("/signup/code"), c.post("/signup/code", url.Values{"code": {"123456"}}), c.post("/signup/code/resend", nil)} {
		assert.Equal(t, http.StatusSeeOther, res.StatusCode)
		assert.Equal(t, "/signup", res.Header.Get("Location"))
	}
}

// stripAddress removes what differs between two otherwise identical answers: the
// nonce and the address the visitor typed.
func stripAddress(body string, emails ...string) string {
	body = nonceRe.ReplaceAllString(body, "")
	for _, e := range emails {
		body = strings.ReplaceAll(body, e, "ADDRESS")
	}
	return body
}

func TestAlreadyRegisteredAddressLooksLikeANewOne(t *testing.T) {
	ta := newTestApp(t)
	owner := registeredAddress(t)
	fresh := signupEmail(t)

	a, b := ta.client(t), ta.client(t)
	ra := a.post("/signup", signupForm(owner))
	rb := b.post("/signup", signupForm(fresh))
	assert.Equal(t, rb.StatusCode, ra.StatusCode)
	assert.Equal(t, rb.Header.Get("Location"), ra.Header.Get("Location"))
	assert.Equal(t, stripAddress(rb.body, fresh), stripAddress(ra.body, owner))

	pa, pb := a.get("/signup/code"), b.get("/signup/code")
	assert.Equal(t, pb.StatusCode, pa.StatusCode)
	assert.Equal(t, stripAddress(pb.body, fresh), stripAddress(pa.body, owner), "the same code page")

	notice := ta.mail.WaitFor(t, owner, 5*time.Second)
	assert.Contains(t, notice.Subject, "新規登録のお申し込みについて")
	assert.Contains(t, notice.Text, "既に登録されている")
	assert.Empty(t, mailtest.Code(notice.Text), "no code for an address that has an account")
	code := mailtest.Code(ta.mail.WaitFor(t, fresh, 5*time.Second).Text)

	// Wrong codes get the same answers, up to the attempt limit, and so does resending.
	for i := range 6 {
		wa := a.post("/signup/code", url.Values{"code": {wrongCode(code)}})
		wb := b.post("/signup/code", url.Values{"code": {wrongCode(code)}})
		assert.Equal(t, wb.StatusCode, wa.StatusCode, "attempt %d", i+1)
		assert.Equal(t, stripAddress(wb.body, fresh), stripAddress(wa.body, owner), "attempt %d", i+1)
	}
	sa, sb := a.post("/signup/code/resend", nil), b.post("/signup/code/resend", nil)
	assert.Equal(t, sb.StatusCode, sa.StatusCode)
	assert.Equal(t, sb.Header.Get("Location"), sa.Header.Get("Location"))
	ta.mail.WaitFor(t, owner, 5*time.Second)
	ta.mail.WaitFor(t, fresh, 5*time.Second)
	assert.Equal(t, 1, countUsers(t, owner), "the account is untouched")
}

func TestEnteringSignupClearsTheWizard(t *testing.T) {
	ta := newTestApp(t)
	c := ta.verifiedClient(t, signupEmail(t))
	require.Equal(t, http.StatusSeeOther, c.post("/registration", url.Values{"step": {"business_form"}, "business_form": {"1"}}).StatusCode)
	require.Contains(t, c.get("/registration").body, "利用者情報の登録（法人）")

	require.Equal(t, http.StatusOK, c.get("/signup").StatusCode)
	res := c.get("/registration")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "the sign-up and its answers are gone")
	assert.Equal(t, "/signup", res.Header.Get("Location"))

	// /signin ends the whole session, wizard included.
	c = ta.verifiedClient(t, signupEmail(t))
	require.Equal(t, http.StatusSeeOther, c.post("/registration", url.Values{"step": {"business_form"}, "business_form": {"2"}}).StatusCode)
	require.Equal(t, http.StatusOK, c.get("/signin").StatusCode)
	assert.Equal(t, "/signup", c.get("/registration").Header.Get("Location"))
}
