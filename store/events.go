package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/pay"
)

// Events is told of the events a buyer hears of, in the transaction that writes them: a
// payment's (PaymentChange) and a card-payment request's (RequestChange). What an event
// causes — the buyer's notification, a request following the payment that pays it — is
// the money services' rule (invoices.Notices implements it); store writes the rows and
// tells. An error rolls the whole change back. Every path that changes a payment or a
// request ends in the one place that tells (Store.insertEvent, Store.requestEvent), so no
// path can forget.
type Events interface {
	PaymentChanged(ctx context.Context, tx *sqlx.Tx, c PaymentChange) error
	RequestChanged(ctx context.Context, tx *sqlx.Tx, c RequestChange) error
}

// PaymentChange is a payment's event its buyer is told of (pay.PaymentAction.ForBuyer).
type PaymentChange struct {
	ID        int64 // the invoice_events row
	BuyerID   int64
	PaymentID int64
	Action    pay.PaymentAction
	To        pay.PaymentState
	Actor     string
	Reason    string
	At        time.Time
}

// RequestChange is an event of a requester's card-payment request (its invoice).
type RequestChange struct {
	ID          int64 // the invoice_events row
	RequesterID int64
	RequestID   int64
	Action      pay.PaymentAction
	To          pay.ExaminationStatus
	At          time.Time
}

// SetEvents installs who is told of events (cmd/server and webtest: the app's invoices
// service) before the store is used. Nil, store's own tests, tells nobody: their rows are
// written all the same.
func (s *Store) SetEvents(e Events) {
	if e == nil {
		s.events.Store(nil)
		return
	}
	s.events.Store(&e)
}

// told is who is told of events, nil for nobody.
func (s *Store) told() Events {
	if e := s.events.Load(); e != nil {
		return *e
	}
	return nil
}

// PaymentNoticeFacts are what a payment's notice says of it.
type PaymentNoticeFacts struct {
	Supplier string `db:"name"`
	Amount   int64  `db:"amount"`
	Fee      int64  `db:"fee"`
}

// PaymentNoticeFactsOf reads, on tx, what the notice of the buyer's payment id says.
func (s *Store) PaymentNoticeFactsOf(ctx context.Context, tx *sqlx.Tx, buyerID, id int64) (PaymentNoticeFacts, error) {
	return getOne[PaymentNoticeFacts](ctx, tx, fmt.Sprintf("notice of payment %d", id),
		`SELECT s.name, i.amount, i.fee FROM invoices i JOIN suppliers s ON s.id = i.supplier_id
		WHERE i.buyer_id = $1 AND i.id = $2`, buyerID, id)
}

// RequestNoticeFacts are what a request's notice says of it.
type RequestNoticeFacts struct {
	Customer string `db:"customer_name"`
	Amount   int64  `db:"amount"`
}

// RequestNoticeFactsOf reads, on tx, what the notice of the requester's request id says.
func (s *Store) RequestNoticeFactsOf(ctx context.Context, tx *sqlx.Tx, requesterID, id int64) (RequestNoticeFacts, error) {
	return getOne[RequestNoticeFacts](ctx, tx, fmt.Sprintf("notice of request %d", id),
		`SELECT r.customer_name, i.amount FROM invoice_requests r JOIN invoices i ON i.id = r.invoice_id
		WHERE i.buyer_id = $1 AND r.invoice_id = $2`, requesterID, id)
}

// PaidRequest is the requester's side of a request a customer's payment pays.
type PaidRequest struct {
	ID          int64                 `db:"id"`
	RequesterID int64                 `db:"buyer_id"`
	Status      pay.ExaminationStatus `db:"examination_status"`
}

// RequestPaidBy answers, on tx and locked for update, the request the customer's payment
// paymentID pays; ErrNotFound when it pays none (an ordinary payment).
func (s *Store) RequestPaidBy(ctx context.Context, tx *sqlx.Tx, customerID, paymentID int64) (PaidRequest, error) {
	return getOne[PaidRequest](ctx, tx, fmt.Sprintf("request of payment %d", paymentID),
		`SELECT i.id, i.buyer_id, i.examination_status FROM invoice_requests r
		JOIN invoices i ON i.id = r.invoice_id WHERE r.customer_buyer_id = $1 AND r.payment_invoice_id = $2 FOR UPDATE OF i`,
		customerID, paymentID)
}

// MoveRequest sets a request's status on tx (it follows the payment that pays it) and,
// when record is set, writes its event (which tells Events).
func (s *Store) MoveRequest(ctx context.Context, tx *sqlx.Tx, r PaidRequest, a pay.PaymentAction, to pay.ExaminationStatus, record bool, actor string, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `UPDATE invoices SET examination_status = $3, updated_at = $4 WHERE buyer_id = $1 AND id = $2`,
		r.RequesterID, r.ID, to, now); err != nil {
		return fmt.Errorf("store: request %d: %w", r.ID, err)
	}
	if !record {
		return nil
	}
	from := r.Status
	return s.requestEvent(ctx, tx, r.RequesterID, r.ID, a, &from, to, actor, now)
}

// insertEvent writes a payment's event row and tells Events of one its buyer hears of;
// it answers the row's id.
func (s *Store) insertEvent(ctx context.Context, tx *sqlx.Tx, buyerID, id int64, a pay.PaymentAction, from *pay.PaymentState, to pay.PaymentState, actor, reason string, now time.Time) (int64, error) {
	var fromStatus *pay.ExaminationStatus
	var fromTransfer *pay.TransferStage
	fromAR := false
	if from != nil {
		fromStatus, fromAR, fromTransfer = &from.Status, from.ActionRequired, &from.Transfer
	}
	if actor == "" {
		actor = "system"
	}
	var eventID int64
	err := tx.GetContext(ctx, &eventID, `INSERT INTO invoice_events (invoice_id, buyer_id, action, from_status, to_status,
		from_action_required, to_action_required, from_transfer, to_transfer, actor, reason, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
		id, buyerID, a, fromStatus, to.Status, fromAR, to.ActionRequired, fromTransfer, to.Transfer, actor, reason, now)
	if err != nil {
		return 0, fmt.Errorf("store: event of payment %d: %w", id, err)
	}
	events := s.told()
	if !a.ForBuyer() || events == nil {
		return eventID, nil // the transfer file's own steps: operators' work, not the buyer's news
	}
	return eventID, events.PaymentChanged(ctx, tx, PaymentChange{ID: eventID, BuyerID: buyerID, PaymentID: id, Action: a, To: to,
		Actor: actor, Reason: reason, At: now})
}

// requestEvent writes an event of the requester's invoice and tells Events.
func (s *Store) requestEvent(ctx context.Context, tx *sqlx.Tx, requesterID, id int64, a pay.PaymentAction, from *pay.ExaminationStatus, to pay.ExaminationStatus, actor string, now time.Time) error {
	var eventID int64
	if err := tx.GetContext(ctx, &eventID, `INSERT INTO invoice_events (invoice_id, buyer_id, action, from_status, to_status,
		actor, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`, id, requesterID, a, from, to, actor, now); err != nil {
		return fmt.Errorf("store: event of request %d: %w", id, err)
	}
	events := s.told()
	if events == nil {
		return nil
	}
	return events.RequestChanged(ctx, tx, RequestChange{ID: eventID, RequesterID: requesterID, RequestID: id, Action: a, To: to, At: now})
}
