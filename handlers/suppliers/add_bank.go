package suppliers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/banks"
)

var wizardBankAccountForm = bankAccountForm{
	title: "取引先の追加：振込先口座", heading: "振込先口座の入力",
	lead:        "請求書の代金を振り込む、取引先の口座を入力してください。",
	href:        "/suppliers/add/bank",
	submitLabel: "次へ", backHref: "/suppliers/add/company", backLabel: "取引先情報へ戻る",
}

// ShowAddBankPage is the wizard's second step: the supplier's bank account.
func (h *Handler) ShowAddBankPage(c *echo.Context) error {
	w := AddWizard.Load(h.Sessions, c)
	if !w.CompanyDone {
		return c.Redirect(http.StatusSeeOther, "/suppliers/add/company")
	}
	return h.renderBankAccountForm(c, wizardBankAccountForm, withQueryChoices(c, w.BankAccount), nil)
}

// SaveAddBank keeps the bank account once it validates.
func (h *Handler) SaveAddBank(c *echo.Context) error {
	w := AddWizard.Load(h.Sessions, c)
	if !w.CompanyDone {
		return c.Redirect(http.StatusSeeOther, "/suppliers/add/company")
	}
	in := bankAccountFormValues(c)
	checked, errs := in.Check(banks.Directory{})
	if len(errs) > 0 {
		return h.renderBankAccountForm(c, wizardBankAccountForm, in, errs)
	}
	w.BankAccount, w.BankAccountDone = checked.AccountInput, true
	if err := AddWizard.Save(h.Sessions, c, w); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/suppliers/add/confirm")
}
