package collections

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	pages "cardpay/views/collections"
)

// draftsPath is the drafts list, the prefix of its actions.
const draftsPath = "/collections/draft"

// DraftsPage lists the requester's saved drafts, with select-and-delete.
var DraftsPage = web.Page{Path: draftsPath, Title: "下書き", Access: web.Collections}

// ShowDraftsPage is 下書き, the latest saved first, 20 a page.
func (h *Handler) ShowDraftsPage(c *echo.Context) error { return h.renderDrafts(c, nil) }

func (h *Handler) renderDrafts(c *echo.Context, errs pay.FieldErrors) error {
	b, err := h.Base(c, DraftsPage.Title)
	if err != nil {
		return err
	}
	b.Errors = errs
	l, err := h.DraftList(c, store.RequestDraft, PageSize, DraftsPage.Path)
	if err != nil {
		return err
	}
	v := pages.DraftsView{Tabs: tabs(b, DraftsPage.Path), Total: l.Total, Action: DeleteDraftsPath, Pagination: l.Pagination}
	for _, d := range l.Drafts {
		r := pages.DraftRow{ID: idString(d.ID), Href: draftPath(d.ID), Customer: d.Counterparty,
			Saved: pay.JapaneseDateTime(d.UpdatedAt), Partner: d.PartnerName}
		if d.Amount != nil {
			r.Amount = pay.Yen(*d.Amount)
		}
		if d.DueDate != nil {
			r.Deadline = pay.JapaneseDate(*d.DueDate)
		}
		v.Rows = append(v.Rows, r)
	}
	v.Base = b
	return web.Render(c, web.StatusFor(b), pages.DraftsPage(v))
}

// DeleteDraftsPath is where the drafts page deletes the chosen drafts.
const DeleteDraftsPath = draftsPath + "/delete"

// DeleteDrafts deletes the drafts ticked on the list; other buyers' ids are ignored.
func (h *Handler) DeleteDrafts(c *echo.Context) error {
	errs, err := h.DeleteTickedDrafts(c, store.RequestDraft, DraftsPage.Path)
	if len(errs) > 0 {
		return h.renderDrafts(c, errs)
	}
	return err
}

// DraftPattern resumes one draft.
const DraftPattern = draftsPath + "/:id"

// draftPath is draft id's resume link.
func draftPath(id int64) string { return draftsPath + "/" + idString(id) }

// ResumeDraft opens a draft: its answers become the journey, which goes on at the step
// where it was saved (or the first step still missing). Another buyer's draft is 404.
func (h *Handler) ResumeDraft(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	f, d, err := h.Requests.Draft(c.Request().Context(), web.CurrentUser(c).BuyerID, id)
	if err != nil {
		return err
	}
	j := journey{RequestFlow: f}
	// A draft's answers are checked again on the way.
	j.RequestDone, j.BankDone = false, false
	if _, errs := j.Request.Check(h.Payments.CurrentLimits(), h.Now()); len(errs) == 0 {
		j.RequestDone = true
		if j.AccountID != 0 {
			if _, err := h.Store.BuyerAccount(c.Request().Context(), web.CurrentUser(c).BuyerID, j.AccountID); err == nil {
				j.BankDone = true
			}
		}
	}
	// Prefilled comes with the draft: a reading applied before it was saved is not
	// applied again; one that finished since fills the still empty fields once.
	if err := h.save(c, j); err != nil {
		return err
	}
	step := d.Step
	if !slices.Contains(steps, step) {
		step = InvoiceStepPath
	}
	if missing := j.missingStep(step); missing != "" {
		step = missing
	}
	return c.Redirect(http.StatusSeeOther, step)
}
