package payments

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/payments"
)

// newSupplierForm is the shared supplier form as the journey's new-supplier step: the
// supplier is registered with the payment, when it is submitted.
var newSupplierForm = web.CompanyForm{
	BusinessTitle: "支払申請：新しい取引先の事業形態", Title: "支払申請：新しい取引先の情報",
	CompanyFormLinks: views.CompanyFormLinks{
		Href: NewSupplierPath, CancelHref: InvoiceInfoPath, CancelLabel: "登録済みの取引先から選ぶ",
		Steps: pages.StepIndicator(0),
	},
}

// ShowNewSupplierStep asks the new supplier's business form, then its details (with the
// corporation search), as the add-supplier wizard does.
func (h *Handler) ShowNewSupplierStep(c *echo.Context) error {
	j, missing := h.load(c, NewSupplierPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	if !j.IsNewSupplier {
		return c.Redirect(http.StatusSeeOther, InvoiceInfoPath)
	}
	if c.QueryParam("step") == "business_form" || !j.NewSupplier.BusinessForm.Valid() {
		return h.RenderBusinessForm(c, newSupplierForm, j.NewSupplier.BusinessForm, nil)
	}
	in, err := h.CorporationChosen(c, j.NewSupplier)
	if err != nil {
		return err
	}
	return h.RenderCompanyForm(c, newSupplierForm, in, nil)
}

// SaveNewSupplier takes the business form, or the details, then goes on to the account.
func (h *Handler) SaveNewSupplier(c *echo.Context) error {
	j, missing := h.load(c, NewSupplierPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	if !j.IsNewSupplier {
		return c.Redirect(http.StatusSeeOther, InvoiceInfoPath)
	}
	if c.FormValue("step") == "business_form" {
		f, errs := web.BusinessFormChoice(c)
		if len(errs) > 0 {
			return h.RenderBusinessForm(c, newSupplierForm, 0, errs)
		}
		if f != j.NewSupplier.BusinessForm {
			// A name read from the invoice stays; the rest belongs to the other form.
			j.NewSupplier = pay.SupplierInput{BusinessForm: f, Name: j.NewSupplier.Name}
			j.NewSupplierDone = false
		}
		if err := h.save(c, j); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, NewSupplierPath)
	}
	if !j.NewSupplier.BusinessForm.Valid() {
		return c.Redirect(http.StatusSeeOther, NewSupplierPath)
	}
	in := web.CompanyFormValues(c, j.NewSupplier.BusinessForm)
	if errs := in.Validate(); len(errs) > 0 {
		return h.RenderCompanyForm(c, newSupplierForm, in, errs)
	}
	j.NewSupplier, j.NewSupplierDone = in, true
	if err := h.save(c, j); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, NewAccountPath)
}
