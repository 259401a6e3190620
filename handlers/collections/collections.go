// Package collections is the area of /collections: card-payment requests a corporation
// sends to its own customers (the requester's side; the customer pays in the payments
// area, /payments/waiting).
package collections

import (
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/collections"
)

// Handler serves the card-payment request pages.
type Handler struct {
	*web.App
}

// PageSize is a list's page: 20 requests (SPEC.md pagination).
const PageSize = 20

// RequireCollections refuses the request screens to buyers who may not request card
// payments: sole proprietors and excluded corporations. It runs after RequireSignIn.
func (h *Handler) RequireCollections(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if !h.CollectionsEnabled(web.CurrentUser(c)) {
			return web.Forbidden("カード払い依頼はご利用いただけません", "カード払い依頼は法人のお客さまがご利用いただける機能です。")
		}
		return next(c)
	}
}

// List is one of the requester's lists (SPEC.md §4 collection buckets).
type List struct {
	web.Page
	Bucket pay.CollectionBucket
	Empty  string
}

// ItemPattern is one entry of the list, CancelPattern its cancel question; ItemPath and
// CancelPath build them.
func (l List) ItemPattern() string        { return l.Path + "/:id" }
func (l List) CancelPattern() string      { return l.Path + "/:id/cancel" }
func (l List) ItemPath(id int64) string   { return l.Path + "/" + idString(id) }
func (l List) CancelPath(id int64) string { return l.ItemPath(id) + "/cancel" }

// Lists are the request lists, in the order of their tabs.
var Lists = []List{
	{Page: web.Page{Path: "/collections/request", Title: "依頼中", Access: web.Collections}, Bucket: pay.CollectionRequest,
		Empty: "お支払いを待っているカード払い依頼はありません。"},
	{Page: web.Page{Path: "/collections/decided", Title: "支払確定", Access: web.Collections}, Bucket: pay.CollectionDecided,
		Empty: "審査が完了し、入金を待っている依頼はありません。"},
	{Page: web.Page{Path: "/collections/history", Title: "依頼履歴", Access: web.Collections}, Bucket: pay.CollectionHistory,
		Empty: "入金が完了した、または期限切れ・キャンセルになった依頼はありません。"},
}

// listOf is the list a request in examination status s belongs to.
func listOf(s pay.ExaminationStatus) List {
	b, _ := pay.CollectionBucketOf(pay.CollectionStatusOf(s))
	for _, l := range Lists {
		if l.Bucket == b {
			return l
		}
	}
	return Lists[2]
}

// Pages are the area's screens without ids, for the page list.
var Pages = []web.Page{
	Lists[0].Page, Lists[1].Page, Lists[2].Page, DraftsPage, CreatePage,
}

// tabs are the tabs above every list, with the counts from the stats (none when the
// stats could not be read).
func tabs(b views.Base, current string) []pages.Tab {
	st := b.Stats.Collections
	t := []pages.Tab{
		{Label: "依頼中", Href: Lists[0].Path, Count: st.Request, Current: current == Lists[0].Path},
		{Label: "支払確定", Href: Lists[1].Path, Count: st.Decided, Current: current == Lists[1].Path},
		{Label: "依頼履歴", Href: Lists[2].Path, Count: st.History, Current: current == Lists[2].Path},
		{Label: "下書き", Href: DraftsPage.Path, Count: st.Draft, Current: current == DraftsPage.Path},
	}
	for i := range t {
		t[i].Uncounted = b.StatsUnknown
	}
	return t
}

func idString(id int64) string { return strconv.FormatInt(id, 10) }
