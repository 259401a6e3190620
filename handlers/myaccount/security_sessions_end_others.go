package myaccount

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/views"
)

// EndOtherSessionsPath is where the security page ends every session but this one.
const EndOtherSessionsPath = "/myaccount/security/sessions/end-others"

// EndOtherSessions ends every session of the signed-in user but this one, browsers
// and API clients alike.
func (h *Handler) EndOtherSessions(c *echo.Context) error {
	u := web.CurrentUser(c)
	if err := h.Account.EndOtherSessions(c.Request().Context(), *u); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "他のすべての端末からログアウトしました",
		Text: "この端末はログインしたままです。"})
	return c.Redirect(http.StatusSeeOther, SecurityPage.Path)
}
