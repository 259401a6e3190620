package signup_test

import (
	"context"
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

func TestMain(m *testing.M) { webtest.Main(m) }

func countSignups(t *testing.T, email string) int {
	t.Helper()
	var n int
	require.NoError(t, webtest.Store().DB.GetContext(context.Background(), &n, `SELECT count(*) FROM signups WHERE lower(email_address) = lower($1)`, email))
	return n
}

func countUsers(t *testing.T, email string) int {
	t.Helper()
	var n int
	require.NoError(t, webtest.Store().DB.GetContext(context.Background(), &n, `SELECT count(*) FROM users WHERE lower(email_address) = lower($1)`, email))
	return n
}

func TestSignupPage(t *testing.T) {
	c := webtest.New(t).Client(t)
	res := c.Get("/signup")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "<title>新規登録 | 請求書カード払い</title>")
	assert.Equal(t, 1, strings.Count(res.Body, "<h1"))
	assert.Contains(t, res.Body, `<form method="post" action="/signup" novalidate`)
	assert.Contains(t, res.Body, `autocomplete="new-password"`)
	assert.Contains(t, res.Body, `aria-describedby="password-hint"`, "the password rule is the field's hint")
	assert.Contains(t, res.Body, "10文字以上128文字以内で、英字と数字を組み合わせてください")
	assert.Contains(t, res.Body, `href="/terms"`)
	assert.Contains(t, res.Body, `href="/privacy"`)
	assert.Contains(t, res.Body, `type="checkbox"`)
	assert.Contains(t, res.Body, `aria-describedby="consent-links"`)
	assert.NotContains(t, res.Body, "<script", "no island, no JavaScript")
}

func TestSignupRejectsBadInput(t *testing.T) {
	env := webtest.New(t)
	email := webtest.SignupEmail(t)
	tests := []struct {
		name    string
		form    url.Values
		field   string
		message string
	}{
		{"empty form", url.Values{}, "email_address", "メールアドレスを入力してください"},
		{"empty form: password", url.Values{}, "password", "パスワードを入力してください"},
		{"empty form: consent", url.Values{}, "consent", "利用規約とプライバシーポリシーに同意してください"},
		{"invalid e-mail", url.Values{"email_address": {"yamada.example.jp"}, "password": {webtest.SignupPassword}, "consent": {"1"}}, "email_address", "メールアドレスを正しい形式で入力してください"},
		{"invalid UTF-8 e-mail", url.Values{"email_address": {"\xff\xfe@example.jp"}, "password": {webtest.SignupPassword}, "consent": {"1"}}, "email_address", "メールアドレスを正しい形式で入力してください"},
		{"weak password", url.Values{"email_address": {email}, "password": {"password"}, "consent": {"1"}}, "password", "パスワードは10文字以上で、英字と数字を組み合わせて入力してください"},
		{"common password", url.Values{"email_address": {email}, "password": {"password123"}, "consent": {"1"}}, "password", "よく使われていて推測されやすい"},
		{"common password, part in full width", url.Values{"email_address": {email}, "password": {"iloveｙｏｕ143"}, "consent": {"1"}}, "password", "このパスワードはよく使われていて推測されやすいため、別のパスワードを入力してください"},
		{"password with the typed address", url.Values{"email_address": {email}, "password": {"x" + email + "1"}, "consent": {"1"}}, "password", "パスワードにメールアドレスの一部を含めないでください"},
		{"password with the local part", url.Values{"email_address": {email}, "password": {strings.Split(email, "@")[0] + "1"}, "consent": {"1"}}, "password", "パスワードにメールアドレスの一部を含めないでください"},
		{"no consent", url.Values{"email_address": {email}, "password": {webtest.SignupPassword}}, "consent", "利用規約とプライバシーポリシーに同意してください"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := env.Client(t)
			res := c.Post("/signup", tt.form)
			webtest.AssertSignupFieldError(t, res, tt.field, tt.message)
			assert.Contains(t, res.Body, "<title>エラー：新規登録 | 請求書カード払い</title>")
			assert.NotContains(t, res.Body, webtest.SignupPassword, "the password is never shown back")
			assert.Equal(t, http.StatusSeeOther, c.Get("/signup/code").StatusCode, "no sign-up in the session")
		})
	}
	assert.Zero(t, countSignups(t, email), "nothing stored")
	env.Settle(t)
	assert.Empty(t, env.Mail.Messages(), "nothing mailed")

	// What was typed comes back, except the password.
	res := env.Client(t).Post("/signup", url.Values{"email_address": {"  " + email + " "}, "password": {"short1"}, "consent": {"1"}})
	assert.Contains(t, res.Body, `value="`+email+`"`)
	assert.Regexp(t, `id="consent"[^>]*checked`, res.Body)
}

