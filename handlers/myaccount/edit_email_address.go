package myaccount

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/myaccount"
)

// EditEmailAddressPage starts a change of the e-mail address.
var EditEmailAddressPage = web.Page{Path: "/myaccount/edit-email-address", Title: "メールアドレスの変更", Access: web.SignedIn}

// ShowEditEmailAddressPage asks for the new address and the current password.
func (h *Handler) ShowEditEmailAddressPage(c *echo.Context) error {
	return h.renderEditEmailAddress(c, "", nil)
}

func (h *Handler) renderEditEmailAddress(c *echo.Context, email string, errs pay.FieldErrors) error {
	return web.Show(h.App, c, EditEmailAddressPage.Title, errs, pages.EditEmailAddressView{
		CurrentEmailAddress: web.CurrentUser(c).EmailAddress, EmailAddress: email,
	}, pages.EditEmailAddressPage)
}

// StartEmailChange mails a code to the new address (account.StartEmailChange) and asks
// for it on the next page; the address changes only when the code comes back.
func (h *Handler) StartEmailChange(c *echo.Context) error {
	ctx := c.Request().Context()
	input := c.FormValue("email_address")
	errs, err := h.Account.StartEmailChange(ctx, *web.CurrentUser(c), input, c.FormValue("current_password"))
	if err != nil && !web.Refused(c, &errs, "email_address", err) {
		return err
	}
	if len(errs) > 0 {
		return h.renderEditEmailAddress(c, web.ShownValue(strings.TrimSpace(input)), errs)
	}
	email, _ := pay.ValidateEmail(input)
	h.Sessions.Put(ctx, sessionEmailChange, email)
	h.SetFlash(c, views.Flash{Color: "info", Title: "確認コードを送信しました", Text: email + " 宛てのメールをご確認ください。"})
	return c.Redirect(http.StatusSeeOther, EditEmailAuthPath)
}
