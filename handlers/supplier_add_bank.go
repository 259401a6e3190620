package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/banks"
)

var wizardAccountForm = accountForm{
	title: "取引先の追加：振込先口座", heading: "振込先口座の入力",
	lead:        "請求書の代金を振り込む、取引先の口座を入力してください。",
	href:        "/suppliers/add/bank",
	submitLabel: "次へ", backHref: "/suppliers/add/company", backLabel: "取引先情報へ戻る",
}

func (a *App) showSupplierBankPage(c *echo.Context) error {
	w := a.supplierWizard(c)
	if !w.CompanyDone {
		return c.Redirect(http.StatusSeeOther, "/suppliers/add/company")
	}
	return a.renderAccountForm(c, wizardAccountForm, withQueryChoices(c, w.Account), nil)
}

func (a *App) saveSupplierBank(c *echo.Context) error {
	w := a.supplierWizard(c)
	if !w.CompanyDone {
		return c.Redirect(http.StatusSeeOther, "/suppliers/add/company")
	}
	in := accountFormValues(c)
	checked, errs := in.Check(banks.Directory{})
	if len(errs) > 0 {
		return a.renderAccountForm(c, wizardAccountForm, in, errs)
	}
	w.Account, w.AccountDone = checked.AccountInput, true
	if err := a.saveSupplierWizard(c, w); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/suppliers/add/confirm")
}
