package api

import (
	"encoding/json"
	"time"

	"cardpay/handlers/links"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// Drafts of card-payment requests (SPEC.md §7 Collections: invoice_request_drafts): the
// request flow data (invoices.RequestFlow) as it was typed (drafts.go), for requesters
// only; a draft saved here resumes on /collections/draft/{id}.
var requestDrafts = draftKind[invoices.RequestFlow, requestDraftRequest]{
	kind: store.RequestDraft, field: "invoice_request_drafts", guard: (*server).requester,
	drafts: func(s *server) drafts[invoices.RequestFlow] { return s.Requests },
	answer: func(f invoices.RequestFlow, d draftFields) any {
		f.DraftID = 0
		return requestDraftAnswer{RequestFlow: f, draftFields: d}
	},
	summary: func(d store.Draft) any {
		return requestDraftSummary{ID: d.ID, CustomerName: d.Counterparty, Amount: d.Amount, Deadline: isoDate(d.DueDate),
			Step: d.Step, UpdatedAt: d.UpdatedAt.In(pay.Tokyo())}
	},
	idsBody: func() draftIDs { return &deleteRequestDraftsRequest{} },
}

type requestDraftRequest struct {
	invoices.RequestFlow
	// Step is the journey's page to resume on (e.g. /collections/add/bank); empty: the first.
	Step string `json:"step"`
}

func (r requestDraftRequest) journey() (invoices.RequestFlow, string) { return r.RequestFlow, r.Step }

var requestJourneySteps = map[string]bool{"": true, links.RequestInvoiceStep: true, links.RequestBankStep: true,
	links.RequestNewBankStep: true, links.RequestConfirm: true}

func (r requestDraftRequest) check() pay.FieldErrors {
	var errs pay.FieldErrors
	if !requestJourneySteps[r.Step] {
		errs.Add("step", "step はカード払い依頼の画面のパス（例：/collections/add/bank）で指定してください")
	}
	if len(r.Request.Message) > 4*pay.MaxRequestMessageLen {
		errs.Add("request.message", "メッセージは500文字以内で入力してください")
	}
	if r.FeeBearer != "" && !r.FeeBearer.Valid() {
		errs.Add("fee_bearer", "fee_bearer は customer または requester を指定してください")
	}
	return errs
}

type requestDraftSummary struct {
	ID           int64     `json:"id"`
	CustomerName string    `json:"customer_name"`
	Amount       *int64    `json:"amount"`
	Deadline     string    `json:"deadline"`
	Step         string    `json:"step"`
	UpdatedAt    time.Time `json:"updated_at"`
}

type requestDraftAnswer struct {
	invoices.RequestFlow
	draftFields
}

type deleteRequestDraftsRequest struct {
	Drafts []json.Number `json:"invoice_request_drafts"`
}

func (r *deleteRequestDraftsRequest) ids() []json.Number { return r.Drafts }
