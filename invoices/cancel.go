package invoices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/gateway"
	"cardpay/pay"
	"cardpay/store"
)

// MsgCannotCancel: the payment is past the point where it can be cancelled.
const MsgCannotCancel = "このお支払いは振込手続きが済んでいるか、既に終了しているため、キャンセルできません"

// CancelRefusal is why the buyer can no longer cancel p (MsgCannotCancel: it is in the
// transfer's hands, or ended), or "" when they can, or when it is a request not paid yet
// (not theirs to cancel: they simply do not pay it).
func CancelRefusal(p store.Payment) string {
	if pay.BuyerCanCancel(p.State()) || pay.RequestOpen(p.ExaminationStatus) {
		return ""
	}
	return MsgCannotCancel
}

// Cancel cancels one of the buyer's payments before the transfer: the state changes at
// once (with its event) and a job, enqueued in the same transaction, voids the card's
// authorisation or refunds it if it was captured, retrying until the PSP answers.
// Another buyer's payment is store.ErrNotFound; a payment past cancelling is field errors.
func (s *Payments) Cancel(ctx context.Context, buyerID int64, actor string, id int64, reason string) (store.Payment, error) {
	return s.cancel(ctx, buyerID, actor, id, reason, nil)
}

// cancel is Cancel with also, when not nil, run in the transaction of the change (the
// operator's audit row).
func (s *Payments) cancel(ctx context.Context, buyerID int64, actor string, id int64, reason string, also func(tx *sqlx.Tx, p store.Payment) error) (store.Payment, error) {
	p, err := s.Store.Transition(ctx, buyerID, id, pay.ActCancel, actor, reason, s.now(), func(tx *sqlx.Tx, p store.Payment) error {
		_, err := s.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: CardJobKind,
			Payload: PaymentJob{BuyerID: buyerID, ID: id, Ref: p.PaymentRef}, UniqueKey: "release-" + p.PaymentRef})
		if err != nil || also == nil {
			return err
		}
		return also(tx, p)
	})
	if errors.Is(err, pay.ErrTransition) || errors.Is(err, store.ErrStateChanged) {
		return store.Payment{}, pay.FieldErrors{{Field: "cancel", Message: MsgCannotCancel}}
	}
	return p, err
}

// CardJobKind voids or refunds the card of a cancelled payment (RunCardJob). Its value
// is older than its name: job rows already stored carry "payment_card".
const CardJobKind = "payment_card"

// PaymentJob is the payload of the payment jobs (CardJobKind, SettleJobKind and
// CaptureJobKind).
type PaymentJob struct {
	BuyerID int64  `json:"buyer_id"`
	ID      int64  `json:"id"`
	Ref     string `json:"ref,omitempty"`
	// OnlyIfStray releases Ref only if the payment does not hold it: it did not move to it
	// (the safety net of a re-authorisation whose request may die half-way), or it did
	// and was declined (the reconciler's recheck of a submission the PSP had not seen).
	OnlyIfStray bool `json:"only_if_stray,omitempty"`
}

