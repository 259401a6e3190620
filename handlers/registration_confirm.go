package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/pay"
	"cardpay/views"
)

// completeRegistration is the saved answers when they are complete and valid, for the
// check-answers page and the final POST.
func (a *App) completeRegistration(c *echo.Context) (pay.Registration, bool) {
	r := a.registrationDraft(c)
	r.Normalise()
	return r, r.BusinessForm.Valid() && len(r.Validate(a.now())) == 0
}

// changeHref goes back to the field of a row; the business form is the wizard's first
// question, on a page of its own.
func changeHref(field string) string {
	if field == "business_form" {
		return "/registration?step=business_form#business_form"
	}
	return "/registration#" + field
}

func (a *App) showRegistrationConfirmPage(c *echo.Context) error {
	su, to, err := a.verifiedSignup(c)
	if err != nil || to != "" {
		return redirectOr(c, to, err)
	}
	r, ok := a.completeRegistration(c)
	if !ok {
		return c.Redirect(http.StatusSeeOther, "/registration")
	}
	b, err := a.base(c, "登録内容の確認")
	if err != nil {
		return err
	}
	v := views.RegistrationConfirmView{Base: b, EmailAddress: su.EmailAddress}
	for _, f := range r.Fields() {
		v.Rows = append(v.Rows, views.ConfirmRow{Label: f.Label, Value: f.Value, ChangeHref: changeHref(f.Field)})
	}
	return render(c, http.StatusOK, views.RegistrationConfirmPage(v))
}

// register creates the buyer and its user in one transaction. Afterwards the wizard's
// data leaves the session and the person signs in with the new account.
func (a *App) register(c *echo.Context) error {
	ctx := c.Request().Context()
	su, to, err := a.verifiedSignup(c)
	if err != nil || to != "" {
		return redirectOr(c, to, err)
	}
	r, ok := a.completeRegistration(c)
	if !ok {
		return c.Redirect(http.StatusSeeOther, "/registration")
	}
	u, errs, err := a.Account.Register(ctx, su.ID, r)
	if refusal, ok := account.AsRefusal(err); ok {
		errs = pay.FieldErrors{{Field: refusal.Field, Message: refusal.Message}}
	} else if err != nil {
		return err
	}
	if len(errs) > 0 {
		return a.renderRegistration(c, registrationForm{form: r.BusinessForm, values: registrationValues(r), errs: errs})
	}
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	a.clearSignup(c)
	a.Sessions.Put(ctx, sessionRegistered, u.EmailAddress)
	return c.Redirect(http.StatusSeeOther, "/registration/result")
}
