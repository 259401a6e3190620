package signup

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	pages "cardpay/views/signup"
)

// RegistrationResultPath is the page a finished registration lands on.
const RegistrationResultPath = "/registration/result"

// ShowRegistrationResultPage confirms the registration and sends the person to sign in
// with the new account. Only the session that registered sees it.
func (h *Handler) ShowRegistrationResultPage(c *echo.Context) error {
	email := h.Sessions.GetString(c.Request().Context(), web.SessionRegistered)
	if email == "" {
		return c.Redirect(http.StatusSeeOther, links.SignIn)
	}
	held := h.Sessions.GetBool(c.Request().Context(), web.SessionRegisteredHeld)
	return web.Show(h.App, c, "登録完了", nil, pages.RegistrationResultView{EmailAddress: email, Held: held}, pages.RegistrationResultPage)
}
