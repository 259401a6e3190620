package payments

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/banks"
	"cardpay/handlers/web"
	pages "cardpay/views/payments"
)

// newAccountForm is the shared bank-account form as the journey's new-account step: the
// account is registered with the payment, when it is submitted.
func (h *Handler) newAccountForm(c *echo.Context, j journey) web.BankAccountForm {
	f := web.BankAccountForm{
		Title: "支払申請：新しい振込先口座", Heading: "振込先口座の入力", Href: NewAccountPath, SubmitLabel: "次へ",
		Lead:     "請求書に記載の振込先口座を入力してください。お支払いの申請と一緒に登録します。",
		BackHref: AccountStepPath, BackLabel: "登録済みの口座から選ぶ", Steps: pages.StepIndicator(1),
	}
	if j.IsNewSupplier {
		f.BackHref, f.BackLabel = NewSupplierPath, "取引先の情報へ戻る"
		f.Lead = h.supplierName(c.Request().Context(), web.CurrentUser(c).BuyerID, j) + "の" + f.Lead
	}
	return f
}

// ShowNewAccountStep asks for the new account: the bank, the branch, then its details.
func (h *Handler) ShowNewAccountStep(c *echo.Context) error {
	j, missing := h.load(c, NewAccountPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	if !j.IsNewAccount && !j.IsNewSupplier {
		return c.Redirect(http.StatusSeeOther, AccountStepPath)
	}
	f := h.newAccountForm(c, j)
	if !j.IsNewSupplier {
		// A new account for a supplier already registered redirects its money: the
		// second factor again, as on the supplier's page (account.StepUp).
		var err error
		if f.StepUp, err = h.StepUpFor(c, *web.CurrentUser(c)); err != nil {
			return err
		}
	}
	in := web.WithQueryChoices(c, j.NewAccount)
	m, ok, err := h.fileOffer(c.Request().Context(), web.CurrentUser(c).BuyerID, j)
	if err != nil {
		return err
	}
	if ok {
		// The shared form's lead is text: the provenance of what is still as offered.
		if lead := provenanceLead(accountProvenance(m, in)); lead != "" {
			f.Lead += lead
		}
	}
	return h.RenderBankAccountForm(c, f, in, nil)
}

// SaveNewAccount keeps the account once it validates and goes on to the invoice.
func (h *Handler) SaveNewAccount(c *echo.Context) error {
	j, missing := h.load(c, NewAccountPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	if !j.IsNewAccount && !j.IsNewSupplier {
		return c.Redirect(http.StatusSeeOther, AccountStepPath)
	}
	in := web.BankAccountFormValues(c)
	checked, errs := in.Check(banks.Directory{})
	if !j.IsNewSupplier {
		stepErrs, err := h.CheckStepUp(c, *web.CurrentUser(c))
		if err != nil {
			return err
		}
		errs = append(errs, stepErrs...)
	}
	if len(errs) > 0 {
		f := h.newAccountForm(c, j)
		if !j.IsNewSupplier {
			var err error
			if f.StepUp, err = h.StepUpFor(c, *web.CurrentUser(c)); err != nil {
				return err
			}
		}
		return h.RenderBankAccountForm(c, f, in, errs)
	}
	j.NewAccount, j.NewAccountDone, j.IsNewAccount = checked.AccountInput, true, true
	if err := h.save(c, j); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, InvoiceStepPath)
}
