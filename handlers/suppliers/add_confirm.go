package suppliers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/banks"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/suppliers"
)

// completeAddWizard checks the saved answers again (the bank data may have changed
// since, and the session is not trusted blindly) and says where to go when a step is
// missing.
func (h *Handler) completeAddWizard(c *echo.Context) (pay.SupplierInput, pay.CheckedAccount, string) {
	w := AddWizard.Load(h.Sessions, c)
	in := w.Supplier
	in.Normalise()
	if !w.CompanyDone || len(in.Validate()) > 0 {
		return in, pay.CheckedAccount{}, AddCompanyPage.Path
	}
	acct, errs := w.BankAccount.Check(banks.Directory{})
	if !w.BankAccountDone || len(errs) > 0 {
		return in, acct, AddBankPath
	}
	return in, acct, ""
}

// AddConfirmPath is the add wizard's confirmation and where it posts.
const AddConfirmPath = "/suppliers/add/confirm"

// ShowAddConfirmPage is the wizard's check-answers page, with 変更 links to each step.
func (h *Handler) ShowAddConfirmPage(c *echo.Context) error {
	in, acct, missing := h.completeAddWizard(c)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	return h.renderConfirm(c, in, acct, nil, http.StatusOK)
}

func (h *Handler) renderConfirm(c *echo.Context, in pay.SupplierInput, acct pay.CheckedAccount, errs pay.FieldErrors, status int) error {
	b, err := h.Base(c, "取引先の追加：確認")
	if err != nil {
		return err
	}
	for _, e := range errs {
		b.Errors.Add(e.Field, e.Message)
	}
	v := pages.ConfirmView{Base: b}
	for _, f := range in.Fields() {
		href := AddCompanyPage.Path + "#" + f.Field
		if f.Field == "business_form" {
			href = AddCompanyPage.Path + "?step=business_form"
		}
		v.Supplier = append(v.Supplier, views.ConfirmRow{Label: f.Label, Value: f.Value, ChangeHref: href})
	}
	for _, f := range acct.Fields() {
		href := AddBankPath + "#" + f.Field
		switch f.Field {
		case "bank_code":
			href = AddBankPath + "?step=bank"
		case "branch_code":
			href = AddBankPath + "?step=branch&bank_code=" + acct.BankCode
		}
		v.BankAccount = append(v.BankAccount, views.ConfirmRow{Label: f.Label, Value: f.Value, ChangeHref: href})
	}
	return web.Render(c, status, pages.ConfirmPage(v))
}

// CreateSupplier saves the supplier and its bank account in one transaction, then
// forgets the wizard's answers.
func (h *Handler) CreateSupplier(c *echo.Context) error {
	in, acct, missing := h.completeAddWizard(c)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	u := web.CurrentUser(c)
	fields := store.AccountFieldsOf(acct)
	s, err := h.Store.CreateSupplier(c.Request().Context(), u.BuyerID, in, &fields)
	if err != nil {
		return err
	}
	AddWizard.Clear(h.Sessions, c)
	h.SetFlash(c, views.Flash{Color: "success", Title: "取引先を登録しました", Text: "「" + s.Name + "」を登録しました。当社での確認が済むまで、状態は「未承認」です。"})
	return c.Redirect(http.StatusSeeOther, SupplierPath(s.ID))
}
