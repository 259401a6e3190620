package invoices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/jmoiron/sqlx"

	"cardpay/gateway"
	"cardpay/pay"
	"cardpay/store"
)

// MsgCannotResubmit: the payment is not waiting for a correction.
const MsgCannotResubmit = "このお支払いは修正を求められていないため、再申請できません"

// Refusals of a correction's amount (field "amount").
const (
	// MsgRequestAmountFixed: a request's customer pays what the requester asked for.
	MsgRequestAmountFixed = "カード払いの依頼の金額は変更できません。金額が違う場合は、依頼者にお問い合わせください"
	// MsgCapturedAmountFixed: the card was charged when screening completed.
	MsgCapturedAmountFixed = "審査完了後のお支払いは金額を変更できません。金額を変える場合は、このお支払いをキャンセルしてから申請し直してください"
)

// CorrectionFee is the fee the buyer's card is charged after a correction of p to
// amount. A payment's fee is recomputed at its own rate (which has any promotion's
// discount in it). A request's customer-side payment keeps its fee: its amount cannot
// change, and when the requester bears the fee the customer's is 0 (the fee is the
// requester's, in payee_fee), which the rate would not know.
func CorrectionFee(p store.Payment, amount int64) int64 {
	if p.InvoiceType == pay.InvoiceRequestBuyer {
		return p.Fee
	}
	return pay.Fee(amount, p.FeeBasisPoints)
}

// CheckCorrection refuses, on "amount", a corrected amount the payment may not take: a
// request's customer-side payment keeps the amount its requester asked for; a payment
// whose card was already captured (sent back after 審査完了) keeps its total, since a new
// authorisation would never be captured while the money taken is refunded. Nil when the
// correction may go ahead.
func CheckCorrection(p store.Payment, amount int64) pay.FieldErrors {
	if p.InvoiceType == pay.InvoiceRequestBuyer && amount != p.Amount {
		return pay.FieldErrors{{Field: "amount", Message: MsgRequestAmountFixed}}
	}
	if p.CardStatus == pay.CardCaptured && amount+CorrectionFee(p, amount) != p.AuthorizedAmount {
		return pay.FieldErrors{{Field: "amount", Message: MsgCapturedAmountFixed}}
	}
	return nil
}

// Correction is what the buyer corrects on a payment that screening sent back: the
// invoice's details (the supplier and its account stay; a wrong payee is cancelled and
// paid anew).
type Correction struct {
	Invoice      pay.InvoiceInput
	Acknowledged []string
}

// Resubmit corrects a payment that was sent back and puts it back to 審査中. When the new
// amount and fee differ from what the card holds, the card is authorised again under the
// payment's next id first (a 3-D Secure challenge when asked: Submitted.ActionURL, and the
// buyer's return goes through ResubmitReturned), and the old authorisation is voided by a
// job once the new one holds. A decline changes nothing.
func (s *Payments) Resubmit(ctx context.Context, buyerID int64, actor string, id int64, c Correction) (Submitted, error) {
	p, err := s.Store.Payment(ctx, buyerID, id)
	if err != nil {
		return Submitted{}, err
	}
	if !pay.BuyerCanResubmit(p.State()) {
		return Submitted{}, pay.FieldErrors{{Field: "resubmit", Message: MsgCannotResubmit}}
	}
	inv, errs := c.Invoice.Check(s.limits(), s.now())
	if len(errs) > 0 {
		return Submitted{}, errs
	}
	if errs := CheckCorrection(p, inv.Amount); len(errs) > 0 {
		return Submitted{}, errs
	}
	fee := CorrectionFee(p, inv.Amount)
	if inv.Amount+fee == p.AuthorizedAmount {
		return s.applyCorrection(ctx, buyerID, actor, p, inv, fee, c.Acknowledged, "", gateway.Transaction{})
	}
	if p.CardID == nil {
		return Submitted{}, fmt.Errorf("invoices: payment %d has no card", id)
	}
	card, err := s.Store.CardAny(ctx, buyerID, *p.CardID)
	if err != nil {
		return Submitted{}, err
	}
	if card.Expired(s.now()) {
		return Submitted{}, pay.FieldErrors{{Field: "card_id", Message: "お支払いに使ったカードの有効期限が切れているため、金額を変更できません。このお支払いをキャンセルし、別のカードで申請し直してください"}}
	}
	next := nextRef(p.PaymentRef)
	// Should this request die after the PSP authorises next but before the row moves to
	// it, the job voids the stray authorisation.
	if _, err := s.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: CardJobKind,
		Payload: PaymentJob{BuyerID: buyerID, ID: id, Ref: next, OnlyIfStray: true}, UniqueKey: "stray-" + next,
		RunAt: s.now().Add(s.challengeTimeout() + s.settleAfter())}); err != nil {
		return Submitted{}, err
	}
	tx, err := s.Gateway.Authorize(ctx, gateway.AuthorizeRequest{
		PaymentID: next, CardRef: card.Ref, Amount: inv.Amount + fee,
		ReturnURL: strings.TrimSuffix(s.BaseURL, "/") + ResubmitReturnPath(id) + "?payment=" + url.QueryEscape(next),
	})
	if errors.Is(err, gateway.ErrUnavailable) {
		tx, err = s.Gateway.Lookup(ctx, next)
	}
	switch {
	case errors.Is(err, gateway.ErrNotFound):
		return Submitted{Payment: p}, declined(gateway.ResultProcessorError)
	case errors.Is(err, gateway.ErrUnavailable):
		return Submitted{Payment: p}, declined(gateway.ResultTimeout)
	case err != nil:
		return Submitted{}, fmt.Errorf("invoices: re-authorise %s: %w", next, err)
	}
	switch outcome(tx).Status {
	case pay.CardRequiresAction:
		// Kept with the payment: the buyer's return applies it, from the pages or the API.
		data, err := json.Marshal(pendingCorrection{Ref: next, Correction: c})
		if err != nil {
			return Submitted{}, err
		}
		if err := s.Store.SetPendingCorrection(ctx, buyerID, id, data); err != nil {
			return Submitted{}, err
		}
		return Submitted{Payment: p, ActionURL: tx.ActionURL}, nil
	case pay.CardDeclined:
		return Submitted{Payment: p}, declined(gateway.ResultCode(outcome(tx).ResultCode))
	}
	return s.applyCorrection(ctx, buyerID, actor, p, inv, fee, c.Acknowledged, next, tx)
}

