package collections

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/banks"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/collections"
)

const bankStepTitle = "カード払い依頼：入金先口座の選択"

// ShowBankStep asks which of the requester's receiving accounts is paid, or a new one.
func (h *Handler) ShowBankStep(c *echo.Context) error {
	j, missing := h.load(c, BankStepPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	return h.renderBankStep(c, j, nil)
}

func (h *Handler) renderBankStep(c *echo.Context, j journey, errs pay.FieldErrors) error {
	accts, err := h.Store.BuyerAccounts(c.Request().Context(), web.CurrentUser(c).BuyerID)
	if err != nil {
		return err
	}
	v := pages.BankStepView{Action: BankStepPath}
	if j.AccountID != 0 {
		v.Value = idString(j.AccountID)
	}
	for _, a := range accts {
		v.Options = append(v.Options, views.FieldOption{Value: idString(a.ID), Label: accountLabel(a), Hint: "口座名義 " + a.HolderName})
	}
	v.Options = append(v.Options, views.FieldOption{Value: "new", Label: "新しい口座を登録する", Hint: "入金を受ける口座が一覧にない場合"})
	return web.Show(h.App, c, bankStepTitle, errs, v, pages.BankStepPage)
}

func accountLabel(a store.BuyerAccount) string {
	return a.BankName + "　" + a.BranchName + "　" + a.AccountType.Label() + "　" + a.AccountNumber
}

// ChooseBank takes the account, or goes to the new account's form.
func (h *Handler) ChooseBank(c *echo.Context) error {
	j, missing := h.load(c, BankStepPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	choice := c.FormValue("account")
	ok := false
	if id, err := strconv.ParseInt(choice, 10, 64); err == nil && id > 0 {
		if _, err := h.Store.BuyerAccount(c.Request().Context(), web.CurrentUser(c).BuyerID, id); err == nil {
			j.AccountID, ok = id, true
		}
	}
	if wantsDraft(c) {
		return h.saveDraft(c, j, BankStepPath)
	}
	switch {
	case choice == "new":
		return c.Redirect(http.StatusSeeOther, NewBankPath)
	case choice == "":
		return h.renderBankStep(c, j, pay.FieldErrors{{Field: "account", Message: "入金先口座を選んでください"}})
	case !ok:
		return h.renderBankStep(c, j, pay.FieldErrors{{Field: "account", Message: "選んだ口座が見つかりません。一覧から選び直してください"}})
	}
	j.BankDone = true
	if err := h.save(c, j); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, ConfirmPath)
}

func newBankForm() web.BankAccountForm {
	return web.BankAccountForm{
		Title: "カード払い依頼：入金先口座の登録", Heading: "入金先口座の登録", Href: NewBankPath, SubmitLabel: "登録して次へ",
		Lead:     "お客さまのお支払いをお振り込みする、貴社名義の口座を入力してください。登録した口座は次の依頼でも選べます。",
		BackHref: BankStepPath, BackLabel: "登録済みの口座から選ぶ", Steps: pages.StepIndicator(1),
	}
}

// ShowNewBank asks for a new receiving account: the bank, the branch, then its details.
func (h *Handler) ShowNewBank(c *echo.Context) error {
	if _, missing := h.load(c, NewBankPath); missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	return h.RenderBankAccountForm(c, newBankForm(), web.WithQueryChoices(c, pay.AccountInput{}), nil)
}

// SaveNewBank registers the account (it is the requester's own: kept whether or not the
// request is sent), chooses it and goes on to the check.
func (h *Handler) SaveNewBank(c *echo.Context) error {
	j, missing := h.load(c, NewBankPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	in := web.BankAccountFormValues(c)
	checked, errs := in.Check(banks.Directory{})
	if len(errs) > 0 {
		return h.RenderBankAccountForm(c, newBankForm(), in, errs)
	}
	a, err := h.Store.CreateBuyerAccount(c.Request().Context(), web.CurrentUser(c).BuyerID, store.AccountFieldsOf(checked))
	if errors.Is(err, store.ErrDuplicateAccount) {
		return h.RenderBankAccountForm(c, newBankForm(), in, pay.FieldErrors{{Field: "account_number",
			Message: "この口座は既に登録されています。「登録済みの口座から選ぶ」から選んでください"}})
	}
	if err != nil {
		return err
	}
	j.AccountID, j.BankDone = a.ID, true
	if err := h.save(c, j); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "入金先口座を登録しました"})
	return c.Redirect(http.StatusSeeOther, ConfirmPath)
}
