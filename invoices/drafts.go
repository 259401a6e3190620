package invoices

import (
	"context"
	"encoding/json"
	"errors"

	"cardpay/pay"
	"cardpay/store"
)

// saveDraft keeps f, a flow of kind as its journey left it, as one of the buyer's drafts
// (id 0 makes a new one); sum is what the list shows, amount and dueDate the flow's fields
// as typed, kept in the summary when they read as a sum and a date. Nothing is validated,
// a draft may be half-typed. A draft deleted meanwhile (in another tab) is saved anew
// rather than lost. It answers the draft's id.
func saveDraft[F any](ctx context.Context, s *base, buyerID int64, kind store.DraftKind, id int64, f F, sum store.DraftSummary, amount, dueDate string) (int64, error) {
	data, err := json.Marshal(f)
	if err != nil {
		return 0, err
	}
	if n, ok := pay.ParseYen(amount); ok {
		sum.Amount = &n
	}
	if t, ok := pay.ParseDate(dueDate); ok {
		sum.DueDate = &t
	}
	saved, err := s.Store.SaveDraft(ctx, buyerID, kind, id, data, sum, s.now())
	if errors.Is(err, store.ErrNotFound) && id != 0 {
		saved, err = s.Store.SaveDraft(ctx, buyerID, kind, 0, data, sum, s.now())
	}
	return saved, err
}

// loadDraft loads one of the buyer's drafts of kind with its flow; another buyer's, or one
// of the other kind, is store.ErrNotFound. A draft saved by an older version that no
// longer decodes resumes empty.
func loadDraft[F any](ctx context.Context, s *base, buyerID int64, kind store.DraftKind, id int64) (F, store.Draft, error) {
	var f F
	d, err := s.Store.Draft(ctx, buyerID, kind, id)
	if err != nil {
		return f, d, err
	}
	if json.Unmarshal(d.Data, &f) != nil {
		f = *new(F)
	}
	return f, d, nil
}
