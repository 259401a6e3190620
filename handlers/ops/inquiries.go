package ops

import (
	"fmt"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/ops"
)

// InquiriesPage is the inquiries from the form (issue 31), 受付 first. Every operator
// may read and answer them: a question may be about any part of the service, and each
// answer and close is audited.
var InquiriesPage = web.Page{Path: "/ops/inquiries", Title: "お問い合わせ", Access: web.Operator}

const inquiriesPageSize = 50

// ShowInquiriesPage lists the inquiries, filtered by ?status= (an unknown one lists all).
func (h *Handler) ShowInquiriesPage(c *echo.Context) error {
	f := store.InquiryFilter{Limit: inquiriesPageSize}
	v := pages.InquiriesView{}
	if s := pay.InquiryStatus(c.QueryParam("status")); s.Valid() {
		f.Status, v.Status = s, string(s)
	}
	for _, s := range pay.InquiryStatuses {
		v.StatusOpts = append(v.StatusOpts, views.FieldOption{Value: string(s), Label: s.Label()})
	}
	page, _ := strconv.Atoi(c.QueryParam("page"))
	page = min(max(page, 0), 100_000)
	f.Offset = page * inquiriesPageSize
	list, total, err := h.Store.OperatorInquiries(c.Request().Context(), f)
	if err != nil {
		return err
	}
	v.Total = total
	for _, q := range list {
		from := q.Name
		if q.Company != "" {
			from = q.Company + "　" + q.Name
		}
		if q.BuyerID == nil {
			from += "（ログインなし）"
		}
		summary := []rune(q.Body)
		if len(summary) > 40 {
			summary = append(summary[:40], '…')
		}
		v.Rows = append(v.Rows, pages.InquiryRow{Href: inquiryHref(q.ID), Number: pay.InquiryNumber(q.ID), Status: q.Status.Label(),
			Category: q.Category.Label(), From: from, At: dateTime(q.CreatedAt), Summary: string(summary)})
	}
	v.PrevHref, v.NextHref = pageLinks(InquiriesPage.Path, map[string]string{"status": v.Status}, page, f.Offset, inquiriesPageSize, total)
	return show(h, c, InquiriesPage.Title, nil, v, pages.InquiriesPage)
}

func inquiryHref(id int64) string { return fmt.Sprintf("%s/%d", InquiriesPage.Path, id) }
