package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/views"
)

func (a *App) showEditPasswordPage(c *echo.Context) error {
	return a.renderEditPassword(c, nil)
}

func (a *App) renderEditPassword(c *echo.Context, errs views.FieldErrors) error {
	b, err := a.base(c, "パスワードの変更")
	if err != nil {
		return err
	}
	b.Errors = errs
	return render(c, statusFor(b), views.EditPasswordPage(views.EditPasswordView{Base: b}))
}

// changePassword replaces the password after checking the current one. The change ends
// the user's other sessions; this one moves to the new session epoch on a renewed token
// and stays signed in.
func (a *App) changePassword(c *echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	current := c.FormValue("current_password")
	password := c.FormValue("password")

	var errs pay.FieldErrors
	if current == "" {
		errs.Add("current_password", "現在のパスワードを入力してください")
	}
	errs.Add("password", pay.ValidatePassword(password, u.EmailAddress))
	errs.Add("password_confirmation", checkPasswordConfirmation(password, c.FormValue("password_confirmation")))
	if len(errs) > 0 {
		return a.renderEditPassword(c, accountFieldErrors(errs))
	}
	epoch, errs, err := a.Account.ChangePassword(ctx, *u, current, password)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return a.renderEditPassword(c, accountFieldErrors(errs))
	}
	fresh, err := a.reloadUser(c)
	if err != nil {
		return err
	}
	// The epoch the change returned, not a later one: should another change have come
	// in meanwhile, that one ends this session too.
	fresh.SessionEpoch = epoch
	if err := a.renewAfterChange(c, fresh); err != nil {
		return err
	}
	a.setFlash(c, views.Flash{Color: "success", Title: "パスワードを変更しました", Text: "ほかの端末でのログインは終了しました。"})
	return c.Redirect(http.StatusSeeOther, "/myaccount")
}
