// Package handlers holds the echo handlers: routes.go lists every route, and each page or
// action has its own file. Handlers return errors; errors.go turns them into pages.
package handlers

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v5"
	"github.com/labstack/echo/v5/middleware"

	"cardpay/account"
	"cardpay/mail"
	"cardpay/static"
	"cardpay/store"
	"cardpay/views"
)

// Options is everything the handlers depend on.
type Options struct {
	Store       *store.Store
	Account     *account.Service
	Sessions    *scs.SessionManager
	Logger      *slog.Logger
	ServiceName string
	// BaseURL is the public origin (https://… in production); HSTS is sent when it is https.
	BaseURL string
	Links   views.Links
	// CollectionExclusions are corporate numbers that may not request card payments
	// even though they are corporations (SPEC.md §4).
	CollectionExclusions map[string]bool
	// DevMailbox is set only in development without SMTP_URL; then /dev/mailbox is routed.
	DevMailbox mail.Box
	// SecretKey is SECRET_KEY; the API derives its id_token signing key from it.
	SecretKey string
	// APIAccessTokenTTL shortens the API's access tokens in development and e2e runs
	// (API_ACCESS_TOKEN_TTL); 0 means 15 minutes.
	APIAccessTokenTTL time.Duration
	// CorporationLookup asks an outside registry (the NTA corporate-number Web-API, package
	// nta) for corporations matching a name or number; nil keeps corporation search to
	// the corporations the service already knows.
	CorporationLookup func(ctx context.Context, q string) ([]store.Corporation, error)
	// Now is the clock; tests move it to check the session timeouts.
	Now func() time.Time
}

// App is the web application.
type App struct {
	Options
	echo *echo.Echo
}

func (a *App) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// New builds the application's http.Handler. The order of the wrappers matters:
// security headers reach every response, cross-origin unsafe requests are refused
// before a session is even loaded, and scs wraps echo as a whole because echo's own
// middleware wrapper loses the session cookie (scs issue #5).
func New(o Options) http.Handler {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return newApp(o).handler()
}

func newApp(o Options) *App {
	a := &App{Options: o}
	e := echo.NewWithConfig(echo.Config{
		Logger:           o.Logger,
		HTTPErrorHandler: a.handleError,
		// Groups must not add catch-all routes of their own: an unknown path is a 404
		// page for everyone, not a sign-in redirect.
		NoGroupAutoRegister404Routes: true,
	})
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{MinLength: 512}))
	// Error pages render inside the gzip writer, and panics become errors before that.
	e.Use(a.renderErrors)
	e.Use(middleware.Recover())
	e.Use(a.loadUser)
	a.echo = e
	a.routes()
	return a
}

func (a *App) handler() http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(a.denyCrossOrigin))
	mux := http.NewServeMux()
	// Assets need neither a session nor the database.
	mux.Handle(static.Prefix, static.Handler())
	mux.Handle("/", cop.Handler(a.Sessions.LoadAndSave(a.echo)))
	return a.securityHeaders(mux)
}
