package info_test

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/info"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/static"
	"cardpay/store"
)

func TestMain(m *testing.M) { webtest.Main(m) }

// The signed-in routes of the site have info's RequireCurrentTerms in front of them
// (routes.go), so these tests go through the real routes.

// outdatedTerms makes u a user who accepted an older version of the terms.
func outdatedTerms(t *testing.T, u *store.User) {
	t.Helper()
	require.NoError(t, webtest.Store().AcceptTerms(context.Background(), u.BuyerID, u.ID, account.TermsVersion-1, time.Now()))
	// webtest made the user having accepted the current version: that record goes too.
	_, err := webtest.Store().DB.Exec(`DELETE FROM terms_acceptances WHERE user_id = $1 AND version >= $2`, u.ID, account.TermsVersion)
	require.NoError(t, err)
	u.TermsVersion = account.TermsVersion - 1
}

func TestOutdatedTermsMustBeAccepted(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	// A user who accepted an older version of the terms.
	outdatedTerms(t, &u)
	c := env.Client(t)
	res := c.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}, "redirect": {"/myaccount/company"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)

	for path, want := range map[string]string{
		"/myaccount/company":       "/termsofservice?redirect=%2Fmyaccount%2Fcompany",
		"/toppage":                 "/termsofservice?redirect=%2Ftoppage",
		"/suppliers?status=enable": "/termsofservice?redirect=%2Fsuppliers%3Fstatus%3Denable",
	} {
		res := c.Get(path)
		assert.Equal(t, http.StatusSeeOther, res.StatusCode, path)
		assert.Equal(t, want, res.Header.Get("Location"), path)
	}
	res = c.Post("/myaccount/company/user-name", url.Values{"user_last_name": {"変更"}, "user_first_name": {"不可"}})
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/termsofservice", res.Header.Get("Location"))
	assert.Equal(t, "山田", webtest.ReloadUser(t, u).LastName, "nothing changes before the terms are accepted")

	page := c.Get("/termsofservice?redirect=%2Fmyaccount%2Fcompany")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "第1条")
	assert.Contains(t, page.Body, `<form method="post" action="/termsofservice"`)
	assert.Contains(t, page.Body, `name="redirect" value="/myaccount/company"`)
	assert.Contains(t, page.Body, "同意する")

	res = c.Post("/termsofservice", url.Values{"redirect": {"/myaccount/company"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/myaccount/company", res.Header.Get("Location"))
	assert.Equal(t, account.TermsVersion, webtest.ReloadUser(t, u).TermsVersion)
	res = c.Get("/myaccount/company")
	require.Equal(t, http.StatusOK, res.StatusCode, "accepting clears the redirect")
	assert.Contains(t, res.Body, "利用規約に同意しました")
	page = c.Get("/termsofservice")
	assert.NotContains(t, page.Body, `action="/termsofservice"`, "no form once accepted")
	assert.Contains(t, page.Body, "同意済み")
}

func TestTermsGateLetsSigningOutThrough(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	res := c.Post("/signout", nil)
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin", res.Header.Get("Location"))
	assert.Equal(t, http.StatusSeeOther, c.Get("/myaccount").StatusCode)
	assert.Contains(t, c.Get("/myaccount").Header.Get("Location"), "/signin?redirect=", "signed out, not sent to the terms")
}

// The gate itself lets the terms page, signing out and static files through for a user
// who has yet to accept the current terms, and stops anything else. The site sends none
// of those through it (signing out is routed outside the signed-in group, static files
// never reach echo), so test routes behind the gate stand in for them.
func TestTermsGateExemptions(t *testing.T) {
	env := webtest.New(t)
	gate := (&info.Handler{App: env.App}).RequireCurrentTerms
	through := func(c *echo.Context) error { return c.String(http.StatusOK, "through") }
	for _, p := range []string{"/signout", static.Prefix + "gate-test.css", "/gate-test"} {
		env.Echo.GET(p, through, gate)
	}
	env.Echo.POST("/gate-test", through, gate)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	outdatedTerms(t, &u)
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	res := c.Get("/gate-test?a=1")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/termsofservice?redirect=%2Fgate-test%3Fa%3D1", res.Header.Get("Location"))
	res = c.Post("/gate-test", nil)
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/termsofservice", res.Header.Get("Location"), "a form post is not replayed")
	res = c.Get("/signout")
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "through", res.Body)

	// Static files are served before echo, so the gate is asked directly, in this
	// user's session.
	req := httptest.NewRequest(http.MethodGet, static.Prefix+"gate-test.css", nil)
	req.AddCookie(&http.Cookie{Name: "cardpay_session", Value: c.Cookie("cardpay_session")})
	rec := httptest.NewRecorder()
	env.App.Sessions.LoadAndSave(env.Echo).ServeHTTP(rec, req)
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "through", rec.Body.String())

	// The real sign-out, outside the signed-in group, signs such a user out too.
	res = c.Post("/signout", nil)
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin", res.Header.Get("Location"))
}

