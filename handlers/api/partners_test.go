package api_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"cardpay/handlers/api"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// A partner application's access token on the API: it acts for the buyer who approved
// it, on the routes its scopes open only (403 insufficient_scope elsewhere: submitting a
// payment, the account, what it was not granted); a draft it creates is marked with its
// name on the buyer's list, and the buyer's own drafts are not its to change; a bad or
// disconnected token is 401 invalid_token.
func TestPartnerTokenOnTheAPI(t *testing.T) {
	e := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	browser := e.Client(t)
	browser.SignIn(u.EmailAddress)
	conf := e.RegisterPartner(t, "テスト会計クラウド", false, "suppliers:read", "payments:draft")
	tok := browser.PartnerToken(conf)

	p := e.client(t)
	p.headers["Authorization"] = "Bearer " + tok.AccessToken
	r := p.get("/suppliers")
	assert.Equal(t, http.StatusOK, r.Status, r.String())
	for _, call := range []struct{ method, path string }{
		{http.MethodGet, "/invoices"},          // payments:read not granted
		{http.MethodGet, "/users/information"}, // never a partner's
		{http.MethodPost, "/invoices"},         // submitting: never a partner's
		{http.MethodGet, "/invoices/credit_cards"},
	} {
		r := p.call(call.method, call.path, map[string]any{})
		assert.Equal(t, http.StatusForbidden, r.Status, "%s %s: %s", call.method, call.path, r.String())
		assert.Equal(t, "insufficient_scope", r.str("status"))
		assert.Contains(t, r.Header.Get("WWW-Authenticate"), `error="insufficient_scope"`)
	}
	r = p.call(http.MethodPost, "/logout", nil)
	assert.Equal(t, http.StatusForbidden, r.Status, "a partner revokes at /oauth/revoke")

	created := p.call(http.MethodPost, "/drafts", map[string]any{"step": "/payments/add/invoice",
		"invoice": map[string]any{"amount": "12345", "invoice_number": "PARTNER-1"}})
	require.Equal(t, http.StatusCreated, created.Status, created.String())
	page := browser.Get("/payments/draft")
	assert.Contains(t, page.Body, "テスト会計クラウドが作成")

	own := e.client(t)
	own.cookieSignIn(u)
	own.headers["X-Requested-With"] = "fetch"
	mine := own.call(http.MethodPost, "/drafts", map[string]any{"step": "", "invoice": map[string]any{"amount": "500"}})
	require.Equal(t, http.StatusCreated, mine.Status, mine.String())
	r = p.call(http.MethodPut, fmt.Sprintf("/drafts/%d", int64(mine.num("id"))), map[string]any{"step": "", "invoice": map[string]any{"amount": "1"}})
	assert.Equal(t, http.StatusForbidden, r.Status, "the buyer's own draft")
	r = p.call(http.MethodPut, fmt.Sprintf("/drafts/%d", int64(created.num("id"))), map[string]any{"step": "/payments/add/invoice",
		"invoice": map[string]any{"amount": "23456"}})
	assert.Equal(t, http.StatusOK, r.Status, r.String())

	bad := e.client(t)
	bad.headers["Authorization"] = "Bearer " + tok.AccessToken + "x"
	r = bad.get("/suppliers")
	assert.Equal(t, http.StatusUnauthorized, r.Status)
	assert.Equal(t, "invalid_token", r.str("status"))

	info := own.get("/users/information")
	assert.Equal(t, []any{conf.ClientID}, info.Body["external_integration_client_ids"], "the connected application")
	require.NoError(t, webtest.Store().RevokeOAuthConsent(context.Background(), u.BuyerID, conf.ClientID, time.Now()))
	assert.Equal(t, []any{}, own.get("/users/information").Body["external_integration_client_ids"])
	r = p.get("/suppliers")
	assert.Equal(t, http.StatusUnauthorized, r.Status, "disconnected")

	// Another buyer's data is never reachable: the token is this buyer's.
	other := webtest.NewBuyer(t, pay.Corporation, "")
	ob := e.Client(t)
	ob.SignIn(other.EmailAddress)
	otok := ob.PartnerToken(conf)
	op := e.client(t)
	op.headers["Authorization"] = "Bearer " + otok.AccessToken
	list := op.get("/drafts")
	require.Equal(t, http.StatusOK, list.Status)
	assert.NotContains(t, list.Raw, "PARTNER-1")
	assert.True(t, strings.HasPrefix(otok.AccessToken, "ory_at_"))
}

// openapi.json states the scope of every route a partner may call, and of no other; the
// scopes it names are the server's.
func TestOpenAPIStatesEachPartnerScope(t *testing.T) {
	documented := map[string]string{}
	for p, item := range doc["paths"].(map[string]any) {
		for m, op := range item.(map[string]any) {
			for _, s := range op.(map[string]any)["security"].([]any) {
				if scopes, ok := s.(map[string]any)["partnerOAuth"]; ok {
					echoPath := regexp.MustCompile(`\{(\w+)\}`).ReplaceAllString(p, ":$1")
					documented[strings.ToUpper(m)+" "+echoPath] = scopes.([]any)[0].(string)
				}
			}
		}
	}
	want := map[string]string{}
	for route, scope := range api.PartnerScopes() {
		want[route] = string(scope)
		assert.True(t, scope.Valid(), route)
	}
	assert.Equal(t, want, documented)
	fmt.Printf("openapi.json: %d routes open to partners, each with its scope\n", len(documented))
}

// OAuth collection create: a corporation's partner with requests:draft creates a
// card-payment request draft, marked with its name on the requests' drafts; a sole
// proprietor's consent never grants that scope, so its partner gets 403.
func TestPartnerRequestDrafts(t *testing.T) {
	e := newEnv(t)
	conf := e.RegisterPartner(t, "テスト請求クラウド", false, "requests:draft")

	corp := webtest.NewBuyer(t, pay.Corporation, "")
	browser := e.Client(t)
	browser.SignIn(corp.EmailAddress)
	p := e.client(t)
	p.headers["Authorization"] = "Bearer " + browser.PartnerToken(conf).AccessToken
	r := p.post("/invoice_request_drafts", map[string]any{"request": map[string]any{"customer_name": "株式会社連携先", "amount": "7,000"}})
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	assert.Contains(t, browser.Get("/collections/draft").Body, "テスト請求クラウドが作成")

	sole := webtest.NewBuyer(t, pay.SoleProprietor, "")
	sb := e.Client(t)
	sb.SignIn(sole.EmailAddress)
	authURL := conf.AuthCodeURL("state-sole-0123456789", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))
	page := sb.Get(strings.TrimPrefix(authURL, e.URL))
	assert.Contains(t, page.Body, "このアカウントでは許可できません")
	assert.NotContains(t, page.Body, `value="approve"`)
	back := sb.Authorize(authURL, "approve")
	assert.Equal(t, "access_denied", back.Query().Get("error"), "nothing grantable: as if refused")

	// Granted payments only, its token cannot make request drafts.
	both := e.RegisterPartner(t, "テスト両用クラウド", false, "requests:draft", "payments:draft")
	sp := e.client(t)
	sp.headers["Authorization"] = "Bearer " + sb.PartnerToken(both).AccessToken
	r = sp.post("/invoice_request_drafts", map[string]any{"request": map[string]any{"customer_name": "株式会社連携先"}})
	assert.Equal(t, http.StatusForbidden, r.Status, "not granted to a sole proprietor's partner")
	assert.Equal(t, "insufficient_scope", r.str("status"))
}
