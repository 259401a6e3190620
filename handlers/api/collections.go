package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// Card-payment requests (SPEC.md §7 Collections): the requester's calls (its requests,
// their drafts and its receiving accounts: corporations not on the exclusion list only,
// 403 otherwise, with nothing written), and the customer's (a request key looked up and
// linked, a request paid). Every call is scoped by the caller's buyer: another buyer's
// request, draft or account is 404.

var errNoCollections = newError(http.StatusForbidden, "forbidden", "カード払い依頼は法人のお客さまがご利用いただける機能です。")

// requester refuses callers who may not send card-payment requests.
func (s *server) requester(c *echo.Context) error {
	u := caller(c).User
	if pay.CollectionModeFor(u.BusinessForm, u.CorporateNumber, s.CollectionExclusions) != pay.CollectionEnabled {
		return errNoCollections
	}
	return nil
}

type requestCustomer struct {
	Name            string `json:"name"`
	ContactName     string `json:"contact_name"`
	EmailAddress    string `json:"email_address"`
	CorporateNumber string `json:"corporate_number"`
}

type buyerAccount struct {
	ID               int64           `json:"id"`
	BankCode         string          `json:"bank_code"`
	BankName         string          `json:"bank_name"`
	BranchCode       string          `json:"branch_code"`
	BranchName       string          `json:"branch_name"`
	AccountType      pay.AccountType `json:"account_type"`
	AccountTypeLabel string          `json:"account_type_label"`
	AccountNumber    string          `json:"account_number"`
	HolderName       string          `json:"holder_name"`
}

func buyerAccountOf(a store.BuyerAccount) buyerAccount {
	return buyerAccount{ID: a.ID, BankCode: a.BankCode, BankName: a.BankName, BranchCode: a.BranchCode, BranchName: a.BranchName,
		AccountType: a.AccountType, AccountTypeLabel: a.AccountType.Label(), AccountNumber: a.AccountNumber, HolderName: a.HolderName}
}

type requestEvent struct {
	Action      pay.PaymentAction    `json:"action"`
	ActionLabel string               `json:"action_label"`
	Status      pay.CollectionStatus `json:"status"`
	At          time.Time            `json:"at"`
}

// requestJSON is a request as its requester sees it (invoice type 3, status 1–7).
type requestJSON struct {
	ID                   int64                `json:"id"`
	InvoiceNumberDisplay string               `json:"invoice_number_display"`
	InvoiceType          pay.InvoiceType      `json:"invoice_type"`
	Status               pay.CollectionStatus `json:"status"`
	StatusLabel          string               `json:"status_label"`
	Customer             requestCustomer      `json:"customer"`
	Amount               int64                `json:"amount"`
	Fee                  int64                `json:"fee"`
	FeeRateBasisPoints   int                  `json:"fee_rate_basis_points"`
	FeeBearer            pay.FeeBearer        `json:"fee_bearer"`
	CustomerCharge       int64                `json:"customer_charge"`
	TransferAmount       int64                `json:"transfer_amount"`
	InvoiceNumber        string               `json:"invoice_number"`
	InvoiceDate          string               `json:"invoice_date"`
	Deadline             string               `json:"deadline"`
	Message              string               `json:"message"`
	FileID               *int64               `json:"file_id"`
	Account              buyerAccount         `json:"account"`
	PaidAt               *time.Time           `json:"paid_at"`
	TransferDate         string               `json:"transfer_date"`
	CreatedAt            time.Time            `json:"created_at"`
	Events               []requestEvent       `json:"events,omitempty"`
}

func requestOf(r store.Request) requestJSON {
	v := requestJSON{
		ID: r.ID, InvoiceNumberDisplay: pay.InvoiceNumber(r.ID), InvoiceType: pay.InvoiceRequestSeller, Status: r.Status(),
		StatusLabel: r.Status().Label(), Customer: requestCustomer{Name: r.CustomerName, ContactName: r.CustomerContactName,
			EmailAddress: r.CustomerEmail, CorporateNumber: r.CustomerCorporateNumber},
		Amount: r.Amount, Fee: r.Fee, FeeRateBasisPoints: r.FeeBasisPoints, FeeBearer: r.FeeBearer, CustomerCharge: r.CustomerCharge(),
		TransferAmount: r.Transfer(), InvoiceNumber: r.InvoiceNumber, InvoiceDate: isoDate(r.InvoiceDate), Deadline: pay.ISODate(r.Deadline),
		Message: r.Message, FileID: r.FileID, TransferDate: isoDate(r.TransferDate), CreatedAt: r.CreatedAt.In(pay.Tokyo()),
		Account: buyerAccount{ID: r.AccountID, BankCode: r.BankCode, BankName: r.BankName, BranchCode: r.BranchCode, BranchName: r.BranchName,
			AccountType: r.AccountType, AccountTypeLabel: r.AccountType.Label(), AccountNumber: r.AccountNumber, HolderName: r.HolderName},
	}
	if r.PaidAt != nil {
		at := r.PaidAt.In(pay.Tokyo())
		v.PaidAt = &at
	}
	return v
}

