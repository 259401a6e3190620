package handlers

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/pay"
)

// newTermsTestApp is the app with requireCurrentTerms in front of every route, as the
// signed-in group will have it.
func newTermsTestApp(t *testing.T) *testApp {
	ta := newTestApp(t)
	ta.echo.Use(ta.requireCurrentTerms)
	return ta
}

func TestOutdatedTermsMustBeAccepted(t *testing.T) {
	ta := newTermsTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	// A user who accepted an older version of the terms.
	require.NoError(t, db.Store.AcceptTerms(context.Background(), u.BuyerID, u.ID, account.TermsVersion-1))
	u.TermsVersion = account.TermsVersion - 1
	c := ta.client(t)
	res := c.post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {testPassword}, "redirect": {"/myaccount/company"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)

	for path, want := range map[string]string{
		"/myaccount/company":       "/termsofservice?redirect=%2Fmyaccount%2Fcompany",
		"/toppage":                 "/termsofservice?redirect=%2Ftoppage",
		"/suppliers?status=enable": "/termsofservice?redirect=%2Fsuppliers%3Fstatus%3Denable",
	} {
		res := c.get(path)
		assert.Equal(t, http.StatusSeeOther, res.StatusCode, path)
		assert.Equal(t, want, res.Header.Get("Location"), path)
	}
	res = c.post("/myaccount/company/user-name", url.Values{"user_last_name": {"変更"}, "user_first_name": {"不可"}})
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/termsofservice", res.Header.Get("Location"))
	assert.Equal(t, "山田", loadUser(t, u).LastName, "nothing changes before the terms are accepted")

	page := c.get("/termsofservice?redirect=%2Fmyaccount%2Fcompany")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.body, "第1条")
	assert.Contains(t, page.body, `<form method="post" action="/termsofservice"`)
	assert.Contains(t, page.body, `name="redirect" value="/myaccount/company"`)
	assert.Contains(t, page.body, "同意する")

	res = c.post("/termsofservice", url.Values{"redirect": {"/myaccount/company"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/myaccount/company", res.Header.Get("Location"))
	assert.Equal(t, account.TermsVersion, loadUser(t, u).TermsVersion)
	res = c.get("/myaccount/company")
	require.Equal(t, http.StatusOK, res.StatusCode, "accepting clears the redirect")
	assert.Contains(t, res.body, "利用規約に同意しました")
	page = c.get("/termsofservice")
	assert.NotContains(t, page.body, `action="/termsofservice"`, "no form once accepted")
	assert.Contains(t, page.body, "同意済み")
}

func TestTermsGateLetsSigningOutThrough(t *testing.T) {
	ta := newTermsTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	res := c.post("/signout", nil)
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin", res.Header.Get("Location"))
	assert.Equal(t, http.StatusSeeOther, c.get("/myaccount").StatusCode)
	assert.Contains(t, c.get("/myaccount").Header.Get("Location"), "/signin?redirect=", "signed out, not sent to the terms")
}

func TestTermsAcceptRefusesForeignRedirects(t *testing.T) {
	ta := newTermsTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	assert.NotContains(t, c.get("/termsofservice?redirect=%2F%2Fevil.example").body, "evil.example")
	res := c.post("/termsofservice", url.Values{"redirect": {"//evil.example"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/toppage", res.Header.Get("Location"))
}

func TestCurrentTermsAreNotAskedAgain(t *testing.T) {
	ta := newTermsTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	require.NoError(t, db.Store.AcceptTerms(context.Background(), u.BuyerID, u.ID, account.TermsVersion))
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	assert.Equal(t, http.StatusOK, c.get("/myaccount").StatusCode)
	res := c.post("/termsofservice", nil)
	assert.Equal(t, "/toppage", res.Header.Get("Location"))
	assert.NotContains(t, c.get("/myaccount").body, "利用規約に同意しました", "nothing to accept, no notice")
}
