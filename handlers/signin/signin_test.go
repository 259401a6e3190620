package signin_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
)

func TestMain(m *testing.M) { webtest.Main(m) }

// nonceRe finds the CSP nonce, which differs between two otherwise equal answers.
var nonceRe = regexp.MustCompile(`nonce-[A-Za-z0-9_-]+|nonce="[A-Za-z0-9_-]+"`)

func TestRootRedirectsToSignIn(t *testing.T) {
	c := webtest.New(t).Client(t)
	res := c.Get("/")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin", res.Header.Get("Location"))
}

func TestSignInPage(t *testing.T) {
	c := webtest.New(t).Client(t)
	res := c.Get("/signin")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, `<html lang="ja">`)
	assert.Contains(t, res.Body, "<title>ログイン | 請求書カード払い</title>")
	assert.Contains(t, res.Body, `<form method="post" action="/signin" novalidate`)
	assert.Contains(t, res.Body, `autocomplete="current-password"`)
	assert.NotContains(t, res.Body, "<script", "a page without islands ships no JavaScript")
}

func TestSignInJourney(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "7000012050002")
	c := env.Client(t)

	// Anonymous: the guard sends us to sign in, remembering the page.
	res := c.Get("/myaccount/company")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin?redirect=%2Fmyaccount%2Fcompany", res.Header.Get("Location"))

	res = c.Get("/signin?redirect=%2Fmyaccount%2Fcompany")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, `name="redirect" value="/myaccount/company"`)
	before := c.Cookie("cardpay_session")

	res = c.Post("/signin", url.Values{"email_address": {strings.ToUpper(u.EmailAddress)}, "password": {webtest.Password}, "redirect": {"/myaccount/company"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/myaccount/company", res.Header.Get("Location"), "sign-in returns to the wanted page")
	after := c.Cookie("cardpay_session")
	require.NotEmpty(t, after)
	assert.NotEqual(t, before, after, "the session token is renewed on sign-in")

	res = c.Get("/myaccount/company")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "ログインしました", "the flash shows once")
	assert.Contains(t, res.Body, `data-island="snackbar"`)
	assert.Contains(t, res.Body, `role="status"`)
	assert.Contains(t, res.Body, "テスト商事株式会社")
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	res = c.Get("/myaccount/company")
	assert.NotContains(t, res.Body, "ログインしました")
	assert.NotContains(t, res.Body, "<script", "no notice, no island, no JavaScript")

	// Sign-out destroys the server session: the old cookie signs nobody in.
	old := c.Cookie("cardpay_session")
	res = c.Post("/signout", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin", res.Header.Get("Location"))
	res = c.Get("/signin")
	assert.Contains(t, res.Body, "ログアウトしました")

	var n int
	require.NoError(t, webtest.Store().DB.GetContext(context.Background(), &n, `SELECT count(*) FROM sessions WHERE token = $1`, old))
	assert.Zero(t, n, "the signed-out session is gone from the store")
	replay := env.Client(t)
	u0, _ := url.Parse(env.URL)
	replay.HTTP.Jar.SetCookies(u0, []*http.Cookie{{Name: "cardpay_session", Value: old, Path: "/"}})
	res = replay.Get("/toppage")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/signin"), "a signed-out cookie no longer works")
}

func TestSignInLandsOnTopPage(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	res := c.Get("/toppage")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/payments/create", res.Header.Get("Location"), "no payments yet: the landing rules end at create")
}

func TestEnteringSignInSignsOut(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	require.Equal(t, http.StatusOK, c.Get("/payments/create").StatusCode)
	require.Equal(t, http.StatusOK, c.Get("/signin").StatusCode)
	res := c.Get("/payments/create")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "visiting /signin forced a logout")
}

func TestSignInRejectsBadInput(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	tests := []struct {
		name        string
		form        url.Values
		wantMessage []string
		wantFields  []string
	}{
		{"empty form", url.Values{}, []string{"メールアドレスを入力してください", "パスワードを入力してください"}, []string{"email_address", "password"}},
		{"no password", url.Values{"email_address": {u.EmailAddress}}, []string{"パスワードを入力してください"}, []string{"password"}},
		{"not an address", url.Values{"email_address": {"yamada"}, "password": {"x"}}, []string{"メールアドレスを正しい形式で"}, []string{"email_address"}},
		{"too long", url.Values{"email_address": {strings.Repeat("a", 250) + "@x.jp"}, "password": {"x"}}, []string{"メールアドレスを正しい形式で"}, []string{"email_address"}},
		{"invalid UTF-8", url.Values{"email_address": {"\xff\xfe@x.jp"}, "password": {"x"}}, []string{"メールアドレスを正しい形式で"}, []string{"email_address"}},
		{"wrong password", url.Values{"email_address": {u.EmailAddress}, "password": {"wrong"}}, []string{"メールアドレスまたはパスワードが正しくありません"}, []string{"email_address"}},
		{"unknown address", url.Values{"email_address": {"nobody@test.example"}, "password": {"wrong"}}, []string{"メールアドレスまたはパスワードが正しくありません"}, []string{"email_address"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := env.Client(t)
			res := c.Post("/signin", tt.form)
			require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
			assert.Contains(t, res.Body, "<title>エラー：ログイン | 請求書カード払い</title>")
			assert.Contains(t, res.Body, `id="error-summary"`)
			for _, m := range tt.wantMessage {
				assert.Contains(t, res.Body, m)
			}
			for _, f := range tt.wantFields {
				assert.Contains(t, res.Body, `href="#`+f+`"`, "the summary links to the field")
				assert.Contains(t, res.Body, `id="`+f+`-error"`, "the message sits by the field")
				assert.Contains(t, res.Body, `aria-describedby="`+f+`-error"`)
			}
			assert.Equal(t, http.StatusSeeOther, c.Get("/toppage").StatusCode, "still signed out")
		})
	}
}

func TestUnknownAndWrongPasswordLookAlike(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	a := env.Client(t).Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {"wrong"}})
	b := env.Client(t).Post("/signin", url.Values{"email_address": {u.EmailAddress + ".invalid"}, "password": {"wrong"}})
	assert.Equal(t, a.StatusCode, b.StatusCode)
	strip := func(s, email string) string { return strings.ReplaceAll(nonceRe.ReplaceAllString(s, ""), email, "") }
	assert.Equal(t, strip(a.Body, u.EmailAddress), strip(b.Body, u.EmailAddress+".invalid"), "no user enumeration by the page")
}

func TestOpenRedirectIsRefused(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	res := c.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}, "redirect": {"//evil.example/"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/toppage", res.Header.Get("Location"))
}

// The process keeps no state: a session made by one instance works on another that
// shares the database, so instances can sit behind any load balancer.
func TestSessionWorksAcrossInstances(t *testing.T) {
	a, b := webtest.New(t), webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	ca := a.Client(t)
	ca.SignIn(u.EmailAddress)

	cb := b.Client(t)
	ub, _ := url.Parse(b.URL)
	cb.HTTP.Jar.SetCookies(ub, []*http.Cookie{{Name: "cardpay_session", Value: ca.Cookie("cardpay_session"), Path: "/"}})
	res := cb.Get("/payments/create")
	assert.Equal(t, http.StatusOK, res.StatusCode, "signed in on the other instance")
	assert.Contains(t, res.Body, "ログインしました", "the flash set by instance A shows on instance B")
}