type requestList struct {
	InvoiceRequests           []requestJSON `json:"invoice_requests"`
	TotalCountInvoiceRequests int           `json:"total_count_invoice_requests"`
}

var collectionBuckets = map[string]pay.CollectionBucket{
	"": "", "request": pay.CollectionRequest, "decided": pay.CollectionDecided, "history": pay.CollectionHistory,
}

// requestSellers is GET invoices/request_sellers: one of the caller's lists (?status=
// request, decided or history; none: all), newest first, page from 0.
func (s *server) requestSellers(c *echo.Context) error {
	if err := s.requester(c); err != nil {
		return err
	}
	var errs pay.FieldErrors
	b, ok := collectionBuckets[c.QueryParam("status")]
	if !ok {
		errs.Add("status", "status は request、decided、history のいずれかを指定してください")
	}
	page := queryInt(c, "page", 0, 0, 100_000, &errs)
	size := queryInt(c, "size", 20, 0, 100, &errs)
	if len(errs) > 0 {
		return validationError(errs)
	}
	list, total, err := s.Store.Requests(c.Request().Context(), store.RequestFilter{RequesterID: caller(c).User.BuyerID,
		Bucket: b, Page: page, Size: size})
	if err != nil {
		return err
	}
	a := requestList{InvoiceRequests: make([]requestJSON, len(list)), TotalCountInvoiceRequests: total}
	for i, r := range list {
		a.InvoiceRequests[i] = requestOf(r)
	}
	return c.JSON(http.StatusOK, a)
}

// sendRequest is POST invoices/request_sellers: a request sent (the invoices.RequestFlow
// fields), once per Idempotency-Key; 201 with the request.
func (s *server) sendRequest(c *echo.Context) error {
	if err := s.requester(c); err != nil {
		return err
	}
	var f invoices.RequestFlow
	if err := decode(c, &f); err != nil {
		return err
	}
	key := strings.TrimSpace(c.Request().Header.Get(idempotencyKeyHeader))
	if key == "" || len(key) > 64 {
		return newError(http.StatusBadRequest, "bad_request", "Idempotency-Key ヘッダーに、依頼ごとに異なる64文字以内の値を指定してください。")
	}
	u := caller(c).User
	f.SubmitKey = "api-" + key
	if err := s.Account.LimitBuyer(c.Request().Context(), account.ActRequestMail, u.BuyerID); err != nil {
		return err
	}
	r, err := s.Requests.SendRequest(c.Request().Context(), u.BuyerID, f.Submission(u.ID))
	var fe pay.FieldErrors
	if errors.As(err, &fe) {
		return validationError(fe)
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, requestOf(r))
}

// requestSeller is GET invoices/{id}/request_seller: one of the caller's requests with
// its timeline.
func (s *server) requestSeller(c *echo.Context) error {
	if err := s.requester(c); err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	u := caller(c).User
	ctx := c.Request().Context()
	r, err := s.Store.Request(ctx, u.BuyerID, id)
	if err != nil {
		return err
	}
	events, err := s.Store.PaymentEvents(ctx, u.BuyerID, id)
	if err != nil {
		return err
	}
	v := requestOf(r)
	for _, e := range events {
		v.Events = append(v.Events, requestEvent{Action: e.Action, ActionLabel: e.Action.Label(),
			Status: pay.CollectionStatusOf(e.ToStatus), At: e.CreatedAt.In(pay.Tokyo())})
	}
	return c.JSON(http.StatusOK, v)
}

// cancelRequestSeller is PUT invoices/{id}/request_seller/cancel: cancelled before it is
// paid (its key stops working at once); a request past that is 409.
func (s *server) cancelRequestSeller(c *echo.Context) error {
	if err := s.requester(c); err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	u := caller(c).User
	r, err := s.Requests.CancelRequest(c.Request().Context(), u.BuyerID, id, u.ID)
	var fe pay.FieldErrors
	if errors.As(err, &fe) {
		return newError(http.StatusConflict, "invalid_state", fe[0].Message)
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, requestOf(r))
}

type keyAnswer struct {
	Key       string               `json:"key"`
	KeyStatus pay.RequestKeyStatus `json:"key_status"`
	IsUsed    bool                 `json:"is_used"`
	InvoiceID *int64               `json:"invoice_id"`
	DocNumber string               `json:"doc_number"`
}

// keyRefused answers a refused key: 400 with its status ("2": the client shows the
// message; anything else: the client's own dialog, SPEC.md §8).
func keyRefused(err error) error {
	var kr *invoices.KeyRefusal
	if errors.As(err, &kr) {
		return newError(http.StatusBadRequest, kr.Status, kr.Message)
	}
	return err
}

