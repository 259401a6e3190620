package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

func TestRootRedirectsToSignIn(t *testing.T) {
	c := newTestApp(t).client(t)
	res := c.get("/")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin", res.Header.Get("Location"))
}

func TestSignInPage(t *testing.T) {
	c := newTestApp(t).client(t)
	res := c.get("/signin")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.body, `<html lang="ja">`)
	assert.Contains(t, res.body, "<title>ログイン | 請求書カード払い</title>")
	assert.Contains(t, res.body, `<form method="post" action="/signin" novalidate`)
	assert.Contains(t, res.body, `autocomplete="current-password"`)
	assert.NotContains(t, res.body, "<script", "a page without islands ships no JavaScript")
}

func TestSignInJourney(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "7000012050002")
	c := ta.client(t)

	// Anonymous: the guard sends us to sign in, remembering the page.
	res := c.get("/myaccount/company")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin?redirect=%2Fmyaccount%2Fcompany", res.Header.Get("Location"))

	res = c.get("/signin?redirect=%2Fmyaccount%2Fcompany")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.body, `name="redirect" value="/myaccount/company"`)
	before := c.cookie("cardpay_session")

	res = c.post("/signin", url.Values{"email_address": {strings.ToUpper(u.EmailAddress)}, "password": {testPassword}, "redirect": {"/myaccount/company"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	assert.Equal(t, "/myaccount/company", res.Header.Get("Location"), "sign-in returns to the wanted page")
	after := c.cookie("cardpay_session")
	require.NotEmpty(t, after)
	assert.NotEqual(t, before, after, "the session token is renewed on sign-in")

	res = c.get("/myaccount/company")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.body, "ログインしました", "the flash shows once")
	assert.Contains(t, res.body, `data-island="snackbar"`)
	assert.Contains(t, res.body, `role="status"`)
	assert.Contains(t, res.body, "テスト商事株式会社")
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	res = c.get("/myaccount/company")
	assert.NotContains(t, res.body, "ログインしました")
	assert.NotContains(t, res.body, "<script", "no notice, no island, no JavaScript")

	// Sign-out destroys the server session: the old cookie signs nobody in.
	old := c.cookie("cardpay_session")
	res = c.post("/signout", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin", res.Header.Get("Location"))
	res = c.get("/signin")
	assert.Contains(t, res.body, "ログアウトしました")

	var n int
	require.NoError(t, db.Store.DB.GetContext(context.Background(), &n, `SELECT count(*) FROM sessions WHERE token = $1`, old))
	assert.Zero(t, n, "the signed-out session is gone from the store")
	replay := ta.client(t)
	u0, _ := url.Parse(ta.srv.URL)
	replay.http.Jar.SetCookies(u0, []*http.Cookie{{Name: "cardpay_session", Value: old, Path: "/"}})
	res = replay.get("/toppage")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/signin"), "a signed-out cookie no longer works")
}

func TestSignInLandsOnTopPage(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.SoleProprietor, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	res := c.get("/toppage")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/payments/create", res.Header.Get("Location"), "no payments yet: the landing rules end at create")
}

func TestEnteringSignInSignsOut(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	require.Equal(t, http.StatusOK, c.get("/payments/create").StatusCode)
	require.Equal(t, http.StatusOK, c.get("/signin").StatusCode)
	res := c.get("/payments/create")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "visiting /signin forced a logout")
}

func TestSignInRejectsBadInput(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
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
			c := ta.client(t)
			res := c.post("/signin", tt.form)
			require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
			assert.Contains(t, res.body, "<title>エラー：ログイン | 請求書カード払い</title>")
			assert.Contains(t, res.body, `id="error-summary"`)
			for _, m := range tt.wantMessage {
				assert.Contains(t, res.body, m)
			}
			for _, f := range tt.wantFields {
				assert.Contains(t, res.body, `href="#`+f+`"`, "the summary links to the field")
				assert.Contains(t, res.body, `id="`+f+`-error"`, "the message sits by the field")
				assert.Contains(t, res.body, `aria-describedby="`+f+`-error"`)
			}
			assert.Equal(t, http.StatusSeeOther, c.get("/toppage").StatusCode, "still signed out")
		})
	}
}

func TestUnknownAndWrongPasswordLookAlike(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	a := ta.client(t).post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {"wrong"}})
	b := ta.client(t).post("/signin", url.Values{"email_address": {u.EmailAddress + ".invalid"}, "password": {"wrong"}})
	assert.Equal(t, a.StatusCode, b.StatusCode)
	strip := func(s, email string) string { return strings.ReplaceAll(nonceRe.ReplaceAllString(s, ""), email, "") }
	assert.Equal(t, strip(a.body, u.EmailAddress), strip(b.body, u.EmailAddress+".invalid"), "no user enumeration by the page")
}

func TestSafeRedirect(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"/myaccount", "/myaccount", true},
		{"/suppliers?status=enable", "/suppliers?status=enable", true},
		{"", "", false},
		{"myaccount", "", false},
		{"//evil.example/x", "", false},
		{"/\\evil.example", "", false},
		{"https://evil.example/", "", false},
		{"javascript:alert(1)", "", false},
		{"/%0d%0aSet-Cookie:x", "/%0d%0aSet-Cookie:x", true},
		{"/a\r\nb", "", false},
		{"/signin", "", false},
		{"/signout", "", false},
	}
	for _, tt := range tests {
		got, ok := safeRedirect(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

func TestOpenRedirectIsRefused(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	res := c.post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {testPassword}, "redirect": {"//evil.example/"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/toppage", res.Header.Get("Location"))
}

// The process keeps no state: a session made by one instance works on another that
// shares the database, so instances can sit behind any load balancer.
func TestSessionWorksAcrossInstances(t *testing.T) {
	a, b := newTestApp(t), newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	ca := a.client(t)
	ca.signIn(u.EmailAddress)

	cb := b.client(t)
	ub, _ := url.Parse(b.srv.URL)
	cb.http.Jar.SetCookies(ub, []*http.Cookie{{Name: "cardpay_session", Value: ca.cookie("cardpay_session"), Path: "/"}})
	res := cb.get("/payments/create")
	assert.Equal(t, http.StatusOK, res.StatusCode, "signed in on the other instance")
	assert.Contains(t, res.body, "ログインしました", "the flash set by instance A shows on instance B")
}
