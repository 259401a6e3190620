package password

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/password"
)

// SendEmailPage asks for the address to mail a password-reset code to.
var SendEmailPage = web.Page{Path: "/password/sendemail", Title: "パスワード再設定メールの送信", Access: web.Public}

// ShowSendEmailPage asks for the address.
func (h *Handler) ShowSendEmailPage(c *echo.Context) error {
	return h.renderSendEmail(c, "", nil)
}

func (h *Handler) renderSendEmail(c *echo.Context, email string, errs pay.FieldErrors) error {
	return web.Show(h.App, c, SendEmailPage.Title, errs, pages.PasswordSendEmailView{EmailAddress: email}, pages.PasswordSendEmailPage)
}

// SendResetEmail mails a reset code when the address has an account. The answer is
// the same redirect and notice either way, so the page never tells who has an
// account; the address is kept to fill in the next form.
func (h *Handler) SendResetEmail(c *echo.Context) error {
	ctx := c.Request().Context()
	input := c.FormValue("email_address")
	errs, err := h.Account.SendPasswordReset(ctx, input)
	if err != nil && !web.Refused(c, &errs, "email_address", err) {
		return err
	}
	if len(errs) > 0 {
		return h.renderSendEmail(c, web.ShownValue(strings.TrimSpace(input)), errs)
	}
	email, _ := pay.ValidateEmail(input)
	h.Sessions.Put(ctx, sessionResetEmail, email)
	h.SetFlash(c, views.Flash{Color: "info", Title: "パスワード再設定用のコードを送信しました（ご登録がある場合）",
		Text: "メールに記載の確認コードと新しいパスワードを入力してください。"})
	return c.Redirect(http.StatusSeeOther, ResetPage.Path)
}
