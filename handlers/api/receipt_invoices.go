package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
)

// The received invoices (受取請求書, issue 29): the list with the search 電子帳簿保存法 asks
// for, one invoice, and the buyer's upload. Scoped by the caller's buyer: another buyer's
// invoice is 404, like one that does not exist.

type receiptAuth struct {
	SPF   string `json:"spf"`
	DKIM  string `json:"dkim"`
	DMARC string `json:"dmarc"`
}

type receiptInvoice struct {
	ID                 int64       `json:"id"`
	FileID             int64       `json:"file_id"`
	State              string      `json:"state"`
	StateLabel         string      `json:"state_label"`
	Source             string      `json:"source"`
	Sender             string      `json:"sender"`
	Subject            string      `json:"subject"`
	Auth               receiptAuth `json:"auth"`
	NewSender          bool        `json:"new_sender"`
	Disposition        string      `json:"disposition"`
	DispositionReason  string      `json:"disposition_reason"`
	TransactionDate    *string     `json:"transaction_date"`
	DueDate            *string     `json:"due_date"`
	Amount             *int64      `json:"amount"`
	Counterparty       string      `json:"counterparty"`
	RegistrationNumber string      `json:"registration_number"`
	InvoiceNumber      string      `json:"invoice_number"`
	FileName           string      `json:"file_name"`
	MediaType          string      `json:"media_type"`
	Size               int64       `json:"size"`
	SHA256             string      `json:"sha256"`
	OCRStatus          string      `json:"ocr_status"`
	PaymentID          *int64      `json:"payment_id"`
	RetainUntil        string      `json:"retain_until"`
	ReceivedAt         time.Time   `json:"received_at"`
}

type receiptInvoiceList struct {
	ReceiptInvoices []receiptInvoice `json:"receipt_invoices"`
	CountAll        int              `json:"count_all"`
	Page            int              `json:"page"`
	Size            int              `json:"size"`
}

func dateString(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.Format(time.DateOnly)
	return &s
}

func receiptInvoiceOf(r store.ReceivedInvoice) receiptInvoice {
	return receiptInvoice{
		ID: r.ID, FileID: r.FileID, State: string(r.State), StateLabel: r.State.Label(), Source: r.Source,
		Sender: r.Sender, Subject: r.Subject, Auth: receiptAuth{r.AuthSPF, r.AuthDKIM, r.AuthDMARC}, NewSender: r.NewSender,
		Disposition: string(r.Disposition), DispositionReason: r.DispositionReason,
		TransactionDate: dateString(r.KeyDate), DueDate: dateString(r.KeyDueDate), Amount: r.KeyAmount,
		Counterparty: r.KeyCounterparty, RegistrationNumber: r.KeyRegistrationNumber, InvoiceNumber: r.InvoiceNumber,
		FileName: r.OriginalName, MediaType: r.MediaType, Size: r.Size, SHA256: r.SHA256, OCRStatus: r.OCRStatus,
		PaymentID: r.PaymentID, RetainUntil: r.RetainUntil.Format(time.DateOnly), ReceivedAt: r.ReceivedAt,
	}
}

// receiptInvoices is GET receipt_invoices: one state's list or all, searched by
// transaction date and amount (ranges) and counterparty, newest first, a page at a time.
func (s *server) receiptInvoices(c *echo.Context) error {
	var errs pay.FieldErrors
	f := store.ReceivedFilter{BuyerID: caller(c).User.BuyerID}
	if v := c.QueryParam("state"); v != "" {
		if st := pay.ReceivedState(v); st.Valid() {
			f.State = st
		} else {
			errs.Add("state", "stateは new、scheduled、paid、set_aside のいずれかで指定してください")
		}
	}
	for _, d := range []struct {
		name string
		to   *time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if v := c.QueryParam(d.name); v != "" {
			t, ok := pay.ParseDate(web.Clip(v, 20))
			if !ok {
				errs.Add(d.name, d.name+"は YYYY-MM-DD の日付で指定してください")
			}
			*d.to = t
		}
	}
	for _, a := range []struct {
		name string
		to   *int64
	}{{"min", &f.Min}, {"max", &f.Max}} {
		if v := c.QueryParam(a.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 || n > pay.MaxReceivedAmount {
				errs.Add(a.name, a.name+"は1以上の整数（円）で指定してください")
			}
			*a.to = n
		}
	}
	f.Counterparty = web.Clip(c.QueryParam("counterparty"), 100)
	page := queryInt(c, "page", 0, 0, maxPage, &errs)
	size := queryInt(c, "size", defaultPageSize, 1, maxPageSize, &errs)
	if len(errs) > 0 {
		return validationError(errs)
	}
	f.Page, f.Size = page, size
	list, total, err := s.Store.ReceivedInvoices(c.Request().Context(), f)
	if err != nil {
		return err
	}
	a := receiptInvoiceList{ReceiptInvoices: make([]receiptInvoice, len(list)), CountAll: total, Page: page, Size: size}
	for i, r := range list {
		a.ReceiptInvoices[i] = receiptInvoiceOf(r)
	}
	return c.JSON(http.StatusOK, a)
}

