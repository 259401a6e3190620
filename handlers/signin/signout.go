package signin

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/views"
)

// SignOut destroys the server session, so the old cookie no longer signs anyone in,
// and confirms on the sign-in page.
func (h *Handler) SignOut(c *echo.Context) error {
	ctx := c.Request().Context()
	if err := h.Sessions.Destroy(ctx); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "info", Title: "ログアウトしました"})
	return c.Redirect(http.StatusSeeOther, SignInPage.Path)
}
