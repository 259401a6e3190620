package payments

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/payments"
)

const accountStepTitle = "支払申請：振込先口座の選択"

// ShowAccountStep asks which of the supplier's bank accounts is paid, or a new one.
func (h *Handler) ShowAccountStep(c *echo.Context) error {
	j, missing := h.load(c, AccountStepPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	if j.IsNewSupplier {
		return c.Redirect(http.StatusSeeOther, NewAccountPath)
	}
	return h.renderAccountStep(c, j, nil)
}

func (h *Handler) renderAccountStep(c *echo.Context, j journey, errs pay.FieldErrors) error {
	u := web.CurrentUser(c)
	ctx := c.Request().Context()
	s, err := h.Store.Supplier(ctx, u.BuyerID, j.SupplierID)
	if err != nil {
		return err
	}
	accts, err := h.Store.SupplierAccounts(ctx, u.BuyerID, s.ID)
	if err != nil {
		return err
	}
	v := pages.AccountStepView{Steps: journeySteps(1), Action: AccountStepPath, SupplierName: s.Name, BackHref: InvoiceInfoPath}
	if j.IsNewAccount {
		v.Value = "new"
	} else if j.AccountID != 0 {
		v.Value = idString(j.AccountID)
	}
	m, ok, err := h.fileOffer(ctx, u.BuyerID, j)
	if err != nil {
		return err
	}
	if ok && m.Account != nil && !j.IsNewAccount && j.AccountID == m.Account.ID {
		v.Provenance = accountProvenance(m, accountOf(m))
	}
	for _, a := range accts {
		v.Options = append(v.Options, views.FieldOption{Value: idString(a.ID),
			Label: a.BankName + "　" + a.BranchName + "　" + a.AccountType.Label() + "　" + a.AccountNumber,
			Hint:  "口座名義 " + a.HolderName})
	}
	v.Options = append(v.Options, views.FieldOption{Value: "new", Label: "新しい口座を追加する",
		Hint: "請求書に記載の振込先が一覧にない場合"})
	return web.Show(h.App, c, accountStepTitle, errs, v, pages.AccountStepPage)
}

// ChooseAccount takes the account.
func (h *Handler) ChooseAccount(c *echo.Context) error {
	j, missing := h.load(c, AccountStepPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	choice := c.FormValue("account")
	ok := h.applyAccountChoice(c, &j, choice)
	if wantsDraft(c) {
		return h.saveDraft(c, j, AccountStepPath)
	}
	switch {
	case choice == "":
		return h.renderAccountStep(c, j, pay.FieldErrors{{Field: "account", Message: "振込先口座を選んでください"}})
	case !ok:
		return h.renderAccountStep(c, j, pay.FieldErrors{{Field: "account", Message: "選んだ口座が見つかりません。一覧から選び直してください"}})
	}
	if err := h.save(c, j); err != nil {
		return err
	}
	if j.IsNewAccount {
		return c.Redirect(http.StatusSeeOther, NewAccountPath)
	}
	return c.Redirect(http.StatusSeeOther, InvoiceStepPath)
}

func (h *Handler) applyAccountChoice(c *echo.Context, j *journey, choice string) bool {
	if choice == "new" {
		j.IsNewAccount, j.AccountID = true, 0
		return true
	}
	id, err := strconv.ParseInt(choice, 10, 64)
	if err != nil || id <= 0 {
		return false
	}
	if _, err := h.Store.SupplierAccount(c.Request().Context(), web.CurrentUser(c).BuyerID, j.SupplierID, id); err != nil {
		return false
	}
	j.AccountID, j.IsNewAccount = id, false
	return true
}
