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

	"cardpay/account"
	"cardpay/handlers/links"
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
	// sessionRow is the user_sessions row of this sign-in (the security page's list);
	// sessionDevice the device it signed in from.
	sessionRow    = "session_id"
	sessionDevice = "device_id"
)

// DeviceCookie carries the device token (account.Client.DeviceToken) between sign-ins.
const DeviceCookie = "cardpay_device"

// Session limits (issue 3): signed out after 30 minutes without a request, and 12 hours
// after signing in whatever happens. The last-seen time is written at most once a minute
// so that reading pages does not write to the database on every request.
const (
	IdleTimeout       = account.IdleTimeout
	AbsoluteTimeout   = account.AbsoluteTimeout
	SeenWriteInterval = time.Minute
)

const contextUser = "user"

// ClientOf is who sends c's request: the client IP (the proxy header only from trusted
// proxies, Deps.TrustedProxies), its user agent and its device cookie.
func ClientOf(c *echo.Context) account.Client {
	cl := account.Client{IP: c.RealIP(), UserAgent: c.Request().UserAgent()}
	if ck, err := c.Cookie(DeviceCookie); err == nil {
		cl.DeviceToken = ck.Value
	}
	return cl
}

// SetCaller puts the caller on the request's context for the account rules.
func SetCaller(c *echo.Context, caller account.Caller) {
	r := c.Request()
	c.SetRequest(r.WithContext(account.WithCaller(r.Context(), caller)))
}

// LoadCaller puts the caller (the client: IP and user agent) on every request's context
// for the account rules (the rate limiter's keys, the audit); LoadUser adds the session
// row and device when a buyer is signed in.
func LoadCaller(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		SetCaller(c, account.Caller{Client: ClientOf(c)})
		return next(c)
	}
}

// LoadUser puts the signed-in user, if any, on the context, and the caller's session row
// and device on the request's context for the account rules (after LoadCaller). A session is
// ended when its user no longer exists, when its row was ended (from the security page
// of another session, or by a credential change), when the user's session epoch moved
// on (a password reset or change elsewhere), after IdleTimeout without a request, or
// AbsoluteTimeout after sign-in.
func (a *App) LoadUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		ctx := c.Request().Context()
		uid := a.Sessions.GetInt64(ctx, sessionUserID)
		bid := a.Sessions.GetInt64(ctx, sessionBuyerID)
		sid := a.Sessions.GetInt64(ctx, sessionRow)
		if uid == 0 || bid == 0 {
			return next(c)
		}
		now := a.Now()
		seen := time.Unix(a.Sessions.GetInt64(ctx, sessionSeen), 0)
		signedIn := time.Unix(a.Sessions.GetInt64(ctx, sessionSignedIn), 0)
		if now.Sub(seen) > IdleTimeout || now.Sub(signedIn) > AbsoluteTimeout {
			return a.endSession(c, next, "一定時間操作がなかったため、ログアウトしました。もう一度ログインしてください。")
		}
		u, err := a.Store.SessionUser(ctx, bid, uid, sid)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return a.endSession(c, next, "このセッションは終了しました。もう一度ログインしてください。")
		case err != nil:
			return err
		case u.SessionEpoch != a.Sessions.GetInt(ctx, sessionEpoch):
			return a.endSession(c, next, "パスワードが変更されたため、ログアウトしました。もう一度ログインしてください。")
		}
		if now.Sub(seen) > SeenWriteInterval {
			a.Sessions.Put(ctx, sessionSeen, now.Unix())
			if err := a.Store.SeeUserSession(ctx, sid, now); err != nil {
				return err
			}
		}
		c.Set(contextUser, &u)
		SetCaller(c, account.Caller{SessionID: sid, DeviceID: a.Sessions.GetInt64(ctx, sessionDevice), Client: ClientOf(c)})
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

