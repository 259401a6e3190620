package suppliers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/suppliers"
)

// AddCompanyPage is the add-supplier wizard's first step. It asks the business form
// under this title, then the supplier's details under the company form's title.
var AddCompanyPage = web.Page{Path: "/suppliers/add/company", Title: "取引先の追加：事業形態", Access: web.SignedIn}

// addCompanyForm is the shared supplier form as this wizard's first step.
var addCompanyForm = web.CompanyForm{
	BusinessTitle: AddCompanyPage.Title, Title: "取引先の追加：取引先情報",
	CompanyFormLinks: views.CompanyFormLinks{
		Href: AddCompanyPage.Path, CancelHref: ListPage.Path + "?status=enable", CancelLabel: "取引先の追加をやめる",
		Steps: pages.WizardStepsAt(0),
	},
}

// ShowAddCompanyPage asks the business form first (or again with ?step=business_form),
// then the supplier's details. A corporation can be searched by name or number
// (?corp_q=) and a result chosen (?corporate_number=) to fill the form.
func (h *Handler) ShowAddCompanyPage(c *echo.Context) error {
	w := AddWizard.Load(h.Sessions, c)
	if c.QueryParam("step") == "business_form" || !w.Supplier.BusinessForm.Valid() {
		return h.RenderBusinessForm(c, addCompanyForm, w.Supplier.BusinessForm, nil)
	}
	in, err := h.CorporationChosen(c, w.Supplier)
	if err != nil {
		return err
	}
	return h.RenderCompanyForm(c, addCompanyForm, in, nil)
}

// SaveAddCompany takes the business form, or the supplier's details.
func (h *Handler) SaveAddCompany(c *echo.Context) error {
	w := AddWizard.Load(h.Sessions, c)
	if c.FormValue("step") == "business_form" {
		f, errs := web.BusinessFormChoice(c)
		if len(errs) > 0 {
			return h.RenderBusinessForm(c, addCompanyForm, 0, errs)
		}
		if f != w.Supplier.BusinessForm {
			w.Supplier = pay.SupplierInput{BusinessForm: f}
			w.CompanyDone = false
		}
		if err := AddWizard.Save(h.Sessions, c, w); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, AddCompanyPage.Path)
	}
	if !w.Supplier.BusinessForm.Valid() {
		return c.Redirect(http.StatusSeeOther, AddCompanyPage.Path)
	}
	in := web.CompanyFormValues(c, w.Supplier.BusinessForm)
	if errs := in.Validate(); len(errs) > 0 {
		return h.RenderCompanyForm(c, addCompanyForm, in, errs)
	}
	w.Supplier, w.CompanyDone = in, true
	if err := AddWizard.Save(h.Sessions, c, w); err != nil {
		return err
	}
	if w.BankAccountDone {
		return c.Redirect(http.StatusSeeOther, AddConfirmPath)
	}
	return c.Redirect(http.StatusSeeOther, AddBankPath)
}
