package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/views"
)

func (a *App) showReregistrationPage(c *echo.Context) error {
	return a.renderReregistration(c, views.ReregistrationView{}, nil)
}

func (a *App) renderReregistration(c *echo.Context, v views.ReregistrationView, errs views.FieldErrors) error {
	b, err := a.base(c, "登録のやり直し")
	if err != nil {
		return err
	}
	b.Errors = errs
	v.Base = b
	return render(c, statusFor(b), views.ReregistrationPage(v))
}

// reregister restarts an unfinished sign-up with a new code (POST users/resignup).
// Whether or not the address has one, the visitor goes on to the same code page with
// the same words; only the mailbox's owner learns which it was.
func (a *App) reregister(c *echo.Context) error {
	email := c.FormValue("email_address")
	id, errs, err := a.Account.Resignup(c.Request().Context(), email)
	if err != nil {
		return err
	}
	shown, _ := pay.ValidateEmail(email)
	if len(errs) > 0 {
		return a.renderReregistration(c, views.ReregistrationView{EmailAddress: shown}, signupViewErrors(errs))
	}
	if err := a.startSignupCode(c, id, shown, true); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/signup/code")
}
