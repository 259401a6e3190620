package payments

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	pages "cardpay/views/payments"
)

// DraftsPage lists the buyer's saved drafts, with select-and-delete.
var DraftsPage = web.Page{Path: draftListPath, Title: "下書き", Access: web.SignedIn}

// ShowDraftsPage is 下書き, the latest saved first, 20 a page.
func (h *Handler) ShowDraftsPage(c *echo.Context) error {
	return h.renderDrafts(c, nil)
}

func (h *Handler) renderDrafts(c *echo.Context, errs pay.FieldErrors) error {
	u := web.CurrentUser(c)
	b, err := h.Base(c, DraftsPage.Title)
	if err != nil {
		return err
	}
	b.Errors = errs
	page := web.PageParam(c) - 1
	list, total, err := h.Store.PaymentDrafts(c.Request().Context(), u.BuyerID, page, PageSize)
	if err != nil {
		return err
	}
	v := pages.DraftsView{Tabs: listTabs(b.Stats.Payments, draftListPath), Total: total, Action: DeleteDraftsPath}
	for _, d := range list {
		r := pages.DraftRow{ID: idString(d.ID), Href: draftPath(d.ID), Supplier: d.SupplierName,
			Saved: pay.JapaneseDateTime(d.UpdatedAt)}
		if d.Amount != nil {
			r.Amount = pay.Yen(*d.Amount)
		}
		if d.DueDate != nil {
			r.DueDate = pay.JapaneseDate(*d.DueDate)
		}
		v.Rows = append(v.Rows, r)
	}
	n := pay.PageCount(total, PageSize)
	v.Pagination.Current, v.Pagination.Total, v.Pagination.Items = page+1, n, pay.PageItems(page+1, n)
	v.Pagination.Href = func(p int) string { return draftListPath + "?page=" + strconv.Itoa(p) }
	v.Base = b
	return web.Render(c, web.StatusFor(b), pages.DraftsPage(v))
}

// DeleteDraftsPath is where the drafts page deletes the chosen drafts.
const DeleteDraftsPath = draftListPath + "/delete"

// DeleteDrafts deletes the drafts ticked on the list.
func (h *Handler) DeleteDrafts(c *echo.Context) error {
	var ids []int64
	if err := c.Request().ParseForm(); err != nil {
		return web.ErrNotFound
	}
	for _, s := range c.Request().PostForm["draft"] {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil && id > 0 && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return h.renderDrafts(c, pay.FieldErrors{{Field: "draft", Message: "削除する下書きを選んでください"}})
	}
	n, err := h.Store.DeletePaymentDrafts(c.Request().Context(), web.CurrentUser(c).BuyerID, ids)
	if err != nil {
		return err
	}
	h.SetFlash(c, flashSuccess("下書きを"+strconv.Itoa(n)+"件削除しました", ""))
	return c.Redirect(http.StatusSeeOther, draftListPath)
}

// DraftPattern resumes one draft.
const DraftPattern = draftListPath + "/:id"

// draftPath is draft id's resume link.
func draftPath(id int64) string { return draftListPath + "/" + idString(id) }

// ResumeDraft opens a draft: its answers become the journey, which goes on at the step
// where it was saved (or the first step still missing). Another buyer's draft is 404.
func (h *Handler) ResumeDraft(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	f, d, err := h.Invoices.Draft(c.Request().Context(), web.CurrentUser(c).BuyerID, id)
	if err != nil {
		return err
	}
	j := journey{Flow: f}
	if err := h.save(c, j); err != nil {
		return err
	}
	step := d.Step
	if !slices.Contains([]string{supplierStepPath, NewSupplierPath, AccountStepPath, NewAccountPath, InvoiceStepPath, ConfirmPath}, step) {
		step = supplierStepPath
	}
	if missing := j.missingStep(step); missing != "" {
		step = missing
	}
	return c.Redirect(http.StatusSeeOther, step)
}
