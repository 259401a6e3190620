package receivedinvoices

import (
	"net/url"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/receivedinvoices"
)

// ShowListPage shows one state's list, 20 a page, the newest received first.
func (h *Handler) ShowListPage(l List) echo.HandlerFunc {
	return func(c *echo.Context) error {
		f := store.ReceivedFilter{State: l.State}
		v := pages.ListView{Heading: l.Title, Path: l.Path, Empty: l.Empty}
		return h.showList(c, l.Title, f, url.Values{}, v)
	}
}

// ShowSearchPage searches all received invoices by 取引年月日 and 取引金額 (ranges) and
// 取引先, alone or combined (電子帳簿保存法's search requirement); its hits' index
// downloads as CSV (DownloadIndex).
func (h *Handler) ShowSearchPage(c *echo.Context) error {
	f, q, v, errs := searchFilter(c)
	v.Heading, v.Path, v.Search, v.Empty = SearchPage.Title, SearchPage.Path, true, "受け取った請求書はまだありません。"
	v.CSVHref, v.ZIPHref = SearchCSVPath, SearchZIPPath
	if len(q) > 0 {
		v.CSVHref += "?" + q.Encode()
		v.ZIPHref += "?" + q.Encode()
	}
	v.MaxZIP = MaxArchiveFiles
	v.Errors = errs
	return h.showList(c, SearchPage.Title, f, q, v)
}

// searchFilter reads the search's query: a bad value is shown as an error and ignored.
func searchFilter(c *echo.Context) (store.ReceivedFilter, url.Values, pages.ListView, pay.FieldErrors) {
	var f store.ReceivedFilter
	var v pages.ListView
	var errs pay.FieldErrors
	q := url.Values{}
	dr := web.DateRangeParams(c, &errs, q)
	f.From, f.To, v.From, v.To = dr.From, dr.To, dr.FromShown, dr.ToShown
	for _, a := range []struct {
		name string
		to   *string
		at   *int64
	}{{"min", &v.Min, &f.Min}, {"max", &v.Max, &f.Max}} {
		raw := web.Clip(c.QueryParam(a.name), 20)
		if raw == "" {
			continue
		}
		n, ok := pay.ParseYen(raw)
		if !ok || n <= 0 {
			errs.Add(a.name, "金額は1円以上の半角数字で入力してください（例：110000）")
			*a.to = raw
			continue
		}
		*a.at, *a.to = n, strconv.FormatInt(n, 10)
		q.Set(a.name, *a.to)
	}
	if f.Min > 0 && f.Max > 0 && f.Max < f.Min {
		errs.Add("max", "上限は下限以上の金額を入力してください")
		f.Min, f.Max = f.Max, f.Min
	}
	if s := web.Clip(c.QueryParam("counterparty"), 100); s != "" {
		f.Counterparty, v.Counterparty = s, s
		q.Set("counterparty", s)
	}
	v.Filtered = len(q) > 0
	return f, q, v, errs
}

// showList reads a page of the filter's invoices into v and shows it.
func (h *Handler) showList(c *echo.Context, title string, f store.ReceivedFilter, q url.Values, v pages.ListView) error {
	u := web.CurrentUser(c)
	ctx := c.Request().Context()
	b, err := h.Base(c, title)
	if err != nil {
		return err
	}
	b.Errors = append(b.Errors, v.Errors...)
	counts, err := h.Store.ReceivedInvoiceCounts(ctx, u.BuyerID)
	if err != nil {
		return err
	}
	f.BuyerID, f.Page, f.Size = u.BuyerID, web.PageParam(c)-1, PageSize
	list, total, err := h.Store.ReceivedInvoices(ctx, f)
	if err != nil {
		return err
	}
	v.Tabs, v.Total = tabs(counts, v.Path), total
	for _, r := range list {
		v.Rows = append(v.Rows, row(r))
	}
	n := pay.PageCount(total, PageSize)
	v.Pagination = pagination(v.Path, q, f.Page+1, n)
	v.Base = b
	return web.Render(c, web.StatusFor(b), pages.ListPage(v))
}

func row(r store.ReceivedInvoice) pages.Row {
	out := pages.Row{
		Href: invoicePath(r.ID), Received: pay.JapaneseDate(r.ReceivedAt), Counterparty: r.KeyCounterparty,
		Source: sourceLabel(r.Source), State: r.State.Label(), NewSender: r.NewSender,
		Amount: "未読取", Date: "—", DueDate: "—",
	}
	if out.Counterparty == "" {
		out.Counterparty = r.OriginalName
	}
	if r.KeyAmount != nil {
		out.Amount = pay.Yen(*r.KeyAmount)
	}
	if r.KeyDate != nil {
		out.Date = pay.JapaneseDate(*r.KeyDate)
	}
	if r.KeyDueDate != nil {
		out.DueDate = pay.JapaneseDate(*r.KeyDueDate)
	}
	return out
}

// pagination links the list's pages, keeping its query.
func pagination(path string, q url.Values, current, total int) views.Pagination {
	return views.Pagination{Current: current, Total: total, Items: pay.PageItems(current, total),
		Href: func(n int) string {
			qq := url.Values{}
			for k, vs := range q {
				qq[k] = vs
			}
			qq.Set("page", strconv.Itoa(n))
			return path + "?" + qq.Encode()
		}}
}