func TestSignupCodeRefusals(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	env := webtest.New(t, func(d *web.Deps) { d.Clock = clk.Now })

	t.Run("empty and wrong", func(t *testing.T) {
		c := env.Client(t)
		code := webtest.SignUp(t, env, c, webtest.SignupEmail(t))
		webtest.AssertSignupFieldError(t, c.Post("/signup/code", url.Values{"code": {""}}), "code", "認証コードを入力してください")
		res := c.Post("/signup/code", url.Values{"code": {webtest.WrongCode(code)}})
		webtest.AssertSignupFieldError(t, res, "code", "認証コードが正しくありません。")
		assert.Contains(t, res.Body, "<title>エラー：認証コードの入力 | 請求書カード払い</title>")
		assert.Equal(t, http.StatusSeeOther, c.Get("/registration").StatusCode, "not verified")
	})
	t.Run("expired", func(t *testing.T) {
		c := env.Client(t)
		code := webtest.SignUp(t, env, c, webtest.SignupEmail(t))
		clk.Add(11 * time.Minute)
		webtest.AssertSignupFieldError(t, c.Post("/signup/code", url.Values{"code": {code}}), "code", "認証コードの有効期限が切れています。")
		assert.Equal(t, http.StatusSeeOther, c.Get("/registration").StatusCode, "not verified")
	})
	t.Run("reused", func(t *testing.T) {
		c := env.Client(t)
		code := webtest.SignUp(t, env, c, webtest.SignupEmail(t))
		require.Equal(t, http.StatusSeeOther, c.Post("/signup/code", url.Values{"code": {code}}).StatusCode)
		webtest.AssertSignupFieldError(t, c.Post("/signup/code", url.Values{"code": {code}}), "code", "この認証コードは使用済みです。")
	})
	t.Run("too many attempts", func(t *testing.T) {
		c := env.Client(t)
		code := webtest.SignUp(t, env, c, webtest.SignupEmail(t))
		for range 5 {
			webtest.AssertSignupFieldError(t, c.Post("/signup/code", url.Values{"code": {webtest.WrongCode(code)}}), "code", "認証コードが正しくありません。")
		}
		webtest.AssertSignupFieldError(t, c.Post("/signup/code", url.Values{"code": {code}}), "code", "認証コードの入力回数が上限を超えました。")
	})
	t.Run("resend mails a new code that works", func(t *testing.T) {
		c := env.Client(t)
		email := webtest.SignupEmail(t)
		old := webtest.SignUp(t, env, c, email)
		clk.Add(11 * time.Minute)
		res := c.Post("/signup/code/resend", nil)
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		assert.Equal(t, "/signup/code", res.Header.Get("Location"))
		assert.Contains(t, c.Get("/signup/code").Body, "認証コードを再送信しました")
		fresh := mailtest.Code(env.Mail.WaitFor(t, email, 5*time.Second).Text)
		if fresh != old {
			webtest.AssertSignupFieldError(t, c.Post("/signup/code", url.Values{"code": {old}}), "code", "認証コードが正しくありません。")
		}
		res = c.Post("/signup/code", url.Values{"code": {"  " + fresh[:3] + "-" + fresh[3:]}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode, "spaces and a hyphen are forgiven")
		assert.Equal(t, "/registration", res.Header.Get("Location"))
	})
}

func TestSignupCodeNeedsASignup(t *testing.T) {
	c := webtest.New(t).Client(t)
	for _, res := range []webtest.Response{c.Get("/signup/code"), c.Post("/signup/code", url.Values{"code": {"123456"}}), c.Post("/signup/code/resend", nil)} {
		assert.Equal(t, http.StatusSeeOther, res.StatusCode)
		assert.Equal(t, "/signup", res.Header.Get("Location"))
	}
}

func TestAlreadyRegisteredAddressLooksLikeANewOne(t *testing.T) {
	env := webtest.New(t)
	owner := webtest.RegisteredAddress(t)
	fresh := webtest.SignupEmail(t)

	a, b := env.Client(t), env.Client(t)
	ra := a.Post("/signup", webtest.SignupForm(owner))
	rb := b.Post("/signup", webtest.SignupForm(fresh))
	assert.Equal(t, rb.StatusCode, ra.StatusCode)
	assert.Equal(t, rb.Header.Get("Location"), ra.Header.Get("Location"))
	assert.Equal(t, webtest.StripAddress(rb.Body, fresh), webtest.StripAddress(ra.Body, owner))

	pa, pb := a.Get("/signup/code"), b.Get("/signup/code")
	assert.Equal(t, pb.StatusCode, pa.StatusCode)
	assert.Equal(t, webtest.StripAddress(pb.Body, fresh), webtest.StripAddress(pa.Body, owner), "the same code page")

	notice := env.Mail.WaitFor(t, owner, 5*time.Second)
	assert.Contains(t, notice.Subject, "新規登録のお申し込みについて")
	assert.Contains(t, notice.Text, "既に登録されている")
	assert.Empty(t, mailtest.Code(notice.Text), "no code for an address that has an account")
	code := mailtest.Code(env.Mail.WaitFor(t, fresh, 5*time.Second).Text)

	// Wrong codes get the same answers, up to the attempt limit, and so does resending.
	for i := range 6 {
		wa := a.Post("/signup/code", url.Values{"code": {webtest.WrongCode(code)}})
		wb := b.Post("/signup/code", url.Values{"code": {webtest.WrongCode(code)}})
		assert.Equal(t, wb.StatusCode, wa.StatusCode, "attempt %d", i+1)
		assert.Equal(t, webtest.StripAddress(wb.Body, fresh), webtest.StripAddress(wa.Body, owner), "attempt %d", i+1)
	}
	sa, sb := a.Post("/signup/code/resend", nil), b.Post("/signup/code/resend", nil)
	assert.Equal(t, sb.StatusCode, sa.StatusCode)
	assert.Equal(t, sb.Header.Get("Location"), sa.Header.Get("Location"))
	env.Mail.WaitFor(t, owner, 5*time.Second)
	env.Mail.WaitFor(t, fresh, 5*time.Second)
	assert.Equal(t, 1, countUsers(t, owner), "the account is untouched")
}

func TestEnteringSignupClearsTheWizard(t *testing.T) {
	env := webtest.New(t)
	c := webtest.VerifiedClient(t, env, webtest.SignupEmail(t))
	require.Equal(t, http.StatusSeeOther, c.Post("/registration", url.Values{"step": {"business_form"}, "business_form": {"1"}}).StatusCode)
	require.Contains(t, c.Get("/registration").Body, "利用者情報の登録（法人）")

	require.Equal(t, http.StatusOK, c.Get("/signup").StatusCode)
	res := c.Get("/registration")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "the sign-up and its answers are gone")
	assert.Equal(t, "/signup", res.Header.Get("Location"))

	// /signin ends the whole session, wizard included.
	c = webtest.VerifiedClient(t, env, webtest.SignupEmail(t))
	require.Equal(t, http.StatusSeeOther, c.Post("/registration", url.Values{"step": {"business_form"}, "business_form": {"2"}}).StatusCode)
	require.Equal(t, http.StatusOK, c.Get("/signin").StatusCode)
	assert.Equal(t, "/signup", c.Get("/registration").Header.Get("Location"))
}
