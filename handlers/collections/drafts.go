package collections

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
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
	page := web.PageParam(c) - 1
	list, total, err := h.Store.RequestDrafts(c.Request().Context(), web.CurrentUser(c).BuyerID, page, PageSize)
	if err != nil {
		return err
	}
	v := pages.DraftsView{Tabs: tabs(b.Stats.Collections, DraftsPage.Path), Total: total, Action: DeleteDraftsPath}
	for _, d := range list {
		r := pages.DraftRow{ID: idString(d.ID), Href: draftPath(d.ID), Customer: d.CustomerName,
			Saved: pay.JapaneseDateTime(d.UpdatedAt)}
		if d.Amount != nil {
			r.Amount = pay.Yen(*d.Amount)
		}
		if d.Deadline != nil {
			r.Deadline = pay.JapaneseDate(*d.Deadline)
		}
		v.Rows = append(v.Rows, r)
	}
	n := pay.PageCount(total, PageSize)
	v.Pagination = views.Pagination{Current: page + 1, Total: n, Items: pay.PageItems(page+1, n),
		Href: func(p int) string { return DraftsPage.Path + "?page=" + strconv.Itoa(p) }}
	v.Base = b
	return web.Render(c, web.StatusFor(b), pages.DraftsPage(v))
}

// DeleteDraftsPath is where the drafts page deletes the chosen drafts.
const DeleteDraftsPath = draftsPath + "/delete"

// DeleteDrafts deletes the drafts ticked on the list; other buyers' ids are ignored.
func (h *Handler) DeleteDrafts(c *echo.Context) error {
	if err := c.Request().ParseForm(); err != nil {
		return web.ErrNotFound
	}
	var ids []int64
	for _, s := range c.Request().PostForm["draft"] {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil && id > 0 && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return h.renderDrafts(c, pay.FieldErrors{{Field: "draft", Message: "削除する下書きを選んでください"}})
	}
	n, err := h.Store.DeleteRequestDrafts(c.Request().Context(), web.CurrentUser(c).BuyerID, ids)
	if err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "下書きを" + strconv.Itoa(n) + "件削除しました"})
	return c.Redirect(http.StatusSeeOther, DraftsPage.Path)
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
	f, d, err := h.Invoices.RequestDraft(c.Request().Context(), web.CurrentUser(c).BuyerID, id)
	if err != nil {
		return err
	}
	j := journey{RequestFlow: f}
	// A draft's answers are checked again on the way.
	j.RequestDone, j.BankDone = false, false
	if _, errs := j.Request.Check(h.Invoices.CurrentLimits(), h.Now()); len(errs) == 0 {
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