// RunCardJob is the CardJobKind job: it gives back the money of a cancelled
// payment's authorisation (Ref): a void while it was only authorised, a refund once
// captured. Asking again is safe: each call carries the payment id.
func (s *Payments) RunCardJob(ctx context.Context, payload json.RawMessage) error {
	var j PaymentJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return fmt.Errorf("invoices: card job payload: %w", err)
	}
	if j.OnlyIfStray {
		cur, err := s.Store.Submission(ctx, j.BuyerID, j.ID)
		if err != nil {
			return err
		}
		if cur.PaymentRef == j.Ref && cur.CardStatus != pay.CardDeclined {
			// The payment holds this authorisation (the correction moved to it, or the
			// buyer's own request settled it while the reconciler did not see it yet): it
			// is no stray, and voiding it would take a live payment's money away.
			return nil
		}
	}
	tx, err := s.Gateway.Lookup(ctx, j.Ref)
	if errors.Is(err, gateway.ErrNotFound) {
		return nil // never authorised: nothing to give back
	}
	if err != nil {
		return err
	}
	var st pay.CardStatus
	switch tx.Status {
	case gateway.StatusAuthorized, gateway.StatusRequiresAction:
		tx, err = s.Gateway.Void(ctx, j.Ref)
		st = pay.CardVoided
	case gateway.StatusCaptured, gateway.StatusPartiallyRefunded:
		tx, err = s.Gateway.Refund(ctx, j.Ref, tx.Captured-tx.Refunded)
		st = pay.CardRefunded
	case gateway.StatusVoided, gateway.StatusLapsed, gateway.StatusDeclined:
		st = pay.CardVoided
	case gateway.StatusRefunded:
		st = pay.CardRefunded
	}
	if err != nil {
		return fmt.Errorf("invoices: release %s: %w", j.Ref, err)
	}
	cur, err := s.Store.Submission(ctx, j.BuyerID, j.ID)
	if err != nil {
		return err
	}
	if cur.PaymentRef != j.Ref || st == "" || cur.CardStatus == pay.CardDeclined {
		// An earlier authorisation of a corrected payment (the row follows the current
		// one), or a late one of a submission already declined (it stays declined).
		return nil
	}
	err = s.Store.SetPaymentCard(ctx, nil, j.BuyerID, j.ID, j.Ref, st, string(resultOr(tx.ResultCode, gateway.ResultApproved)), s.now())
	if errors.Is(err, store.ErrStateChanged) {
		return nil // corrected to a new authorisation since it was read: the row follows that one
	}
	if errors.Is(err, pay.ErrCardTransition) {
		// The row already moved past what the PSP answered (a void recorded while the PSP
		// reports a capture cannot be): the reconciliation lists it; retrying would not help.
		s.logger().Error("invoices: card job found the payment elsewhere", "payment", j.Ref, "err", err)
		return nil
	}
	return err
}

// SettleJobKind checks a submission with the PSP when nobody else settled it: the
// buyer's request died, or the PSP did not answer (RunSettleJob).
const SettleJobKind = "settle_payment"

// enqueueSettle enqueues on tx, the transaction that starts the submission id of
// buyerID, the job that settles it after SettleAfter should nobody else: store runs it as
// the also of StartPayment and StartRequestPayment, so no submission exists without it.
func (s *Payments) enqueueSettle(ctx context.Context, tx *sqlx.Tx, buyerID, id int64, key string, now time.Time) error {
	_, err := s.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: SettleJobKind, Payload: PaymentJob{BuyerID: buyerID, ID: id},
		UniqueKey: key, RunAt: now.Add(s.settleAfter())})
	return err
}

// RunSettleJob is the SettleJobKind job, the reconciler of one submission: if nobody
// settled it (the buyer's request died after the row was written, or the PSP did not
// answer), it asks the PSP and records what the PSP says. A submission the PSP never saw
// is declined; a challenge left unfinished is given up after ChallengeTimeout (the
// authorisation voided). While the PSP does not answer, the job fails and is retried.
func (s *Payments) RunSettleJob(ctx context.Context, payload json.RawMessage) error {
	var j PaymentJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return fmt.Errorf("invoices: settle job payload: %w", err)
	}
	p, err := s.Store.Submission(ctx, j.BuyerID, j.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if p.CardStatus != pay.CardPending && p.CardStatus != pay.CardRequiresAction {
		return nil
	}
	tx, err := s.Gateway.Lookup(ctx, p.PaymentRef)
	switch {
	case errors.Is(err, gateway.ErrNotFound):
		tx = gateway.Transaction{Status: gateway.StatusDeclined, ResultCode: gateway.ResultProcessorError}
		// Not seen yet is not never seen: the buyer's request may still be waiting for the
		// PSP's answer (a slow PSP, a process that dies right after it). Look once more
		// later and release whatever authorisation turned up, so none is left without
		// its payment.
		// Only a stray: should the buyer's request settle the submission authorised before
		// this job's declined answer lands, the payment holds the authorisation.
		if _, err := s.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: CardJobKind,
			Payload: PaymentJob{BuyerID: j.BuyerID, ID: j.ID, Ref: p.PaymentRef, OnlyIfStray: true}, UniqueKey: "recheck-" + p.PaymentRef,
			RunAt: s.now().Add(s.settleAfter())}); err != nil {
			return err
		}
	case err != nil:
		return fmt.Errorf("invoices: settle %s: %w", p.PaymentRef, err)
	}
	if tx.Status == gateway.StatusRequiresAction {
		if s.now().Sub(p.CreatedAt) < s.challengeTimeout() {
			// The buyer may still be answering the challenge: look again when it times out.
			_, err := s.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: SettleJobKind, Payload: j,
				UniqueKey: fmt.Sprintf("settle-%d-challenge", j.ID), RunAt: p.CreatedAt.Add(s.challengeTimeout())})
			if err == nil && s.Store.SetSubmissionAction(ctx, j.BuyerID, j.ID, tx.ActionURL, string(resultOr(tx.ResultCode, gateway.ResultActionRequired))) != nil {
				return fmt.Errorf("invoices: settle %s: record challenge", p.PaymentRef)
			}
			return err
		}
		if _, err := s.Gateway.Void(ctx, p.PaymentRef); err != nil && !errors.Is(err, gateway.ErrInvalidState) {
			return fmt.Errorf("invoices: give up challenge %s: %w", p.PaymentRef, err)
		}
		tx = gateway.Transaction{Status: gateway.StatusDeclined, ResultCode: gateway.ResultChallengeFailed}
	}
	o := outcome(tx)
	o.Actor = "system"
	_, err = s.Store.SettleSubmission(ctx, j.BuyerID, j.ID, o, s.now())
	return err
}

