package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// The calls that charge a card or send a card-payment request refuse a user who has not
// accepted the terms in force (the pages send such a user to /termsofservice); reading
// stays open, and PUT users/license lifts the refusal.
func TestPaymentCallsNeedTheCurrentTerms(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	require.NoError(t, webtest.Store().AcceptTerms(context.Background(), u.BuyerID, u.ID, account.TermsVersion-1, time.Now()))
	c := env.client(t)
	c.login(u.EmailAddress)
	c.headers["Idempotency-Key"] = "terms-test"

	gated := []struct{ method, path string }{
		{http.MethodPost, "/invoices"},
		{http.MethodPut, "/invoices/1"},
		{http.MethodPut, "/invoices/1/requestbuyer"},
		{http.MethodPost, "/invoices/request_sellers"},
	}
	for _, g := range gated {
		r := c.call(g.method, g.path, map[string]any{})
		assert.Equal(t, http.StatusForbidden, r.Status, "%s %s: %s", g.method, g.path, r)
		assert.Equal(t, "terms_not_accepted", r.str("status"), "%s %s", g.method, g.path)
		assert.Contains(t, r.str("message"), "利用規約が改定されました", "%s %s", g.method, g.path)
		assert.Contains(t, r.str("message"), "PUT /api/v1/users/license")
	}
	list := c.get("/invoices")
	assert.Equal(t, http.StatusOK, list.Status, "reading stays open: %s", list)
	assert.Equal(t, false, c.get("/users/information").Body["license_accepted"])

	// The islands' cookie mode is refused the same way.
	browser := env.client(t)
	browser.cookieSignIn(u)
	browser.headers["X-Requested-With"] = "fetch"
	browser.headers["Idempotency-Key"] = "terms-test-cookie"
	r := browser.post("/invoices", map[string]any{})
	assert.Equal(t, http.StatusForbidden, r.Status, r.String())
	assert.Equal(t, "terms_not_accepted", r.str("status"))

	r = c.put("/users/license", map[string]any{"terms_version": account.TermsVersion})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	for _, g := range gated {
		r := c.call(g.method, g.path, map[string]any{})
		assert.NotEqual(t, "terms_not_accepted", r.str("status"), "%s %s once accepted: %s", g.method, g.path, r)
	}
	a, err := webtest.Store().TermsAcceptance(context.Background(), u.BuyerID, u.ID, account.TermsVersion)
	require.NoError(t, err, "the API's acceptance is recorded with its date")
	assert.WithinDuration(t, time.Now(), a.AcceptedAt, time.Minute)
}
