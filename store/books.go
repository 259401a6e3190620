package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cardpay/pay"
)

// BookAccounts are the buyer's saved journal accounts, or pay.DefaultBookAccounts.
func (s *Store) BookAccounts(ctx context.Context, buyerID int64) (pay.BookAccounts, error) {
	a, err := getOne[pay.BookAccounts](ctx, s.DB, "book accounts",
		`SELECT payable, fee, card, card_detail FROM book_accounts WHERE buyer_id = $1`, buyerID)
	if errors.Is(err, ErrNotFound) {
		return pay.DefaultBookAccounts, nil
	}
	return a, err
}

// SaveBookAccounts keeps a (checked by pay.BookAccounts.Check) for the buyer's next export.
func (s *Store) SaveBookAccounts(ctx context.Context, buyerID int64, a pay.BookAccounts, now time.Time) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO book_accounts (buyer_id, payable, fee, card, card_detail, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (buyer_id) DO UPDATE SET payable = $2, fee = $3, card = $4,
		card_detail = $5, updated_at = $6`, buyerID, a.Payable, a.Fee, a.Card, a.CardDetail, now)
	if err != nil {
		return fmt.Errorf("store: book accounts of buyer %d: %w", buyerID, err)
	}
	return nil
}

// BookRow is a transferred payment with what the accountant's list shows.
type BookRow struct {
	ID                 int64           `db:"id"`
	InvoiceType        pay.InvoiceType `db:"invoice_type"`
	Supplier           string          `db:"supplier_name"`
	RegistrationNumber string          `db:"registration_number"`
	InvoiceNumber      string          `db:"invoice_number"`
	InvoiceDate        *time.Time      `db:"invoice_date"`
	DueDate            *time.Time      `db:"due_date"`
	Amount             int64           `db:"amount"`
	Fee                int64           `db:"fee"`
	SubmittedAt        time.Time       `db:"submitted_at"`
	CapturedAt         *time.Time      `db:"captured_at"`
	TransferredAt      time.Time       `db:"transferred_at"`
	CardBrand          *pay.CardBrand  `db:"brand"`
	CardLast4          *string         `db:"last4"`
}

// Payment is the row as the books' rules take it.
func (r BookRow) Payment() pay.BookPayment {
	t := r.TransferredAt.In(pay.Tokyo())
	return pay.BookPayment{ID: r.ID, TransferredOn: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, pay.Tokyo()),
		Supplier: r.Supplier, RegistrationNumber: r.RegistrationNumber, InvoiceNumber: r.InvoiceNumber, Amount: r.Amount, Fee: r.Fee}
}

// BookRows are the buyer's payments whose supplier was paid from the day from to the
// day to (Japan days, both included), in the order they were paid.
func (s *Store) BookRows(ctx context.Context, buyerID int64, from, to time.Time) ([]BookRow, error) {
	list := []BookRow{}
	err := s.DB.SelectContext(ctx, &list, `SELECT i.id, i.invoice_type, s.name AS supplier_name, i.registration_number,
		i.invoice_number, i.invoice_date, i.due_date, i.amount, i.fee, i.submitted_at, i.captured_at, i.transferred_at,
		c.brand, c.last4
		FROM invoices i JOIN suppliers s ON s.id = i.supplier_id AND s.buyer_id = i.buyer_id
		LEFT JOIN cards c ON c.id = i.card_id AND c.buyer_id = i.buyer_id
		WHERE i.buyer_id = $1 AND i.transferred_at IS NOT NULL AND i.examination_status = $2
			AND i.transferred_at >= $3 AND i.transferred_at < $4
		ORDER BY i.transferred_at, i.id`,
		buyerID, pay.TransferCompleted, dayStart(from), dayStart(to).AddDate(0, 0, 1))
	if err != nil {
		return nil, fmt.Errorf("store: book rows of buyer %d: %w", buyerID, err)
	}
	return list, nil
}

// dayStart is the start of t's date in Japan.
func dayStart(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, pay.Tokyo())
}

// RequestBookRow is a card-payment request the requester was paid for, with when.
type RequestBookRow struct {
	Request
	TransferredAt time.Time `db:"transferred_at"`
}

// RequestBookRows are the requester's requests whose customer's payment was transferred
// to it from the day from to the day to (Japan days, both included), in that order.
func (s *Store) RequestBookRows(ctx context.Context, requesterID int64, from, to time.Time) ([]RequestBookRow, error) {
	list := []RequestBookRow{}
	err := s.DB.SelectContext(ctx, &list, `SELECT `+requestColumns+`, p.transferred_at`+requestFrom+`
		WHERE i.buyer_id = $1 AND i.invoice_type = $2 AND p.transferred_at >= $3 AND p.transferred_at < $4
		AND p.examination_status = $5
		ORDER BY p.transferred_at, i.id`,
		requesterID, pay.InvoiceRequestSeller, dayStart(from), dayStart(to).AddDate(0, 0, 1), pay.TransferCompleted)
	if err != nil {
		return nil, fmt.Errorf("store: request book rows of buyer %d: %w", requesterID, err)
	}
	return list, nil
}
