package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/invoices"
	"cardpay/pay"
)

// Drafts of card-payment requests (SPEC.md §7 Collections: invoice_request_drafts): the
// request flow data (invoices.RequestFlow) as it was typed, shared with the pages' 下書き保存:
// a draft saved here resumes on /collections/draft/{id}, and the other way round.

type requestDraftRequest struct {
	invoices.RequestFlow
	// Step is the journey's page to resume on (e.g. /collections/add/bank); empty: the first.
	Step string `json:"step"`
}

var requestJourneySteps = map[string]bool{"": true, "/collections/add/invoice": true, "/collections/add/bank": true,
	"/collections/add/bank/new": true, "/collections/add/confirm": true}

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

type requestDraftList struct {
	Drafts []requestDraftSummary `json:"invoice_request_drafts"`
	Count  int                   `json:"count"`
}

type requestDraftAnswer struct {
	invoices.RequestFlow
	ID        int64     `json:"id"`
	Step      string    `json:"step"`
	UpdatedAt time.Time `json:"updated_at"`
}

// createRequestDraft is POST invoice_request_drafts.
func (s *server) createRequestDraft(c *echo.Context) error {
	if err := s.requester(c); err != nil {
		return err
	}
	var req requestDraftRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	id, err := s.Invoices.SaveRequestDraft(c.Request().Context(), caller(c).User.BuyerID, 0, req.RequestFlow, req.Step)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, draftCreated{ID: id})
}

// updateRequestDraft is PUT invoice_request_drafts/{id}: the draft replaced; another
// buyer's is 404.
func (s *server) updateRequestDraft(c *echo.Context) error {
	if err := s.requester(c); err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var req requestDraftRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	u := caller(c).User
	ctx := c.Request().Context()
	if _, _, err := s.Invoices.RequestDraft(ctx, u.BuyerID, id); err != nil {
		return err
	}
	if _, err := s.Invoices.SaveRequestDraft(ctx, u.BuyerID, id, req.RequestFlow, req.Step); err != nil {
		return err
	}
	return s.answerRequestDraft(c, id)
}

// requestDraft is GET invoice_request_drafts/{id}.
func (s *server) requestDraft(c *echo.Context) error {
	if err := s.requester(c); err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	return s.answerRequestDraft(c, id)
}

func (s *server) answerRequestDraft(c *echo.Context, id int64) error {
	f, d, err := s.Invoices.RequestDraft(c.Request().Context(), caller(c).User.BuyerID, id)
	if err != nil {
		return err
	}
	f.DraftID = 0
	return c.JSON(http.StatusOK, requestDraftAnswer{RequestFlow: f, ID: d.ID, Step: d.Step, UpdatedAt: d.UpdatedAt.In(pay.Tokyo())})
}

// requestDrafts is GET invoice_request_drafts: the latest saved first, page from 0; count
// is the total.
func (s *server) requestDrafts(c *echo.Context) error {
	if err := s.requester(c); err != nil {
		return err
	}
	var errs pay.FieldErrors
	page := queryInt(c, "page", 0, 0, 100_000, &errs)
	size := queryInt(c, "size", 20, 0, 100, &errs)
	if len(errs) > 0 {
		return validationError(errs)
	}
	list, total, err := s.Store.RequestDrafts(c.Request().Context(), caller(c).User.BuyerID, page, size)
	if err != nil {
		return err
	}
	a := requestDraftList{Drafts: make([]requestDraftSummary, len(list)), Count: total}
	for i, d := range list {
		a.Drafts[i] = requestDraftSummary{ID: d.ID, CustomerName: d.CustomerName, Amount: d.Amount, Deadline: isoDate(d.Deadline),
			Step: d.Step, UpdatedAt: d.UpdatedAt.In(pay.Tokyo())}
	}
	return c.JSON(http.StatusOK, a)
}

type deleteRequestDraftsRequest struct {
	Drafts []json.Number `json:"invoice_request_drafts"`
}

func (r deleteRequestDraftsRequest) check() pay.FieldErrors {
	return deleteDraftsRequest{Drafts: r.Drafts}.checkNamed("invoice_request_drafts")
}

// deleteRequestDrafts is DELETE invoice_request_drafts with the body
// {"invoice_request_drafts": [ids]}: those of the caller's drafts; others are ignored.
func (s *server) deleteRequestDrafts(c *echo.Context) error {
	if err := s.requester(c); err != nil {
		return err
	}
	var req deleteRequestDraftsRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	ids := make([]int64, 0, len(req.Drafts))
	for _, n := range req.Drafts {
		id, _ := n.Int64()
		ids = append(ids, id)
	}
	n, err := s.Store.DeleteRequestDrafts(c.Request().Context(), caller(c).User.BuyerID, ids)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, draftsDeleted{Deleted: n})
}
