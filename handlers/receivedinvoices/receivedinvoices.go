// Package receivedinvoices is the area of /receipt-invoices (受取請求書, issue 29): the
// suppliers' invoices a buyer received, listed by state, each on its own page where it
// is paid through the payment journey, marked paid elsewhere or not to be paid, and
// corrected; all of them kept unchanged as 電子帳簿保存法 requires and searchable by
// 取引年月日, 取引金額 and 取引先.
package receivedinvoices

import (
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	pages "cardpay/views/receivedinvoices"
)

// Handler serves the received invoices' pages.
type Handler struct {
	*web.App
}

// PageSize is a list's page: 20 invoices (SPEC.md pagination).
const PageSize = 20

// List is one of the four lists, by state.
type List struct {
	web.Page
	State pay.ReceivedState
	Empty string
}

// Lists are the lists in the order of their tabs; the first is the area's own path.
var Lists = []List{
	{Page: web.Page{Path: "/receipt-invoices", Title: "受取請求書（新着）", Access: web.SignedIn}, State: pay.ReceivedNew,
		Empty: "新しく届いた請求書はありません。"},
	{Page: web.Page{Path: "/receipt-invoices/scheduled", Title: "受取請求書（支払予定）", Access: web.SignedIn}, State: pay.ReceivedScheduled,
		Empty: "カード払いで支払中の請求書はありません。"},
	{Page: web.Page{Path: "/receipt-invoices/paid", Title: "受取請求書（支払済）", Access: web.SignedIn}, State: pay.ReceivedPaid,
		Empty: "支払済の請求書はありません。"},
	{Page: web.Page{Path: "/receipt-invoices/set-aside", Title: "受取請求書（支払不要）", Access: web.SignedIn}, State: pay.ReceivedSetAside,
		Empty: "支払不要とした請求書はありません。"},
}

// SearchPage searches every received invoice as 電子帳簿保存法 asks (SearchCSVPath
// downloads the hits' index).
var SearchPage = web.Page{Path: "/receipt-invoices/search", Title: "受取請求書の検索", Access: web.SignedIn}

// Pages are the area's pages that show without a path parameter, for the browser
// tests and the page-weight script (handlers.Pages).
var Pages = []web.Page{Lists[0].Page, Lists[1].Page, Lists[2].Page, Lists[3].Page, SearchPage, UploadPage, RetentionPage, AddressPage, RenewPage}

// The paths of one invoice: its page, its file, and the forms it posts.
const (
	InvoicePattern = "/receipt-invoices/:id"
	FilePattern    = "/receipt-invoices/:id/file"
	MarkPattern    = "/receipt-invoices/:id/mark"
	CorrectPattern = "/receipt-invoices/:id/correct"
)

func invoicePath(id int64) string { return "/receipt-invoices/" + strconv.FormatInt(id, 10) }

// tabs are the tabs above every list, with the counts.
func tabs(counts map[pay.ReceivedState]int, current string) []pages.Tab {
	var out []pages.Tab
	for _, l := range Lists {
		out = append(out, pages.Tab{Label: l.State.Label(), Href: l.Path, Count: counts[l.State], Current: current == l.Path})
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	return append(out, pages.Tab{Label: "検索", Href: SearchPage.Path, Count: total, Current: current == SearchPage.Path})
}

// sourceLabel names where an invoice came from.
func sourceLabel(source string) string {
	switch source {
	case store.ReceivedByUpload:
		return "アップロード"
	case store.ReceivedByMail:
		return "メール"
	case store.ReceivedBySupplierLink:
		return "取引先のアップロード"
	}
	return "不明"
}

// fromPath loads the :id received invoice of the signed-in buyer (another buyer's, or
// none, is the 404 page).
func (h *Handler) fromPath(c *echo.Context) (store.ReceivedInvoice, error) {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return store.ReceivedInvoice{}, err
	}
	return h.Store.ReceivedInvoice(c.Request().Context(), web.CurrentUser(c).BuyerID, id)
}
