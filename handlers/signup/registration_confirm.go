package signup

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/signup"
)

// completeRegistration is the saved answers when they are complete and valid, for the
// check-answers page and the final POST.
func (h *Handler) completeRegistration(c *echo.Context) (account.Registration, bool) {
	r := registrationDraft.Load(h.Sessions, c)
	r.Normalise()
	return r, r.BusinessForm.Valid() && len(r.Validate(h.Now())) == 0
}

// changeHref goes back to the field of a row; the business form is the wizard's first
// question, on a page of its own.
func changeHref(field string) string {
	if field == "business_form" {
		return RegistrationPath + "?step=business_form#business_form"
	}
	return RegistrationPath + "#" + field
}

// RegistrationConfirmPath is the registration's confirmation page and where it posts.
const RegistrationConfirmPath = "/registration/confirm"

// ShowRegistrationConfirmPage is the check-answers page, with a 変更 link per answer.
func (h *Handler) ShowRegistrationConfirmPage(c *echo.Context) error {
	su, to, err := h.verifiedSignup(c)
	if err != nil || to != "" {
		return redirectOr(c, to, err)
	}
	r, ok := h.completeRegistration(c)
	if !ok {
		return c.Redirect(http.StatusSeeOther, RegistrationPath)
	}
	v := pages.RegistrationConfirmView{EmailAddress: su.EmailAddress}
	for _, f := range r.Fields() {
		v.Rows = append(v.Rows, views.ConfirmRow{Label: f.Label, Value: f.Value, ChangeHref: changeHref(f.Field)})
	}
	return web.Show(h.App, c, "登録内容の確認", nil, v, pages.RegistrationConfirmPage)
}

// Register creates the buyer and its user in one transaction. Afterwards the wizard's
// data leaves the session and the person signs in with the new account.
func (h *Handler) Register(c *echo.Context) error {
	ctx := c.Request().Context()
	su, to, err := h.verifiedSignup(c)
	if err != nil || to != "" {
		return redirectOr(c, to, err)
	}
	r, ok := h.completeRegistration(c)
	if !ok {
		return c.Redirect(http.StatusSeeOther, RegistrationPath)
	}
	u, errs, err := h.Account.Register(ctx, su.ID, r)
	if refusal, ok := account.AsRefusal(err); ok {
		errs = pay.FieldErrors{{Field: refusal.Field, Message: refusal.Message}}
	} else if err != nil {
		return err
	}
	if len(errs) > 0 {
		return h.renderRegistration(c, registrationForm{form: r.BusinessForm, values: registrationValues(r), errs: errs})
	}
	if err := h.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	h.ClearSignup(c)
	h.Sessions.Put(ctx, web.SessionRegistered, u.EmailAddress)
	h.Sessions.Put(ctx, web.SessionRegisteredHeld, u.ReviewStatus == pay.BuyerHeld)
	return c.Redirect(http.StatusSeeOther, RegistrationResultPath)
}
