package oauth

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"errors"
	"strings"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"

	"cardpay/store"
)

// Lifetimes of what the server issues.
const (
	AccessTokenTTL  = 15 * time.Minute
	RefreshTokenTTL = 30 * 24 * time.Hour
	CodeTTL         = 5 * time.Minute
)

// AccessTokenPrefix starts every access token this server issues (fosite's prefixed
// HMAC strategy): the API tells a partner's token from its own by it.
const AccessTokenPrefix = "ory_at_"

// Server is the authorisation server: fosite composed with the authorisation code grant
// (PKCE S256 required of every client), refresh tokens (rotated on use, a reused one
// revoking its grant), revocation and introspection.
type Server struct {
	fosite.OAuth2Provider
	Store *store.Store
	Now   func() time.Time
}

// keyInfo derives the HMAC key of the tokens from SECRET_KEY.
const keyInfo = "cardpay oauth token hmac v1"

// New builds the server; secretKey is SECRET_KEY and tokenURL the token endpoint's
// absolute URL.
func New(st *store.Store, secretKey, tokenURL string) (*Server, error) {
	key, err := hkdf.Key(sha256.New, []byte(secretKey), nil, keyInfo, 32)
	if err != nil {
		return nil, err
	}
	cfg := &fosite.Config{
		AccessTokenLifespan:            AccessTokenTTL,
		RefreshTokenLifespan:           RefreshTokenTTL,
		AuthorizeCodeLifespan:          CodeTTL,
		GlobalSecret:                   key,
		EnforcePKCE:                    true,
		EnforcePKCEForPublicClients:    true,
		EnablePKCEPlainChallengeMethod: false,
		ScopeStrategy:                  fosite.ExactScopeStrategy,
		AudienceMatchingStrategy:       fosite.DefaultAudienceMatchingStrategy,
		// Every grant gets a refresh token, without an offline scope to ask for it.
		RefreshTokenScopes: []string{},
		TokenURL:           tokenURL,
		TokenEntropy:       32,
	}
	s := &storage{st: st}
	p := compose.Compose(cfg, s, compose.NewOAuth2HMACStrategy(cfg),
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2RefreshTokenGrantFactory,
		compose.OAuth2PKCEFactory,
		compose.OAuth2TokenIntrospectionFactory,
		compose.OAuth2TokenRevocationFactory,
	)
	return &Server{OAuth2Provider: p, Store: st}, nil
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Caller is who a partner's access token speaks for: the buyer's user who approved
// the application, the application, and what it may do.
type Caller struct {
	BuyerID, UserID int64
	ClientID        string
	Scopes          []Scope
}

// Can says whether the token was granted scope.
func (c Caller) Can(scope Scope) bool {
	for _, s := range c.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// ErrInvalidToken: the access token is unknown, expired or revoked.
var ErrInvalidToken = errors.New("oauth: invalid access token")

// Check introspects a partner's access token for the API and records the
// application's use (for the buyer's security settings).
func (s *Server) Check(ctx context.Context, token string) (Caller, error) {
	if !strings.HasPrefix(token, AccessTokenPrefix) {
		return Caller{}, ErrInvalidToken
	}
	sess := &Session{}
	_, ar, err := s.IntrospectToken(ctx, token, fosite.AccessToken, sess)
	if err != nil {
		return Caller{}, ErrInvalidToken
	}
	c := Caller{BuyerID: sess.BuyerID, UserID: sess.UserID, ClientID: ar.GetClient().GetID()}
	for _, sc := range ar.GetGrantedScopes() {
		c.Scopes = append(c.Scopes, Scope(sc))
	}
	_ = s.Store.TouchOAuthConsent(ctx, c.BuyerID, c.ClientID, s.now())
	return c, nil
}
