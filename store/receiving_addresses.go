package store

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// ReceivingAddress is a buyer's address for suppliers' invoices by mail: LocalPart
// "@" the receiving domain (issue 29).
type ReceivingAddress struct {
	ID        int64      `db:"id"`
	BuyerID   int64      `db:"buyer_id"`
	LocalPart string     `db:"local_part"`
	CreatedAt time.Time  `db:"created_at"`
	RetiredAt *time.Time `db:"retired_at"`
}

// newLocalPart is a random local part: 16 of rand.Text's base32 characters (80 bits),
// lower-cased, so that an address cannot be guessed from another buyer's.
func newLocalPart() string {
	return strings.ToLower(rand.Text()[:16])
}

// ReceivingAddress is buyerID's active receiving address, or ErrNotFound when the buyer
// has none yet.
func (s *Store) ReceivingAddress(ctx context.Context, buyerID int64) (ReceivingAddress, error) {
	var a ReceivingAddress
	err := s.DB.GetContext(ctx, &a, `SELECT id, buyer_id, local_part, created_at, retired_at
		FROM receiving_addresses WHERE buyer_id = $1 AND retired_at IS NULL`, buyerID)
	if notFound(err) {
		return a, ErrNotFound
	}
	if err != nil {
		return a, fmt.Errorf("store: receiving address of buyer %d: %w", buyerID, err)
	}
	return a, nil
}

// ReceivingAddressByLocalPart is the active address with this local part (case does not
// matter), or ErrNotFound: a retired or unknown address receives nothing.
func (s *Store) ReceivingAddressByLocalPart(ctx context.Context, localPart string) (ReceivingAddress, error) {
	var a ReceivingAddress
	err := s.DB.GetContext(ctx, &a, `SELECT id, buyer_id, local_part, created_at, retired_at
		FROM receiving_addresses WHERE local_part = lower($1) AND retired_at IS NULL`, localPart)
	if notFound(err) {
		return a, ErrNotFound
	}
	if err != nil {
		return a, fmt.Errorf("store: receiving address %q: %w", localPart, err)
	}
	return a, nil
}

