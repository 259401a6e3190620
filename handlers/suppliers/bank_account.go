package suppliers

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
)

func newBankAccountForm(s store.Supplier) web.BankAccountForm {
	return web.BankAccountForm{
		Title: "口座の追加：" + s.Name, Heading: "振込先口座の追加",
		Lead: "「" + s.Name + "」の振込先口座を追加します。追加すると、取引先は改めて確認されます。",
		Href: NewBankAccountPath(s.ID), SubmitLabel: "口座を追加する",
		BackHref: SupplierPath(s.ID), BackLabel: s.Name + "の画面へ戻る",
	}
}

func editBankAccountForm(s store.Supplier, bankAccountID int64) web.BankAccountForm {
	return web.BankAccountForm{
		Title: "口座の編集：" + s.Name, Heading: "振込先口座の編集",
		Lead: "「" + s.Name + "」の振込先口座を変更します。変更すると、取引先は改めて確認されます。",
		Href: EditBankAccountPath(s.ID, bankAccountID), SubmitLabel: "変更を保存する",
		BackHref: SupplierPath(s.ID), BackLabel: s.Name + "の画面へ戻る",
	}
}

// NewBankAccountPattern and EditBankAccountPattern are a supplier's account forms and
// where they post.
const (
	NewBankAccountPattern  = "/suppliers/:id/accounts/new"
	EditBankAccountPattern = "/suppliers/:id/accounts/:accountid/edit"
)

// NewBankAccountPath is the new-account form of supplier id.
func NewBankAccountPath(id int64) string { return SupplierPath(id) + "/accounts/new" }

// EditBankAccountPath is the edit form of a supplier's bank account.
func EditBankAccountPath(id, accountID int64) string {
	return SupplierPath(id) + "/accounts/" + strconv.FormatInt(accountID, 10) + "/edit"
}

// ShowNewBankAccountPage adds a bank account to a supplier.
func (h *Handler) ShowNewBankAccountPage(c *echo.Context) error {
	s, err := h.supplierFromPath(c)
	if err != nil {
		return err
	}
	f := newBankAccountForm(s)
	if f.StepUp, err = h.StepUpFor(c, *web.CurrentUser(c)); err != nil {
		return err
	}
	return h.RenderBankAccountForm(c, f, web.WithQueryChoices(c, pay.AccountInput{}), nil)
}

// CreateBankAccount saves the new bank account; the supplier is checked again.
func (h *Handler) CreateBankAccount(c *echo.Context) error {
	s, err := h.supplierFromPath(c)
	if err != nil {
		return err
	}
	in := web.BankAccountFormValues(c)
	checked, errs := in.Check(banks.Directory{})
	// Where money goes changes only with a fresh second factor (account.StepUp).
	stepErrs, err := h.CheckStepUp(c, *web.CurrentUser(c))
	if err != nil {
		return err
	}
	if len(errs) == 0 && len(stepErrs) == 0 {
		_, err = h.Store.CreateSupplierAccount(c.Request().Context(), s.BuyerID, s.ID, store.AccountFieldsOf(checked))
		errs, err = bankAccountSaveErrors(err)
	}
	if err != nil {
		return err
	}
	if errs = append(errs, stepErrs...); len(errs) > 0 {
		f := newBankAccountForm(s)
		if f.StepUp, err = h.StepUpFor(c, *web.CurrentUser(c)); err != nil {
			return err
		}
		return h.RenderBankAccountForm(c, f, in, errs)
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "口座を追加しました", Text: checked.BankName + "　" + checked.BranchName + "の口座を追加しました。"})
	return c.Redirect(http.StatusSeeOther, SupplierPath(s.ID))
}

// bankAccountSaveErrors turns the store's refusals into messages at the field they
// concern.
func bankAccountSaveErrors(err error) (pay.FieldErrors, error) {
	switch {
	case errors.Is(err, store.ErrDuplicateAccount):
		return pay.FieldErrors{{Field: "account_number", Message: "この口座は既にこの取引先に登録されています"}}, nil
	case errors.Is(err, store.ErrSupplierInUse):
		return pay.FieldErrors{{Field: "account_number", Message: "この口座への支払いが進行中のため変更できません。支払いが完了してから変更するか、新しい口座を追加してください"}}, nil
	}
	return nil, err
}

// bankAccountFromPath loads the :id supplier of the signed-in buyer and its
// :accountid bank account.
func (h *Handler) bankAccountFromPath(c *echo.Context) (store.Supplier, store.SupplierAccount, error) {
	s, err := h.supplierFromPath(c)
	if err != nil {
		return s, store.SupplierAccount{}, err
	}
	id, err := web.IDParam(c, "accountid")
	if err != nil {
		return s, store.SupplierAccount{}, err
	}
	acct, err := h.Store.SupplierAccount(c.Request().Context(), s.BuyerID, s.ID, id)
	return s, acct, err
}

// ShowEditBankAccountPage changes one of a supplier's bank accounts, starting from its
// current values.
func (h *Handler) ShowEditBankAccountPage(c *echo.Context) error {
	s, acct, err := h.bankAccountFromPath(c)
	if err != nil {
		return err
	}
	in := pay.AccountInput{BankCode: acct.BankCode, BranchCode: acct.BranchCode, AccountType: acct.AccountType,
		AccountNumber: acct.AccountNumber, HolderName: acct.HolderName}
	f := editBankAccountForm(s, acct.ID)
	if f.StepUp, err = h.StepUpFor(c, *web.CurrentUser(c)); err != nil {
		return err
	}
	return h.RenderBankAccountForm(c, f, web.WithQueryChoices(c, in), nil)
}

// UpdateBankAccount saves the changed bank account; the supplier is checked again.
func (h *Handler) UpdateBankAccount(c *echo.Context) error {
	s, acct, err := h.bankAccountFromPath(c)
	if err != nil {
		return err
	}
	in := web.BankAccountFormValues(c)
	checked, errs := in.Check(banks.Directory{})
	stepErrs, err := h.CheckStepUp(c, *web.CurrentUser(c))
	if err != nil {
		return err
	}
	if len(errs) == 0 && len(stepErrs) == 0 {
		_, err = h.Store.UpdateSupplierAccount(c.Request().Context(), s.BuyerID, s.ID, acct.ID, store.AccountFieldsOf(checked))
		errs, err = bankAccountSaveErrors(err)
	}
	if err != nil {
		return err
	}
	if errs = append(errs, stepErrs...); len(errs) > 0 {
		f := editBankAccountForm(s, acct.ID)
		if f.StepUp, err = h.StepUpFor(c, *web.CurrentUser(c)); err != nil {
			return err
		}
		return h.RenderBankAccountForm(c, f, in, errs)
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "口座を変更しました", Text: checked.BankName + "　" + checked.BranchName + "の口座に変更しました。"})
	return c.Redirect(http.StatusSeeOther, SupplierPath(s.ID))
}
