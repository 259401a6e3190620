package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/ory/fosite"

	"cardpay/store"
)

// Session is what a grant carries: the buyer and the user who approved it, and the
// expiry of each of its tokens (fosite sets them).
type Session struct {
	ExpiresAt map[fosite.TokenType]time.Time `json:"expires_at"`
	BuyerID   int64                          `json:"buyer_id"`
	UserID    int64                          `json:"user_id"`
}

func (s *Session) SetExpiresAt(k fosite.TokenType, t time.Time) {
	if s.ExpiresAt == nil {
		s.ExpiresAt = map[fosite.TokenType]time.Time{}
	}
	s.ExpiresAt[k] = t
}

func (s *Session) GetExpiresAt(k fosite.TokenType) time.Time { return s.ExpiresAt[k] }
func (s *Session) GetUsername() string                       { return "" }
func (s *Session) GetSubject() string                        { return strconv.FormatInt(s.UserID, 10) }

func (s *Session) Clone() fosite.Session {
	c := *s
	c.ExpiresAt = map[fosite.TokenType]time.Time{}
	for k, v := range s.ExpiresAt {
		c.ExpiresAt[k] = v
	}
	return &c
}

// storage is fosite's storage over the store's oauth tables. Only a token's signature
// is kept, never the token.
type storage struct {
	st *store.Store
}

// client is a registered client as fosite sees it: the authorisation code grant and its
// refresh, the code response, exact redirect URIs and the scopes the operators allowed.
func client(c store.OAuthClient) *fosite.DefaultClient {
	scopes := []string(c.Scopes)
	return &fosite.DefaultClient{ID: c.ID, Secret: c.SecretHash, RedirectURIs: c.RedirectURIs, Scopes: scopes,
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}, Public: c.Public()}
}

func (s *storage) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	c, err := s.st.OAuthClient(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return client(c), nil
}

// Client assertions (private_key_jwt) are not offered: no JTI is ever known.
func (s *storage) ClientAssertionJWTValid(context.Context, string) error          { return nil }
func (s *storage) SetClientAssertionJWT(context.Context, string, time.Time) error { return nil }

// The kinds of stored token.
const (
	kindCode    = "code"
	kindAccess  = "access"
	kindRefresh = "refresh"
	kindPKCE    = "pkce"
)

func expiryOf(kind string, r fosite.Requester) time.Time {
	t := map[string]fosite.TokenType{kindCode: fosite.AuthorizeCode, kindPKCE: fosite.AuthorizeCode,
		kindAccess: fosite.AccessToken, kindRefresh: fosite.RefreshToken}[kind]
	if exp := r.GetSession().GetExpiresAt(t); !exp.IsZero() {
		return exp
	}
	return time.Now().Add(30 * 24 * time.Hour)
}

func (s *storage) create(ctx context.Context, kind, signature string, r fosite.Requester) error {
	sess, ok := r.GetSession().(*Session)
	if !ok {
		return errors.New("oauth: a request without the service's session")
	}
	form, _ := json.Marshal(r.GetRequestForm())
	data, err := json.Marshal(sess)
	if err != nil {
		return err
	}
	err = s.st.CreateOAuthToken(ctx, store.OAuthToken{Signature: signature, Kind: kind, RequestID: r.GetID(),
		ClientID: r.GetClient().GetID(), BuyerID: sess.BuyerID, UserID: sess.UserID, RequestedAt: r.GetRequestedAt(),
		Scopes: []string(r.GetRequestedScopes()), GrantedScopes: []string(r.GetGrantedScopes()), Form: form, Session: data,
		ExpiresAt: expiryOf(kind, r)})
	if errors.Is(err, store.ErrOAuthConsentRevoked) {
		return fosite.ErrAccessDenied.WithHint("The buyer disconnected this application.")
	}
	return err
}

