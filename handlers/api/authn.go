package api

import (
	"errors"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/handlers/web"
	"cardpay/oauth"
	"cardpay/store"
)

// Two ways to call a signed-in route:
//   - token mode (outside clients, and islands that keep tokens): Authorization: Bearer
//     <id_token> and X-Access-Token: <access_token>, from the same sign-in;
//   - cookie mode (islands on our own pages): the signed-in session cookie and
//     X-Requested-With: fetch. A cross-site page cannot set that header without a CORS
//     preflight, which we never grant, and Go's CrossOriginProtection in front of the app
//     already refuses cross-origin unsafe requests: the header is a second lock.
//
// Failures: an access token that is only out of date answers 401 expired_access_token
// (refresh and retry); anything else answers 401 unauthorized (sign in again).

const (
	headerAccessToken = "X-Access-Token"
	headerRequestedBy = "X-Requested-With"
	requestedByFetch  = "fetch"
	contextPrincipal  = "api.principal"
)

type mode int

const (
	tokenMode mode = iota + 1
	cookieMode
	// partnerMode: a partner application's OAuth access token (partners.go).
	partnerMode
)

// principal is the caller of a signed-in route.
type principal struct {
	User     store.User
	Mode     mode
	FamilyID int64 // token mode: the sign-in, for logout and password change
	// Partner is the application and its scopes, in partner mode.
	Partner *oauth.Caller
}

func caller(c *echo.Context) *principal {
	p, _ := c.Get(contextPrincipal).(*principal)
	return p
}

// requireAuth lets only a signed-in caller through, and a partner application only on
// the routes its scopes open (route is "METHOD /path").
func (s *server) requireAuth(route string, next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		p, err := s.authenticate(c, false)
		if err != nil {
			return err
		}
		if p.Mode == partnerMode {
			if err := allowPartner(c, route, p); err != nil {
				return err
			}
		}
		c.Set(contextPrincipal, p)
		return next(c)
	}
}

// authenticate finds the caller. With allowExpired an access token past its end still
// identifies its sign-in (logout must work with the tokens a client has left).
func (s *server) authenticate(c *echo.Context, allowExpired bool) (*principal, error) {
	r := c.Request()
	if token, ok := isPartnerToken(r); ok {
		return s.partnerCaller(c, token)
	}
	authz := r.Header.Get("Authorization")
	accessToken := r.Header.Get(headerAccessToken)
	if authz == "" && accessToken == "" {
		return s.cookieCaller(c)
	}
	scheme, idToken, ok := strings.Cut(authz, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || idToken == "" || accessToken == "" || len(accessToken) > maxJWTLen {
		return nil, errUnauthorized
	}
	claims, err := verifyJWT(s.idKey, strings.TrimSpace(idToken))
	if err != nil {
		return nil, errUnauthorized
	}
	ctx := r.Context()
	acc, err := s.Store.APIAccessByHash(ctx, auth.HashToken(accessToken))
	if errors.Is(err, store.ErrNotFound) {
		return nil, errUnauthorized
	}
	if err != nil {
		return nil, err
	}
	f := acc.Family
	if acc.RevokedAt != nil || f.RevokedAt != nil ||
		claims.Subject != strconv.FormatInt(f.UserID, 10) || claims.BuyerID != f.BuyerID ||
		claims.FamilyID != strconv.FormatInt(f.ID, 10) {
		return nil, errUnauthorized
	}
	u, err := s.Store.User(ctx, f.BuyerID, f.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errUnauthorized
	}
	if err != nil {
		return nil, err
	}
	if u.SessionEpoch != f.SessionEpoch {
		// The password was changed or reset since this sign-in.
		return nil, errUnauthorized
	}
	now := s.Now()
	if !allowExpired && (!now.Before(acc.ExpiresAt) || now.Unix() >= claims.Expires) {
		return nil, errExpiredAccess
	}
	// The account rules see this sign-in as the caller: a wrong current password counts
	// against its device, a credential change keeps it and ends the others.
	web.SetCaller(c, account.Caller{SessionID: f.SessionID, DeviceID: f.DeviceID, Client: web.ClientOf(c)})
	return &principal{User: u, Mode: tokenMode, FamilyID: f.ID}, nil
}

// cookieCaller is the user the site's LoadUser found for the session cookie, with its
// timeouts and session epoch checked.
func (s *server) cookieCaller(c *echo.Context) (*principal, error) {
	if !strings.EqualFold(c.Request().Header.Get(headerRequestedBy), requestedByFetch) {
		return nil, errUnauthorized
	}
	u := web.CurrentUser(c)
	if u == nil {
		return nil, errUnauthorized
	}
	return &principal{User: *u, Mode: cookieMode}, nil
}
