package api

import (
	"encoding/json"
	"time"

	"cardpay/handlers/links"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// Drafts of payments (SPEC.md §7 Invoices: drafts): the payment flow data (invoices.Flow)
// as it was typed (drafts.go); a draft saved here resumes on /payments/draft/{id}.
var paymentDrafts = draftKind[invoices.Flow, draftRequest]{
	kind: store.PaymentDraft, field: "drafts",
	drafts: func(s *server) drafts[invoices.Flow] { return s.Payments },
	answer: func(f invoices.Flow, d draftFields) any {
		f.DraftID = 0
		return draftAnswer{Flow: f, draftFields: d}
	},
	summary: func(d store.Draft) any {
		return draftSummary{ID: d.ID, SupplierName: d.Counterparty, Amount: d.Amount, DueDate: isoDate(d.DueDate),
			Step: d.Step, UpdatedAt: d.UpdatedAt.In(pay.Tokyo())}
	},
	idsBody: func() draftIDs { return &deleteDraftsRequest{} },
}

type draftRequest struct {
	invoices.Flow
	// Step is the journey's page to resume on (e.g. /payments/add/invoice); empty: the first.
	Step string `json:"step"`
}

func (r draftRequest) journey() (invoices.Flow, string) { return r.Flow, r.Step }

// journeySteps are the pages a draft may resume on.
var journeySteps = map[string]bool{"": true, links.PaymentInvoiceInfoStep: true, links.PaymentSupplierStep: true,
	links.PaymentAccountStep: true, links.PaymentNewAccountStep: true, links.PaymentInvoiceStep: true, links.PaymentConfirm: true}

func (r draftRequest) check() pay.FieldErrors {
	var errs pay.FieldErrors
	if !journeySteps[r.Step] {
		errs.Add("step", "step は支払申請の画面のパス（例：/payments/add/invoice）で指定してください")
	}
	if len(r.Invoice.Memo) > 4*pay.MaxMemoLen {
		errs.Add("invoice.memo", "メモは200文字以内で入力してください")
	}
	return errs
}

type draftSummary struct {
	ID           int64     `json:"id"`
	SupplierName string    `json:"supplier_name"`
	Amount       *int64    `json:"amount"`
	DueDate      string    `json:"due_date"`
	Step         string    `json:"step"`
	UpdatedAt    time.Time `json:"updated_at"`
}

type draftAnswer struct {
	invoices.Flow
	draftFields
}

type deleteDraftsRequest struct {
	Drafts []json.Number `json:"drafts"`
}

func (r *deleteDraftsRequest) ids() []json.Number { return r.Drafts }
