package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/views"
)

func (a *App) showPasswordResetPage(c *echo.Context) error {
	email := a.Sessions.GetString(c.Request().Context(), sessionResetEmail)
	return a.renderPasswordReset(c, views.PasswordResetView{EmailAddress: email}, nil)
}

func (a *App) renderPasswordReset(c *echo.Context, v views.PasswordResetView, errs views.FieldErrors) error {
	b, err := a.base(c, "パスワードの再設定")
	if err != nil {
		return err
	}
	b.Errors = errs
	v.Base = b
	return render(c, statusFor(b), views.PasswordResetPage(v))
}

// resetPassword sets the new password with the mailed code. Every form problem is
// found before the code is tried, so a typo in the confirmation does not use the code
// up. The reset ends every session of the user, this browser's included: the person
// signs in again with the new password.
func (a *App) resetPassword(c *echo.Context) error {
	ctx := c.Request().Context()
	input := c.FormValue("email_address")
	code := c.FormValue("code")
	password := c.FormValue("password")

	var errs pay.FieldErrors
	email, msg := pay.ValidateEmail(input)
	errs.Add("email_address", msg)
	if strings.TrimSpace(code) == "" {
		errs.Add("code", "確認コードを入力してください")
	}
	errs.Add("password", pay.ValidatePassword(password, email))
	errs.Add("password_confirmation", checkPasswordConfirmation(password, c.FormValue("password_confirmation")))
	if len(errs) == 0 {
		var err error
		if errs, err = a.Account.ResetPassword(ctx, email, code, password); err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		// The code is kept unless it is what was wrong; passwords are never shown back.
		v := views.PasswordResetView{EmailAddress: accountShownValue(email)}
		if errs.For("code") == "" {
			v.Code = accountShownValue(code)
		}
		return a.renderPasswordReset(c, v, accountFieldErrors(errs))
	}
	if err := a.Sessions.Destroy(ctx); err != nil {
		return err
	}
	a.setFlash(c, views.Flash{Color: "success", Title: "パスワードを再設定しました", Text: "新しいパスワードでログインしてください。"})
	return c.Redirect(http.StatusSeeOther, "/signin")
}
