package signin

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
)

// RequireSignIn sends anonymous visitors to the sign-in page, remembering where they
// wanted to go (?redirect=, checked by web.SafeRedirect when they come back).
func (h *Handler) RequireSignIn(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if web.CurrentUser(c) == nil {
			target := SignInPage.Path
			if c.Request().Method == http.MethodGet {
				target += "?redirect=" + url.QueryEscape(c.Request().URL.RequestURI())
			}
			return c.Redirect(http.StatusSeeOther, target)
		}
		return next(c)
	}
}
