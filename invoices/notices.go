package invoices

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/pay"
	"cardpay/store"
)

// What a change of a payment or of a request causes, in the transaction that writes it
// (store.Events; cmd/server and webtest install the app's Service with
// Store.SetEvents): the buyer's notification and its mail, once per event, and a
// request following the customer's payment that pays it, so the two sides cannot
// disagree.

var _ store.Events = (*Notices)(nil)

// PaymentChanged tells the buyer of a payment's event and, when the payment pays a
// card-payment request, moves the requester's invoice with it.
func (s *Notices) PaymentChanged(ctx context.Context, tx *sqlx.Tx, c store.PaymentChange) error {
	f, err := s.Store.PaymentNoticeFactsOf(ctx, tx, c.BuyerID, c.PaymentID)
	if err != nil {
		return err
	}
	title, body := pay.PaymentNotice(c.Action, f.Supplier, f.Amount, c.Reason)
	if err := s.notify(ctx, tx, c.BuyerID, store.NewNotification{EventKey: eventKey(c.ID), Title: title, Body: body,
		Link: pay.PaymentLink(c.PaymentID, c.To)}, c.At); err != nil {
		return err
	}
	if typ, ok := partnerEvents[c.Action]; ok && s.WebhookJob != nil {
		if err := s.Store.EnqueuePartnerWebhook(ctx, tx, c.BuyerID, c.PaymentID, fmt.Sprintf("event-%d", c.ID), typ,
			int(c.To.Status), c.At, s.WebhookJob); err != nil {
			return err
		}
	}
	return s.followPayment(ctx, tx, c)
}

// partnerEvents are the payment events a partner application hears of by webhook (a
// payment its draft became): screened, transferred, sent back, cancelled or expired.
// payment.submitted is told when the draft is finished (store.FinishDraft).
var partnerEvents = map[pay.PaymentAction]string{
	pay.ActComplete: "payment.screened",
	pay.ActTransfer: "payment.transferred",
	pay.ActSendBack: "payment.sent_back",
	pay.ActCancel:   "payment.cancelled",
	pay.ActExpire:   "payment.expired",
}

// followPayment moves the requester's invoice with a change of the customer's invoice
// that pays it. A change that keeps the requester's status (a send-back, a check:
// between the customer and screening) is written but is not the requester's news.
func (s *Notices) followPayment(ctx context.Context, tx *sqlx.Tx, c store.PaymentChange) error {
	r, err := s.Store.RequestPaidBy(ctx, tx, c.BuyerID, c.PaymentID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // an ordinary payment
	}
	if err != nil || r.Status == c.To.Status {
		return err
	}
	// 審査中 → 確認済 is screening's own step: the requester's status (3) is the same.
	news := pay.CollectionStatusOf(r.Status) != pay.CollectionStatusOf(c.To.Status)
	return s.Store.MoveRequest(ctx, tx, r, c.Action, c.To.Status, news, c.Actor, c.At)
}

// RequestChanged tells the requester of an event of their request.
func (s *Notices) RequestChanged(ctx context.Context, tx *sqlx.Tx, c store.RequestChange) error {
	f, err := s.Store.RequestNoticeFactsOf(ctx, tx, c.RequesterID, c.RequestID)
	if err != nil {
		return err
	}
	title, body := pay.CollectionNotice(c.Action, f.Customer, f.Amount, c.To)
	return s.notify(ctx, tx, c.RequesterID, store.NewNotification{EventKey: eventKey(c.ID), Title: title, Body: body,
		Link: pay.CollectionLink(c.RequestID, c.To)}, c.At)
}

// eventKey is a notification's key of an invoice event: no event is told twice.
func eventKey(eventID int64) string { return fmt.Sprintf("invoice-event-%d", eventID) }

// notify writes the buyer's notification on tx with its mail.
func (s *Notices) notify(ctx context.Context, tx *sqlx.Tx, buyerID int64, n store.NewNotification, now time.Time) error {
	var mail func(id int64) store.NewJob
	if s.Mailer != nil {
		mail = s.Mailer.NotificationMail(buyerID)
	}
	return s.Store.Notify(ctx, tx, buyerID, n, mail, now)
}
