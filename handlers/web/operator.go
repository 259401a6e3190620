package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// The operator console (/ops) has its own session: its own cookie (OpsCookieName), sent
// only to /ops paths, in the same session table. A buyer's session is never read on an
// /ops page (LoadUser skips them), and the operator's cookie never reaches a buyer's
// page, so neither kind of session opens the other's pages.

// OpsPrefix is the operator console's path.
const OpsPrefix = "/ops"

// OpsCookieName is the operator session's cookie.
const OpsCookieName = "cardpay_ops"

// Operator sessions are shorter than a buyer's: 15 minutes idle, 8 hours in all.
const (
	OpsIdleTimeout     = 15 * time.Minute
	OpsAbsoluteTimeout = 8 * time.Hour
)

const (
	opsSessionOperator = "operator_id"
	opsSessionSignedIn = "signed_in_at"
	opsSessionSeen     = "seen_at"
	contextOperator    = "operator"
)

// IsOpsPath says whether path is in the operator console.
func IsOpsPath(path string) bool {
	return path == OpsPrefix || strings.HasPrefix(path, OpsPrefix+"/")
}

// newOpsSessions is the operator console's session manager over the buyers' store.
func newOpsSessions(buyers *scs.SessionManager) *scs.SessionManager {
	s := scs.New()
	s.Store = buyers.Store
	s.Lifetime = OpsAbsoluteTimeout
	s.Cookie.Name = OpsCookieName
	s.Cookie.Path = OpsPrefix
	s.Cookie.HttpOnly = true
	s.Cookie.SameSite = http.SameSiteStrictMode
	s.Cookie.Secure = buyers.Cookie.Secure
	s.ErrorFunc = buyers.ErrorFunc
	return s
}

// LoadOperator puts the signed-in operator, if any, on the context of an /ops request,
// ending the session after OpsIdleTimeout without a request or OpsAbsoluteTimeout after
// signing in, or when the operator was disabled.
func (a *App) LoadOperator(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		ctx := c.Request().Context()
		id := a.OpsSessions.GetInt64(ctx, opsSessionOperator)
		if id == 0 {
			return next(c)
		}
		now := a.Now()
		seen := time.Unix(a.OpsSessions.GetInt64(ctx, opsSessionSeen), 0)
		signedIn := time.Unix(a.OpsSessions.GetInt64(ctx, opsSessionSignedIn), 0)
		if now.Sub(seen) > OpsIdleTimeout || now.Sub(signedIn) > OpsAbsoluteTimeout {
			if err := a.OpsSessions.Destroy(ctx); err != nil {
				return err
			}
			a.SetOpsFlash(c, views.Flash{Color: "info", Title: "一定時間操作がなかったため、ログアウトしました。もう一度ログインしてください。"})
			return next(c)
		}
		o, err := a.Store.Operator(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			// Disabled or removed: signed out, and carried on as anonymous.
			if err := a.OpsSessions.Destroy(ctx); err != nil {
				return err
			}
			return next(c)
		}
		if err != nil {
			return err
		}
		if now.Sub(seen) > seenWriteInterval {
			a.OpsSessions.Put(ctx, opsSessionSeen, now.Unix())
		}
		c.Set(contextOperator, &o)
		return next(c)
	}
}

// CurrentOperator is the signed-in operator, or nil.
func CurrentOperator(c *echo.Context) *store.Operator {
	o, _ := c.Get(contextOperator).(*store.Operator)
	return o
}

// RequireOperator sends a visitor without an operator session to /ops/signin, and
// answers 403 to an operator without one of roles (none: any operator).
func (a *App) RequireOperator(roles ...string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			o := CurrentOperator(c)
			if o == nil {
				target := OpsPrefix + "/signin"
				if c.Request().Method == http.MethodGet {
					target += "?redirect=" + url.QueryEscape(c.Request().URL.RequestURI())
				}
				return c.Redirect(http.StatusSeeOther, target)
			}
			if len(roles) == 0 {
				return next(c)
			}
			for _, r := range roles {
				if o.Has(r) {
					return next(c)
				}
			}
			labels := make([]string, len(roles))
			for i, r := range roles {
				labels[i] = "「" + pay.RoleLabel(r) + "」"
			}
			return Forbidden("この画面を開く権限がありません", "この画面には"+strings.Join(labels, "または")+"の権限が必要です。管理者にお問い合わせください。")
		}
	}
}

// StartOperatorSession signs o in on a fresh token.
func (a *App) StartOperatorSession(c *echo.Context, o store.Operator) error {
	ctx := c.Request().Context()
	if err := a.OpsSessions.RenewToken(ctx); err != nil {
		return err
	}
	now := a.Now().Unix()
	a.OpsSessions.Put(ctx, opsSessionOperator, o.ID)
	a.OpsSessions.Put(ctx, opsSessionSignedIn, now)
	a.OpsSessions.Put(ctx, opsSessionSeen, now)
	return nil
}

// EndOperatorSession signs the operator out.
func (a *App) EndOperatorSession(c *echo.Context) error {
	return a.OpsSessions.Destroy(c.Request().Context())
}

// SetOpsFlash stores a one-time notice for the operator's next page.
func (a *App) SetOpsFlash(c *echo.Context, f views.Flash) { setFlash(a.OpsSessions, c, f) }

// OpsBase fills what every console page shares: the operator instead of a buyer.
func (a *App) OpsBase(c *echo.Context, title string) views.Base {
	b := a.baseOf(c, title, popFlash(a.OpsSessions, c))
	if o := CurrentOperator(c); o != nil {
		b.Operator = &views.Operator{Name: o.Name, EmailAddress: o.EmailAddress, Roles: o.Roles}
	}
	return b
}

// ShowOps renders a console page of title, like Show for the buyers' pages.
func ShowOps[V any, PV interface {
	*V
	SetBase(views.Base)
}](a *App, c *echo.Context, title string, errs pay.FieldErrors, v V, page func(V) templ.Component) error {
	b := a.OpsBase(c, title)
	b.Errors = errs
	PV(&v).SetBase(b)
	return Render(c, StatusFor(b), page(v))
}
