package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/pay"
	"cardpay/store"
)

// apiError is an expected failure answered as JSON: {"status", "message", "errors"?}.
type apiError struct {
	code    int
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Errors  pay.FieldErrors `json:"errors,omitempty"`
	// ResultCode is the gateway result code of a declined card (card_declined).
	ResultCode string `json:"result_code,omitempty"`
	// Method is how the caller gives a step-up code (step_up_required): "email" (a code
	// was mailed) or "totp" (the authenticator's).
	Method string `json:"method,omitempty"`
	// retryAfter is the Retry-After header of a 429, in seconds.
	retryAfter int
}

func (e *apiError) Error() string { return e.Status + ": " + e.Message }

func newError(code int, status, message string) *apiError {
	return &apiError{code: code, Status: status, Message: message}
}

// Messages shared by several calls.
const (
	msgUnauthorized     = "ログインしてください。"
	msgExpired          = "ログインの有効期限が切れました。"
	msgNotFound         = "お探しの情報は見つかりませんでした。"
	msgValidation       = "入力内容に誤りがあります。内容をご確認ください。"
	msgInternal         = "システムエラーが発生しました。時間をおいてもう一度お試しください。"
	msgBadCredentials   = "メールアドレスまたはパスワードが正しくありません"
	msgBadRefreshToken  = "ログインの有効期限が切れました。もう一度ログインしてください。"
	msgBadSessionToken  = "認証の有効期限が切れたか、既に使用されています。もう一度ログインしてください。"
	msgMethodNotAllowed = "このURLではその操作を受け付けていません。"
)

var (
	errUnauthorized     = newError(http.StatusUnauthorized, "unauthorized", msgUnauthorized)
	errExpiredAccess    = newError(http.StatusUnauthorized, "expired_access_token", msgExpired)
	errBadCredentials   = newError(http.StatusUnauthorized, "invalid_credentials", msgBadCredentials)
	errBadRefreshToken  = newError(http.StatusUnauthorized, "invalid_refresh_token", msgBadRefreshToken)
	errBadSessionToken  = newError(http.StatusUnauthorized, "invalid_session_token", msgBadSessionToken)
	errNotFound         = newError(http.StatusNotFound, "not_found", msgNotFound)
	errMethodNotAllowed = newError(http.StatusMethodNotAllowed, "method_not_allowed", msgMethodNotAllowed)
	errInternal         = newError(http.StatusInternalServerError, "internal_error", msgInternal)
	errTooLarge         = newError(http.StatusRequestEntityTooLarge, "payload_too_large", "送信内容が大きすぎます（上限64KB）。")
)

// validationError answers 422 with one message per field.
func validationError(errs pay.FieldErrors) *apiError {
	return &apiError{code: http.StatusUnprocessableEntity, Status: "validation_error", Message: msgValidation, Errors: errs}
}

// fieldError is a 422 about one field.
func fieldError(field, message string) *apiError {
	var errs pay.FieldErrors
	errs.Add(field, message)
	return validationError(errs)
}

// tooManyAttempts is the 429 of the rate limiter and of the sign-in throttle: the same
// status, words and header whether or not the address has an account.
func tooManyAttempts(message string, retryAfter time.Duration) *apiError {
	e := newError(http.StatusTooManyRequests, "too_many_attempts", message)
	e.retryAfter = auth.WaitSeconds(retryAfter)
	return e
}

// jsonErrors turns whatever a handler returns, or a panic, into a JSON answer, inside
// the route so that the HTML error pages of the app's own error handler never answer
// an API call.
func (s *server) jsonErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				s.Logger.Error("api: panic", "method", c.Request().Method, "path", c.Request().URL.Path, "panic", r)
				err = s.writeError(c, errInternal)
			}
		}()
		if err := next(c); err != nil {
			return s.writeError(c, err)
		}
		return nil
	}
}

func (s *server) writeError(c *echo.Context, err error) error {
	if resp, uErr := echo.UnwrapResponse(c.Response()); uErr == nil && resp.Committed {
		s.Logger.Error("api: error after the answer started", "path", c.Request().URL.Path, "error", err)
		return nil
	}
	var ae *apiError
	var sc echo.HTTPStatusCoder
	var tooLarge *http.MaxBytesError
	var limited *account.Limited
	var refusal *account.Refusal
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &limited):
		ae = tooManyAttempts(limited.Message(), limited.RetryAfter)
	case errors.As(err, &refusal) && refusal.RetryAfter > 0:
		ae = tooManyAttempts(refusal.Message, refusal.RetryAfter)
	case errors.Is(err, store.ErrNotFound):
		ae = errNotFound
	case errors.As(err, &tooLarge):
		ae = errTooLarge
	case errors.As(err, &sc) && sc.StatusCode() == http.StatusNotFound:
		ae = errNotFound
	case errors.As(err, &sc) && sc.StatusCode() == http.StatusMethodNotAllowed:
		ae = errMethodNotAllowed
	case errors.As(err, &sc) && sc.StatusCode() == http.StatusRequestEntityTooLarge:
		ae = errTooLarge
	case errors.As(err, &sc) && sc.StatusCode() >= 400 && sc.StatusCode() < 500:
		ae = newError(sc.StatusCode(), "bad_request", "リクエストを処理できません。送信内容をご確認ください。")
	default:
		s.Logger.Error("api: unexpected error", "method", c.Request().Method, "path", c.Request().URL.Path, "error", err)
		ae = errInternal
	}
	if ae.retryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(ae.retryAfter))
	}
	return c.JSON(ae.code, ae)
}
