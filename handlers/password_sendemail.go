package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/views"
)

func (a *App) showPasswordSendEmailPage(c *echo.Context) error {
	return a.renderPasswordSendEmail(c, "", nil)
}

func (a *App) renderPasswordSendEmail(c *echo.Context, email string, errs views.FieldErrors) error {
	b, err := a.base(c, "パスワード再設定メールの送信")
	if err != nil {
		return err
	}
	b.Errors = errs
	return render(c, statusFor(b), views.PasswordSendEmailPage(views.PasswordSendEmailView{Base: b, EmailAddress: email}))
}

// sendPasswordResetEmail mails a reset code when the address has an account. The
// answer is the same redirect and notice either way, so the page never tells who has
// an account; the address is kept to fill in the next form.
func (a *App) sendPasswordResetEmail(c *echo.Context) error {
	ctx := c.Request().Context()
	input := c.FormValue("email_address")
	errs, err := a.Account.SendPasswordReset(ctx, input)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return a.renderPasswordSendEmail(c, accountShownValue(input), accountFieldErrors(errs))
	}
	email, _ := pay.ValidateEmail(input)
	a.Sessions.Put(ctx, sessionResetEmail, email)
	a.setFlash(c, views.Flash{Color: "info", Title: "パスワード再設定用のコードを送信しました（ご登録がある場合）",
		Text: "メールに記載の確認コードと新しいパスワードを入力してください。"})
	return c.Redirect(http.StatusSeeOther, "/password/reset")
}
