package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/pay"
)

// Notification is an in-app message to a buyer.
type Notification struct {
	ID      int64  `db:"id"`
	BuyerID int64  `db:"buyer_id"`
	Title   string `db:"title"`
	Body    string `db:"body"`
	// Link is the page the notification is about ("" for none).
	Link      string     `db:"link"`
	ReadAt    *time.Time `db:"read_at"`
	CreatedAt time.Time  `db:"created_at"`
}

// CreateNotification adds a notification for buyerID.
func (s *Store) CreateNotification(ctx context.Context, buyerID int64, title, body string) (int64, error) {
	var id int64
	err := s.DB.GetContext(ctx, &id, `INSERT INTO notifications (buyer_id, title, body) VALUES ($1, $2, $3) RETURNING id`, buyerID, title, body)
	if err != nil {
		return 0, fmt.Errorf("store: create notification for buyer %d: %w", buyerID, err)
	}
	return id, nil
}

// NotificationMailJobKind is the job that mails a notification to the buyer's users
// (account.Service.DeliverNotification). Its unique key is the notification's, so an
// event is mailed once.
//
// It is the one job kind store declares, although account runs it: a notification and
// its mail are written in the transaction of the event that causes them (a payment's
// event, the review of a buyer or a supplier), and store writes those events itself,
// calling notify, so store must know the kind to enqueue the mail there. The other kinds are declared
// beside the code that runs them, and their callers hand store what to enqueue.
const NotificationMailJobKind = "notification_mail"

// NotificationJob is the payload of a NotificationMailJobKind job.
type NotificationJob struct {
	BuyerID        int64 `json:"buyer_id"`
	NotificationID int64 `json:"notification_id"`
}

// NewNotification is a notification of one event (EventKey: no event is told twice).
type NewNotification struct {
	EventKey string
	Title    string
	Body     string
	Link     string
}

// Notify writes a notification for buyerID on tx and enqueues its mail there too; an
// event already told (its EventKey) changes nothing.
func (s *Store) Notify(ctx context.Context, tx *sqlx.Tx, buyerID int64, n NewNotification, now time.Time) error {
	return notify(ctx, tx, buyerID, n, now)
}

func notify(ctx context.Context, tx *sqlx.Tx, buyerID int64, n NewNotification, now time.Time) error {
	var id int64
	err := tx.GetContext(ctx, &id, `INSERT INTO notifications (buyer_id, title, body, link, event_key, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (event_key) DO NOTHING RETURNING id`,
		buyerID, n.Title, n.Body, n.Link, n.EventKey, now)
	if notFound(err) {
		return nil // told already
	}
	if err != nil {
		return fmt.Errorf("store: notification %s: %w", n.EventKey, err)
	}
	_, err = enqueueJob(ctx, tx, NewJob{Kind: NotificationMailJobKind, Payload: NotificationJob{BuyerID: buyerID, NotificationID: id},
		UniqueKey: fmt.Sprintf("notification-%d", id), MaxAttempts: 10})
	return err
}

// notifyPayment tells the buyer of event eventID (action a) of payment id.
func notifyPayment(ctx context.Context, tx *sqlx.Tx, buyerID, id, eventID int64, a pay.PaymentAction, to pay.PaymentState, reason string, now time.Time) error {
	var row struct {
		Supplier string `db:"name"`
		Amount   int64  `db:"amount"`
		Fee      int64  `db:"fee"`
	}
	if err := tx.GetContext(ctx, &row, `SELECT s.name, i.amount, i.fee FROM invoices i JOIN suppliers s ON s.id = i.supplier_id
		WHERE i.buyer_id = $1 AND i.id = $2`, buyerID, id); err != nil {
		return fmt.Errorf("store: notify payment %d: %w", id, err)
	}
	title, body := pay.PaymentNotice(a, row.Supplier, row.Amount, reason)
	return notify(ctx, tx, buyerID, NewNotification{EventKey: fmt.Sprintf("invoice-event-%d", eventID),
		Title: title, Body: body, Link: pay.PaymentLink(id, to)}, now)
}

// BuyerAddresses are the e-mail addresses of the buyer's users, for the buyer's
// notification mails.
func (s *Store) BuyerAddresses(ctx context.Context, buyerID int64) ([]string, error) {
	var list []string
	if err := s.DB.SelectContext(ctx, &list, `SELECT email_address FROM users WHERE buyer_id = $1 ORDER BY id`, buyerID); err != nil {
		return nil, fmt.Errorf("store: addresses of buyer %d: %w", buyerID, err)
	}
	return list, nil
}
