package api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/banks"
	"cardpay/cards"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// The payment calls of SPEC.md §7 Invoices, with the rules of the payment pages (package
// invoices): submit, the lists and their counts, one invoice, correct after a send-back,
// cancel, the fee and promotion codes. Every one is scoped by the caller's buyer: another
// buyer's invoice, supplier, account, card or file is 404, exactly like one that does not
// exist.

// invoiceSupplier names an invoice's supplier.
type invoiceSupplier struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// invoiceCard is the card an invoice is paid with: never more than brand and last 4.
type invoiceCard struct {
	ID    int64         `json:"id"`
	Brand pay.CardBrand `json:"brand"`
	Last4 string        `json:"last4"`
}

type invoiceEvent struct {
	Action      pay.PaymentAction     `json:"action"`
	ActionLabel string                `json:"action_label"`
	Status      pay.ExaminationStatus `json:"status"`
	Reason      string                `json:"reason"`
	At          time.Time             `json:"at"`
}

// invoiceJSON is an invoice as the API shows it; the detail call adds the account, the
// card and the timeline.
type invoiceJSON struct {
	ID                   int64                 `json:"id"`
	InvoiceNumberDisplay string                `json:"invoice_number_display"`
	InvoiceType          pay.InvoiceType       `json:"invoice_type"`
	Status               pay.ExaminationStatus `json:"status"`
	StatusLabel          string                `json:"status_label"`
	ActionRequired       bool                  `json:"action_required"`
	SendBackReason       string                `json:"send_back_reason"`
	Supplier             invoiceSupplier       `json:"supplier"`
	Amount               int64                 `json:"amount"`
	Fee                  int64                 `json:"fee"`
	FeeRateBasisPoints   int                   `json:"fee_rate_basis_points"`
	Total                int64                 `json:"total"`
	PromotionCode        string                `json:"promotion_code"`
	InvoiceNumber        string                `json:"invoice_number"`
	InvoiceDate          string                `json:"invoice_date"`
	DueDate              string                `json:"due_date"`
	TransferDate         string                `json:"transfer_date"`
	RegistrationNumber   string                `json:"registration_number"`
	Memo                 string                `json:"memo"`
	CardStatus           pay.CardStatus        `json:"card_status"`
	Cancelable           bool                  `json:"cancelable"`
	CancelRefusal        string                `json:"cancel_refusal"`
	FileID               *int64                `json:"file_id"`
	SubmittedAt          *time.Time            `json:"submitted_at"`
	Account              *supplierAccount      `json:"account,omitempty"`
	Card                 *invoiceCard          `json:"card,omitempty"`
	Events               []invoiceEvent        `json:"events,omitempty"`
}

func isoDate(t *time.Time) string {
	if t == nil {
		return ""
	}
	return pay.ISODate(*t)
}

func invoiceOf(p store.Payment) invoiceJSON {
	v := invoiceJSON{
		ID: p.ID, InvoiceNumberDisplay: pay.InvoiceNumber(p.ID), InvoiceType: p.InvoiceType, Status: p.ExaminationStatus,
		StatusLabel: p.ExaminationStatus.Label(), ActionRequired: p.ActionRequired, SendBackReason: p.SendBackReason,
		Cancelable: pay.BuyerCanCancel(p.State()), CancelRefusal: invoices.CancelRefusal(p),
		Supplier: invoiceSupplier{ID: p.SupplierID, Name: p.SupplierName}, Amount: p.Amount, Fee: p.Fee,
		FeeRateBasisPoints: p.FeeBasisPoints, Total: p.Total(), PromotionCode: p.PromotionCode, InvoiceNumber: p.InvoiceNumber,
		InvoiceDate: isoDate(p.InvoiceDate), DueDate: isoDate(p.DueDate), TransferDate: isoDate(p.TransferDate),
		RegistrationNumber: p.RegistrationNumber, Memo: p.Memo, CardStatus: p.CardStatus, FileID: p.FileID,
	}
	if p.SubmittedAt != nil {
		at := p.SubmittedAt.In(pay.Tokyo())
		v.SubmittedAt = &at
	}
	return v
}

