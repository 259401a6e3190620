package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// Session keys. The session holds both ids so that loading the user is itself scoped
// by buyer.
const (
	sessionUserID   = "user_id"
	sessionBuyerID  = "buyer_id"
	sessionEpoch    = "epoch"
	sessionSignedIn = "signed_in_at"
	sessionSeen     = "seen_at"
	sessionFlash    = "flash"
)

// Session limits (issue 3): signed out after 30 minutes without a request, and 12 hours
// after signing in whatever happens. The last-seen time is written at most once a minute
// so that reading pages does not write to the database on every request.
const (
	IdleTimeout       = 30 * time.Minute
	AbsoluteTimeout   = 12 * time.Hour
	seenWriteInterval = time.Minute
)

const contextUser = "user"

// LoadUser puts the signed-in user, if any, on the context. A session is ended when its
// user no longer exists, when the user's session epoch moved on (a password reset or
// change elsewhere), after IdleTimeout without a request, or AbsoluteTimeout after sign-in.
func (a *App) LoadUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if IsOpsPath(c.Request().URL.Path) {
			return next(c) // the console reads the operator's session only (LoadOperator)
		}
		ctx := c.Request().Context()
		uid := a.Sessions.GetInt64(ctx, sessionUserID)
		bid := a.Sessions.GetInt64(ctx, sessionBuyerID)
		if uid == 0 || bid == 0 {
			return next(c)
		}
		now := a.Now()
		seen := time.Unix(a.Sessions.GetInt64(ctx, sessionSeen), 0)
		signedIn := time.Unix(a.Sessions.GetInt64(ctx, sessionSignedIn), 0)
		if now.Sub(seen) > IdleTimeout || now.Sub(signedIn) > AbsoluteTimeout {
			return a.endSession(c, next, "一定時間操作がなかったため、ログアウトしました。もう一度ログインしてください。")
		}
		u, err := a.Store.User(ctx, bid, uid)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return a.endSession(c, next, "")
		case err != nil:
			return err
		case u.SessionEpoch != a.Sessions.GetInt(ctx, sessionEpoch):
			return a.endSession(c, next, "パスワードが変更されたため、ログアウトしました。もう一度ログインしてください。")
		}
		if now.Sub(seen) > seenWriteInterval {
			a.Sessions.Put(ctx, sessionSeen, now.Unix())
		}
		c.Set(contextUser, &u)
		return next(c)
	}
}

// ForgetUser treats the rest of this request as anonymous (the sign-in page signs out
// before it renders).
func ForgetUser(c *echo.Context) { c.Set(contextUser, nil) }

// endSession signs the visitor out and carries on as anonymous, with a notice saying why.
func (a *App) endSession(c *echo.Context, next echo.HandlerFunc, why string) error {
	if err := a.Sessions.Destroy(c.Request().Context()); err != nil {
		return err
	}
	if why != "" {
		a.SetFlash(c, views.Flash{Color: "info", Title: why})
	}
	return next(c)
}

// StartSession signs u in on a fresh session token (so a token planted before sign-in
// is useless after it). It is also called on every privilege change.
func (a *App) StartSession(c *echo.Context, u store.User) error {
	ctx := c.Request().Context()
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	now := a.Now().Unix()
	a.Sessions.Put(ctx, sessionUserID, u.ID)
	a.Sessions.Put(ctx, sessionBuyerID, u.BuyerID)
	a.Sessions.Put(ctx, sessionEpoch, u.SessionEpoch)
	a.Sessions.Put(ctx, sessionSignedIn, now)
	a.Sessions.Put(ctx, sessionSeen, now)
	return nil
}

// CurrentUser is the signed-in user, or nil on a public page.
func CurrentUser(c *echo.Context) *store.User {
	u, _ := c.Get(contextUser).(*store.User)
	return u
}

// RequireSignIn sends anonymous visitors to /signin, remembering where they wanted to go.
func (a *App) RequireSignIn(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if CurrentUser(c) == nil {
			target := "/signin"
			if c.Request().Method == http.MethodGet {
				target += "?redirect=" + url.QueryEscape(c.Request().URL.RequestURI())
			}
			return c.Redirect(http.StatusSeeOther, target)
		}
		return next(c)
	}
}

// CollectionsEnabled says whether u may send card-payment requests: corporations that
// are not excluded (SPEC.md §4).
func (a *App) CollectionsEnabled(u *store.User) bool {
	return pay.CollectionModeFor(u.BusinessForm, u.CorporateNumber, a.CollectionExclusions) == pay.CollectionEnabled
}

// SafeRedirect accepts only same-site relative paths, so that ?redirect= can never
// send someone to another site ("//evil.example", "/\evil.example", "https://…").
func SafeRedirect(target string) (string, bool) {
	if target == "" || !strings.HasPrefix(target, "/") || strings.HasPrefix(target, "//") || strings.HasPrefix(target, "/\\") {
		return "", false
	}
	if strings.ContainsAny(target, "\\\r\n\t") {
		return "", false
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "", false
	}
	// Sending someone back to the sign-in or sign-out would undo what they just did.
	if u.Path == "/signin" || u.Path == "/signout" {
		return "", false
	}
	return target, true
}

// SetFlash stores a one-time notice for the next page.
func (a *App) SetFlash(c *echo.Context, f views.Flash) { setFlash(a.Sessions, c, f) }

// PopFlash takes the notice out of the session: it is shown once.
func (a *App) PopFlash(c *echo.Context) *views.Flash { return popFlash(a.Sessions, c) }

// setFlash and popFlash keep the notice in a session (the buyer's or the operator's).
func setFlash(sm *scs.SessionManager, c *echo.Context, f views.Flash) {
	b, _ := json.Marshal(f)
	sm.Put(c.Request().Context(), sessionFlash, string(b))
}

func popFlash(sm *scs.SessionManager, c *echo.Context) *views.Flash {
	s := sm.PopString(c.Request().Context(), sessionFlash)
	if s == "" {
		return nil
	}
	var f views.Flash
	if json.Unmarshal([]byte(s), &f) != nil {
		return nil
	}
	return &f
}

// RenewSession starts the session again for u after a change to how u signs in
// (password, e-mail address, second factor): a new token, and the user's current
// session epoch. The sign-in time is kept, so such changes never stretch the absolute
// session limit.
func (a *App) RenewSession(c *echo.Context, u store.User) error {
	ctx := c.Request().Context()
	signedIn := a.Sessions.GetInt64(ctx, sessionSignedIn)
	if err := a.StartSession(c, u); err != nil {
		return err
	}
	if signedIn != 0 {
		a.Sessions.Put(ctx, sessionSignedIn, signedIn)
	}
	return nil
}