func TestTermsAcceptRefusesForeignRedirects(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	assert.NotContains(t, c.Get("/termsofservice?redirect=%2F%2Fevil.example").Body, "evil.example")
	res := c.Post("/termsofservice", url.Values{"redirect": {"//evil.example"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/toppage", res.Header.Get("Location"))
}

func TestCurrentTermsAreNotAskedAgain(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	require.NoError(t, webtest.Store().AcceptTerms(context.Background(), u.BuyerID, u.ID, account.TermsVersion, time.Now()))
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	assert.Equal(t, http.StatusOK, c.Get("/myaccount").StatusCode)
	res := c.Post("/termsofservice", nil)
	assert.Equal(t, "/toppage", res.Header.Get("Location"))
	assert.NotContains(t, c.Get("/myaccount").Body, "利用規約に同意しました", "nothing to accept, no notice")
}

// A user on the previous version is shown what changed and, once they accept, the
// acceptance is recorded with its date (the app's clock) and /myaccount says which
// version and when.
func TestReacceptanceIsRecordedWithItsDate(t *testing.T) {
	at := time.Date(2026, 12, 3, 1, 0, 0, 0, time.UTC) // 2026年12月3日 10:00 in Japan
	clk := webtest.NewClock(at)
	env := webtest.New(t, func(d *web.Deps) { d.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	outdatedTerms(t, &u)
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	page := c.Get("/termsofservice?redirect=%2Fmyaccount")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "利用規約が改定されました（第"+strconv.Itoa(account.TermsVersion)+"版、"+account.TermsEffectiveDate+"施行）")
	assert.Contains(t, page.Body, "改定履歴")
	assert.Contains(t, page.Body, html.EscapeString(account.TermsRevisions[len(account.TermsRevisions)-1].Summary))

	res := c.Post("/termsofservice", url.Values{"redirect": {"/myaccount"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/myaccount", res.Header.Get("Location"))
	a, err := webtest.Store().TermsAcceptance(context.Background(), u.BuyerID, u.ID, account.TermsVersion)
	require.NoError(t, err)
	assert.True(t, at.Equal(a.AcceptedAt), "dated by the app's clock: %v", a.AcceptedAt)

	my := c.Get("/myaccount")
	require.Equal(t, http.StatusOK, my.StatusCode)
	assert.Contains(t, my.Body, "第"+strconv.Itoa(account.TermsVersion)+"版に同意済み（2026年12月3日）")
}

// A user whose acceptance predates the record (no row) still sees the version, without
// a made-up date; one on an old version is told the latest.
func TestMyAccountTermsLineWithoutARecord(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	_, err := webtest.Store().DB.Exec(`DELETE FROM terms_acceptances WHERE user_id = $1`, u.ID)
	require.NoError(t, err)
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	my := c.Get("/myaccount")
	require.Equal(t, http.StatusOK, my.StatusCode)
	assert.Contains(t, my.Body, "第"+strconv.Itoa(account.TermsVersion)+"版に同意済み<")
}
