package webtest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/oauth2"

	"cardpay/store"
)

// PartnerRedirect is where the test partners' authorisation requests return.
const PartnerRedirect = "http://127.0.0.1:9/callback"

var partnerSeq atomic.Int64

// RegisterPartner registers a partner application, as the console does, and answers
// its golang.org/x/oauth2 configuration against e; a public one has no secret.
func (e *Env) RegisterPartner(t *testing.T, name string, public bool, scopes ...string) *oauth2.Config {
	t.Helper()
	id := fmt.Sprintf("test-app-%04d", partnerSeq.Add(1))
	c := store.OAuthClient{ID: id, Name: name, LogoText: "会", RedirectURIs: []string{PartnerRedirect}, Scopes: scopes}
	conf := &oauth2.Config{ClientID: id, RedirectURL: PartnerRedirect, Scopes: scopes, Endpoint: oauth2.Endpoint{
		AuthURL: e.URL + "/oauth/authorize", TokenURL: e.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInHeader}}
	if public {
		conf.Endpoint.AuthStyle = oauth2.AuthStyleInParams
	} else {
		conf.ClientSecret = "s3cret-" + id
		hash, err := bcrypt.GenerateFromPassword([]byte(conf.ClientSecret), bcrypt.MinCost)
		require.NoError(t, err)
		c.SecretHash = hash
	}
	require.NoError(t, Store().CreateOAuthClient(context.Background(), c))
	return conf
}

// Authorize opens authURL as c's signed-in buyer, answers the consent page with
// decision (approve or deny) and returns the redirect back to the partner.
func (c *Client) Authorize(authURL, decision string) *url.URL {
	c.t.Helper()
	u, err := url.Parse(authURL)
	require.NoError(c.t, err)
	page := c.Get(u.RequestURI())
	require.Equal(c.t, http.StatusOK, page.StatusCode, page.Body)
	res := c.Post(u.RequestURI(), url.Values{"decision": {decision}})
	require.Equal(c.t, http.StatusSeeOther, res.StatusCode, res.Body)
	back, err := url.Parse(res.Header.Get("Location"))
	require.NoError(c.t, err)
	return back
}

// PartnerToken runs the whole code flow with PKCE for conf as c's signed-in buyer.
func (c *Client) PartnerToken(conf *oauth2.Config) *oauth2.Token {
	c.t.Helper()
	verifier := oauth2.GenerateVerifier()
	back := c.Authorize(conf.AuthCodeURL("state-"+fmt.Sprint(partnerSeq.Add(1))+"-0123456789", oauth2.S256ChallengeOption(verifier)), "approve")
	tok, err := conf.Exchange(context.Background(), back.Query().Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(c.t, err)
	return tok
}
