package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
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

// NewNotification is a notification of one event (EventKey: no event is told twice).
type NewNotification struct {
	EventKey string
	Title    string
	Body     string
	Link     string
}

// Notify writes a notification for buyerID on tx and, when it is new, enqueues there
// the job mail(id) builds: its mail (account.Service.NotificationMail), so the mail goes
// with the event or not at all. An event already told (its EventKey) changes nothing.
// mail nil writes no mail (tests of the notices alone).
func (s *Store) Notify(ctx context.Context, tx *sqlx.Tx, buyerID int64, n NewNotification, mail func(id int64) NewJob, now time.Time) error {
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
	if mail == nil {
		return nil
	}
	j := mail(id)
	j.UniqueKey = fmt.Sprintf("notification-%d", id)
	_, err = enqueueJob(ctx, tx, j)
	return err
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
