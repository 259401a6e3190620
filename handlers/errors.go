package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/store"
	"cardpay/views"
)

// pageError is an expected failure with a message for the person: a refusal, a
// missing object. Anything else that reaches handleError is unexpected.
type pageError struct {
	status           int
	heading, message string
}

func (e *pageError) Error() string { return e.heading }

func errForbidden(heading, message string) error {
	return &pageError{http.StatusForbidden, heading, message}
}

var notFoundPage = &pageError{http.StatusNotFound, "ページが見つかりません", "お探しのページは移動または削除されたか、URLが間違っている可能性があります。"}

// handleError is the one place errors become responses (pkgsite's serveError): a
// missing row or route is the 404 page, an expected refusal its own page, and anything
// else is logged and shown as a 500 page without details.
func (a *App) handleError(c *echo.Context, err error) {
	if resp, uErr := echo.UnwrapResponse(c.Response()); uErr == nil && resp.Committed {
		return
	}
	var pe *pageError
	// echo's own errors (no route, wrong method, body too large) carry a status code.
	var sc echo.HTTPStatusCoder
	code := 0
	if errors.As(err, &sc) {
		code = sc.StatusCode()
	}
	switch {
	case errors.As(err, &pe):
	case errors.Is(err, store.ErrNotFound), code == http.StatusNotFound:
		pe = notFoundPage
	case code == http.StatusMethodNotAllowed:
		pe = &pageError{code, "この操作はできません", "この画面ではその操作を受け付けていません。画面を開き直してお試しください。"}
	case code == http.StatusRequestEntityTooLarge:
		pe = &pageError{code, "送信内容が大きすぎます", "送信できる大きさを超えています。内容を見直してください。"}
	case code >= 400 && code < 500:
		pe = &pageError{code, "リクエストを処理できません", "送信内容を確認し、もう一度お試しください。"}
	default:
		a.Logger.Error("unexpected error", "method", c.Request().Method, "path", c.Request().URL.Path, "error", err)
		pe = &pageError{http.StatusInternalServerError, "システムエラーが発生しました", "申し訳ございません。時間をおいてもう一度お試しください。解決しない場合はお問い合わせください。"}
	}
	if rerr := a.renderError(c, pe); rerr != nil {
		a.Logger.Error("rendering the error page failed", "error", rerr)
		_ = c.String(pe.status, pe.heading)
	}
}

func (a *App) renderError(c *echo.Context, pe *pageError) error {
	b, err := a.base(c, pe.heading)
	if err != nil {
		// The header's stats are unavailable (the database may be the failure): show
		// the page in the simple layout instead.
		b.User = nil
	}
	return render(c, pe.status, views.ErrorPage(views.ErrorView{Base: b, Heading: pe.heading, Message: pe.message}))
}

// renderErrors turns a handler's error into its page inside the middleware chain, so
// error pages are compressed like any other page.
func (a *App) renderErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if err := next(c); err != nil {
			a.handleError(c, err)
		}
		return nil
	}
}

func (a *App) showNotFoundPage(c *echo.Context) error { return notFoundPage }
