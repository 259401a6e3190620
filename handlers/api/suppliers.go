package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/banks"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
)

// The supplier calls of SPEC.md §7. Every one is scoped by the caller's buyer: another
// buyer's supplier or account answers 404, exactly like one that does not exist.

// supplier is a registered supplier as the API shows it.
type supplier struct {
	ID              int64              `json:"id"`
	BusinessForm    pay.BusinessForm   `json:"business_form"`
	Name            string             `json:"name"`
	NameKana        string             `json:"name_kana"`
	CorporateNumber string             `json:"corporate_number"`
	BusinessName    string             `json:"business_name"`
	Status          pay.SupplierStatus `json:"status"`
	StatusLabel     string             `json:"status_label"`
	CreatedAt       time.Time          `json:"created_at"`
}

func supplierOf(s store.Supplier) supplier {
	return supplier{
		ID: s.ID, BusinessForm: s.BusinessForm, Name: s.Name, NameKana: s.NameKana,
		CorporateNumber: s.CorporateNumber, BusinessName: s.BusinessName,
		Status: s.Status, StatusLabel: s.Status.Label(), CreatedAt: s.CreatedAt.In(pay.Tokyo()),
	}
}

// supplierDetail is a supplier with its bank accounts (the list leaves them out).
type supplierDetail struct {
	supplier
	Accounts []supplierAccount `json:"accounts"`
}

// supplierAccount is one bank account of a supplier. account_type is our code (2 普通,
// 1 当座), never the banks' zengin code.
type supplierAccount struct {
	ID               int64           `json:"id"`
	SupplierID       int64           `json:"supplier_id"`
	BankCode         string          `json:"bank_code"`
	BankName         string          `json:"bank_name"`
	BranchCode       string          `json:"branch_code"`
	BranchName       string          `json:"branch_name"`
	AccountType      pay.AccountType `json:"account_type"`
	AccountTypeLabel string          `json:"account_type_label"`
	AccountNumber    string          `json:"account_number"`
	HolderName       string          `json:"holder_name"`
}

func accountOf(a store.SupplierAccount) supplierAccount {
	return supplierAccount{
		ID: a.ID, SupplierID: a.SupplierID, BankCode: a.BankCode, BankName: a.BankName,
		BranchCode: a.BranchCode, BranchName: a.BranchName, AccountType: a.AccountType,
		AccountTypeLabel: a.AccountType.Label(), AccountNumber: a.AccountNumber, HolderName: a.HolderName,
	}
}

func accountsOf(list []store.SupplierAccount) []supplierAccount {
	out := make([]supplierAccount, len(list))
	for i, a := range list {
		out[i] = accountOf(a)
	}
	return out
}

// Messages of the supplier calls.
const (
	msgSupplierInUse    = "支払いが進行中のため、この取引先は削除できません。支払いが完了するか、キャンセルされてから削除してください。"
	msgAccountInUse     = "この口座への支払いが進行中のため、口座情報は変更できません。支払いが完了するか、キャンセルされてから変更してください。"
	msgDuplicateAccount = "同じ口座がこの取引先に既に登録されています。金融機関・支店・口座種別・口座番号をご確認ください"
)

// checkAccount normalises and checks an account against the zengin data; field names of
// the errors get prefix ("account." inside a supplier).
func checkAccount(in pay.AccountInput, prefix string, errs *pay.FieldErrors) store.AccountFields {
	a, aerrs := in.Check(banks.Directory{})
	for _, e := range aerrs {
		errs.Add(prefix+e.Field, e.Message)
	}
	return store.AccountFieldsOf(a)
}

// accountWriteError answers the store's refusals of an account write.
func accountWriteError(err error, prefix string) error {
	switch {
	case errors.Is(err, store.ErrDuplicateAccount):
		return fieldError(prefix+"account_number", msgDuplicateAccount)
	case errors.Is(err, store.ErrSupplierInUse):
		return newError(http.StatusConflict, "supplier_in_use", msgAccountInUse)
	}
	return err
}

