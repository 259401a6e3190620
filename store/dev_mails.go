package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// DevMailsKept is how many development mails the mailbox keeps; older ones go as new
// ones arrive.
const DevMailsKept = 500

// DevMail is a mail kept by the development mailbox. Package mail fills it from the
// messages its development SMTP server decodes; the store keeps its own type so that it
// need not import mail.
type DevMail struct {
	ID         int64     `db:"id"`
	From       string    `db:"mail_from"`
	To         string    `db:"mail_to"`
	Subject    string    `db:"subject"`
	Text       string    `db:"body"`
	ReceivedAt time.Time `db:"received_at"`
}

const devMailColumns = `id, mail_from, mail_to, subject, body, received_at`

// SaveDevMail keeps a mail the development mailbox received and drops all but the
// newest DevMailsKept. The mailbox is the developer's, not a buyer's: nothing in it is
// scoped by buyer, and it is only served in development. A zero ReceivedAt means now.
func (s *Store) SaveDevMail(ctx context.Context, m DevMail) (int64, error) {
	var receivedAt *time.Time
	if !m.ReceivedAt.IsZero() {
		receivedAt = &m.ReceivedAt
	}
	var id int64
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &id, `INSERT INTO dev_mails (mail_from, mail_to, subject, body, received_at)
			VALUES ($1, $2, $3, $4, COALESCE($5, now())) RETURNING id`,
			m.From, m.To, m.Subject, m.Text, receivedAt); err != nil {
			return fmt.Errorf("store: save dev mail: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM dev_mails WHERE id <= (
			SELECT id FROM dev_mails ORDER BY id DESC OFFSET $1 LIMIT 1)`, DevMailsKept); err != nil {
			return fmt.Errorf("store: dev mail %d: trim the mailbox: %w", id, err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// DevMails lists the newest development mails first, at most limit of them.
func (s *Store) DevMails(ctx context.Context, limit int) ([]DevMail, error) {
	out := []DevMail{}
	if err := s.DB.SelectContext(ctx, &out, `SELECT `+devMailColumns+` FROM dev_mails
		ORDER BY id DESC LIMIT $1`, max(limit, 0)); err != nil {
		return nil, fmt.Errorf("store: dev mails: %w", err)
	}
	return out, nil
}

// DevMail returns one development mail, or ErrNotFound.
func (s *Store) DevMail(ctx context.Context, id int64) (DevMail, error) {
	var m DevMail
	err := s.DB.GetContext(ctx, &m, `SELECT `+devMailColumns+` FROM dev_mails WHERE id = $1`, id)
	if notFound(err) {
		return DevMail{}, ErrNotFound
	}
	if err != nil {
		return DevMail{}, fmt.Errorf("store: dev mail %d: %w", id, err)
	}
	return m, nil
}