// requestKey is GET invoices/request_keys/{key}: the key's status for the caller (1 valid,
// 2 expired, 3 invalid), whether it was used, and the caller's invoice when they used it.
func (s *server) requestKey(c *echo.Context) error {
	key := c.Param("key")
	if err := s.Account.LimitBuyer(c.Request().Context(), account.ActRequestKey, caller(c).User.BuyerID); err != nil {
		return err
	}
	info, err := s.Requests.RequestKey(c.Request().Context(), caller(c).User.BuyerID, key)
	if err != nil {
		return keyRefused(err)
	}
	a := keyAnswer{Key: key, KeyStatus: info.Status, IsUsed: info.Used, DocNumber: info.DocNumber}
	if info.InvoiceID != 0 {
		a.InvoiceID = &info.InvoiceID
	}
	return c.JSON(http.StatusOK, a)
}

type linkKeyRequest struct {
	RequestKey string `json:"request_key"`
}

func (r linkKeyRequest) check() pay.FieldErrors {
	var errs pay.FieldErrors
	if strings.TrimSpace(r.RequestKey) == "" {
		errs.Add("request_key", msgMissing("request_key"))
	}
	return errs
}

type linkedKey struct {
	InvoiceID           int64  `json:"invoice_id"`
	BuyerDocumentNumber string `json:"buyer_document_number"`
}

// linkRequestKey is POST invoices/request_keys: the key's request becomes the caller's
// (only when valid and unused, or used by the caller); 200 with the invoice to pay.
func (s *server) linkRequestKey(c *echo.Context) error {
	var req linkKeyRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := s.Account.LimitBuyer(ctx, account.ActRequestKey, caller(c).User.BuyerID); err != nil {
		return err
	}
	b, err := s.Store.Buyer(ctx, caller(c).User.BuyerID)
	if err != nil {
		return err
	}
	id, err := s.Requests.LinkRequestKey(ctx, b, strings.TrimSpace(req.RequestKey))
	if err != nil {
		return keyRefused(err)
	}
	return c.JSON(http.StatusOK, linkedKey{InvoiceID: id, BuyerDocumentNumber: pay.InvoiceNumber(id)})
}

type payRequestBody struct {
	CardID json.Number `json:"card_id"`
}

func (r payRequestBody) check() pay.FieldErrors {
	var errs pay.FieldErrors
	if id, err := r.CardID.Int64(); err != nil || id <= 0 {
		errs.Add("card_id", "お支払いに使うカードを選んでください")
	}
	return errs
}

// payRequest is PUT invoices/{id}/requestbuyer: the customer pays a request received with
// one of their cards, once per Idempotency-Key and once in all: 200 with the invoice
// (審査中), 202 requires_action with the challenge's URL, 422 with why not.
func (s *server) payRequest(c *echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var req payRequestBody
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	key := strings.TrimSpace(c.Request().Header.Get(idempotencyKeyHeader))
	if key == "" || len(key) > 64 {
		return newError(http.StatusBadRequest, "bad_request", "Idempotency-Key ヘッダーに、支払いごとに異なる64文字以内の値を指定してください。")
	}
	cardID, _ := req.CardID.Int64()
	res, err := s.Requests.PayRequest(c.Request().Context(), caller(c).User.BuyerID, id, "api-"+key, cardID)
	return submitted(c, res, err, http.StatusOK)
}

type buyerAccountList struct {
	Accounts []buyerAccount `json:"accounts"`
}

// ownBuyer checks that the path's buyer is the caller's; another is 404.
func ownBuyer(c *echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	if id != caller(c).User.BuyerID {
		return errNotFound
	}
	return nil
}

// buyerAccounts is GET buyers/{id}/accounts: the caller's receiving accounts.
func (s *server) buyerAccounts(c *echo.Context) error {
	if err := s.requester(c); err != nil {
		return err
	}
	if err := ownBuyer(c); err != nil {
		return err
	}
	list, err := s.Store.BuyerAccounts(c.Request().Context(), caller(c).User.BuyerID)
	if err != nil {
		return err
	}
	a := buyerAccountList{Accounts: make([]buyerAccount, len(list))}
	for i, x := range list {
		a.Accounts[i] = buyerAccountOf(x)
	}
	return c.JSON(http.StatusOK, a)
}

// createBuyerAccount is POST buyers/{id}/accounts: a receiving account added (the same
// rules as a supplier's: the zengin bank and branch, the holder name in zengin form).
func (s *server) createBuyerAccount(c *echo.Context) error {
	if err := s.requester(c); err != nil {
		return err
	}
	var req pay.AccountInput
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := ownBuyer(c); err != nil {
		return err
	}
	var errs pay.FieldErrors
	f := checkAccount(req, "", &errs)
	if len(errs) > 0 {
		return validationError(errs)
	}
	a, err := s.Store.CreateBuyerAccount(c.Request().Context(), caller(c).User.BuyerID, f)
	if err != nil {
		return accountWriteError(err, "")
	}
	return c.JSON(http.StatusCreated, buyerAccountOf(a))
}
