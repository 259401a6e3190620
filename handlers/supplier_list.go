package handlers

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// supplierPageSize is how many suppliers one page of the list shows.
const supplierPageSize = 20

// pageFromQuery reads ?page= as people see it (from 1); anything else is the first page.
func pageFromQuery(c *echo.Context) int {
	n, err := strconv.Atoi(c.QueryParam("page"))
	if err != nil || n < 1 || n > 100_000 {
		return 1
	}
	return n
}

// showSupplierListPage is 登録取引先 (SPEC.md §2): ?status=enable (Approved, Escalation,
// Unapproved) or disable (Rejected), paged.
func (a *App) showSupplierListPage(c *echo.Context) error {
	group := pay.SupplierGroup(c.QueryParam("status"))
	if group != pay.SupplierEnable && group != pay.SupplierDisable {
		return c.Redirect(http.StatusSeeOther, "/suppliers?status=enable")
	}
	u := currentUser(c)
	page := pageFromQuery(c)
	list, total, err := a.Store.Suppliers(c.Request().Context(), store.SupplierFilter{
		BuyerID: u.BuyerID, Group: group, Page: page - 1, Size: supplierPageSize})
	if err != nil {
		return err
	}
	pages := pay.PageCount(total, supplierPageSize)
	if page > pages {
		return c.Redirect(http.StatusSeeOther, supplierListHref(group, pages))
	}
	b, err := a.base(c, "登録取引先")
	if err != nil {
		return err
	}
	v := views.SupplierListView{
		Base: b, Group: string(group),
		EnableCount: b.Stats.SuppliersEnableCount, DisableCount: b.Stats.SuppliersDisableCount,
		Pages: views.Pagination{Current: page, Total: pages, Items: pay.PageItems(page, pages),
			Href: func(p int) string { return supplierListHref(group, p) }},
	}
	for _, s := range list {
		v.Items = append(v.Items, views.SupplierItem{
			Href: "/suppliers/" + strconv.FormatInt(s.ID, 10), Name: s.Name, NameKana: s.NameKana,
			BusinessFormLabel: s.BusinessForm.Label(), CorporateNumber: s.CorporateNumber,
			Status: supplierBadge(s.Status),
		})
	}
	return render(c, http.StatusOK, views.SupplierListPage(v))
}

func supplierListHref(g pay.SupplierGroup, page int) string {
	q := url.Values{"status": {string(g)}}
	if page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	return "/suppliers?" + q.Encode()
}

// supplierBadge gives a status its tone: approved is good news, rejected bad, and the
// two waiting states need the buyer's attention only in that payments wait for them.
func supplierBadge(s pay.SupplierStatus) views.StatusBadge {
	tone := "attention"
	switch s {
	case pay.SupplierApproved:
		tone = "success"
	case pay.SupplierRejected:
		tone = "error"
	}
	return views.StatusBadge{Label: s.Label(), Tone: tone}
}
