package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// PaymentDraft is a payment saved with 下書き保存: the journey's answers as JSON (the
// handlers' type, valid or not) and what the drafts list shows.
type PaymentDraft struct {
	ID           int64           `db:"id"`
	BuyerID      int64           `db:"buyer_id"`
	Data         json.RawMessage `db:"data"`
	SupplierName string          `db:"supplier_name"`
	Amount       *int64          `db:"amount"`
	DueDate      *time.Time      `db:"due_date"`
	Step         string          `db:"step"`
	CreatedAt    time.Time       `db:"created_at"`
	UpdatedAt    time.Time       `db:"updated_at"`
}

// DraftSummary is what the list shows of a draft, taken from its answers when saved.
type DraftSummary struct {
	SupplierName string
	Amount       *int64
	DueDate      *time.Time
	// Step is where the journey resumes.
	Step string
}

const draftColumns = `id, buyer_id, data, supplier_name, amount, due_date, step, created_at, updated_at`

// SavePaymentDraft creates a draft (id 0) or replaces one of the buyer's drafts, and
// answers its id; another buyer's id is ErrNotFound.
func (s *Store) SavePaymentDraft(ctx context.Context, buyerID, id int64, data []byte, sum DraftSummary, now time.Time) (int64, error) {
	if !json.Valid(data) {
		return 0, fmt.Errorf("store: draft data is not JSON")
	}
	var err error
	if id == 0 {
		err = s.DB.GetContext(ctx, &id, `INSERT INTO payment_drafts (buyer_id, data, supplier_name, amount, due_date, step, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`, buyerID, string(data), sum.SupplierName, sum.Amount, sum.DueDate, sum.Step, now)
	} else {
		err = s.DB.GetContext(ctx, &id, `UPDATE payment_drafts SET data = $3, supplier_name = $4, amount = $5, due_date = $6,
			step = $7, updated_at = $8 WHERE buyer_id = $1 AND id = $2 RETURNING id`,
			buyerID, id, string(data), sum.SupplierName, sum.Amount, sum.DueDate, sum.Step, now)
	}
	if notFound(err) {
		return 0, fmt.Errorf("store: draft %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("store: save draft %d: %w", id, err)
	}
	return id, nil
}

// PaymentDraft loads one of the buyer's drafts.
func (s *Store) PaymentDraft(ctx context.Context, buyerID, id int64) (PaymentDraft, error) {
	return getOne[PaymentDraft](ctx, s.DB, fmt.Sprintf("draft %d", id),
		`SELECT `+draftColumns+` FROM payment_drafts WHERE buyer_id = $1 AND id = $2`, buyerID, id)
}

// PaymentDrafts lists the buyer's drafts, the latest saved first, a page at a time (page
// from 0), with the total; size 0 answers the count alone.
func (s *Store) PaymentDrafts(ctx context.Context, buyerID int64, page, size int) ([]PaymentDraft, int, error) {
	var total int
	if err := s.DB.GetContext(ctx, &total, `SELECT count(*) FROM payment_drafts WHERE buyer_id = $1`, buyerID); err != nil {
		return nil, 0, fmt.Errorf("store: drafts of buyer %d: %w", buyerID, err)
	}
	list := []PaymentDraft{}
	if total == 0 || size <= 0 || page*size >= total {
		return list, total, nil
	}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+draftColumns+` FROM payment_drafts WHERE buyer_id = $1
		ORDER BY updated_at DESC, id DESC LIMIT $2 OFFSET $3`, buyerID, size, page*size); err != nil {
		return nil, 0, fmt.Errorf("store: drafts of buyer %d: %w", buyerID, err)
	}
	return list, total, nil
}

// DeletePaymentDrafts deletes those of ids that are the buyer's drafts and answers how
// many went; ids of other buyers are ignored.
func (s *Store) DeletePaymentDrafts(ctx context.Context, buyerID int64, ids []int64) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	res, err := s.DB.ExecContext(ctx, `DELETE FROM payment_drafts WHERE buyer_id = $1 AND id = ANY($2)`, buyerID, pq.Int64Array(ids))
	if err != nil {
		return 0, fmt.Errorf("store: delete drafts: %w", err)
	}
	return int(rowsAffected(res)), nil
}
