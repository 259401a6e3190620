package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/invoices"
	"cardpay/pay"
)

// Drafts of payments (SPEC.md §7 Invoices: drafts): the payment flow data (invoices.Flow)
// kept as it was typed, valid or not, shared with the pages' 下書き保存: a draft saved here
// resumes on /payments/draft/{id}, and the other way round.

type draftRequest struct {
	invoices.Flow
	// Step is the journey's page to resume on (e.g. /payments/add/invoice); empty: the first.
	Step string `json:"step"`
}

type draftSummary struct {
	ID           int64     `json:"id"`
	SupplierName string    `json:"supplier_name"`
	Amount       *int64    `json:"amount"`
	DueDate      string    `json:"due_date"`
	Step         string    `json:"step"`
	UpdatedAt    time.Time `json:"updated_at"`
}

type draftList struct {
	Drafts []draftSummary `json:"drafts"`
	Count  int            `json:"count"`
}

type draftAnswer struct {
	invoices.Flow
	ID        int64     `json:"id"`
	Step      string    `json:"step"`
	UpdatedAt time.Time `json:"updated_at"`
}

type draftCreated struct {
	ID int64 `json:"id"`
}

// journeySteps are the pages a draft may resume on.
var journeySteps = map[string]bool{"": true, "/payments/add/invoiceinfo": true, "/payments/add/supplier": true,
	"/payments/add/account": true, "/payments/add/account/new": true, "/payments/add/invoice": true, "/payments/add/confirm": true}

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

// createDraft is POST drafts.
func (s *server) createDraft(c *echo.Context) error {
	var req draftRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	id, err := s.Invoices.SaveDraft(c.Request().Context(), caller(c).User.BuyerID, 0, req.Flow, req.Step)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, draftCreated{ID: id})
}

// updateDraft is PUT drafts/{id}: the draft replaced; another buyer's is 404.
func (s *server) updateDraft(c *echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var req draftRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	u := caller(c).User
	ctx := c.Request().Context()
	if _, _, err := s.Invoices.Draft(ctx, u.BuyerID, id); err != nil {
		return err
	}
	if _, err := s.Invoices.SaveDraft(ctx, u.BuyerID, id, req.Flow, req.Step); err != nil {
		return err
	}
	return s.answerDraft(c, id)
}

// draft is GET drafts/{id}.
func (s *server) draft(c *echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	return s.answerDraft(c, id)
}

func (s *server) answerDraft(c *echo.Context, id int64) error {
	f, d, err := s.Invoices.Draft(c.Request().Context(), caller(c).User.BuyerID, id)
	if err != nil {
		return err
	}
	f.DraftID = 0
	return c.JSON(http.StatusOK, draftAnswer{Flow: f, ID: d.ID, Step: d.Step, UpdatedAt: d.UpdatedAt.In(pay.Tokyo())})
}

// drafts is GET drafts: the latest saved first, page from 0; count is the total.
func (s *server) drafts(c *echo.Context) error {
	var errs pay.FieldErrors
	page := queryInt(c, "page", 0, 0, 100_000, &errs)
	size := queryInt(c, "size", 20, 0, 100, &errs)
	if len(errs) > 0 {
		return validationError(errs)
	}
	list, total, err := s.Store.PaymentDrafts(c.Request().Context(), caller(c).User.BuyerID, page, size)
	if err != nil {
		return err
	}
	a := draftList{Drafts: make([]draftSummary, len(list)), Count: total}
	for i, d := range list {
		a.Drafts[i] = draftSummary{ID: d.ID, SupplierName: d.SupplierName, Amount: d.Amount, DueDate: isoDate(d.DueDate),
			Step: d.Step, UpdatedAt: d.UpdatedAt.In(pay.Tokyo())}
	}
	return c.JSON(http.StatusOK, a)
}

type deleteDraftsRequest struct {
	Drafts []json.Number `json:"drafts"`
}

func (r deleteDraftsRequest) check() pay.FieldErrors { return r.checkNamed("drafts") }

// checkNamed checks a list of draft ids sent as field (drafts, invoice_request_drafts).
func (r deleteDraftsRequest) checkNamed(field string) pay.FieldErrors {
	var errs pay.FieldErrors
	if len(r.Drafts) == 0 {
		errs.Add(field, "削除する下書きのIDを "+field+" に指定してください")
	}
	if len(r.Drafts) > 100 {
		errs.Add(field, "一度に削除できる下書きは100件までです")
	}
	for _, n := range r.Drafts {
		if id, err := n.Int64(); err != nil || id <= 0 {
			errs.Add(field, field+" には下書きのID（正の整数）を指定してください")
		}
	}
	return errs
}

type draftsDeleted struct {
	Deleted int `json:"deleted"`
}

// deleteDrafts is DELETE drafts with the body {"drafts": [ids]}: those of the caller's
// drafts; ids of other buyers are ignored.
func (s *server) deleteDrafts(c *echo.Context) error {
	var req deleteDraftsRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	ids := make([]int64, 0, len(req.Drafts))
	for _, n := range req.Drafts {
		id, _ := n.Int64()
		ids = append(ids, id)
	}
	n, err := s.Store.DeletePaymentDrafts(c.Request().Context(), caller(c).User.BuyerID, ids)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, draftsDeleted{Deleted: n})
}