// RenewReceivingAddress gives buyerID a new receiving address and retires the one it
// had, in one transaction: from then on only the new one receives. userID is who asked.
func (s *Store) RenewReceivingAddress(ctx context.Context, buyerID, userID int64, now time.Time) (ReceivingAddress, error) {
	var a ReceivingAddress
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE receiving_addresses SET retired_at = $2
			WHERE buyer_id = $1 AND retired_at IS NULL`, buyerID, now); err != nil {
			return err
		}
		var by any
		if userID > 0 {
			by = userID
		}
		return tx.GetContext(ctx, &a, `INSERT INTO receiving_addresses (buyer_id, local_part, created_by, created_at)
			VALUES ($1, $2, $3, $4) RETURNING id, buyer_id, local_part, created_at, retired_at`,
			buyerID, newLocalPart(), by, now)
	})
	if err != nil {
		return a, fmt.Errorf("store: renew the receiving address of buyer %d: %w", buyerID, err)
	}
	return a, nil
}

// InboundMailsSince counts the mails taken for address since, for the hourly limit.
func (s *Store) InboundMailsSince(ctx context.Context, addressID int64, since time.Time) (int, error) {
	var n int
	err := s.DB.GetContext(ctx, &n, `SELECT count(*) FROM inbound_mails WHERE address_id = $1 AND received_at >= $2`, addressID, since)
	if err != nil {
		return 0, fmt.Errorf("store: mails of receiving address %d: %w", addressID, err)
	}
	return n, nil
}

// InboundMailTaken says whether address already took the mail with messageID (an
// MTA delivering it again after a lost reply).
func (s *Store) InboundMailTaken(ctx context.Context, addressID int64, messageID string) (bool, error) {
	if messageID == "" {
		return false, nil
	}
	var taken bool
	err := s.DB.GetContext(ctx, &taken, `SELECT EXISTS (SELECT 1 FROM inbound_mails WHERE address_id = $1 AND message_id = $2)`, addressID, clip(messageID, 500))
	if err != nil {
		return false, fmt.Errorf("store: mail %q of receiving address %d: %w", messageID, addressID, err)
	}
	return taken, nil
}

// KnownSender says whether buyerID took an invoice by mail from fromAddress before.
func (s *Store) KnownSender(ctx context.Context, buyerID int64, fromAddress string) (bool, error) {
	var known bool
	err := s.DB.GetContext(ctx, &known, `SELECT EXISTS (SELECT 1 FROM inbound_mails
		WHERE buyer_id = $1 AND from_address = lower($2) AND accepted > 0)`, buyerID, fromAddress)
	if err != nil {
		return false, fmt.Errorf("store: known sender of buyer %d: %w", buyerID, err)
	}
	return known, nil
}

// InboundRefusal is one refused attachment (or the whole mail when Name is "") and why.
type InboundRefusal struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// InboundMail is a mail taken for a receiving address, as the log keeps it.
type InboundMail struct {
	ID           int64     `db:"id"`
	BuyerID      int64     `db:"buyer_id"`
	AddressID    int64     `db:"address_id"`
	EnvelopeFrom string    `db:"envelope_from"`
	FromAddress  string    `db:"from_address"`
	FromName     string    `db:"from_name"`
	Subject      string    `db:"subject"`
	MessageID    string    `db:"message_id"`
	AuthSPF      string    `db:"auth_spf"`
	AuthDKIM     string    `db:"auth_dkim"`
	AuthDMARC    string    `db:"auth_dmarc"`
	Outcome      string    `db:"outcome"`
	Attachments  int       `db:"attachments"`
	Accepted     int       `db:"accepted"`
	RefusalsJSON []byte    `db:"refusals"`
	Bounced      bool      `db:"bounced"`
	ReceivedAt   time.Time `db:"received_at"`
}

// Refusals decodes the refused attachments.
func (m InboundMail) Refusals() []InboundRefusal {
	var list []InboundRefusal
	_ = json.Unmarshal(m.RefusalsJSON, &list)
	return list
}

// NewInboundMail is a taken mail to log, with what follows from it in the same
// transaction: the buyer's notification (nil for none) and the bounce's job (nil for
// none).
type NewInboundMail struct {
	InboundMail
	Refused      []InboundRefusal
	Notification *NewNotification
	NotifyMail   func(id int64) NewJob
	Bounce       *NewJob
}

// LogInboundMail writes m, its notification and its bounce together.
func (s *Store) LogInboundMail(ctx context.Context, m NewInboundMail, now time.Time) (int64, error) {
	refusals, err := json.Marshal(append([]InboundRefusal{}, m.Refused...))
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &id, `INSERT INTO inbound_mails (buyer_id, address_id, envelope_from, from_address,
			from_name, subject, message_id, auth_spf, auth_dkim, auth_dmarc, outcome, attachments, accepted,
			refusals, bounced, received_at)
			VALUES ($1, $2, $3, lower($4), $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING id`,
			m.BuyerID, m.AddressID, clip(m.EnvelopeFrom, 320), clip(m.FromAddress, 320), clip(m.FromName, 200),
			clip(m.Subject, 500), clip(m.MessageID, 500), orNone(m.AuthSPF), orNone(m.AuthDKIM), orNone(m.AuthDMARC),
			m.Outcome, m.Attachments, m.Accepted, refusals, m.Bounce != nil, now)
		if err != nil {
			return err
		}
		if m.Notification != nil {
			n := *m.Notification
			n.EventKey = fmt.Sprintf("inbound-mail-%d", id)
			if err := s.Notify(ctx, tx, m.BuyerID, n, m.NotifyMail, now); err != nil {
				return err
			}
		}
		if m.Bounce != nil {
			if _, err := enqueueJob(ctx, tx, *m.Bounce); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: log a mail of buyer %d: %w", m.BuyerID, err)
	}
	return id, nil
}

// InboundMails is buyerID's newest logged mails, at most limit.
func (s *Store) InboundMails(ctx context.Context, buyerID int64, limit int) ([]InboundMail, error) {
	var list []InboundMail
	err := s.DB.SelectContext(ctx, &list, `SELECT id, buyer_id, address_id, envelope_from, from_address, from_name,
		subject, message_id, auth_spf, auth_dkim, auth_dmarc, outcome, attachments, accepted, refusals, bounced, received_at
		FROM inbound_mails WHERE buyer_id = $1 ORDER BY id DESC LIMIT $2`, buyerID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: mails of buyer %d: %w", buyerID, err)
	}
	return list, nil
}

// clip cuts s to at most n characters, for columns whose length a mail's sender or a
// file's uploader decides (the table's CHECK would refuse more).
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
