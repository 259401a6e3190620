package web

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/cards"
	"cardpay/gateway"
)

type namedGateway struct {
	gateway.Gateway
	name string
}

func (g namedGateway) Name() string { return g.name }

func appWith(name, origin string) *App {
	return &App{Deps: Deps{PSPOrigin: origin, Cards: &cards.Service{Gateway: namedGateway{name: name}}}}
}

// The server sends a buyer only to the PSP's own pages, the ones the CSP's form-action
// names: a PSP's answer (or a configuration) can never send a buyer anywhere else.
func TestPSPPage(t *testing.T) {
	sandbox, stripe := appWith("sandbox", "http://localhost:8081/"), appWith("stripe", "")
	for _, tc := range []struct {
		app  *App
		url  string
		want bool
	}{
		{sandbox, "http://localhost:8081/3ds/ch_1", true},
		{sandbox, "http://localhost:8081/hosted/setup_1", true},
		{sandbox, "http://localhost:8082/3ds/ch_1", false},
		{sandbox, "https://localhost:8081/3ds/ch_1", false},
		{sandbox, "http://user@localhost:8081/3ds/ch_1", false},
		{sandbox, "/3ds/ch_1", false},
		{sandbox, "//localhost:8081/3ds/ch_1", false},
		{sandbox, "https://checkout.stripe.com/c/pay/cs_1", false},
		{stripe, "https://checkout.stripe.com/c/pay/cs_1", true},
		{stripe, "https://hooks.stripe.com/redirect/authenticate/src_1", true},
		{stripe, "https://js.stripe.com/v3/", false},
		{stripe, "https://evil.example/checkout.stripe.com", false},
		{stripe, "http://checkout.stripe.com/c/pay/cs_1", false},
		{appWith("sandbox", ""), "http://localhost:8081/3ds/ch_1", false},
	} {
		assert.Equal(t, tc.want, tc.app.PSPPage(tc.url), "%s with %s", tc.url, tc.app.PSPName())
	}
}

// The card pages' policy adds the PSP's frame, script and API origins; every other page
// frames, loads and reaches nothing of the PSP, and only the PSP's pages end a form.
func TestPSPPolicy(t *testing.T) {
	sandbox := appWith("sandbox", "http://localhost:8081")
	page, card := sandbox.policy("n1", pagePolicy{}), sandbox.policy("n1", pagePolicy{cardEntry: true})
	assert.Contains(t, page, "script-src 'self' 'nonce-n1';")
	assert.Contains(t, page, "frame-src 'self';")
	assert.Contains(t, page, "connect-src 'self';")
	assert.Contains(t, page, "form-action 'self' http://localhost:8081;")
	assert.Contains(t, card, "script-src 'self' 'nonce-n1';", "the sandbox's fields need no script of ours from it")
	assert.Contains(t, card, "frame-src 'self' http://localhost:8081;")
	assert.Contains(t, card, "connect-src 'self' http://localhost:8081;")

	stripe := appWith("stripe", "")
	card = stripe.policy("n2", pagePolicy{cardEntry: true})
	assert.Contains(t, card, "script-src 'self' 'nonce-n2' https://js.stripe.com https://*.js.stripe.com;")
	assert.Contains(t, card, "frame-src 'self' https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com;")
	assert.Contains(t, card, "connect-src 'self' https://api.stripe.com;")
	assert.Contains(t, card, "form-action 'self' https://checkout.stripe.com https://hooks.stripe.com;")
	assert.NotContains(t, stripe.policy("n2", pagePolicy{}), "js.stripe.com")

	// A configured origin that is not one is left out rather than written into the policy.
	odd := appWith("sandbox", "http://localhost:8081; script-src *")
	for _, p := range []string{odd.policy("n3", pagePolicy{cardEntry: true}), odd.policy("n3", pagePolicy{})} {
		assert.False(t, strings.Contains(p, "script-src *"), p)
	}
}
