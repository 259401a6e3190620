package ops

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// The operator console (/ops) has its own session: its own cookie (CookieName), sent
// only to /ops paths, in the same session table (web.Deps.OpsSessions). A buyer's session
// is never read on an /ops page (the site skips web.LoadUser there: IsConsolePath), and
// the operator's cookie never reaches a buyer's page, so neither kind of session opens
// the other's pages.

// Prefix is the operator console's path.
const Prefix = "/ops"

// CookieName is the operator session's cookie.
const CookieName = "cardpay_ops"

// Operator sessions are shorter than a buyer's: 15 minutes idle, 8 hours in all.
const (
	IdleTimeout     = 15 * time.Minute
	AbsoluteTimeout = 8 * time.Hour
)

const (
	opsSessionOperator = "operator_id"
	opsSessionSignedIn = "signed_in_at"
	opsSessionSeen     = "seen_at"
	contextOperator    = "operator"
)

// IsConsolePath says whether path is in the operator console.
func IsConsolePath(path string) bool {
	return path == Prefix || strings.HasPrefix(path, Prefix+"/")
}

// NewSessions is the operator console's session manager over the buyers' store.
func NewSessions(buyers *scs.SessionManager) *scs.SessionManager {
	s := scs.New()
	s.Store = buyers.Store
	s.Lifetime = AbsoluteTimeout
	s.Cookie.Name = CookieName
	s.Cookie.Path = Prefix
	s.Cookie.HttpOnly = true
	s.Cookie.SameSite = http.SameSiteStrictMode
	s.Cookie.Secure = buyers.Cookie.Secure
	s.ErrorFunc = buyers.ErrorFunc
	return s
}

// LoadOperator puts the signed-in operator, if any, on the context of an /ops request,
// ending the session after OpsIdleTimeout without a request or OpsAbsoluteTimeout after
// signing in, or when the operator was disabled.
func (h *Handler) LoadOperator(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		ctx := c.Request().Context()
		id := h.OpsSessions.GetInt64(ctx, opsSessionOperator)
		if id == 0 {
			return next(c)
		}
		now := h.Now()
		seen := time.Unix(h.OpsSessions.GetInt64(ctx, opsSessionSeen), 0)
		signedIn := time.Unix(h.OpsSessions.GetInt64(ctx, opsSessionSignedIn), 0)
		if now.Sub(seen) > IdleTimeout || now.Sub(signedIn) > AbsoluteTimeout {
			if err := h.OpsSessions.Destroy(ctx); err != nil {
				return err
			}
			h.setFlash(c, views.Flash{Color: "info", Title: "一定時間操作がなかったため、ログアウトしました。もう一度ログインしてください。"})
			return next(c)
		}
		o, err := h.Store.Operator(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			// Disabled or removed: signed out, and carried on as anonymous.
			if err := h.OpsSessions.Destroy(ctx); err != nil {
				return err
			}
			return next(c)
		}
		if err != nil {
			return err
		}
		if now.Sub(seen) > web.SeenWriteInterval {
			h.OpsSessions.Put(ctx, opsSessionSeen, now.Unix())
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
func (h *Handler) RequireOperator(roles ...string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			o := CurrentOperator(c)
			if o == nil {
				target := SignInPage.Path
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
			return web.Forbidden("この画面を開く権限がありません", "この画面には"+strings.Join(labels, "または")+"の権限が必要です。管理者にお問い合わせください。")
		}
	}
}

// startSession signs o in on a fresh token.
func (h *Handler) startSession(c *echo.Context, o store.Operator) error {
	ctx := c.Request().Context()
	if err := h.OpsSessions.RenewToken(ctx); err != nil {
		return err
	}
	now := h.Now().Unix()
	h.OpsSessions.Put(ctx, opsSessionOperator, o.ID)
	h.OpsSessions.Put(ctx, opsSessionSignedIn, now)
	h.OpsSessions.Put(ctx, opsSessionSeen, now)
	return nil
}

// endSession signs the operator out.
func (h *Handler) endSession(c *echo.Context) error {
	return h.OpsSessions.Destroy(c.Request().Context())
}

// setFlash stores a one-time notice for the operator's next page.
func (h *Handler) setFlash(c *echo.Context, f views.Flash) { web.SetFlashIn(h.OpsSessions, c, f) }

// base fills what every console page shares: the operator instead of a buyer.
func (h *Handler) base(c *echo.Context, title string) views.Base {
	b := h.BaseWith(c, title, web.PopFlashFrom(h.OpsSessions, c))
	if o := CurrentOperator(c); o != nil {
		b.Operator = &views.Operator{Name: o.Name, EmailAddress: o.EmailAddress, Roles: o.Roles}
	}
	return b
}

// show renders a console page of title, like web.Show for the buyers' pages.
func show[V any, PV interface {
	*V
	SetBase(views.Base)
}](h *Handler, c *echo.Context, title string, errs pay.FieldErrors, v V, page func(V) templ.Component) error {
	b := h.base(c, title)
	b.Errors = errs
	PV(&v).SetBase(b)
	return web.Render(c, web.StatusFor(b), page(v))
}
