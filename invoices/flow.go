package invoices

import (
	"context"

	"cardpay/banks"
	"cardpay/pay"
	"cardpay/store"
)

// Flow is a payment being prepared (SPEC.md §3 payment flow data): the invoice file with
// its reading, formOne (supplierId, isNewSupplier), formTwo (accountId, isNewAccount), the
// invoice form and the confirm form. The pages keep it in the session between their
// steps; a draft keeps it as JSON, whoever saved it (the pages or POST /api/v1/drafts).
// Each *Done is set once that step validated.
type Flow struct {
	FileID int64 `json:"file_id,omitempty"`
	// DraftID is the draft the flow was resumed from (deleted once it is submitted).
	DraftID int64 `json:"draft_id,omitempty"`

	SupplierID      int64             `json:"supplier_id,omitempty"`
	IsNewSupplier   bool              `json:"is_new_supplier,omitempty"`
	NewSupplier     pay.SupplierInput `json:"new_supplier"`
	NewSupplierDone bool              `json:"new_supplier_done,omitempty"`

	AccountID      int64            `json:"account_id,omitempty"`
	IsNewAccount   bool             `json:"is_new_account,omitempty"`
	NewAccount     pay.AccountInput `json:"new_account"`
	NewAccountDone bool             `json:"new_account_done,omitempty"`

	Invoice     pay.InvoiceInput `json:"invoice"`
	InvoiceDone bool             `json:"invoice_done,omitempty"`
	// Prefilled names the invoice fields read from the file, for the page to say so
	// until the buyer changes them.
	Prefilled []string `json:"prefilled,omitempty"`

	CardID        int64    `json:"card_id,omitempty"`
	PromotionCode string   `json:"promotion_code,omitempty"`
	Acknowledged  []string `json:"acknowledged,omitempty"`
	// SubmitKey is the confirm page's one-time key (a new one after a decline); a draft
	// never keeps it.
	SubmitKey string `json:"submit_key,omitempty"`
}

// Submission is the flow as Check and Submit take it.
func (f Flow) Submission(userID int64) Submission {
	sub := Submission{
		SubmitKey: f.SubmitKey, UserID: userID, SupplierID: f.SupplierID, AccountID: f.AccountID,
		Invoice: f.Invoice, CardID: f.CardID, PromotionCode: f.PromotionCode, Acknowledged: f.Acknowledged,
	}
	if f.IsNewSupplier {
		in := f.NewSupplier
		sub.NewSupplier, sub.SupplierID = &in, 0
	}
	if f.IsNewAccount || f.IsNewSupplier {
		if acct, errs := f.NewAccount.Check(banks.Directory{}); len(errs) == 0 {
			sub.NewAccount, sub.AccountID = &acct, 0
		}
	}
	if f.FileID != 0 {
		id := f.FileID
		sub.FileID = &id
	}
	return sub
}

// SupplierName is the chosen or new supplier's name ("" when none is chosen yet).
func (s *Payments) SupplierName(ctx context.Context, buyerID int64, f Flow) string {
	if f.IsNewSupplier {
		return f.NewSupplier.Name
	}
	if f.SupplierID == 0 {
		return ""
	}
	sup, err := s.Store.Supplier(ctx, buyerID, f.SupplierID)
	if err != nil {
		return ""
	}
	return sup.Name
}

// SaveDraft keeps f as one of the buyer's payment drafts (id 0 makes a new one) that
// resumes at step (saveDraft); the confirm page's key and acknowledgements are not kept.
func (s *Payments) SaveDraft(ctx context.Context, buyerID, id int64, f Flow, step string) (int64, error) {
	f.SubmitKey, f.Acknowledged, f.DraftID = "", nil, 0
	sum := store.DraftSummary{Counterparty: s.SupplierName(ctx, buyerID, f), Step: step}
	return saveDraft(ctx, &s.base, buyerID, store.PaymentDraft, id, f, sum, f.Invoice.Amount, f.Invoice.DueDate)
}

// Draft loads one of the buyer's payment drafts as a flow (loadDraft).
func (s *Payments) Draft(ctx context.Context, buyerID, id int64) (Flow, store.Draft, error) {
	f, d, err := loadDraft[Flow](ctx, &s.base, buyerID, store.PaymentDraft, id)
	if err != nil {
		return Flow{}, d, err
	}
	f.DraftID, f.SubmitKey, f.Acknowledged = d.ID, "", nil
	return f, d, nil
}
