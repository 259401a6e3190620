package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// RequestDraft is a card-payment request saved with 下書き保存 (invoice_request_drafts):
// the journey's answers as JSON, valid or not, and what the drafts list shows.
type RequestDraft struct {
	ID           int64           `db:"id"`
	BuyerID      int64           `db:"buyer_id"`
	Data         json.RawMessage `db:"data"`
	CustomerName string          `db:"customer_name"`
	Amount       *int64          `db:"amount"`
	Deadline     *time.Time      `db:"deadline"`
	Step         string          `db:"step"`
	CreatedAt    time.Time       `db:"created_at"`
	UpdatedAt    time.Time       `db:"updated_at"`
}

// RequestDraftSummary is what the list shows of a request draft.
type RequestDraftSummary struct {
	CustomerName string
	Amount       *int64
	Deadline     *time.Time
	Step         string
}

const requestDraftColumns = `id, buyer_id, data, customer_name, amount, deadline, step, created_at, updated_at`

// SaveRequestDraft creates a request draft (id 0) or replaces one of the buyer's, and
// answers its id; another buyer's id is ErrNotFound.
func (s *Store) SaveRequestDraft(ctx context.Context, buyerID, id int64, data []byte, sum RequestDraftSummary, now time.Time) (int64, error) {
	if !json.Valid(data) {
		return 0, fmt.Errorf("store: request draft data is not JSON")
	}
	var err error
	if id == 0 {
		err = s.DB.GetContext(ctx, &id, `INSERT INTO invoice_request_drafts (buyer_id, data, customer_name, amount, deadline, step, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`, buyerID, string(data), sum.CustomerName, sum.Amount, sum.Deadline, sum.Step, now)
	} else {
		err = s.DB.GetContext(ctx, &id, `UPDATE invoice_request_drafts SET data = $3, customer_name = $4, amount = $5, deadline = $6,
			step = $7, updated_at = $8 WHERE buyer_id = $1 AND id = $2 RETURNING id`,
			buyerID, id, string(data), sum.CustomerName, sum.Amount, sum.Deadline, sum.Step, now)
	}
	if notFound(err) {
		return 0, fmt.Errorf("store: request draft %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("store: save request draft %d: %w", id, err)
	}
	return id, nil
}

// RequestDraft loads one of the buyer's request drafts.
func (s *Store) RequestDraft(ctx context.Context, buyerID, id int64) (RequestDraft, error) {
	return getOne[RequestDraft](ctx, s.DB, fmt.Sprintf("request draft %d", id),
		`SELECT `+requestDraftColumns+` FROM invoice_request_drafts WHERE buyer_id = $1 AND id = $2`, buyerID, id)
}

// RequestDrafts lists the buyer's request drafts, the latest saved first, a page at a
// time (page from 0), with the total; size 0 answers the count alone.
func (s *Store) RequestDrafts(ctx context.Context, buyerID int64, page, size int) ([]RequestDraft, int, error) {
	var total int
	if err := s.DB.GetContext(ctx, &total, `SELECT count(*) FROM invoice_request_drafts WHERE buyer_id = $1`, buyerID); err != nil {
		return nil, 0, fmt.Errorf("store: request drafts of buyer %d: %w", buyerID, err)
	}
	list := []RequestDraft{}
	if total == 0 || size <= 0 || page*size >= total {
		return list, total, nil
	}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+requestDraftColumns+` FROM invoice_request_drafts WHERE buyer_id = $1
		ORDER BY updated_at DESC, id DESC LIMIT $2 OFFSET $3`, buyerID, size, page*size); err != nil {
		return nil, 0, fmt.Errorf("store: request drafts of buyer %d: %w", buyerID, err)
	}
	return list, total, nil
}

// DeleteRequestDrafts deletes those of ids that are the buyer's request drafts and
// answers how many went; other buyers' ids are ignored.
func (s *Store) DeleteRequestDrafts(ctx context.Context, buyerID int64, ids []int64) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	res, err := s.DB.ExecContext(ctx, `DELETE FROM invoice_request_drafts WHERE buyer_id = $1 AND id = ANY($2)`, buyerID, pq.Int64Array(ids))
	if err != nil {
		return 0, fmt.Errorf("store: delete request drafts: %w", err)
	}
	return int(rowsAffected(res)), nil
}
