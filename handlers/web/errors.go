package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/store"
	"cardpay/views"
)

// PageError is an expected failure with a message for the person: a refusal, a
// missing object. Anything else that reaches HandleError is unexpected.
type PageError struct {
	Status           int
	Heading, Message string
}

func (e *PageError) Error() string { return e.Heading }

// Forbidden is a refusal page (403) saying why.
func Forbidden(heading, message string) error {
	return &PageError{http.StatusForbidden, heading, message}
}

// ErrNotFound is the 404 page.
var ErrNotFound = &PageError{http.StatusNotFound, "ページが見つかりません", "お探しのページは移動または削除されたか、URLが間違っている可能性があります。"}

// HandleError is the one place errors become responses (pkgsite's serveError): a
// missing row or route is the 404 page, an expected refusal its own page, and anything
// else is logged and shown as a 500 page without details.
func (a *App) HandleError(c *echo.Context, err error) {
	if resp, uErr := echo.UnwrapResponse(c.Response()); uErr == nil && resp.Committed {
		return
	}
	var pe *PageError
	// echo's own errors (no route, wrong method, body too large) carry a status code.
	var sc echo.HTTPStatusCoder
	code := 0
	if errors.As(err, &sc) {
		code = sc.StatusCode()
	}
	l, limited := account.AsLimited(err)
	switch {
	case errors.As(err, &pe):
	case limited:
		// A rate limit a page did not show at a field itself (web.Refused): still a 429
		// with its wait, never a 500.
		TooMany(c, l.RetryAfterSeconds())
		pe = &PageError{http.StatusTooManyRequests, "しばらくしてからお試しください", l.Message()}
	case errors.Is(err, store.ErrNotFound), code == http.StatusNotFound:
		pe = ErrNotFound
	case code == http.StatusMethodNotAllowed:
		pe = &PageError{code, "この操作はできません", "この画面ではその操作を受け付けていません。画面を開き直してお試しください。"}
	case code == http.StatusRequestEntityTooLarge:
		pe = &PageError{code, "送信内容が大きすぎます", "送信できる大きさを超えています。内容を見直してください。"}
	case code >= 400 && code < 500:
		pe = &PageError{code, "リクエストを処理できません", "送信内容を確認し、もう一度お試しください。"}
	default:
		// The route's pattern, not the path: some paths carry a secret (an operator's
		// invitation link, a request key), and logs are read by more people than links.
		a.Logger.Error("unexpected error", "method", c.Request().Method, "route", c.Path(), "error", err)
		pe = &PageError{http.StatusInternalServerError, "システムエラーが発生しました", "申し訳ございません。時間をおいてもう一度お試しください。解決しない場合はお問い合わせください。"}
	}
	if rerr := a.renderError(c, pe); rerr != nil {
		a.Logger.Error("rendering the error page failed", "error", rerr)
		_ = c.String(pe.Status, pe.Heading)
	}
}

func (a *App) renderError(c *echo.Context, pe *PageError) error {
	b, err := a.Base(c, pe.Heading)
	if err != nil {
		// The header's stats are unavailable (the database may be the failure): show
		// the page in the simple layout instead.
		b.User = nil
	}
	return Render(c, pe.Status, views.ErrorPage(views.ErrorView{Base: b, Heading: pe.Heading, Message: pe.Message}))
}

// RenderErrors turns a handler's error into its page inside the middleware chain, so
// error pages are compressed like any other page.
func (a *App) RenderErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if err := next(c); err != nil {
			a.HandleError(c, err)
		}
		return nil
	}
}

// ShowNotFoundPage answers every path no route matches.
func ShowNotFoundPage(*echo.Context) error { return ErrNotFound }
