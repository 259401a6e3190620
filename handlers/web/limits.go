package web

import (
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/pay"
)

const contextLimited = "limited"

// TooMany makes this request's page answer 429 with Retry-After (Render reads the mark).
func TooMany(c *echo.Context, retryAfterSeconds int) {
	c.Response().Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	c.Set(contextLimited, true)
}

// Refused shows err on the form when the person should read it: an account.Refusal next
// to its field, and a rate limit (account.Limited) next to field. Over a limit, or
// throttled by failed sign-ins, the page answers 429 with Retry-After; the page is shown
// again with what was typed (the handler never passes a password back). It says whether
// err was one of those; any other error is the handler's to return.
func Refused(c *echo.Context, errs *pay.FieldErrors, field string, err error) bool {
	if l, ok := account.AsLimited(err); ok {
		TooMany(c, l.RetryAfterSeconds())
		errs.Add(field, l.Message())
		return true
	}
	if r, ok := account.AsRefusal(err); ok {
		if r.RetryAfter > 0 {
			TooMany(c, auth.WaitSeconds(r.RetryAfter))
		}
		errs.Add(r.Field, r.Message)
		return true
	}
	return false
}
