// Package api is the JSON API under /api/v1 (SPEC.md §7: the Users and Suppliers calls,
// and the bank, account-holder and clock calls of Invoices) that islands and outside
// clients use. It is a thin adapter around the account service and the store, like the
// HTML handlers: the rules live in package account and package pay.
//
// routes() below is the package's route table; openapi.json describes every route in it
// (a test keeps the two equal). JSON is snake_case in and out. Errors are always JSON:
//
//	400 {"status":"invalid_json"|"bad_request", "message":…}
//	401 {"status":"unauthorized"|"expired_access_token"|"invalid_credentials"|…, "message":…}
//	404 {"status":"not_found", "message":…}
//	409 {"status":"supplier_in_use"|"terms_outdated", "message":…}
//	413 {"status":"payload_too_large", "message":…}
//	422 {"status":"validation_error", "message":…, "errors":[{"field":…, "message":…}]}
//	429 {"status":"too_many_attempts", "message":…}
//	500 {"status":"internal_error", "message":…}
package api

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/store"
)

// Prefix is where the API lives.
const Prefix = "/api/v1"

// Default token lifetimes (DESIGN.md §4 "API auth").
const (
	DefaultAccessTokenTTL  = 15 * time.Minute
	DefaultRefreshTokenTTL = 30 * 24 * time.Hour
	// signupTokenTTL bounds how long a started sign-up can be finished through the API.
	signupTokenTTL = 24 * time.Hour
)

// Deps is everything the API depends on.
type Deps struct {
	Store    *store.Store
	Account  *account.Service
	Sessions *scs.SessionManager
	Logger   *slog.Logger
	// Now is the clock; tests move it to expire tokens. It should be the account
	// service's clock too.
	Now func() time.Time
	// SecretKey is the app's SECRET_KEY; the id_token signing key is derived from it
	// (HKDF-SHA256, its own info string), never used raw. Without it a random key is
	// used, good for one process only.
	SecretKey string
	// AccessTokenTTL is how long an access token and its id_token work; 0 means
	// DefaultAccessTokenTTL. Development and e2e runs shorten it (API_ACCESS_TOKEN_TTL).
	AccessTokenTTL time.Duration
	// RefreshTokenTTL: 0 means DefaultRefreshTokenTTL.
	RefreshTokenTTL time.Duration
	// CollectionExclusions are corporate numbers that may not request card payments
	// (SPEC.md §4), for collection_mode in GET users/information.
	CollectionExclusions map[string]bool
	// SessionUser returns the user signed in with the session cookie, or nil (the HTML
	// handlers' currentUser, set by their loadUser middleware with its timeouts). It
	// enables the islands' cookie mode; nil switches cookie mode off.
	SessionUser func(c *echo.Context) *store.User
	// RenewSession signs u in again on the cookie session after the user changed the
	// password, carrying the new session epoch (the HTML handlers' startSession).
	// nil means such a session ends at its next request instead.
	RenewSession func(c *echo.Context, u store.User) error
	// SearchCorporations answers GET corporations: the local registry table and, when
	// configured, the National Tax Agency's API. q is tidied and checked (a 13-digit
	// number has a valid check digit); limit is 1–100. nil searches Store.Corporations.
	SearchCorporations func(ctx context.Context, q string, limit int) ([]store.Corporation, error)
}

// server holds the dependencies and serves every call.
type server struct {
	Deps
	idKey []byte
}