// idempotencyKeyHeader carries a submission's one-time key: the same key again answers
// the same invoice and never authorises twice.
const idempotencyKeyHeader = "Idempotency-Key"

// submitInvoice is POST invoices: a payment submitted (SPEC.md §3 payment flow data as
// JSON, the invoices.Flow fields). 201 with the invoice (審査中); 202 requires_action with
// the 3-D Secure challenge's URL; 422 card_declined with the gateway's message and code.
func (s *server) submitInvoice(c *echo.Context) error {
	var f invoices.Flow
	if err := decode(c, &f); err != nil {
		return err
	}
	key := strings.TrimSpace(c.Request().Header.Get(idempotencyKeyHeader))
	if key == "" || len(key) > 64 {
		return newError(http.StatusBadRequest, "bad_request", "Idempotency-Key ヘッダーに、申請ごとに異なる64文字以内の値を指定してください。")
	}
	u := caller(c).User
	sub := f.Submission(u.ID)
	sub.SubmitKey = "api-" + key
	if f.IsNewAccount || f.IsNewSupplier {
		acct, errs := f.NewAccount.Check(banks.Directory{})
		if len(errs) > 0 {
			var prefixed pay.FieldErrors
			for _, e := range errs {
				prefixed.Add("new_account."+e.Field, e.Message)
			}
			return validationError(prefixed)
		}
		sub.NewAccount, sub.AccountID = &acct, 0
		if !f.IsNewSupplier {
			// A new account for a registered supplier redirects its money: step-up.
			if err := s.stepUp(c); err != nil {
				return err
			}
		}
	}
	res, err := s.Payments.Submit(c.Request().Context(), u.BuyerID, sub)
	return submitted(c, res, err, http.StatusCreated)
}

type challengeAnswer struct {
	Status    string `json:"status"` // requires_action
	ActionURL string `json:"action_url"`
	InvoiceID int64  `json:"invoice_id"`
}

// submitted answers a submission or a correction: the invoice, the challenge, or why not.
func submitted(c *echo.Context, res invoices.Submitted, err error, okStatus int) error {
	var fe pay.FieldErrors
	switch {
	case errors.As(err, &fe):
		e := validationError(fe)
		if code := res.Payment.CardResultCode; fe.For("card_id") != "" && cards.IsDecline(code) {
			e.Status, e.ResultCode = "card_declined", code
		}
		return e
	case err != nil:
		return err
	case res.ActionURL != "":
		return c.JSON(http.StatusAccepted, challengeAnswer{Status: "requires_action", ActionURL: res.ActionURL, InvoiceID: res.Payment.ID})
	}
	return c.JSON(okStatus, invoiceOf(res.Payment))
}

type invoiceList struct {
	Invoices                   []invoiceJSON `json:"invoices"`
	TotalCount                 int           `json:"total_count"`
	TotalCountIsActionRequired int           `json:"total_count_is_action_required"`
}

var bucketsByName = map[string]pay.PaymentBucket{
	"review": pay.BucketReviewAll, "action_required": pay.BucketActionRequired, "reserved": pay.BucketReserved,
	"history": pay.BucketHistory, "waiting": pay.BucketWaiting,
}