// ResubmitReturnPath is where the PSP sends the buyer back after the challenge of a
// corrected amount.
func ResubmitReturnPath(id int64) string {
	return fmt.Sprintf("/payments/edit/%d/confirm/return", id)
}

// pendingCorrection is a correction waiting for its challenge.
type pendingCorrection struct {
	Ref        string     `json:"ref"`
	Correction Correction `json:"correction"`
}

// ResubmitReturned finishes a correction after the buyer's challenge: the correction kept
// with the payment is applied only if the PSP authorised its new id (ref).
func (s *Payments) ResubmitReturned(ctx context.Context, buyerID int64, actor string, id int64, ref string) (Submitted, error) {
	p, err := s.Store.Payment(ctx, buyerID, id)
	if err != nil {
		return Submitted{}, err
	}
	if ref == p.PaymentRef {
		return Submitted{Payment: p}, nil // already applied (the back button)
	}
	raw, err := s.Store.PendingCorrection(ctx, buyerID, id)
	if err != nil {
		return Submitted{}, err
	}
	var pc pendingCorrection
	if err := json.Unmarshal(raw, &pc); err != nil || pc.Ref != ref || ref != nextRef(p.PaymentRef) {
		return Submitted{}, fmt.Errorf("invoices: payment %d has no authorisation %s: %w", id, ref, store.ErrNotFound)
	}
	tx, err := s.Gateway.Lookup(ctx, ref)
	if err != nil {
		return Submitted{Payment: p}, declined(gateway.ResultProcessorError)
	}
	if o := outcome(tx); o.Status != pay.CardAuthorized {
		return Submitted{Payment: p}, declined(gateway.ResultCode(o.ResultCode))
	}
	inv, errs := pc.Correction.Invoice.Check(s.limits(), s.now())
	if len(errs) > 0 {
		return Submitted{}, errs
	}
	// Captured while the buyer was at the challenge (the capture job of a payment sent
	// back on 審査完了): refused, and the stray-authorisation job voids ref.
	if errs := CheckCorrection(p, inv.Amount); len(errs) > 0 {
		return Submitted{Payment: p}, errs
	}
	fee := CorrectionFee(p, inv.Amount)
	if tx.Amount != inv.Amount+fee {
		return Submitted{Payment: p}, declined(gateway.ResultProcessorError)
	}
	return s.applyCorrection(ctx, buyerID, actor, p, inv, fee, pc.Correction.Acknowledged, ref, tx)
}

// nextRef is the payment id of a payment's next authorisation.
func nextRef(ref string) string {
	i := strings.LastIndexByte(ref, '-')
	var n int
	if _, err := fmt.Sscanf(ref[i+1:], "%d", &n); err != nil {
		return ref + "-2"
	}
	return fmt.Sprintf("%s-%d", ref[:i], n+1)
}

// applyCorrection writes the correction and moves p back to 審査中; newRef, when set, is
// the payment's next authorisation, which the PSP answered auth about (authorised), and
// the old one is released by a job in the same transaction.
func (s *Payments) applyCorrection(ctx context.Context, buyerID int64, actor string, p store.Payment, inv pay.CheckedInvoice, fee int64, acks []string, newRef string, auth gateway.Transaction) (Submitted, error) {
	oldRef := p.PaymentRef
	var next *store.AuthOutcome
	if newRef != "" {
		o := outcome(auth)
		next = &o
	}
	out, err := s.Store.Transition(ctx, buyerID, p.ID, pay.ActResubmit, actor, "", s.now(), func(tx *sqlx.Tx, cur store.Payment) error {
		// Checked again on the row as it is now: the capture job may have captured the
		// payment since it was read (a payment sent back on 審査完了).
		if errs := CheckCorrection(cur, inv.Amount); len(errs) > 0 {
			return errs
		}
		if err := s.Store.CorrectPayment(ctx, tx, buyerID, p.ID, inv, fee, acks, next); err != nil {
			return err
		}
		if newRef == "" {
			return nil
		}
		_, err := s.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: CardJobKind,
			Payload: PaymentJob{BuyerID: buyerID, ID: p.ID, Ref: oldRef}, UniqueKey: "release-" + oldRef})
		return err
	})
	if errors.Is(err, pay.ErrTransition) || errors.Is(err, store.ErrStateChanged) {
		return Submitted{}, pay.FieldErrors{{Field: "resubmit", Message: MsgCannotResubmit}}
	}
	if err != nil {
		return Submitted{}, err
	}
	return Submitted{Payment: out}, nil
}
