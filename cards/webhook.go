package cards

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/jmoiron/sqlx"

	"cardpay/gateway"
	"cardpay/store"
)

// PSPEventJobKind is the background job that processes a stored webhook
// (RunEventJob, payload PSPEventJob).
const PSPEventJobKind = "psp_event"

// PSPEventJob is the payload of a PSPEventJobKind job: the stored webhook's row id.
type PSPEventJob struct {
	EventID int64 `json:"event_id"`
}

// ErrBadWebhook is a webhook whose signature does not match or is too old, or that is
// not an event: the caller answers 400 and stores nothing.
var ErrBadWebhook = errors.New("cards: webhook signature invalid")

// ReceiveWebhook checks a PSP webhook's signature and stores it once (psp_events); a
// redelivery of an event already processed changes nothing. The event is then
// processed: by a background job when QueueEvents is set (the job is enqueued in the
// same transaction as the row), otherwise here, before the PSP gets its 200, so that a
// failure makes the PSP deliver it again.
func (s *Service) ReceiveWebhook(ctx context.Context, header http.Header, body []byte) error {
	ev, err := s.Gateway.VerifyWebhook(header, body, s.now())
	if err == nil && (ev.ID == "" || !json.Valid(body)) {
		err = errors.New("no event id, or a body that is not JSON")
	}
	if err != nil {
		// A bad signature, a stale one, or a signed body that is not an event: sending it
		// again cannot help, so the PSP is told 400 and nothing is stored.
		s.logger().Warn("cards: webhook refused", "gateway", s.Gateway.Name(), "error", err)
		return ErrBadWebhook
	}
	ne := store.NewPSPEvent{
		Gateway: s.Gateway.Name(), EventID: ev.ID, Type: string(ev.Type),
		PaymentID: ev.Transaction.PaymentID, Status: string(ev.Transaction.Status),
		ResultCode: string(ev.Transaction.ResultCode), Body: body,
	}
	// Queued, the event's job is enqueued in the transaction of its new row, so that a
	// stored event is always processed.
	var queue func(tx *sqlx.Tx, row store.PSPEvent) error
	if s.QueueEvents {
		queue = func(tx *sqlx.Tx, row store.PSPEvent) error {
			_, err := s.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: PSPEventJobKind, Payload: PSPEventJob{EventID: row.ID},
				UniqueKey: fmt.Sprintf("psp_event:%d", row.ID)})
			return err
		}
	}
	row, created, err := s.Store.RecordPSPEvent(ctx, ne, queue)
	if err != nil {
		return err
	}
	if !created && row.ProcessedAt != nil {
		return nil
	}
	if s.QueueEvents {
		// The job was enqueued with the row; a redelivery of an unprocessed event finds
		// it already queued (its unique key).
		return nil
	}
	return s.process(ctx, row.ID, ev)
}

// RunEventJob is the PSPEventJobKind job: it processes one stored webhook. It needs only
// Store (and Logger): the event was verified when it arrived.
func (s *Service) RunEventJob(ctx context.Context, payload json.RawMessage) error {
	var j PSPEventJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return fmt.Errorf("cards: event job payload: %w", err)
	}
	row, err := s.Store.PSPEvent(ctx, j.EventID)
	if err != nil {
		return err
	}
	if row.ProcessedAt != nil {
		return nil
	}
	return s.process(ctx, row.ID, storedEvent(row))
}

// storedEvent is the event as the row keeps it: what processing needs was taken from
// the verified event when it arrived, so the job never decodes a PSP's body again.
func storedEvent(row store.PSPEvent) gateway.Event {
	return gateway.Event{
		ID: row.EventID, Type: gateway.EventType(row.Type),
		Transaction: gateway.Transaction{
			PaymentID: row.PaymentID, Status: gateway.Status(row.Status), ResultCode: gateway.ResultCode(row.ResultCode),
		},
	}
}

// process acts on one event and marks it processed. Events about a card check finish
// it (the buyer may never come back from the challenge page); events about an
// authorisation record its new status. Events about payments this service does not know
// are kept and marked, for the payments work to read.
func (s *Service) process(ctx context.Context, rowID int64, ev gateway.Event) error {
	if err := s.apply(ctx, ev); err != nil {
		return err
	}
	return s.Store.MarkPSPEventProcessed(ctx, rowID)
}

func (s *Service) apply(ctx context.Context, ev gateway.Event) error {
	paymentID := ev.Transaction.PaymentID
	if paymentID == "" {
		return nil
	}
	buyerID, err := s.Store.PaymentOwner(ctx, paymentID)
	if errors.Is(err, store.ErrNotFound) {
		s.logger().Info("cards: webhook for a payment without a card check or authorisation", "event", ev.ID, "type", ev.Type, "payment_id", paymentID)
		return nil
	}
	if err != nil {
		return err
	}
	if strings.HasPrefix(paymentID, checkPrefix) {
		return s.applyToCheck(ctx, buyerID, paymentID, ev)
	}
	if strings.HasPrefix(paymentID, paymentPrefix) {
		if s.Payments == nil {
			return nil
		}
		return s.Payments.ApplyEvent(ctx, buyerID, ev)
	}
	return s.applyToApproval(ctx, buyerID, paymentID, ev)
}

func (s *Service) applyToCheck(ctx context.Context, buyerID int64, paymentID string, ev gateway.Event) error {
	var o store.CardCheckOutcome
	switch ev.Type {
	case gateway.EventAuthorized:
		o = store.CardCheckOutcome{Authorized: true, ResultCode: string(resultOr(ev.Transaction.ResultCode, gateway.ResultApproved))}
	case gateway.EventActionFailed:
		o = store.CardCheckOutcome{ResultCode: string(resultOr(ev.Transaction.ResultCode, gateway.ResultChallengeFailed))}
	case gateway.EventDeclined:
		o = store.CardCheckOutcome{ResultCode: string(declineCode(ev.Transaction))}
	default:
		return nil
	}
	_, err := s.Store.FinishCardCheck(ctx, buyerID, paymentID, s.withDecline(o), s.now())
	return err
}

func (s *Service) applyToApproval(ctx context.Context, buyerID int64, paymentID string, ev gateway.Event) error {
	a, err := s.Store.CardApproval(ctx, buyerID, paymentID)
	if err != nil {
		return err
	}
	status, code := a.Status, a.ResultCode
	switch ev.Type {
	case gateway.EventAuthorized:
		status, code = string(gateway.StatusAuthorized), string(resultOr(ev.Transaction.ResultCode, gateway.ResultApproved))
	case gateway.EventActionFailed:
		status, code = string(gateway.StatusDeclined), string(resultOr(ev.Transaction.ResultCode, gateway.ResultChallengeFailed))
	case gateway.EventDeclined:
		status, code = string(gateway.StatusDeclined), string(declineCode(ev.Transaction))
	case gateway.EventCaptured:
		status = string(gateway.StatusCaptured)
	case gateway.EventVoided:
		status = string(gateway.StatusVoided)
	case gateway.EventRefunded:
		status = string(resultStatus(ev.Transaction.Status, gateway.StatusRefunded))
	case gateway.EventLapsed:
		status = string(gateway.StatusLapsed)
	default:
		return nil
	}
	return s.Store.SetCardApproval(ctx, buyerID, paymentID, status, code, "")
}

func resultStatus(st, def gateway.Status) gateway.Status {
	if st == "" {
		return def
	}
	return st
}
