package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/views"
)

// showEmailTwoFactorPage asks for the code that turns mail two-factor on.
func (a *App) showEmailTwoFactorPage(c *echo.Context) error {
	if !a.Sessions.GetBool(c.Request().Context(), sessionPendingMail2FA) {
		return c.Redirect(http.StatusSeeOther, "/myaccount/security")
	}
	return a.renderEmailTwoFactor(c, nil)
}

func (a *App) renderEmailTwoFactor(c *echo.Context, errs views.FieldErrors) error {
	b, err := a.base(c, "メールによる二段階認証の設定")
	if err != nil {
		return err
	}
	b.Errors = errs
	return render(c, statusFor(b), views.EmailTwoFactorPage(views.EmailTwoFactorView{Base: b, EmailAddress: currentUser(c).EmailAddress}))
}

// enableEmailTwoFactor turns mail two-factor on with the mailed code.
func (a *App) enableEmailTwoFactor(c *echo.Context) error {
	ctx := c.Request().Context()
	if !a.Sessions.GetBool(ctx, sessionPendingMail2FA) {
		return c.Redirect(http.StatusSeeOther, "/myaccount/security")
	}
	err := a.Account.EnableEmailTwoFactor(ctx, *currentUser(c), c.FormValue("code"))
	if r, ok := account.AsRefusal(err); ok {
		var errs views.FieldErrors
		errs.Add("code", r.Message)
		return a.renderEmailTwoFactor(c, errs)
	}
	if err != nil {
		return err
	}
	a.Sessions.Remove(ctx, sessionPendingMail2FA)
	return a.twoFactorChanged(c, "メールによる二段階認証を有効にしました", "/myaccount/security")
}

// resendEmailTwoFactorCode mails a new code for the change in progress.
func (a *App) resendEmailTwoFactorCode(c *echo.Context) error {
	ctx := c.Request().Context()
	if !a.Sessions.GetBool(ctx, sessionPendingMail2FA) {
		return c.Redirect(http.StatusSeeOther, "/myaccount/security")
	}
	if err := a.Account.SendEmailTwoFactorCode(ctx, *currentUser(c)); err != nil {
		return err
	}
	a.setFlash(c, views.Flash{Color: "info", Title: "確認コードを再送信しました"})
	return c.Redirect(http.StatusSeeOther, "/myaccount/security/email")
}
