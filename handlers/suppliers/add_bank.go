package suppliers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/banks"
	"cardpay/handlers/web"
)

var wizardBankAccountForm = web.BankAccountForm{
	Title: "取引先の追加：振込先口座", Heading: "振込先口座の入力",
	Lead:        "請求書の代金を振り込む、取引先の口座を入力してください。",
	Href:        AddBankPath,
	SubmitLabel: "次へ", BackHref: AddCompanyPage.Path, BackLabel: "取引先情報へ戻る",
}

// AddBankPath is the add wizard's bank account step and where it posts.
const AddBankPath = "/suppliers/add/bank"

// ShowAddBankPage is the wizard's second step: the supplier's bank account.
func (h *Handler) ShowAddBankPage(c *echo.Context) error {
	w := AddWizard.Load(h.Sessions, c)
	if !w.CompanyDone {
		return c.Redirect(http.StatusSeeOther, AddCompanyPage.Path)
	}
	return h.RenderBankAccountForm(c, wizardBankAccountForm, web.WithQueryChoices(c, w.BankAccount), nil)
}

// SaveAddBank keeps the bank account once it validates.
func (h *Handler) SaveAddBank(c *echo.Context) error {
	w := AddWizard.Load(h.Sessions, c)
	if !w.CompanyDone {
		return c.Redirect(http.StatusSeeOther, AddCompanyPage.Path)
	}
	in := web.BankAccountFormValues(c)
	checked, errs := in.Check(banks.Directory{})
	if len(errs) > 0 {
		return h.RenderBankAccountForm(c, wizardBankAccountForm, in, errs)
	}
	w.BankAccount, w.BankAccountDone = checked.AccountInput, true
	if err := AddWizard.Save(h.Sessions, c, w); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, AddConfirmPath)
}
