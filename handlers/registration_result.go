package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/views"
)

// showRegistrationResultPage confirms the registration and sends the person to sign in
// with the new account. Only the session that registered sees it.
func (a *App) showRegistrationResultPage(c *echo.Context) error {
	email := a.Sessions.GetString(c.Request().Context(), sessionRegistered)
	if email == "" {
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
	b, err := a.base(c, "登録完了")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.RegistrationResultPage(views.RegistrationResultView{Base: b, EmailAddress: email}))
}
