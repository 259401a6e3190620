package invoices

import (
	"context"

	"cardpay/pay"
	"cardpay/store"
)

// RequestFlow is a card-payment request being prepared (SPEC.md §3 collection flow data):
// the uploaded file with its reading, the invoice form (the customer and the invoice),
// the bank form (one of the requester's receiving accounts; a new one is saved as soon
// as it is entered, it is the requester's own) and who bears the fee. The pages keep it in
// the session between steps; a draft keeps it as JSON, whoever saved it (the pages or
// POST /api/v1/invoice_request_drafts). Each *Done is set once that step validated.
type RequestFlow struct {
	FileID int64 `json:"file_id,omitempty"`
	// DraftID is the draft the flow was resumed from (deleted once it is sent).
	DraftID int64 `json:"draft_id,omitempty"`

	Request     pay.RequestInput `json:"request"`
	RequestDone bool             `json:"request_done,omitempty"`
	// Prefilled names the fields read from the file, for the page to say so until the
	// requester changes them.
	Prefilled []string `json:"prefilled,omitempty"`

	AccountID int64 `json:"account_id,omitempty"`
	BankDone  bool  `json:"bank_done,omitempty"`

	FeeBearer pay.FeeBearer `json:"fee_bearer,omitempty"`
	// SubmitKey is the confirm page's one-time key; a draft never keeps it.
	SubmitKey string `json:"submit_key,omitempty"`
}

// Submission is the flow as CheckRequest and SendRequest take it.
func (f RequestFlow) Submission(userID int64) RequestSubmission {
	sub := RequestSubmission{SubmitKey: f.SubmitKey, UserID: userID, Request: f.Request, FeeBearer: f.FeeBearer, AccountID: f.AccountID}
	if f.FileID != 0 {
		id := f.FileID
		sub.FileID = &id
	}
	return sub
}

// SaveDraft keeps f as one of the buyer's request drafts (id 0 makes a new one)
// that resumes at step (saveDraft); the confirm page's key is not kept.
func (s *Requests) SaveDraft(ctx context.Context, buyerID, id int64, f RequestFlow, step string) (int64, error) {
	f.SubmitKey, f.DraftID = "", 0
	sum := store.DraftSummary{Counterparty: f.Request.CustomerName, Step: step}
	return saveDraft(ctx, &s.base, buyerID, store.RequestDraft, id, f, sum, f.Request.Amount, f.Request.Deadline)
}

// Draft loads one of the buyer's request drafts as a flow (loadDraft).
func (s *Requests) Draft(ctx context.Context, buyerID, id int64) (RequestFlow, store.Draft, error) {
	f, d, err := loadDraft[RequestFlow](ctx, &s.base, buyerID, store.RequestDraft, id)
	if err != nil {
		return RequestFlow{}, d, err
	}
	f.DraftID, f.SubmitKey = d.ID, ""
	return f, d, nil
}