// get loads a stored request into session; ok is false when it is inactive.
func (s *storage) get(ctx context.Context, kind, signature string, session fosite.Session) (fosite.Requester, bool, error) {
	t, err := s.st.OAuthToken(ctx, kind, signature)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, fosite.ErrNotFound
	}
	if err != nil {
		return nil, false, err
	}
	c, err := s.GetClient(ctx, t.ClientID)
	if err != nil {
		return nil, false, err
	}
	if session == nil {
		session = &Session{}
	}
	if err := json.Unmarshal(t.Session, session); err != nil {
		return nil, false, err
	}
	var form url.Values
	_ = json.Unmarshal(t.Form, &form)
	r := &fosite.Request{ID: t.RequestID, RequestedAt: t.RequestedAt, Client: c, RequestedScope: fosite.Arguments(t.Scopes),
		GrantedScope: fosite.Arguments(t.GrantedScopes), Form: form, Session: session,
		RequestedAudience: fosite.Arguments{}, GrantedAudience: fosite.Arguments{}}
	return r, t.Active, nil
}

func (s *storage) CreateAuthorizeCodeSession(ctx context.Context, code string, r fosite.Requester) error {
	return s.create(ctx, kindCode, code, r)
}

// GetAuthorizeCodeSession answers a used code with its request and
// ErrInvalidatedAuthorizeCode: fosite then revokes what the code gave (a code replayed).
func (s *storage) GetAuthorizeCodeSession(ctx context.Context, code string, session fosite.Session) (fosite.Requester, error) {
	r, active, err := s.get(ctx, kindCode, code, session)
	if err != nil {
		return nil, err
	}
	if !active {
		return r, fosite.ErrInvalidatedAuthorizeCode
	}
	return r, nil
}

func (s *storage) InvalidateAuthorizeCodeSession(ctx context.Context, code string) error {
	return s.st.DeactivateOAuthToken(ctx, kindCode, code)
}

func (s *storage) CreatePKCERequestSession(ctx context.Context, signature string, r fosite.Requester) error {
	return s.create(ctx, kindPKCE, signature, r)
}

func (s *storage) GetPKCERequestSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	r, _, err := s.get(ctx, kindPKCE, signature, session)
	return r, err
}

func (s *storage) DeletePKCERequestSession(ctx context.Context, signature string) error {
	return s.st.DeleteOAuthToken(ctx, kindPKCE, signature)
}

func (s *storage) CreateAccessTokenSession(ctx context.Context, signature string, r fosite.Requester) error {
	return s.create(ctx, kindAccess, signature, r)
}

// GetAccessTokenSession treats a revoked access token (a disconnect, a reused refresh
// token) as one that does not exist.
func (s *storage) GetAccessTokenSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	r, active, err := s.get(ctx, kindAccess, signature, session)
	if err != nil {
		return nil, err
	}
	if !active {
		return nil, fosite.ErrNotFound
	}
	return r, nil
}

func (s *storage) DeleteAccessTokenSession(ctx context.Context, signature string) error {
	return s.st.DeleteOAuthToken(ctx, kindAccess, signature)
}

func (s *storage) CreateRefreshTokenSession(ctx context.Context, signature, _ string, r fosite.Requester) error {
	return s.create(ctx, kindRefresh, signature, r)
}

// GetRefreshTokenSession answers a rotated refresh token with its request and
// ErrInactiveToken: fosite then revokes the whole grant (reuse detection, RFC 9700 §4.14).
func (s *storage) GetRefreshTokenSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	r, active, err := s.get(ctx, kindRefresh, signature, session)
	if err != nil {
		return nil, err
	}
	if !active {
		return r, fosite.ErrInactiveToken
	}
	return r, nil
}

func (s *storage) DeleteRefreshTokenSession(ctx context.Context, signature string) error {
	return s.st.DeleteOAuthToken(ctx, kindRefresh, signature)
}

// RotateRefreshToken retires the grant's refresh and access tokens when a refresh token
// is used: the new pair is created after.
func (s *storage) RotateRefreshToken(ctx context.Context, requestID, _ string) error {
	if err := s.RevokeRefreshToken(ctx, requestID); err != nil {
		return err
	}
	return s.RevokeAccessToken(ctx, requestID)
}

func (s *storage) RevokeRefreshToken(ctx context.Context, requestID string) error {
	return s.st.RevokeOAuthGrant(ctx, kindRefresh, requestID)
}

func (s *storage) RevokeAccessToken(ctx context.Context, requestID string) error {
	return s.st.RevokeOAuthGrant(ctx, kindAccess, requestID)
}
