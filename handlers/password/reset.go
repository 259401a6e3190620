package password

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/password"
)

// ResetPage sets a new password with the mailed code.
var ResetPage = web.Page{Path: "/password/reset", Title: "パスワードの再設定", Access: web.Public}

// ShowResetPage shows the reset form, with the address the code was asked for.
func (h *Handler) ShowResetPage(c *echo.Context) error {
	email := h.Sessions.GetString(c.Request().Context(), sessionResetEmail)
	return h.renderReset(c, pages.PasswordResetView{EmailAddress: email}, nil)
}

func (h *Handler) renderReset(c *echo.Context, v pages.PasswordResetView, errs pay.FieldErrors) error {
	return web.Show(h.App, c, ResetPage.Title, errs, v, pages.PasswordResetPage)
}

// ResetPassword sets the new password with the mailed code. Every form problem is
// found before the code is tried, so a typo in the confirmation does not use the code
// up. The reset ends every session of the user, this browser's included: the person
// signs in again with the new password.
func (h *Handler) ResetPassword(c *echo.Context) error {
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
	errs.Add("password", account.ValidatePassword(password, email))
	errs.Add("password_confirmation", account.CheckPasswordConfirmation(password, c.FormValue("password_confirmation")))
	if len(errs) == 0 {
		var err error
		if errs, err = h.Account.ResetPassword(ctx, email, code, password); err != nil && !web.Refused(c, &errs, "code", err) {
			return err
		}
	}
	if len(errs) > 0 {
		// The code is kept unless it is what was wrong; passwords are never shown back.
		v := pages.PasswordResetView{EmailAddress: web.ShownValue(strings.TrimSpace(email))}
		if errs.For("code") == "" {
			v.Code = web.ShownValue(strings.TrimSpace(code))
		}
		return h.renderReset(c, v, errs)
	}
	if err := h.Sessions.Destroy(ctx); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "パスワードを再設定しました", Text: "新しいパスワードでログインしてください。"})
	return c.Redirect(http.StatusSeeOther, links.SignIn)
}
