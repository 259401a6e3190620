package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/views"
)

// showEditEmailAuthPage asks for the code mailed to the new address; without a change
// in progress it sends the user to start one.
func (a *App) showEditEmailAuthPage(c *echo.Context) error {
	email := a.Sessions.GetString(c.Request().Context(), sessionEmailChange)
	if email == "" {
		return c.Redirect(http.StatusSeeOther, "/myaccount/edit-email-address")
	}
	return a.renderEditEmailAuth(c, email, nil)
}

func (a *App) renderEditEmailAuth(c *echo.Context, email string, errs views.FieldErrors) error {
	b, err := a.base(c, "メールアドレス変更の認証")
	if err != nil {
		return err
	}
	b.Errors = errs
	return render(c, statusFor(b), views.EditEmailAuthPage(views.EditEmailAuthView{Base: b, EmailAddress: email}))
}

// confirmEmailChange changes the address with the mailed code and renews the session
// token, as after every change to how the user signs in.
func (a *App) confirmEmailChange(c *echo.Context) error {
	ctx := c.Request().Context()
	pending := a.Sessions.GetString(ctx, sessionEmailChange)
	if pending == "" {
		return c.Redirect(http.StatusSeeOther, "/myaccount/edit-email-address")
	}
	_, err := a.Account.ConfirmEmailChange(ctx, *currentUser(c), c.FormValue("code"))
	if r, ok := account.AsRefusal(err); ok {
		var errs views.FieldErrors
		errs.Add("code", r.Message)
		return a.renderEditEmailAuth(c, pending, errs)
	}
	if err != nil {
		return err
	}
	a.Sessions.Remove(ctx, sessionEmailChange)
	fresh, err := a.reloadUser(c)
	if err != nil {
		return err
	}
	if err := a.renewAfterChange(c, fresh); err != nil {
		return err
	}
	a.setFlash(c, views.Flash{Color: "success", Title: "メールアドレスを変更しました"})
	return c.Redirect(http.StatusSeeOther, "/myaccount/edit-email-complete")
}
