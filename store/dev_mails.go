package store

import (
	"context"
	"fmt"
	"time"

	"cardpay/mail"
)

// DevMailsKept is how many development mails the mailbox keeps; older ones go as new
// ones arrive.
const DevMailsKept = 500

// devMail is a dev_mails row.
type devMail struct {
	ID         int64     `db:"id"`
	From       string    `db:"mail_from"`
	To         string    `db:"mail_to"`
	Subject    string    `db:"subject"`
	Body       string    `db:"body"`
	ReceivedAt time.Time `db:"received_at"`
}

func (d devMail) received() mail.Received {
	return mail.Received{ID: d.ID, From: d.From, To: d.To, Subject: d.Subject, Text: d.Body, ReceivedAt: d.ReceivedAt}
}

const devMailColumns = `id, mail_from, mail_to, subject, body, received_at`

// SaveDevMail keeps a mail the development mailbox received and drops all but the
// newest DevMailsKept. The mailbox is the developer's, not a buyer's: nothing in it is
// scoped by buyer, and it is only served in development.
func (s *Store) SaveDevMail(ctx context.Context, r mail.Received) (int64, error) {
	tx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("store: save dev mail: %w", err)
	}
	defer tx.Rollback()
	var receivedAt *time.Time
	if !r.ReceivedAt.IsZero() {
		receivedAt = &r.ReceivedAt
	}
	var id int64
	if err := tx.GetContext(ctx, &id, `INSERT INTO dev_mails (mail_from, mail_to, subject, body, received_at)
		VALUES ($1, $2, $3, $4, COALESCE($5, now())) RETURNING id`,
		r.From, r.To, r.Subject, r.Text, receivedAt); err != nil {
		return 0, fmt.Errorf("store: save dev mail: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM dev_mails WHERE id <= (
		SELECT id FROM dev_mails ORDER BY id DESC OFFSET $1 LIMIT 1)`, DevMailsKept); err != nil {
		return 0, fmt.Errorf("store: dev mail %d: trim the mailbox: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("store: dev mail %d: %w", id, err)
	}
	return id, nil
}

// DevMails lists the newest development mails first, at most limit of them.
func (s *Store) DevMails(ctx context.Context, limit int) ([]mail.Received, error) {
	var rows []devMail
	if err := s.DB.SelectContext(ctx, &rows, `SELECT `+devMailColumns+` FROM dev_mails
		ORDER BY id DESC LIMIT $1`, max(limit, 0)); err != nil {
		return nil, fmt.Errorf("store: dev mails: %w", err)
	}
	out := make([]mail.Received, len(rows))
	for i, d := range rows {
		out[i] = d.received()
	}
	return out, nil
}

// DevMail returns one development mail, or ErrNotFound.
func (s *Store) DevMail(ctx context.Context, id int64) (mail.Received, error) {
	var d devMail
	err := s.DB.GetContext(ctx, &d, `SELECT `+devMailColumns+` FROM dev_mails WHERE id = $1`, id)
	if notFound(err) {
		return mail.Received{}, ErrNotFound
	}
	if err != nil {
		return mail.Received{}, fmt.Errorf("store: dev mail %d: %w", id, err)
	}
	return d.received(), nil
}

var _ mail.Box = (*Store)(nil)
