package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/views"
)

func (a *App) showEditEmailAddressPage(c *echo.Context) error {
	return a.renderEditEmailAddress(c, "", nil)
}

func (a *App) renderEditEmailAddress(c *echo.Context, email string, errs views.FieldErrors) error {
	b, err := a.base(c, "メールアドレスの変更")
	if err != nil {
		return err
	}
	b.Errors = errs
	return render(c, statusFor(b), views.EditEmailAddressPage(views.EditEmailAddressView{
		Base: b, CurrentEmailAddress: currentUser(c).EmailAddress, EmailAddress: email,
	}))
}

// startEmailChange mails a code to the new address (account.StartEmailChange) and asks
// for it on the next page; the address changes only when the code comes back.
func (a *App) startEmailChange(c *echo.Context) error {
	ctx := c.Request().Context()
	input := c.FormValue("email_address")
	errs, err := a.Account.StartEmailChange(ctx, *currentUser(c), input, c.FormValue("current_password"))
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return a.renderEditEmailAddress(c, accountShownValue(input), accountFieldErrors(errs))
	}
	email, _ := pay.ValidateEmail(input)
	a.Sessions.Put(ctx, sessionEmailChange, email)
	a.setFlash(c, views.Flash{Color: "info", Title: "確認コードを送信しました", Text: email + " 宛てのメールをご確認ください。"})
	return c.Redirect(http.StatusSeeOther, "/myaccount/edit-email-auth")
}
