package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// DraftKind is the journey a draft was saved from; every method takes it, so that a draft
// of one kind is never read, replaced or deleted as the other.
type DraftKind string

const (
	// PaymentDraft is a payment (invoices.Flow), listed on /payments/draft.
	PaymentDraft DraftKind = "payment"
	// RequestDraft is a card-payment request (invoices.RequestFlow), listed on
	// /collections/draft.
	RequestDraft DraftKind = "request"
)

// Draft is a journey saved with 下書き保存: its answers as JSON (the flow's type, valid or
// not) and what the drafts list shows.
type Draft struct {
	ID      int64           `db:"id"`
	BuyerID int64           `db:"buyer_id"`
	Kind    DraftKind       `db:"kind"`
	Data    json.RawMessage `db:"data"`
	// Counterparty is a payment's supplier or a request's customer.
	Counterparty string `db:"counterparty_name"`
	Amount       *int64 `db:"amount"`
	// DueDate is a payment's due date or a request's deadline.
	DueDate   *time.Time `db:"due_date"`
	Step      string     `db:"step"`
	CreatedAt time.Time  `db:"created_at"`
	UpdatedAt time.Time  `db:"updated_at"`
	// PartnerName is the partner application that created it through the API ("" when
	// the buyer did).
	PartnerClientID string `db:"partner_client_id"`
	PartnerName     string `db:"partner_name"`
}

// DraftSummary is what the list shows of a draft, taken from its answers when saved.
type DraftSummary struct {
	Counterparty string
	Amount       *int64
	DueDate      *time.Time
	// Step is where the journey resumes.
	Step string
}

const draftColumns = `id, buyer_id, kind, data, counterparty_name, amount, due_date, step, created_at, updated_at,
	COALESCE(partner_client_id, '') AS partner_client_id,
	COALESCE((SELECT name FROM oauth_clients WHERE id = partner_client_id), '') AS partner_name`

// SaveDraft creates a draft of kind (id 0) or replaces one of the buyer's drafts of that
// kind, and answers its id; another buyer's id, or one of the other kind, is ErrNotFound.
func (s *Store) SaveDraft(ctx context.Context, buyerID int64, kind DraftKind, id int64, data []byte, sum DraftSummary, now time.Time) (int64, error) {
	if !json.Valid(data) {
		return 0, fmt.Errorf("store: %s draft data is not JSON", kind)
	}
	var err error
	if id == 0 {
		err = s.DB.GetContext(ctx, &id, `INSERT INTO drafts (buyer_id, kind, data, counterparty_name, amount, due_date, step, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id`, buyerID, kind, string(data), sum.Counterparty, sum.Amount, sum.DueDate, sum.Step, now)
	} else {
		err = s.DB.GetContext(ctx, &id, `UPDATE drafts SET data = $4, counterparty_name = $5, amount = $6, due_date = $7,
			step = $8, updated_at = $9 WHERE buyer_id = $1 AND kind = $2 AND id = $3 RETURNING id`,
			buyerID, kind, id, string(data), sum.Counterparty, sum.Amount, sum.DueDate, sum.Step, now)
	}
	if notFound(err) {
		return 0, fmt.Errorf("store: %s draft %d: %w", kind, id, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("store: save %s draft %d: %w", kind, id, err)
	}
	return id, nil
}

// Draft loads one of the buyer's drafts of kind.
func (s *Store) Draft(ctx context.Context, buyerID int64, kind DraftKind, id int64) (Draft, error) {
	return getOne[Draft](ctx, s.DB, fmt.Sprintf("%s draft %d", kind, id),
		`SELECT `+draftColumns+` FROM drafts WHERE buyer_id = $1 AND kind = $2 AND id = $3`, buyerID, kind, id)
}

// Drafts lists the buyer's drafts of kind, the latest saved first, a page at a time (page
// from 0), with the total; size 0 answers the count alone.
func (s *Store) Drafts(ctx context.Context, buyerID int64, kind DraftKind, page, size int) ([]Draft, int, error) {
	var total int
	if err := s.DB.GetContext(ctx, &total, `SELECT count(*) FROM drafts WHERE buyer_id = $1 AND kind = $2`, buyerID, kind); err != nil {
		return nil, 0, fmt.Errorf("store: %s drafts of buyer %d: %w", kind, buyerID, err)
	}
	list := []Draft{}
	if total == 0 || size <= 0 || page*size >= total {
		return list, total, nil
	}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+draftColumns+` FROM drafts WHERE buyer_id = $1 AND kind = $2
		ORDER BY updated_at DESC, id DESC LIMIT $3 OFFSET $4`, buyerID, kind, size, page*size); err != nil {
		return nil, 0, fmt.Errorf("store: %s drafts of buyer %d: %w", kind, buyerID, err)
	}
	return list, total, nil
}

// DraftsByID are those of ids that are the buyer's drafts of kind (the delete question
// names them), the latest saved first; other ids are left out.
func (s *Store) DraftsByID(ctx context.Context, buyerID int64, kind DraftKind, ids []int64) ([]Draft, error) {
	list := []Draft{}
	if len(ids) == 0 {
		return list, nil
	}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+draftColumns+` FROM drafts WHERE buyer_id = $1 AND kind = $2
		AND id = ANY($3) ORDER BY updated_at DESC, id DESC`, buyerID, kind, pq.Int64Array(ids)); err != nil {
		return nil, fmt.Errorf("store: %s drafts %v of buyer %d: %w", kind, ids, buyerID, err)
	}
	return list, nil
}

// DeleteDrafts deletes those of ids that are the buyer's drafts of kind and answers how
// many went; other ids are ignored.
func (s *Store) DeleteDrafts(ctx context.Context, buyerID int64, kind DraftKind, ids []int64) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	res, err := s.DB.ExecContext(ctx, `DELETE FROM drafts WHERE buyer_id = $1 AND kind = $2 AND id = ANY($3)`, buyerID, kind, pq.Int64Array(ids))
	if err != nil {
		return 0, fmt.Errorf("store: delete %s drafts: %w", kind, err)
	}
	return int(rowsAffected(res)), nil
}

// MarkDraftPartner records that the buyer's draft id of kind was created by the partner
// application clientID.
func (s *Store) MarkDraftPartner(ctx context.Context, buyerID int64, kind DraftKind, id int64, clientID string) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE drafts SET partner_client_id = $4 WHERE buyer_id = $1 AND kind = $2 AND id = $3`,
		buyerID, kind, id, clientID)
	if err != nil {
		return fmt.Errorf("store: mark draft %d of buyer %d: %w", id, buyerID, err)
	}
	return nil
}