// idParam reads a positive numeric path parameter; anything else is not found.
func idParam(c *echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, errNotFound
	}
	return id, nil
}

type supplierRequest struct {
	Name            string            `json:"name"`
	NameKana        string            `json:"name_kana"`
	CorporateNumber string            `json:"corporate_number"`
	BusinessName    string            `json:"business_name"`
	Account         *pay.AccountInput `json:"account"`
}

func (s *server) createCorporationSupplier(c *echo.Context) error {
	return s.createSupplier(c, pay.Corporation)
}

func (s *server) createSoleProprietorSupplier(c *echo.Context) error {
	return s.createSupplier(c, pay.SoleProprietor)
}

// createSupplier is POST suppliers/corporation and suppliers/sole_proprietor: the
// wizard's answers, the supplier and optionally its first account, saved together or
// not at all. The business form is the path's; a new supplier is 未承認 until the
// operators have checked it.
func (s *server) createSupplier(c *echo.Context, form pay.BusinessForm) error {
	var req supplierRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	in := pay.SupplierInput{
		BusinessForm: form, Name: req.Name, NameKana: req.NameKana,
		CorporateNumber: req.CorporateNumber, BusinessName: req.BusinessName,
	}
	in.Normalise()
	errs := in.Validate()
	var acct *store.AccountFields
	if req.Account != nil {
		f := checkAccount(*req.Account, "account.", &errs)
		acct = &f
	}
	if len(errs) > 0 {
		return validationError(errs)
	}
	ctx := c.Request().Context()
	buyerID := caller(c).User.BuyerID
	sp, err := s.Store.CreateSupplier(ctx, buyerID, in, acct)
	if err != nil {
		return accountWriteError(err, "account.")
	}
	return s.answerSupplier(c, http.StatusCreated, sp)
}

func (s *server) answerSupplier(c *echo.Context, code int, sp store.Supplier) error {
	list, err := s.Store.SupplierAccounts(c.Request().Context(), sp.BuyerID, sp.ID)
	if err != nil {
		return err
	}
	return c.JSON(code, supplierDetail{supplier: supplierOf(sp), Accounts: accountsOf(list)})
}

type supplierList struct {
	Suppliers []supplier `json:"suppliers"`
	CountAll  int        `json:"count_all"`
	Page      int        `json:"page"`
	Size      int        `json:"size"`
}

// suppliers is GET suppliers?status=…&page=&size=: one page of the buyer's suppliers
// of the status list (SPEC.md §7; pay.ParseSupplierStatuses: status repeated or
// comma-separated, each a group, enable or disable, or a status, Approved, Escalation,
// Unapproved, Rejected or 1–4; the enabled group when not given), newest first, and how
// many the list has in all. Stats ask for page 0, size 1 and read count_all.
func (s *server) suppliers(c *echo.Context) error {
	var errs pay.FieldErrors
	statuses, bad, ok := pay.ParseSupplierStatuses(c.QueryParams()["status"])
	if !ok {
		errs.Add("status", "statusの「"+web.Clip(bad, 20)+"」は指定できません。enable（有効：承認済・確認中・未承認）、disable（否認）、"+
			"または Approved（承認済）、Escalation（確認中）、Unapproved（未承認）、Rejected（否認）をカンマ区切りか繰り返しで指定してください")
	}
	page := queryInt(c, "page", 0, 0, maxPage, &errs)
	size := queryInt(c, "size", defaultPageSize, 1, maxPageSize, &errs)
	if len(errs) > 0 {
		return validationError(errs)
	}
	list, total, err := s.Store.Suppliers(c.Request().Context(), store.SupplierFilter{
		BuyerID: caller(c).User.BuyerID, Statuses: statuses, Page: page, Size: size,
	})
	if err != nil {
		return err
	}
	a := supplierList{Suppliers: make([]supplier, len(list)), CountAll: total, Page: page, Size: size}
	for i, sp := range list {
		a.Suppliers[i] = supplierOf(sp)
	}
	return c.JSON(http.StatusOK, a)
}

