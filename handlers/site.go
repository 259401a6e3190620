// Package handlers puts the site together: routes.go is the one route table, grouped by
// area, over the kernel in handlers/web; each area (handlers/signin, handlers/suppliers,
// …) is a package of its own with one file per page or action, and handlers/api serves
// /api/v1.
package handlers

import (
	"compress/gzip"
	"net"
	"net/http"

	"github.com/labstack/echo/v5"
	"github.com/labstack/echo/v5/middleware"

	"cardpay/handlers/ops"
	"cardpay/handlers/web"
	"cardpay/static"
)

// Site is the application: the kernel, the echo router holding every route, and the
// http.Handler that wraps it.
type Site struct {
	App  *web.App
	Echo *echo.Echo
	http.Handler
}

// New builds the application's http.Handler.
func New(d web.Deps) http.Handler { return NewSite(d).Handler }

// NewSite builds the site. The order of the wrappers matters: security headers reach
// every response, cross-origin unsafe requests are refused before a session is even
// loaded, and scs wraps echo as a whole because echo's own middleware wrapper loses the
// session cookie (scs issue #5).
func NewSite(d web.Deps) *Site {
	if d.OpsSessions == nil && d.Sessions != nil {
		d.OpsSessions = ops.NewSessions(d.Sessions)
	}
	a := web.New(d)
	e := echo.NewWithConfig(echo.Config{
		Logger:           a.Logger,
		HTTPErrorHandler: a.HandleError,
		// Groups must not add catch-all routes of their own: an unknown path is a 404
		// page for everyone, not a sign-in redirect.
		NoGroupAutoRegister404Routes: true,
		IPExtractor:                  ipExtractor(d.TrustedProxies),
	})
	// The fastest level: on the largest page it sends about 12 % more bytes than the
	// default (4.2 KB → 4.7 KB, far inside the 14 KB budget) for about half the CPU, and
	// gzip was a quarter of a signed-in list's CPU (issue 26).
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{Level: gzip.BestSpeed, MinLength: 512}))
	// Error pages render inside the gzip writer, and panics become errors before that.
	e.Use(a.RenderErrors)
	e.Use(middleware.Recover())
	e.Use(web.LoadCaller, buyersOnly(a.LoadUser))
	routes(e, a)

	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(a.DenyCrossOrigin))
	mux := http.NewServeMux()
	// Assets need neither a session nor the database.
	mux.Handle(static.Prefix, static.Handler())
	// The PSP's webhooks: no session, and no cross-origin check (there is no browser);
	// each is authenticated by its signature instead.
	serverRoutes(mux, a)
	mux.Handle("/", cop.Handler(a.Sessions.LoadAndSave(e)))
	// The operator console: its own session as well (ops.LoadOperator reads it; the
	// buyers' is loaded only because the shared error pages read their notice from it).
	console := cop.Handler(a.Sessions.LoadAndSave(a.OpsSessions.LoadAndSave(e)))
	mux.Handle(ops.Prefix, console)
	mux.Handle(ops.Prefix+"/", console)
	return &Site{App: a, Echo: e, Handler: a.SecurityHeaders(mux)}
}

// buyersOnly runs a buyer's middleware (web.LoadUser) everywhere but the operator
// console, which reads the operator's session only (ops.LoadOperator): a buyer's session
// never opens a console page.
func buyersOnly(m echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		buyer := m(next)
		return func(c *echo.Context) error {
			if ops.IsConsolePath(c.Request().URL.Path) {
				return next(c)
			}
			return buyer(c)
		}
	}
}

// ipExtractor believes X-Forwarded-For only from the configured proxies (never from
// private or loopback addresses by default): the rate limiter keys on the client IP,
// and a header anyone can send must not choose it.
func ipExtractor(proxies []*net.IPNet) echo.IPExtractor {
	if len(proxies) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range proxies {
		opts = append(opts, echo.TrustIPRange(p))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}
