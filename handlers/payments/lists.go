package payments

import (
	"net/url"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/payments"
)

// PageSize is how many payments a list shows at once.
const PageSize = 20

// List is one of the payment lists (SPEC.md §4 buckets).
type List struct {
	web.Page
	// Bucket selects the payments; the review page lists the action-required ones first.
	Bucket pay.PaymentBucket
	Empty  string
}

// ItemPattern is one entry of the list, CancelPattern its cancel question; ItemPath and
// CancelPath build them.
func (l List) ItemPattern() string        { return l.Path + "/:id" }
func (l List) CancelPattern() string      { return l.Path + "/:id/cancel" }
func (l List) ItemPath(id int64) string   { return paymentPath(l.Path, id) }
func (l List) CancelPath(id int64) string { return paymentPath(l.Path, id) + "/cancel" }

// The lists' paths, each the prefix of its payments' pages (paymentPath). The waiting
// list's, waitingPath, is beside the page that pays a request from it.
const (
	reviewListPath   = links.PaymentsReview
	reservedListPath = links.PaymentsReserved
	historyListPath  = links.PaymentsHistory
)

// paymentPath is payment id's page in the list at listPath.
func paymentPath(listPath string, id int64) string { return listPath + "/" + idString(id) }

// Lists are the payment lists, in the order of their tabs.
var Lists = []List{
	{Page: web.Page{Path: reviewListPath, Title: "審査中", Access: web.SignedIn}, Bucket: pay.BucketReviewAll,
		Empty: "審査中のお支払いはありません。"},
	{Page: web.Page{Path: reservedListPath, Title: "振込予定", Access: web.SignedIn}, Bucket: pay.BucketReserved,
		Empty: "審査が完了し、振込を待っているお支払いはありません。"},
	{Page: web.Page{Path: historyListPath, Title: "支払履歴", Access: web.SignedIn}, Bucket: pay.BucketHistory,
		Empty: "振込が完了した、またはキャンセルされたお支払いはありません。"},
	{Page: web.Page{Path: waitingPath, Title: "支払待ち", Access: web.SignedIn}, Bucket: pay.BucketWaiting,
		Empty: "取引先から届いたカード払いの依頼はありません。"},
}

// listTabs are the tabs above every list, with the counts from the stats (none when the
// stats could not be read).
func listTabs(b views.Base, current string) []pages.Tab {
	st := b.Stats.Payments
	tabs := []pages.Tab{
		{Label: "審査中", Href: reviewListPath, Count: st.Review + st.ActionRequired, Attention: st.ActionRequired, Current: current == reviewListPath},
		{Label: "振込予定", Href: reservedListPath, Count: st.Reserved, Current: current == reservedListPath},
		{Label: "支払履歴", Href: historyListPath, Count: st.History, Current: current == historyListPath},
		{Label: "支払待ち", Href: waitingPath, Count: st.Waiting, Current: current == waitingPath},
		{Label: "下書き", Href: draftListPath, Count: st.Draft, Current: current == draftListPath},
	}
	for i := range tabs {
		tabs[i].Uncounted = b.StatsUnknown
	}
	return tabs
}

// ShowListPage shows one list, 20 a page, newest first, filtered by supplier and by the
// date the payment was submitted.
func (h *Handler) ShowListPage(l List) echo.HandlerFunc {
	return func(c *echo.Context) error {
		u := web.CurrentUser(c)
		ctx := c.Request().Context()
		b, err := h.Base(c, l.Title)
		if err != nil {
			return err
		}
		f := store.PaymentFilter{BuyerID: u.BuyerID, Bucket: l.Bucket, Page: web.PageParam(c) - 1, Size: PageSize}
		v := pages.ListView{Heading: l.Title, Path: l.Path, Tabs: listTabs(b, l.Path), Empty: l.Empty}
		// Filters: a bad value is shown as an error and ignored.
		q := url.Values{}
		if s := c.QueryParam("supplier"); s != "" {
			if id, err := strconv.ParseInt(s, 10, 64); err == nil && id > 0 {
				f.SupplierID, v.Supplier = id, s
				q.Set("supplier", s)
			}
		}
		dr := web.DateRangeParams(c, &b.Errors, q)
		f.From, f.To, v.From, v.To = dr.From, dr.To, dr.FromShown, dr.ToShown
		v.Filtered = len(q) > 0
		if !v.Filtered && !b.StatsUnknown {
			// The tabs' counts are this list's size: no second count.
			f.Total, f.Counted = b.Stats.Payments.Of(l.Bucket), true
		}
		list, total, err := h.Store.Payments(ctx, f)
		if err != nil {
			return err
		}
		sups, err := h.Store.SupplierOptions(ctx, u.BuyerID, pay.SupplierEnable, maxSuppliersToShow)
		if err != nil {
			return err
		}
		for _, s := range sups {
			v.Suppliers = append(v.Suppliers, views.FieldOption{Value: idString(s.ID), Label: s.Name})
		}
		v.Total = total
		for _, p := range list {
			v.Rows = append(v.Rows, paymentRow(l.Path, p))
		}
		pagesN := pay.PageCount(total, PageSize)
		v.Pagination = views.Pagination{Current: f.Page + 1, Total: pagesN, Items: pay.PageItems(f.Page+1, pagesN),
			Href: func(n int) string {
				qq := url.Values{}
				for k, vs := range q {
					qq[k] = vs
				}
				qq.Set("page", strconv.Itoa(n))
				return l.Path + "?" + qq.Encode()
			}}
		v.Base = b
		return web.Render(c, web.StatusFor(b), pages.ListPage(v))
	}
}

func paymentRow(listPath string, p store.Payment) pages.PaymentRow {
	r := pages.PaymentRow{
		Href: paymentPath(listPath, p.ID), Number: pay.InvoiceNumber(p.ID), Supplier: p.SupplierName,
		Amount: pay.Yen(p.Amount), Status: p.ExaminationStatus.Label(), ActionRequired: p.ActionRequired,
	}
	if p.TransferDate != nil {
		r.TransferDate = pay.JapaneseDate(*p.TransferDate)
	}
	if p.SubmittedAt != nil {
		r.Submitted = pay.JapaneseDate(*p.SubmittedAt)
	}
	if p.InvoiceType == pay.InvoiceRequestBuyer {
		r.Kind = "依頼"
	}
	return r
}