// invoices is GET invoices: one list (bucket), newest first (review: action-required
// first), page from 0. The stats calls (page 0, size 1, SPEC.md §7) are answered from
// the counts and at most one row.
func (s *server) invoices(c *echo.Context) error {
	var errs pay.FieldErrors
	u := caller(c).User
	name := c.QueryParam("bucket")
	if name == "" {
		name = "review"
	}
	bucket, ok := bucketsByName[name]
	if !ok {
		errs.Add("bucket", "bucket は review、action_required、reserved、history、waiting のいずれかで指定してください")
	}
	f := store.PaymentFilter{BuyerID: u.BuyerID, Bucket: bucket}
	f.Page = queryInt(c, "page", 0, 0, 100_000, &errs)
	f.Size = queryInt(c, "size", 20, 0, 100, &errs)
	if v := c.QueryParam("supplier_id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			errs.Add("supplier_id", "supplier_id は取引先のIDで指定してください")
		}
		f.SupplierID = id
	}
	for _, d := range []struct {
		name string
		to   *time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if v := c.QueryParam(d.name); v != "" {
			t, ok := pay.ParseDate(v)
			if !ok {
				errs.Add(d.name, d.name+" は日付（例：2026-12-25）で指定してください")
			}
			*d.to = t
		}
	}
	if len(errs) > 0 {
		return validationError(errs)
	}
	ctx := c.Request().Context()
	counts, err := s.Store.PaymentCounts(ctx, u.BuyerID)
	if err != nil {
		return err
	}
	if f.SupplierID == 0 && f.From.IsZero() && f.To.IsZero() {
		// Unfiltered, the list's size is one of the counts: no count query.
		f.Total, f.Counted = counts.Of(bucket), true
	}
	list, total, err := s.Store.Payments(ctx, f)
	if err != nil {
		return err
	}
	a := invoiceList{Invoices: make([]invoiceJSON, len(list)), TotalCount: total, TotalCountIsActionRequired: counts.ActionRequired}
	for i, p := range list {
		a.Invoices[i] = invoiceOf(p)
	}
	return c.JSON(http.StatusOK, a)
}

var displayTypes = map[string]pay.InvoiceType{
	"payment": pay.InvoicePayment, "1": pay.InvoicePayment, "request_buyer": pay.InvoiceRequestBuyer, "2": pay.InvoiceRequestBuyer,
}

// invoice is GET invoices/{id}: one invoice with its account, card and timeline. With
// invoice_display_type, an invoice of another type is 404.
func (s *server) invoice(c *echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	u := caller(c).User
	ctx := c.Request().Context()
	p, err := s.Store.Payment(ctx, u.BuyerID, id)
	if err != nil {
		return err
	}
	if t := c.QueryParam("invoice_display_type"); t != "" {
		want, ok := displayTypes[t]
		if !ok {
			return fieldError("invoice_display_type", "invoice_display_type は payment または request_buyer で指定してください")
		}
		if want != p.InvoiceType {
			return errNotFound
		}
	}
	v := invoiceOf(p)
	if p.AccountID != nil {
		if a, err := s.Store.SupplierAccount(ctx, u.BuyerID, p.SupplierID, *p.AccountID); err == nil {
			acct := accountOf(a)
			v.Account = &acct
		}
	}
	if p.CardID != nil {
		if card, err := s.Store.CardAny(ctx, u.BuyerID, *p.CardID); err == nil {
			v.Card = &invoiceCard{ID: card.ID, Brand: card.Brand, Last4: card.Last4}
		}
	}
	events, err := s.Store.PaymentEvents(ctx, u.BuyerID, id)
	if err != nil {
		return err
	}
	v.Events = make([]invoiceEvent, len(events))
	for i, e := range events {
		v.Events[i] = invoiceEvent{Action: e.Action, ActionLabel: e.Action.Label(), Status: e.ToStatus, Reason: e.Reason, At: e.CreatedAt.In(pay.Tokyo())}
	}
	return c.JSON(http.StatusOK, v)
}

type correctionRequest struct {
	Invoice      pay.InvoiceInput `json:"invoice"`
	Acknowledged []string         `json:"acknowledged"`
}