// StartSession signs in the user of res (account.SignIn, VerifySecondFactor) on a fresh
// session token (so a token planted before sign-in is useless after it): a new
// user_sessions row for the security page, and the device cookie, so that this browser
// is a known device from now on.
func (a *App) StartSession(c *echo.Context, res account.SignInResult) error {
	ctx := c.Request().Context()
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	u := res.User
	sid, err := a.Account.StartSession(ctx, u, store.SessionBrowser, res.DeviceID, ClientOf(c))
	if err != nil {
		return err
	}
	now := a.Now().Unix()
	a.Sessions.Put(ctx, sessionUserID, u.ID)
	a.Sessions.Put(ctx, sessionBuyerID, u.BuyerID)
	a.Sessions.Put(ctx, sessionEpoch, u.SessionEpoch)
	a.Sessions.Put(ctx, sessionSignedIn, now)
	a.Sessions.Put(ctx, sessionSeen, now)
	a.Sessions.Put(ctx, sessionRow, sid)
	a.Sessions.Put(ctx, sessionDevice, res.DeviceID)
	SetCaller(c, account.Caller{SessionID: sid, DeviceID: res.DeviceID, Client: ClientOf(c)})
	if res.FactorGiven {
		if err := a.Account.MarkFactor(ctx, u, sid); err != nil {
			return err
		}
	}
	if res.DeviceToken != "" {
		c.SetCookie(&http.Cookie{
			Name: DeviceCookie, Value: res.DeviceToken, Path: "/", HttpOnly: true,
			Secure: strings.HasPrefix(a.BaseURL, "https://"), SameSite: http.SameSiteLaxMode,
			MaxAge: int(account.DeviceLifetime / time.Second),
		})
	}
	return nil
}

// CurrentUser is the signed-in user, or nil on a public page.
func CurrentUser(c *echo.Context) *store.User {
	u, _ := c.Get(contextUser).(*store.User)
	return u
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
	if u.Path == links.SignIn || u.Path == links.SignOut {
		return "", false
	}
	return target, true
}

// SetFlash stores a one-time notice for the next page.
func (a *App) SetFlash(c *echo.Context, f views.Flash) { SetFlashIn(a.Sessions, c, f) }

// PopFlash takes the notice out of the session: it is shown once.
func (a *App) PopFlash(c *echo.Context) *views.Flash { return PopFlashFrom(a.Sessions, c) }

// SetFlashIn and PopFlashFrom keep the notice in a session (the buyer's, or the
// operator's: handlers/ops).
func SetFlashIn(sm *scs.SessionManager, c *echo.Context, f views.Flash) {
	b, _ := json.Marshal(f)
	sm.Put(c.Request().Context(), sessionFlash, string(b))
}

func PopFlashFrom(sm *scs.SessionManager, c *echo.Context) *views.Flash {
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

// RenewSession renews the session token after a change to how u signs in (password,
// e-mail address, second factor) and takes the user's current session epoch; the
// session's row, device and sign-in time stay, so such changes never stretch the
// absolute session limit.
func (a *App) RenewSession(c *echo.Context, u store.User) error {
	ctx := c.Request().Context()
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	a.Sessions.Put(ctx, sessionEpoch, u.SessionEpoch)
	return nil
}

// The pending request key (SPEC.md §2): a card-payment request's mailed link keeps its
// key in the server session until the next signed-in page links it (handlers/payments).
const sessionPendingRequestKey = "pending_request_key"

// maxRequestKeyLen bounds what is kept from a link: a key is 43 characters.
const maxRequestKeyLen = 64

// SetPendingRequestKey keeps a request's key until the next signed-in page.
func (a *App) SetPendingRequestKey(c *echo.Context, key string) {
	a.Sessions.Put(c.Request().Context(), sessionPendingRequestKey, Clip(key, maxRequestKeyLen))
}

// PendingRequestKey is the key waiting to be linked ("" for none); the sign-in page,
// which starts a new session, carries it over.
func (a *App) PendingRequestKey(c *echo.Context) string {
	return a.Sessions.GetString(c.Request().Context(), sessionPendingRequestKey)
}

// PopPendingRequestKey takes the key waiting to be linked out of the session: it is
// used once, linked or not.
func (a *App) PopPendingRequestKey(c *echo.Context) string {
	return a.Sessions.PopString(c.Request().Context(), sessionPendingRequestKey)
}
