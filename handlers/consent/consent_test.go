package consent_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"cardpay/handlers/webtest"
	"cardpay/pay"
)

func TestMain(m *testing.M) { webtest.Main(m) }

// partner registers a partner application named テスト会計クラウド.
func partner(t *testing.T, env *webtest.Env, public bool, scopes ...string) *oauth2.Config {
	t.Helper()
	return env.RegisterPartner(t, "テスト会計クラウド", public, scopes...)
}

// pathOf is the part of an absolute URL of the site a webtest client asks for.
func pathOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.RequestURI()
}

// approve answers the consent page and checks that it went back to the partner.
func approve(t *testing.T, c *webtest.Client, authURL, decision string) *url.URL {
	t.Helper()
	back := c.Authorize(authURL, decision)
	require.Equal(t, "/callback", back.Path, "back to the registered redirect URI")
	return back
}

func oauthError(t *testing.T, err error) string {
	t.Helper()
	var re *oauth2.RetrieveError
	require.ErrorAs(t, err, &re)
	return re.ErrorCode
}

// The authorisation code flow with x/oauth2 as the partner: the consent page names the
// application and what it may do; approving sends a code that, with its PKCE verifier,
// becomes an access token and a refresh token; refreshing rotates them. Each refusal
// answers the RFC's error: a redirect URI not registered (shown here, never redirected
// to), no PKCE, a wrong verifier, a code used twice (which also revokes what it gave), a
// refresh token used twice (which revokes the grant), a refusal by the buyer, and a
// disconnected application.
func TestAuthorizationCodeFlow(t *testing.T) {
	ctx := context.Background()
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	conf := partner(t, env, false, "payments:read", "payments:draft", "requests:draft")

	verifier := oauth2.GenerateVerifier()
	authURL := conf.AuthCodeURL("state-0123456789", oauth2.S256ChallengeOption(verifier))
	page := c.Get(pathOf(t, authURL))
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "「テスト会計クラウド」と連携しますか？")
	assert.Contains(t, page.Body, "お支払いの一覧と内容を見る")
	assert.Contains(t, page.Body, "カード払い依頼は法人のお客さまのみ", "a sole proprietor is not given requests")
	assert.Contains(t, page.Header.Get("Content-Security-Policy"), "form-action 'self' http://127.0.0.1:9 ",
		"the answer may lead to the partner's redirect URI (besides the PSP's pages, which every page's forms may reach)")
	back := approve(t, c, authURL, "approve")
	assert.Equal(t, "state-0123456789", back.Query().Get("state"))
	code := back.Query().Get("code")
	require.NotEmpty(t, code)

	// A wrong verifier: the code is refused (and cannot be tried again with the right one).
	_, err := conf.Exchange(ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier()))
	assert.Equal(t, "invalid_grant", oauthError(t, err), "PKCE mismatch")

	back = approve(t, c, conf.AuthCodeURL("state-abcdefghij", oauth2.S256ChallengeOption(verifier)), "approve")
	code = back.Query().Get("code")
	tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(tok.AccessToken, "ory_at_"))
	require.NotEmpty(t, tok.RefreshToken)
	assert.Equal(t, "payments:read payments:draft", tok.Extra("scope"), "granted without requests:draft")
	introspect := func(token string) bool {
		req, err := http.NewRequest(http.MethodPost, env.URL+"/oauth/introspect", strings.NewReader(url.Values{"token": {token}}.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(conf.ClientID, conf.ClientSecret)
		r, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer r.Body.Close()
		var out struct{ Active bool }
		require.NoError(t, jsonDecode(r, &out))
		return out.Active
	}
	assert.True(t, introspect(tok.AccessToken))

	// The code again: refused, and the tokens it gave are revoked.
	_, err = conf.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	assert.Equal(t, "invalid_grant", oauthError(t, err), "a code used twice")
	assert.False(t, introspect(tok.AccessToken), "a replayed code revokes what it gave")

	// A fresh grant; refreshed once, then its first refresh token replayed.
	back = approve(t, c, conf.AuthCodeURL("state-klmnopqrst", oauth2.S256ChallengeOption(verifier)), "approve")
	tok, err = conf.Exchange(ctx, back.Query().Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	first := tok.RefreshToken
	tok.Expiry = time.Now().Add(-time.Hour) // make x/oauth2 refresh now
	fresh, err := conf.TokenSource(ctx, tok).Token()
	require.NoError(t, err)
	require.NotEqual(t, first, fresh.RefreshToken, "rotated")
	assert.False(t, introspect(tok.AccessToken), "the old access token ends with the rotation")
	_, err = conf.TokenSource(ctx, &oauth2.Token{RefreshToken: first}).Token()
	assert.Equal(t, "invalid_grant", oauthError(t, err), "a refresh token used twice")
	_, err = conf.TokenSource(ctx, &oauth2.Token{RefreshToken: fresh.RefreshToken}).Token()
	assert.Error(t, err, "reuse revokes the whole grant: the newest refresh token too")
	assert.False(t, introspect(fresh.AccessToken))

	// Disconnected: the tokens of a new grant stop at once.
	back = approve(t, c, conf.AuthCodeURL("state-uvwxyz0123", oauth2.S256ChallengeOption(verifier)), "approve")
	tok, err = conf.Exchange(ctx, back.Query().Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	require.NoError(t, webtest.Store().RevokeOAuthConsent(ctx, u.BuyerID, conf.ClientID, time.Now()))
	assert.False(t, introspect(tok.AccessToken))
	_, err = conf.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	assert.Equal(t, "invalid_grant", oauthError(t, err), "revoked consent")

	// The buyer refuses: access_denied back to the partner.
	back = approve(t, c, conf.AuthCodeURL("state-deny012345", oauth2.S256ChallengeOption(verifier)), "deny")
	assert.Equal(t, "access_denied", back.Query().Get("error"))
	assert.Empty(t, back.Query().Get("code"))

	// No PKCE: refused back to the partner.
	res := c.Get(pathOf(t, conf.AuthCodeURL("state-nopkce0123")))
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Contains(t, res.Header.Get("Location"), "error=invalid_request")
	// A plain PKCE challenge: refused too (S256 only).
	res = c.Get(pathOf(t, conf.AuthCodeURL("state-plain01234", oauth2.SetAuthURLParam("code_challenge", verifier),
		oauth2.SetAuthURLParam("code_challenge_method", "plain"))))
	assert.Contains(t, res.Header.Get("Location"), "error=invalid_request")

	// A redirect URI not registered: shown here, never redirected to.
	bad := *conf
	bad.RedirectURL = "https://evil.example/callback"
	res = c.Get(pathOf(t, bad.AuthCodeURL("state-evil012345", oauth2.S256ChallengeOption(verifier))))
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Empty(t, res.Header.Get("Location"))
	assert.Contains(t, res.Body, "連携の要求を受け付けられません")
}

// A public client (no secret) proves itself by PKCE alone.
func TestPublicClientWithPKCE(t *testing.T) {
	ctx := context.Background()
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	conf := partner(t, env, true, "suppliers:read")
	verifier := oauth2.GenerateVerifier()
	back := approve(t, c, conf.AuthCodeURL("state-public0123", oauth2.S256ChallengeOption(verifier)), "approve")
	tok, err := conf.Exchange(ctx, back.Query().Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	assert.NotEmpty(t, tok.AccessToken)
	consents, err := webtest.Store().OAuthConsents(ctx, u.BuyerID)
	require.NoError(t, err)
	require.Len(t, consents, 1)
	assert.Equal(t, []string{"suppliers:read"}, []string(consents[0].Scopes))

	// セキュリティ設定 lists it with what it may do; 連携を解除 ends its tokens at once.
	api := func() int {
		req, err := http.NewRequest(http.MethodGet, env.URL+"/api/v1/suppliers", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		r, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		r.Body.Close()
		return r.StatusCode
	}
	assert.Equal(t, http.StatusOK, api())
	page := c.Get("/myaccount/security")
	assert.Contains(t, page.Body, "連携中のアプリケーション")
	assert.Contains(t, page.Body, "登録取引先の一覧と内容を見る")
	assert.Contains(t, page.Body, "テスト会計クラウドの連携を解除")
	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := env.Client(t)
	oc.SignIn(other.EmailAddress)
	assert.Equal(t, http.StatusNotFound, oc.Post("/myaccount/security/apps/"+conf.ClientID+"/disconnect", nil).StatusCode,
		"another buyer cannot disconnect it")
	assert.Equal(t, http.StatusOK, api())
	res := c.Post("/myaccount/security/apps/"+conf.ClientID+"/disconnect", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, http.StatusUnauthorized, api(), "its token stopped at once")
	assert.Contains(t, c.Get("/myaccount/security").Body, "連携中のアプリケーションはありません")
}

func jsonDecode(r *http.Response, v any) error { return json.NewDecoder(r.Body).Decode(v) }
