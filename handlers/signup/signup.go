// Package signup is opening an account: the sign-up form and the code mailed to the
// address (/signup, /signup/code), then the registration wizard (/registration, its
// check-answers page and the result). Re-registration (handlers/password) continues at
// the same code page; the sign-up in progress lives in the session (handlers/web).
package signup

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	pages "cardpay/views/signup"
)

// Handler serves the sign-up area.
type Handler struct{ *web.App }

// SignupPage is the sign-up form. The area's other pages redirect here until the
// session holds a sign-up.
var SignupPage = web.Page{Path: "/signup", Title: "新規登録", Access: web.Public}

// ShowSignupPage starts afresh: entering it leaves any sign-up in progress.
func (h *Handler) ShowSignupPage(c *echo.Context) error {
	h.ClearSignup(c)
	return h.renderSignup(c, pages.SignupView{}, nil)
}

func (h *Handler) renderSignup(c *echo.Context, v pages.SignupView, errs pay.FieldErrors) error {
	return web.Show(h.App, c, SignupPage.Title, errs, v, pages.SignupPage)
}

// SignUp checks the form and mails the code. An address that already has an account
// gets a mail saying so instead, and this visitor the very same next page.
func (h *Handler) SignUp(c *echo.Context) error {
	email := c.FormValue("email_address")
	consent := c.FormValue("consent") != ""
	id, errs, err := h.Account.StartSignup(c.Request().Context(), email, c.FormValue("password"), consent)
	if err != nil && !web.Refused(c, &errs, "email_address", err) {
		return err
	}
	shown, _ := pay.ValidateEmail(email)
	if len(errs) > 0 {
		return h.renderSignup(c, pages.SignupView{EmailAddress: shown, Consent: consent}, errs)
	}
	if err := h.StartSignupCode(c, id, shown, false); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, SignupCodePath)
}