// ApplyEvent acts on a verified PSP webhook about one of our payments (payment ids
// "inv-…"): an authorisation or a decline settles a submission nobody settled yet (the
// buyer closed the window during the challenge); a lapsed authorisation expires the
// payment (期限切れ) if it was not captured in time. Other events change nothing here: the
// service's own calls already recorded them.
func (s *Payments) ApplyEvent(ctx context.Context, buyerID int64, ev gateway.Event) error {
	p, err := s.Store.SubmissionByRef(ctx, buyerID, ev.Transaction.PaymentID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if ev.Type == gateway.EventLapsed {
		return s.lapsed(ctx, buyerID, p)
	}
	var tx gateway.Transaction
	switch ev.Type {
	case gateway.EventAuthorized:
		tx = gateway.Transaction{Status: gateway.StatusAuthorized, ResultCode: ev.Transaction.ResultCode}
	case gateway.EventDeclined:
		tx = gateway.Transaction{Status: gateway.StatusDeclined, ResultCode: ev.Transaction.ResultCode}
	case gateway.EventActionFailed:
		tx = gateway.Transaction{Status: gateway.StatusDeclined, ResultCode: resultOr(ev.Transaction.ResultCode, gateway.ResultChallengeFailed)}
	default:
		return nil
	}
	if p.CardStatus != pay.CardPending && p.CardStatus != pay.CardRequiresAction {
		return nil
	}
	o := outcome(tx)
	o.Actor = "system"
	_, err = s.Store.SettleSubmission(ctx, buyerID, p.ID, o, s.now())
	return err
}

// MsgLapsed is the reason on the timeline of a payment whose authorisation lapsed.
const MsgLapsed = "カードの与信の有効期限が切れたため、お支払いは期限切れになりました。お手数ですが、もう一度申請してください"

// lapsed expires a payment whose current authorisation the PSP released before screening
// captured it. A payment already past screening, or an earlier authorisation of a
// corrected one, is left as it is.
func (s *Payments) lapsed(ctx context.Context, buyerID int64, p store.Payment) error {
	if p.SubmittedAt == nil || p.CardStatus != pay.CardAuthorized {
		return nil
	}
	_, err := s.Store.Transition(ctx, buyerID, p.ID, pay.ActExpire, "system", MsgLapsed, s.now(), func(tx *sqlx.Tx, _ store.Payment) error {
		return s.Store.SetPaymentCard(ctx, tx, buyerID, p.ID, p.PaymentRef, pay.CardVoided, "", s.now())
	})
	if errors.Is(err, pay.ErrTransition) || errors.Is(err, store.ErrStateChanged) {
		return nil
	}
	return err
}
