package password

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	pages "cardpay/views/password"
)

// ReregistrationPage restarts an unfinished sign-up with a new code.
var ReregistrationPage = web.Page{Path: "/password/reregistration", Title: "登録のやり直し", Access: web.Public}

// ShowReregistrationPage asks for the address of the unfinished sign-up.
func (h *Handler) ShowReregistrationPage(c *echo.Context) error {
	return h.renderReregistration(c, pages.ReregistrationView{}, nil)
}

func (h *Handler) renderReregistration(c *echo.Context, v pages.ReregistrationView, errs pay.FieldErrors) error {
	return web.Show(h.App, c, ReregistrationPage.Title, errs, v, pages.ReregistrationPage)
}

// Reregister restarts an unfinished sign-up with a new code (POST users/resignup).
// Whether or not the address has one, the visitor goes on to the same code page with
// the same words; only the mailbox's owner learns which it was.
func (h *Handler) Reregister(c *echo.Context) error {
	email := c.FormValue("email_address")
	id, errs, err := h.Account.Resignup(c.Request().Context(), email)
	if err != nil && !web.Refused(c, &errs, "email_address", err) {
		return err
	}
	shown, _ := pay.ValidateEmail(email)
	if len(errs) > 0 {
		return h.renderReregistration(c, pages.ReregistrationView{EmailAddress: shown}, errs)
	}
	if err := h.StartSignupCode(c, id, shown, true); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, links.SignupCode)
}