func (s *server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// access says who may call a route.
type access int

const (
	public access = iota
	// signedIn needs a valid access token (token mode) or a signed-in session cookie
	// with X-Requested-With: fetch (cookie mode).
	signedIn
)

type route struct {
	method, path string
	access       access
	handler      func(*server, *echo.Context) error
}

// routes is the API's route table, grouped like SPEC.md §7.
func routes() []route {
	return []route{
		// Session.
		{http.MethodPost, "/login", public, (*server).login},
		{http.MethodPost, "/login_2auth", public, (*server).loginSecondFactor},
		{http.MethodPost, "/logout", public, (*server).logout}, // authenticates itself: expired tokens may log out
		{http.MethodPost, "/users/token", public, (*server).refreshTokens},

		// Sign-up and registration.
		{http.MethodPost, "/users", public, (*server).startSignup},
		{http.MethodPost, "/users/certification", public, (*server).certifySignup},
		{http.MethodPost, "/users/resignup", public, (*server).resignup},
		{http.MethodPost, "/users/validation", public, (*server).validateRegistration},
		{http.MethodPost, "/users/corporation", public, (*server).registerCorporation},
		{http.MethodPost, "/users/sole_proprietor", public, (*server).registerSoleProprietor},
		{http.MethodPost, "/user_simple_check", public, (*server).simpleCheck},
		{http.MethodGet, "/business_categories", public, (*server).businessCategories},

		// Password reset (signed out).
		{http.MethodPost, "/users/send_password_reset_code", public, (*server).sendPasswordResetCode},
		{http.MethodPut, "/users/password_reset", public, (*server).resetPassword},

		// The signed-in user.
		{http.MethodGet, "/users/information", signedIn, (*server).information},
		{http.MethodPut, "/users/user_name", signedIn, (*server).setUserName},
		{http.MethodPut, "/users/transfer_person_name", signedIn, (*server).setTransferPersonName},
		{http.MethodPut, "/users/password", signedIn, (*server).changePassword},
		{http.MethodPut, "/users/email_address", signedIn, (*server).startEmailChange},
		{http.MethodPost, "/users/verify_email_auth_code", signedIn, (*server).confirmEmailChange},
		{http.MethodPut, "/users/license", signedIn, (*server).acceptLicense},
		{http.MethodGet, "/users/security_settings", signedIn, (*server).securitySettings},
		{http.MethodPut, "/users/security_settings", signedIn, (*server).setSecuritySettings},
		{http.MethodGet, "/users/stats", signedIn, (*server).stats},

		// Notifications.
		{http.MethodGet, "/users/notifications", signedIn, (*server).notifications},
		{http.MethodGet, "/users/notices/:id", signedIn, (*server).notice},
		{http.MethodPost, "/users/notifications/:id/confirmation", signedIn, (*server).confirmNotification},

		// Suppliers.
		{http.MethodPost, "/suppliers/corporation", signedIn, (*server).createCorporationSupplier},
		{http.MethodPost, "/suppliers/sole_proprietor", signedIn, (*server).createSoleProprietorSupplier},
		{http.MethodGet, "/suppliers", signedIn, (*server).suppliers},
		{http.MethodGet, "/suppliers/:id", signedIn, (*server).supplier},
		{http.MethodDelete, "/suppliers/:id", signedIn, (*server).deleteSupplier},
		{http.MethodPost, "/suppliers/:id/accounts", signedIn, (*server).createSupplierAccount},
		{http.MethodGet, "/suppliers/:id/accounts", signedIn, (*server).supplierAccounts},
		{http.MethodPut, "/suppliers/:id/accounts/:accountId", signedIn, (*server).updateSupplierAccount},
		{http.MethodGet, "/corporations", signedIn, (*server).corporations},

		// Banks and bank accounts (SPEC.md §7 Invoices).
		{http.MethodGet, "/banks2", signedIn, (*server).searchBanks},
		{http.MethodGet, "/banks/closed_day", signedIn, (*server).closedDays},
		{http.MethodPost, "/accounts/holder_kana", signedIn, (*server).holderKana},

		// The server's clock, public: it tells nothing about anyone.
		{http.MethodGet, "/system/time", public, (*server).systemTime},

		// This document.
		{http.MethodGet, "/openapi.json", public, (*server).openAPI},
	}
}

// methods the 405 fallback answers for, on a path that exists with other methods.
var allMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// FallbackRouteName names the routes Register adds only to answer 404 and 405 in JSON.
const FallbackRouteName = "api.fallback"

// Register adds the API's routes to e under /api/v1. Requests reach them through the
// app's own wrappers (security headers, cross-origin protection, scs LoadAndSave) and
// echo middleware; every answer, including 404, 405 and panics, is JSON.
func Register(e *echo.Echo, d Deps) {
	s := newServer(d)
	g := e.Group(Prefix)
	allowed := map[string][]string{}
	var paths []string
	for _, r := range routes() {
		h := s.bind(r.handler)
		if r.access == signedIn {
			h = s.requireAuth(h)
		}
		add(g, echo.Route{Method: r.method, Path: r.path, Handler: h, Middlewares: []echo.MiddlewareFunc{s.jsonErrors}})
		if _, ok := allowed[r.path]; !ok {
			paths = append(paths, r.path)
		}
		allowed[r.path] = append(allowed[r.path], r.method)
	}
	for _, p := range paths {
		allow := strings.Join(allowed[p], ", ")
		for _, m := range allMethods {
			if slices.Contains(allowed[p], m) {
				continue
			}
			add(g, echo.Route{Method: m, Path: p, Name: FallbackRouteName, Handler: func(c *echo.Context) error {
				c.Response().Header().Set("Allow", allow)
				return errMethodNotAllowed
			}, Middlewares: []echo.MiddlewareFunc{s.jsonErrors}})
		}
	}
	for _, p := range []string{"", "/*"} {
		add(g, echo.Route{Method: echo.RouteNotFound, Path: p, Name: FallbackRouteName, Handler: func(*echo.Context) error {
			return errNotFound
		}, Middlewares: []echo.MiddlewareFunc{s.jsonErrors}})
	}
}

// add registers a route and panics on a conflict, as echo's own helpers do: a broken
// route table must stop the start-up.
func add(g *echo.Group, r echo.Route) {
	if _, err := g.AddRoute(r); err != nil {
		panic(err)
	}
}

func newServer(d Deps) *server {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.AccessTokenTTL <= 0 {
		d.AccessTokenTTL = DefaultAccessTokenTTL
	}
	if d.RefreshTokenTTL <= 0 {
		d.RefreshTokenTTL = DefaultRefreshTokenTTL
	}
	secret := d.SecretKey
	if secret == "" {
		// Only tests and a mis-wired start get here (the configuration always has a
		// SECRET_KEY): id tokens then work for this process alone.
		d.Logger.Warn("api: no SecretKey; id tokens are signed with a random key and will not survive a restart or work across instances")
		secret = rand.Text()
	}
	return &server{Deps: d, idKey: deriveIDTokenKey(secret)}
}

func (s *server) bind(h func(*server, *echo.Context) error) echo.HandlerFunc {
	return func(c *echo.Context) error { return h(s, c) }
}
