package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/pay"
)

// BuyerReviewItem is a buyer as the console's review of held buyers shows it: the
// business it claims to be, the address it signs in with and its review state. Operators
// only: it is read by buyer id across every buyer.
type BuyerReviewItem struct {
	ID              int64            `db:"id"`
	BusinessForm    pay.BusinessForm `db:"business_form"`
	CorporateName   string           `db:"corporate_name"`
	CorporateNumber string           `db:"corporate_number"`
	AddressState    string           `db:"address_state"`
	AddressCity     string           `db:"address_city"`
	AddressStreet   string           `db:"address_street"`
	Representative  string           `db:"representative"`
	PhoneNumber     string           `db:"phone_number"`
	EmailAddress    string           `db:"email_address"`
	ReviewStatus    pay.BuyerReview  `db:"review_status"`
	ReviewReason    string           `db:"review_reason"`
	ReviewNote      string           `db:"review_note"`
	CreatedAt       time.Time        `db:"created_at"`
}

// The first user of each buyer is the one who registered it.
const buyerReviewSelect = `SELECT b.id, b.business_form, b.corporate_name, b.corporate_number, b.address_state,
	b.address_city, b.address_street, b.representative_last_name || ' ' || b.representative_first_name AS representative,
	COALESCE(u.phone_number, '') AS phone_number, COALESCE(u.email_address, '') AS email_address,
	b.review_status, b.review_reason, b.review_note, b.created_at
	FROM buyers b LEFT JOIN LATERAL (SELECT phone_number, email_address FROM users WHERE buyer_id = b.id ORDER BY id LIMIT 1) u ON true`

// HeldBuyers lists the buyers waiting for an operator, oldest first. Operators only.
func (s *Store) HeldBuyers(ctx context.Context) ([]BuyerReviewItem, error) {
	list := []BuyerReviewItem{}
	if err := s.DB.SelectContext(ctx, &list, buyerReviewSelect+` WHERE b.review_status = 'held' ORDER BY b.created_at, b.id`); err != nil {
		return nil, fmt.Errorf("store: held buyers: %w", err)
	}
	return list, nil
}

// BuyerForReview reads one buyer for its review. Operators only.
func (s *Store) BuyerForReview(ctx context.Context, id int64) (BuyerReviewItem, error) {
	return getOne[BuyerReviewItem](ctx, s.DB, fmt.Sprintf("buyer %d for review", id), buyerReviewSelect+` WHERE b.id = $1`, id)
}

// BuyersWithNumber are the other corporations registered with a corporate number, in
// any review state, oldest first: what the console shows beside a number_taken claim.
// Operators only.
func (s *Store) BuyersWithNumber(ctx context.Context, number string, except int64) ([]BuyerReviewItem, error) {
	list := []BuyerReviewItem{}
	if number == "" {
		return list, nil
	}
	if err := s.DB.SelectContext(ctx, &list, buyerReviewSelect+` WHERE b.business_form = 1 AND b.corporate_number = $1 AND b.id <> $2
		ORDER BY b.created_at, b.id`, number, except); err != nil {
		return nil, fmt.Errorf("store: buyers with corporate number: %w", err)
	}
	return list, nil
}

// BuyerReviewStatus is the buyer's own review state (the signed-in buyer's id).
func (s *Store) BuyerReviewStatus(ctx context.Context, buyerID int64) (pay.BuyerReview, error) {
	return getOne[pay.BuyerReview](ctx, s.DB, fmt.Sprintf("review of buyer %d", buyerID),
		`SELECT review_status FROM buyers WHERE id = $1`, buyerID)
}

// ReviewBuyer decides a held buyer: active (approved) or rejected, with the operator's
// note and the audit row, and runs also (the buyer's notification) in the same transaction.
// ErrStateChanged when the buyer is no longer held (another operator decided).
func (s *Store) ReviewBuyer(ctx context.Context, id int64, to pay.BuyerReview, note string, audit NewAudit, now time.Time, also func(tx *sqlx.Tx) error) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE buyers SET review_status = $2, review_note = $3, reviewed_at = $4
			WHERE id = $1 AND review_status = 'held'`, id, to, note, now)
		if err != nil {
			return fmt.Errorf("store: review buyer %d: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: review buyer %d: %w", id, ErrStateChanged)
		}
		if err := s.AddAudit(ctx, tx, audit, now); err != nil {
			return err
		}
		return also(tx)
	})
}
