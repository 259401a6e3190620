package myaccount

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/myaccount"
)

// EditEmailAuthPath is the page that asks for the code mailed to the new address.
const EditEmailAuthPath = "/myaccount/edit-email-auth"

// ShowEditEmailAuthPage asks for the code mailed to the new address; without a change
// in progress it sends the user to start one.
func (h *Handler) ShowEditEmailAuthPage(c *echo.Context) error {
	email := h.Sessions.GetString(c.Request().Context(), sessionEmailChange)
	if email == "" {
		return c.Redirect(http.StatusSeeOther, EditEmailAddressPage.Path)
	}
	return h.renderEditEmailAuth(c, email, nil)
}

func (h *Handler) renderEditEmailAuth(c *echo.Context, email string, errs pay.FieldErrors) error {
	return web.Show(h.App, c, "メールアドレス変更の認証", errs, pages.EditEmailAuthView{EmailAddress: email}, pages.EditEmailAuthPage)
}

// ConfirmEmailChange changes the address with the mailed code and renews the session
// token, as after every change to how the user signs in.
func (h *Handler) ConfirmEmailChange(c *echo.Context) error {
	ctx := c.Request().Context()
	pending := h.Sessions.GetString(ctx, sessionEmailChange)
	if pending == "" {
		return c.Redirect(http.StatusSeeOther, EditEmailAddressPage.Path)
	}
	_, err := h.Account.ConfirmEmailChange(ctx, *web.CurrentUser(c), c.FormValue("code"))
	if errs := (pay.FieldErrors{}); web.Refused(c, &errs, "code", err) {
		return h.renderEditEmailAuth(c, pending, errs)
	}
	if err != nil {
		return err
	}
	h.Sessions.Remove(ctx, sessionEmailChange)
	fresh, err := h.reloadUser(c)
	if err != nil {
		return err
	}
	if err := h.RenewSession(c, fresh); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "メールアドレスを変更しました"})
	return c.Redirect(http.StatusSeeOther, EmailChangeCompletePage.Path)
}
