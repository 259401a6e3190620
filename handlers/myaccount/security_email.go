package myaccount

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/myaccount"
)

// EmailTwoFactorPath is the mailed-code set-up page and where it posts.
const EmailTwoFactorPath = "/myaccount/security/email"

// ShowEmailTwoFactorPage asks for the code that turns mail two-factor on.
func (h *Handler) ShowEmailTwoFactorPage(c *echo.Context) error {
	if !h.Sessions.GetBool(c.Request().Context(), sessionPendingMail2FA) {
		return c.Redirect(http.StatusSeeOther, SecurityPage.Path)
	}
	return h.renderEmailTwoFactor(c, nil)
}

func (h *Handler) renderEmailTwoFactor(c *echo.Context, errs pay.FieldErrors) error {
	return web.Show(h.App, c, "メールによる二段階認証の設定", errs, pages.EmailTwoFactorView{EmailAddress: web.CurrentUser(c).EmailAddress}, pages.EmailTwoFactorPage)
}

// EnableEmailTwoFactor turns mail two-factor on with the mailed code.
func (h *Handler) EnableEmailTwoFactor(c *echo.Context) error {
	ctx := c.Request().Context()
	if !h.Sessions.GetBool(ctx, sessionPendingMail2FA) {
		return c.Redirect(http.StatusSeeOther, SecurityPage.Path)
	}
	err := h.Account.EnableEmailTwoFactor(ctx, *web.CurrentUser(c), c.FormValue("code"))
	if errs := (pay.FieldErrors{}); web.Refused(c, &errs, "code", err) {
		return h.renderEmailTwoFactor(c, errs)
	}
	if err != nil {
		return err
	}
	h.Sessions.Remove(ctx, sessionPendingMail2FA)
	return h.twoFactorChanged(c, "メールによる二段階認証を有効にしました", SecurityPage.Path)
}

// ResendEmailTwoFactorPath is where the mailed-code set-up page asks for a new code.
const ResendEmailTwoFactorPath = "/myaccount/security/email/resend"

// ResendEmailTwoFactorCode mails a new code for the change in progress.
func (h *Handler) ResendEmailTwoFactorCode(c *echo.Context) error {
	ctx := c.Request().Context()
	if !h.Sessions.GetBool(ctx, sessionPendingMail2FA) {
		return c.Redirect(http.StatusSeeOther, SecurityPage.Path)
	}
	err := h.Account.SendEmailTwoFactorCode(ctx, *web.CurrentUser(c))
	if errs := (pay.FieldErrors{}); web.Refused(c, &errs, "code", err) {
		return h.renderEmailTwoFactor(c, errs)
	}
	if err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "info", Title: "確認コードを再送信しました"})
	return c.Redirect(http.StatusSeeOther, EmailTwoFactorPath)
}
