package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/banks"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

func newAccountForm(s store.Supplier) accountForm {
	id := strconv.FormatInt(s.ID, 10)
	return accountForm{
		title: "口座の追加：" + s.Name, heading: "振込先口座の追加",
		lead: "「" + s.Name + "」の振込先口座を追加します。追加すると、取引先は改めて確認されます。",
		href: "/suppliers/" + id + "/accounts/new", submitLabel: "口座を追加する",
		backHref: "/suppliers/" + id, backLabel: s.Name + "の画面へ戻る",
	}
}

func editAccountForm(s store.Supplier, accountID int64) accountForm {
	id := strconv.FormatInt(s.ID, 10)
	return accountForm{
		title: "口座の編集：" + s.Name, heading: "振込先口座の編集",
		lead: "「" + s.Name + "」の振込先口座を変更します。変更すると、取引先は改めて確認されます。",
		href: "/suppliers/" + id + "/accounts/" + strconv.FormatInt(accountID, 10) + "/edit", submitLabel: "変更を保存する",
		backHref: "/suppliers/" + id, backLabel: s.Name + "の画面へ戻る",
	}
}

func (a *App) showNewAccountPage(c *echo.Context) error {
	s, err := a.supplierFromPath(c)
	if err != nil {
		return err
	}
	return a.renderAccountForm(c, newAccountForm(s), withQueryChoices(c, pay.AccountInput{}), nil)
}

func (a *App) createAccount(c *echo.Context) error {
	s, err := a.supplierFromPath(c)
	if err != nil {
		return err
	}
	in := accountFormValues(c)
	checked, errs := in.Check(banks.Directory{})
	if len(errs) == 0 {
		_, err = a.Store.CreateSupplierAccount(c.Request().Context(), s.BuyerID, s.ID, store.AccountFieldsOf(checked))
		errs, err = accountSaveErrors(err)
	}
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return a.renderAccountForm(c, newAccountForm(s), in, errs)
	}
	a.setFlash(c, views.Flash{Color: "success", Title: "口座を追加しました", Text: checked.BankName + "　" + checked.BranchName + "の口座を追加しました。"})
	return c.Redirect(http.StatusSeeOther, "/suppliers/"+strconv.FormatInt(s.ID, 10))
}

// accountSaveErrors turns the store's refusals into messages at the field they concern.
func accountSaveErrors(err error) (pay.FieldErrors, error) {
	switch {
	case errors.Is(err, store.ErrDuplicateAccount):
		return pay.FieldErrors{{Field: "account_number", Message: "この口座は既にこの取引先に登録されています"}}, nil
	case errors.Is(err, store.ErrSupplierInUse):
		return pay.FieldErrors{{Field: "account_number", Message: "この口座への支払いが進行中のため変更できません。支払いが完了してから変更するか、新しい口座を追加してください"}}, nil
	}
	return nil, err
}

func (a *App) accountFromPath(c *echo.Context) (store.Supplier, store.SupplierAccount, error) {
	s, err := a.supplierFromPath(c)
	if err != nil {
		return s, store.SupplierAccount{}, err
	}
	id, err := idParam(c, "accountid")
	if err != nil {
		return s, store.SupplierAccount{}, err
	}
	acct, err := a.Store.SupplierAccount(c.Request().Context(), s.BuyerID, s.ID, id)
	return s, acct, err
}

func (a *App) showEditAccountPage(c *echo.Context) error {
	s, acct, err := a.accountFromPath(c)
	if err != nil {
		return err
	}
	in := pay.AccountInput{BankCode: acct.BankCode, BranchCode: acct.BranchCode, AccountType: acct.AccountType,
		AccountNumber: acct.AccountNumber, HolderName: acct.HolderName}
	return a.renderAccountForm(c, editAccountForm(s, acct.ID), withQueryChoices(c, in), nil)
}

func (a *App) updateAccount(c *echo.Context) error {
	s, acct, err := a.accountFromPath(c)
	if err != nil {
		return err
	}
	in := accountFormValues(c)
	checked, errs := in.Check(banks.Directory{})
	if len(errs) == 0 {
		_, err = a.Store.UpdateSupplierAccount(c.Request().Context(), s.BuyerID, s.ID, acct.ID, store.AccountFieldsOf(checked))
		errs, err = accountSaveErrors(err)
	}
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return a.renderAccountForm(c, editAccountForm(s, acct.ID), in, errs)
	}
	a.setFlash(c, views.Flash{Color: "success", Title: "口座を変更しました", Text: checked.BankName + "　" + checked.BranchName + "の口座に変更しました。"})
	return c.Redirect(http.StatusSeeOther, "/suppliers/"+strconv.FormatInt(s.ID, 10))
}
