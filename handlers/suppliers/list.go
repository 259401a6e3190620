package suppliers

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/suppliers"
)

// ListPage is 登録取引先 (SPEC.md §2).
var ListPage = web.Page{Path: "/suppliers", Title: "登録取引先", Access: web.SignedIn}

// supplierPageSize is how many suppliers one page of the list shows.
const supplierPageSize = 20

// ShowListPage is 登録取引先: ?status=enable (Approved, Escalation, Unapproved) or
// disable (Rejected), paged.
func (h *Handler) ShowListPage(c *echo.Context) error {
	group := pay.SupplierGroup(c.QueryParam("status"))
	if group != pay.SupplierEnable && group != pay.SupplierDisable {
		return c.Redirect(http.StatusSeeOther, ListPage.Path+"?status=enable")
	}
	u := web.CurrentUser(c)
	page := web.PageParam(c)
	list, total, err := h.Store.Suppliers(c.Request().Context(), store.SupplierFilter{
		BuyerID: u.BuyerID, Group: group, Page: page - 1, Size: supplierPageSize})
	if err != nil {
		return err
	}
	pageCount := pay.PageCount(total, supplierPageSize)
	if page > pageCount {
		return c.Redirect(http.StatusSeeOther, supplierListHref(group, pageCount))
	}
	b, err := h.Base(c, ListPage.Title)
	if err != nil {
		return err
	}
	v := pages.ListView{
		Base: b, Group: string(group),
		EnableCount: b.Stats.SuppliersEnableCount, DisableCount: b.Stats.SuppliersDisableCount,
		Pages: views.Pagination{Current: page, Total: pageCount, Items: pay.PageItems(page, pageCount),
			Href: func(p int) string { return supplierListHref(group, p) }},
	}
	for _, s := range list {
		v.Items = append(v.Items, pages.SupplierItem{
			Href: SupplierPath(s.ID), Name: s.Name, NameKana: s.NameKana,
			BusinessFormLabel: s.BusinessForm.Label(), CorporateNumber: s.CorporateNumber,
			Status: supplierBadge(s.Status),
		})
	}
	return web.Render(c, http.StatusOK, pages.ListPage(v))
}

func supplierListHref(g pay.SupplierGroup, page int) string {
	q := url.Values{"status": {string(g)}}
	if page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	return ListPage.Path + "?" + q.Encode()
}

// supplierBadge gives a status its tone: approved is good news, rejected bad, and the
// two waiting states need the buyer's attention only in that payments wait for them.
func supplierBadge(s pay.SupplierStatus) pages.StatusBadge {
	tone := "attention"
	switch s {
	case pay.SupplierApproved:
		tone = "success"
	case pay.SupplierRejected:
		tone = "error"
	}
	return pages.StatusBadge{Label: s.Label(), Tone: tone}
}
