package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/views"
)

// signOut destroys the server session, so the old cookie no longer signs anyone in,
// and confirms on the sign-in page.
func (a *App) signOut(c *echo.Context) error {
	ctx := c.Request().Context()
	if err := a.Sessions.Destroy(ctx); err != nil {
		return err
	}
	a.setFlash(c, views.Flash{Color: "info", Title: "ログアウトしました"})
	return c.Redirect(http.StatusSeeOther, "/signin")
}
