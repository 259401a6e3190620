package myaccount_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/cards"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
)

func stripeEnv(t *testing.T, checkoutURL string) *webtest.Env {
	return webtest.New(t, func(d *web.Deps) {
		d.Cards = &cards.Service{Store: webtest.Store(), Gateway: webtest.StripeSetups{CheckoutURL: checkoutURL}, BaseURL: d.BaseURL}
		d.StripePublishableKey = "pk_test_webtest"
	})
}

// With PSP=stripe the add page hosts Stripe.js's Payment Element for a SetupIntent, the
// card pages' CSP names exactly Stripe's documented origins, and without JavaScript the
// button opens Stripe Checkout.
func TestAddCardPageWithStripe(t *testing.T) {
	env := stripeEnv(t, "https://checkout.stripe.com/c/pay/cs_test_1")
	_, c := signedIn(t, env)

	add := c.Get("/myaccount/creditcards/new")
	require.Equal(t, http.StatusOK, add.StatusCode)
	entry := webtest.CardEntryOf(t, add.Body)
	assert.Equal(t, "stripe", entry.PSP)
	assert.Equal(t, "seti_test_1", entry.Setup)
	assert.Contains(t, add.Body, "pk_test_webtest")
	assert.Contains(t, add.Body, "seti_test_1_secret_abc", "Stripe.js confirms the SetupIntent with its client secret")
	assert.Contains(t, add.Body, "/myaccount/creditcards/new/return", "where Stripe sends the buyer after a redirect")
	csp := add.Header.Get("Content-Security-Policy")
	assert.Contains(t, csp, "script-src 'self' 'nonce-")
	assert.Contains(t, csp, " https://js.stripe.com https://*.js.stripe.com;")
	assert.Contains(t, csp, "frame-src 'self' https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com;")
	assert.Contains(t, csp, "connect-src 'self' https://api.stripe.com;")
	assert.Contains(t, csp, "form-action 'self' https://checkout.stripe.com https://hooks.stripe.com;")
	assert.NotContains(t, csp, env.PSP.URL, "the sandbox is not the PSP here")

	list := c.Get("/myaccount/creditcards").Header.Get("Content-Security-Policy")
	assert.NotContains(t, list, "js.stripe.com", "other pages load nothing of Stripe")
	assert.Contains(t, list, "connect-src 'self';")

	// JavaScript off: Stripe Checkout in setup mode, and back with ?setup=cs_….
	res := c.Post("/myaccount/creditcards/new/hosted", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "https://checkout.stripe.com/c/pay/cs_test_1", res.Header.Get("Location"))

	// A setup this session did not open is not finished, whoever names it.
	res = c.Get("/myaccount/creditcards/new/return?setup_intent=seti_someone_else&redirect_status=succeeded")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/myaccount/creditcards/new", res.Header.Get("Location"))
}

// A PSP answer that would send the buyer anywhere but the PSP's pages is refused.
func TestHostedPageOnlyOnThePSPsOrigins(t *testing.T) {
	env := stripeEnv(t, "https://evil.example/c/pay/cs_test_1")
	_, c := signedIn(t, env)
	res := c.Post("/myaccount/creditcards/new/hosted", nil)
	assert.Equal(t, http.StatusBadGateway, res.StatusCode)
	assert.Contains(t, res.Body, "カード会社の画面を開けません")
	assert.Empty(t, res.Header.Get("Location"))
}

// Without a publishable key the island cannot load Stripe.js: the page offers Checkout.
func TestStripeWithoutPublishableKeyOffersCheckoutOnly(t *testing.T) {
	env := webtest.New(t, func(d *web.Deps) {
		d.Cards = &cards.Service{Store: webtest.Store(), Gateway: webtest.StripeSetups{CheckoutURL: "https://checkout.stripe.com/c/pay/cs_test_1"}, BaseURL: d.BaseURL}
	})
	_, c := signedIn(t, env)
	add := c.Get("/myaccount/creditcards/new")
	require.Equal(t, http.StatusOK, add.StatusCode)
	assert.NotContains(t, add.Body, `data-island="card-entry"`)
	assert.Contains(t, add.Body, `<form method="post" action="/myaccount/creditcards/new/hosted"`)
}