// resubmitInvoice is PUT invoices/{id}: the correction of an invoice that screening sent
// back (200, back to 審査中; 202 when a changed amount needs a challenge). An invoice not
// waiting for a correction is 409.
func (s *server) resubmitInvoice(c *echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var req correctionRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	u := caller(c).User
	res, err := s.Payments.Resubmit(c.Request().Context(), u.BuyerID, "buyer:"+strconv.FormatInt(u.ID, 10), id,
		invoices.Correction{Invoice: req.Invoice, Acknowledged: req.Acknowledged})
	var fe pay.FieldErrors
	if errors.As(err, &fe) && fe.For("resubmit") != "" {
		return newError(http.StatusConflict, "invalid_state", fe.For("resubmit"))
	}
	return submitted(c, res, err, http.StatusOK)
}

// cancelInvoice is PUT invoices/{id}/cancel: cancelled before the transfer (the card is
// released by a job). An invoice past cancelling is 409.
func (s *server) cancelInvoice(c *echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	u := caller(c).User
	p, err := s.Payments.Cancel(c.Request().Context(), u.BuyerID, "buyer:"+strconv.FormatInt(u.ID, 10), id, "")
	var fe pay.FieldErrors
	if errors.As(err, &fe) {
		return newError(http.StatusConflict, "invalid_state", fe[0].Message)
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, invoiceOf(p))
}

// commission is GET invoices/commission: the fee of ?amount= (with ?promotion_code=), or
// of the caller's invoice ?invoice_id=.
func (s *server) commission(c *echo.Context) error {
	u := caller(c).User
	ctx := c.Request().Context()
	if v := c.QueryParam("invoice_id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return errNotFound
		}
		p, err := s.Store.Payment(ctx, u.BuyerID, id)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, invoices.Commission{Amount: p.Amount, FeeBasisPoints: p.FeeBasisPoints, Fee: p.Fee, Total: p.Total(),
			Discount: pay.Fee(p.Amount, s.Payments.CurrentLimits().FeeBasisPoints) - p.Fee})
	}
	amount, ok := pay.ParseYen(c.QueryParam("amount"))
	if !ok {
		return fieldError("amount", "amount は円単位の整数で指定してください")
	}
	if msg := s.Payments.CurrentLimits().AmountMessage(amount); msg != "" {
		return fieldError("amount", msg)
	}
	var promo *pay.Promotion
	if code := c.QueryParam("promotion_code"); code != "" {
		p, err := s.Payments.Promotion(ctx, u.BuyerID, code)
		if err != nil {
			return promotionError(err)
		}
		promo = &p
	}
	return c.JSON(http.StatusOK, s.Payments.CommissionFor(amount, promo))
}

func promotionError(err error) error {
	var fe pay.FieldErrors
	if errors.As(err, &fe) {
		return validationError(fe)
	}
	return err
}

type promotionRequest struct {
	PromotionCode string `json:"promotion_code"`
	Amount        int64  `json:"amount"`
}

type promotionAnswer struct {
	PromotionCode       string               `json:"promotion_code"`
	DiscountBasisPoints int                  `json:"discount_basis_points"`
	ValidTo             time.Time            `json:"valid_to"`
	Commission          *invoices.Commission `json:"commission,omitempty"`
}

// promotion is POST invoices/promotion: whether the caller may use a promotion code, and
// the fee with it when amount is given.
func (s *server) promotion(c *echo.Context) error {
	var req promotionRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	u := caller(c).User
	p, err := s.Payments.Promotion(c.Request().Context(), u.BuyerID, req.PromotionCode)
	if err != nil {
		return promotionError(err)
	}
	a := promotionAnswer{PromotionCode: p.Code, DiscountBasisPoints: p.DiscountBasisPoints, ValidTo: p.ValidTo.In(pay.Tokyo())}
	if req.Amount != 0 {
		if msg := s.Payments.CurrentLimits().AmountMessage(req.Amount); msg != "" {
			return fieldError("amount", msg)
		}
		cm := s.Payments.CommissionFor(req.Amount, &p)
		a.Commission = &cm
	}
	return c.JSON(http.StatusOK, a)
}