// receiptInvoice is GET receipt_invoices/{id}.
func (s *server) receiptInvoice(c *echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	r, err := s.Store.ReceivedInvoice(c.Request().Context(), caller(c).User.BuyerID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, receiptInvoiceOf(r))
}

// uploadReceiptInvoice is POST receipt_invoices/upload (multipart, field invoice_file):
// 201 with the received invoice (its reading started), or 422 with why nothing was kept.
func (s *server) uploadReceiptInvoice(c *echo.Context) error {
	u := caller(c).User
	up, release, err := s.readUpload(c, u.BuyerID)
	defer release()
	if err != nil {
		return err
	}
	id, problem, err := s.InvoiceFiles.Receive(c.Request().Context(), u.BuyerID, up, store.NewReceivedInvoice{
		Source: store.ReceivedByUpload, Sender: u.DisplayName(), UserID: u.ID, Actor: u.Signature(),
	})
	if err != nil {
		return err
	}
	if problem != "" {
		return fileRefusal(problem)
	}
	r, err := s.Store.ReceivedInvoice(c.Request().Context(), u.BuyerID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, receiptInvoiceOf(r))
}

// receivingAddress is the buyer's address for invoices by mail.
type receivingAddress struct {
	Address   *string    `json:"address"`
	CreatedAt *time.Time `json:"created_at"`
	Domain    string     `json:"domain"`
}

// receivingAddressOf answers the buyer's active address, or null before the first.
func (s *server) receivingAddressOf(c *echo.Context, buyerID int64) error {
	a, err := s.Store.ReceivingAddress(c.Request().Context(), buyerID)
	if errors.Is(err, store.ErrNotFound) {
		return c.JSON(http.StatusOK, receivingAddress{Domain: s.InboundMailDomain})
	}
	if err != nil {
		return err
	}
	addr := a.LocalPart + "@" + s.InboundMailDomain
	return c.JSON(http.StatusOK, receivingAddress{Address: &addr, CreatedAt: &a.CreatedAt, Domain: s.InboundMailDomain})
}

// receiptInvoiceAddress is GET receipt_invoices/address: the receiving address (null
// until issued); 404 when this installation takes no mail.
func (s *server) receiptInvoiceAddress(c *echo.Context) error {
	if s.InboundMailDomain == "" {
		return web.ErrNotFound
	}
	return s.receivingAddressOf(c, caller(c).User.BuyerID)
}

// renewReceiptInvoiceAddress is POST receipt_invoices/address: a new receiving address,
// the old one retired at once (mail to it is refused from then on).
func (s *server) renewReceiptInvoiceAddress(c *echo.Context) error {
	if s.InboundMailDomain == "" {
		return web.ErrNotFound
	}
	u := caller(c).User
	if _, err := s.Store.RenewReceivingAddress(c.Request().Context(), u.BuyerID, u.ID, s.Now()); err != nil {
		return err
	}
	return s.receivingAddressOf(c, u.BuyerID)
}

// markRequest is POST receipt_invoices/{id}/mark's body.
type markRequest struct {
	Disposition string `json:"disposition"`
	Reason      string `json:"reason"`
	// From is the disposition the caller saw: a change made meanwhile answers 409.
	From string `json:"from"`
}

// markReceiptInvoice is POST receipt_invoices/{id}/mark: paid elsewhere, not to be paid
// (with a reason) or open again, as the invoice's page marks it; 422 with the problem,
// 409 when the invoice changed meanwhile or a payment of it is in progress.
func (s *server) markReceiptInvoice(c *echo.Context) error {
	u := caller(c).User
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	var req markRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	r, err := s.Store.ReceivedInvoice(ctx, u.BuyerID, id)
	if err != nil {
		return err
	}
	to := pay.Disposition(req.Disposition)
	reason, errs := pay.CheckDisposition(to, req.Reason, r.ByPayment)
	if len(errs) > 0 {
		return validationError(errs)
	}
	from := pay.Disposition(req.From)
	if from == "" {
		from = r.Disposition
	}
	err = s.Store.MarkReceivedInvoice(ctx, u.BuyerID, id, from, to, reason, u.ID, u.Signature())
	if errors.Is(err, store.ErrReceivedChanged) {
		return newError(http.StatusConflict, "conflict", "この請求書は、ほかの画面で処理されたか支払が始まったため、記録しませんでした。最新の状態を取得してください。")
	}
	if err != nil {
		return err
	}
	if r, err = s.Store.ReceivedInvoice(ctx, u.BuyerID, id); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, receiptInvoiceOf(r))
}
