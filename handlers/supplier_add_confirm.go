package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/banks"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// completeSupplierWizard checks the saved answers again (the bank data may have changed
// since, and the session is not trusted blindly) and says where to go when a step is
// missing.
func (a *App) completeSupplierWizard(c *echo.Context) (pay.SupplierInput, pay.CheckedAccount, string) {
	w := a.supplierWizard(c)
	in := w.Supplier
	in.Normalise()
	if !w.CompanyDone || len(in.Validate()) > 0 {
		return in, pay.CheckedAccount{}, "/suppliers/add/company"
	}
	acct, errs := w.Account.Check(banks.Directory{})
	if !w.AccountDone || len(errs) > 0 {
		return in, acct, "/suppliers/add/bank"
	}
	return in, acct, ""
}

func (a *App) showSupplierConfirmPage(c *echo.Context) error {
	in, acct, missing := a.completeSupplierWizard(c)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	return a.renderSupplierConfirm(c, in, acct, nil, http.StatusOK)
}

func (a *App) renderSupplierConfirm(c *echo.Context, in pay.SupplierInput, acct pay.CheckedAccount, errs pay.FieldErrors, status int) error {
	b, err := a.base(c, "取引先の追加：確認")
	if err != nil {
		return err
	}
	for _, e := range errs {
		b.Errors.Add(e.Field, e.Message)
	}
	v := views.SupplierConfirmView{Base: b}
	for _, f := range in.Fields() {
		href := "/suppliers/add/company#" + f.Field
		if f.Field == "business_form" {
			href = "/suppliers/add/company?step=business_form"
		}
		v.Supplier = append(v.Supplier, views.ConfirmRow{Label: f.Label, Value: f.Value, ChangeHref: href})
	}
	for _, f := range acct.Fields() {
		href := "/suppliers/add/bank#" + f.Field
		switch f.Field {
		case "bank_code":
			href = "/suppliers/add/bank?step=bank"
		case "branch_code":
			href = "/suppliers/add/bank?step=branch&bank_code=" + acct.BankCode
		}
		v.Account = append(v.Account, views.ConfirmRow{Label: f.Label, Value: f.Value, ChangeHref: href})
	}
	return render(c, status, views.SupplierConfirmPage(v))
}

// createSupplier saves the supplier and its account in one transaction, then forgets
// the wizard's answers.
func (a *App) createSupplier(c *echo.Context) error {
	in, acct, missing := a.completeSupplierWizard(c)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	u := currentUser(c)
	fields := store.AccountFieldsOf(acct)
	s, err := a.Store.CreateSupplier(c.Request().Context(), u.BuyerID, in, &fields)
	if err != nil {
		return err
	}
	a.Sessions.Remove(c.Request().Context(), sessionSupplierWizard)
	a.setFlash(c, views.Flash{Color: "success", Title: "取引先を登録しました", Text: "「" + s.Name + "」を登録しました。当社での確認が済むまで、状態は「未承認」です。"})
	return c.Redirect(http.StatusSeeOther, "/suppliers/"+strconv.FormatInt(s.ID, 10))
}