// supplierFromPath loads the :id supplier of the caller's buyer.
func (s *server) supplierFromPath(c *echo.Context) (store.Supplier, error) {
	id, err := idParam(c, "id")
	if err != nil {
		return store.Supplier{}, err
	}
	return s.Store.Supplier(c.Request().Context(), caller(c).User.BuyerID, id)
}

// supplier is GET suppliers/{id}, with its accounts.
func (s *server) supplier(c *echo.Context) error {
	sp, err := s.supplierFromPath(c)
	if err != nil {
		return err
	}
	return s.answerSupplier(c, http.StatusOK, sp)
}

// deleteSupplier is DELETE suppliers/{id}. A supplier with a payment in progress stays
// (409 supplier_in_use): the money would have nowhere to go.
func (s *server) deleteSupplier(c *echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	err = s.Store.DeleteSupplier(c.Request().Context(), caller(c).User.BuyerID, id)
	if errors.Is(err, store.ErrSupplierInUse) {
		return newError(http.StatusConflict, "supplier_in_use", msgSupplierInUse)
	}
	if err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

type accountList struct {
	Accounts []supplierAccount `json:"accounts"`
}

// supplierAccounts is GET suppliers/{id}/accounts.
func (s *server) supplierAccounts(c *echo.Context) error {
	sp, err := s.supplierFromPath(c)
	if err != nil {
		return err
	}
	list, err := s.Store.SupplierAccounts(c.Request().Context(), sp.BuyerID, sp.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, accountList{Accounts: accountsOf(list)})
}

// readAccount decodes an account body for the :id supplier of the caller, and the
// :accountId account when the route has one. The body is read first, so a broken body is
// always 400 whatever the path; then ids that are not the caller's are 404 before the
// details are judged.
func (s *server) readAccount(c *echo.Context) (sp store.Supplier, accountID int64, f store.AccountFields, err error) {
	var req pay.AccountInput
	if err := decode(c, &req); err != nil {
		return sp, 0, f, err
	}
	if c.Param("accountId") != "" {
		if accountID, err = idParam(c, "accountId"); err != nil {
			return sp, 0, f, err
		}
	}
	if sp, err = s.supplierFromPath(c); err != nil {
		return sp, 0, f, err
	}
	if accountID != 0 {
		if _, err := s.Store.SupplierAccount(c.Request().Context(), sp.BuyerID, sp.ID, accountID); err != nil {
			return sp, 0, f, err
		}
	}
	var errs pay.FieldErrors
	f = checkAccount(req, "", &errs)
	if len(errs) > 0 {
		return sp, 0, f, validationError(errs)
	}
	return sp, accountID, f, nil
}

// StepUpHeader carries the step-up code of a bank-account change (account.StepUp).
const StepUpHeader = "X-Step-Up-Code"

// stepUp lets a bank-account change through only when the caller's sign-in (its
// user_sessions row: the token family's, or the browser session's) gave the second
// factor within account.StepUpWindow, or the request's X-Step-Up-Code is right (which
// makes it fresh). Otherwise the answer is 403 step_up_required, a mailed code being on
// its way for mail users, and nothing changes.
func (s *server) stepUp(c *echo.Context) error {
	u := caller(c).User
	ctx := c.Request().Context()
	fresh, err := s.Account.StepUpFresh(ctx, u)
	if err != nil || fresh {
		return err
	}
	code := strings.TrimSpace(c.Request().Header.Get(StepUpHeader))
	if code == "" {
		if err := s.Account.EnsureStepUpCode(ctx, u); err != nil {
			return err
		}
		return stepUpRequired(u, account.StepUpMessage(u))
	}
	err = s.Account.StepUp(ctx, u, code)
	if r, ok := account.AsRefusal(err); ok && r.RetryAfter == 0 {
		return stepUpRequired(u, r.Message)
	}
	return err
}

func stepUpRequired(u store.User, message string) *apiError {
	e := newError(http.StatusForbidden, "step_up_required", account.StepUpMessage(u))
	e.Method = account.StepUpMethod(u)
	e.Errors = pay.FieldErrors{{Field: account.StepUpField, Message: message}}
	return e
}

// createSupplierAccount is POST suppliers/{id}/accounts. An approved supplier goes back
// to 未承認: operators check where money goes before it goes there.
func (s *server) createSupplierAccount(c *echo.Context) error {
	sp, _, f, err := s.readAccount(c)
	if err != nil {
		return err
	}
	if err := s.stepUp(c); err != nil {
		return err
	}
	a, err := s.Store.CreateSupplierAccount(c.Request().Context(), sp.BuyerID, sp.ID, f)
	if err != nil {
		return accountWriteError(err, "")
	}
	return c.JSON(http.StatusCreated, accountOf(a))
}

// updateSupplierAccount is PUT suppliers/{id}/accounts/{accountId}: replaces the
// account's details, and sends an approved supplier back to 未承認 as a new account
// does. An account a payment in progress will transfer to is 409.
func (s *server) updateSupplierAccount(c *echo.Context) error {
	sp, id, f, err := s.readAccount(c)
	if err != nil {
		return err
	}
	if err := s.stepUp(c); err != nil {
		return err
	}
	a, err := s.Store.UpdateSupplierAccount(c.Request().Context(), sp.BuyerID, sp.ID, id, f)
	if err != nil {
		return accountWriteError(err, "")
	}
	return c.JSON(http.StatusOK, accountOf(a))
}

// corporation is a public registry entry (法人番号公表サイト).
type corporation struct {
	CorporateNumber string `json:"corporate_number"`
	Name            string `json:"name"`
	NameKana        string `json:"name_kana"`
	Address         string `json:"address"`
}

type corporationList struct {
	Corporations []corporation `json:"corporations"`
}

// corporationQueryMax bounds the search text; no corporate name comes close.
const corporationQueryMax = 100

// corporations is GET corporations?q=&limit=: 法人名検索 for the add-supplier wizard,
// by a part of the name or its reading, or by the corporate number (its start, or all
// 13 digits, which must then pass the check digit).
func (s *server) corporations(c *echo.Context) error {
	var errs pay.FieldErrors
	q := queryText(c, "q", "法人名または法人番号", corporationQueryMax, &errs)
	if q == "" && len(errs) == 0 {
		errs.Add("q", "法人名または法人番号を入力してください")
	}
	limit := queryInt(c, "limit", defaultPageSize, 1, maxPageSize, &errs)
	if number, msg, ok := pay.CorporateNumberQuery(q); len(errs) == 0 && ok {
		// A number typed with hyphens, spaces or full-width digits is a number.
		q = number
		errs.Add("q", msg)
	}
	if len(errs) > 0 {
		return validationError(errs)
	}
	list, err := s.Corporations.Search(c.Request().Context(), q, limit)
	if err != nil {
		return err
	}
	a := corporationList{Corporations: make([]corporation, 0, min(limit, len(list)))}
	for _, co := range list[:min(limit, len(list))] {
		a.Corporations = append(a.Corporations, corporation{
			CorporateNumber: co.CorporateNumber, Name: co.Name, NameKana: co.NameKana, Address: co.Address,
		})
	}
	return c.JSON(http.StatusOK, a)
}

// queryText reads a free-text query parameter, spaces tidied, at most max characters;
// text that is not UTF-8 or has control characters is refused with a message naming
// label. "" when it is missing or refused.
func queryText(c *echo.Context, name, label string, max int, errs *pay.FieldErrors) string {
	v := c.QueryParam(name)
	switch {
	case !utf8.ValidString(v):
		errs.Add(name, label+"に読み取れない文字が含まれています。入力し直してください")
		return ""
	case strings.ContainsFunc(v, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }):
		errs.Add(name, label+"に使用できない文字が含まれています")
		return ""
	}
	v = pay.NormalizeSpaces(v)
	if n := utf8.RuneCountInString(v); n > max {
		errs.Add(name, fmt.Sprintf("%sは%d文字以内で入力してください（現在%d文字）", label, max, n))
		return ""
	}
	return v
}
