package ops

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/ops"
)

const queuePageSize = 50

var queues = []struct{ Key, Label string }{
	{store.QueueWaiting, "審査待ち（すべて）"},
	{store.QueueNew, "審査中"},
	{store.QueueChecked, "確認済（完了待ち）"},
	{store.QueueSentBack, "差し戻し中"},
}

// ShowQueuePage is the screening queue: the payments waiting, oldest first.
func (h *Handler) ShowQueuePage(c *echo.Context) error {
	queue := c.QueryParam("queue")
	known := false
	for _, q := range queues {
		known = known || q.Key == queue
	}
	if !known {
		queue = store.QueueWaiting
	}
	var supplierStatus pay.SupplierStatus
	if n, err := strconv.Atoi(c.QueryParam("supplier_status")); err == nil && pay.SupplierStatus(n).Valid() {
		supplierStatus = pay.SupplierStatus(n)
	}
	page, _ := strconv.Atoi(c.QueryParam("page"))
	page = max(page, 0)
	items, total, err := h.Store.ScreeningQueue(c.Request().Context(), store.ScreeningFilter{Queue: queue,
		SupplierStatus: supplierStatus, Page: page, Size: queuePageSize})
	if err != nil {
		return err
	}
	href := func(q string, p int) string {
		v := url.Values{}
		if q != "" {
			v.Set("queue", q)
		}
		if supplierStatus != 0 {
			v.Set("supplier_status", strconv.Itoa(int(supplierStatus)))
		}
		if p > 0 {
			v.Set("page", strconv.Itoa(p))
		}
		if len(v) == 0 {
			return QueuePage.Path
		}
		return QueuePage.Path + "?" + v.Encode()
	}
	v := pages.QueueView{Queue: queue, Total: total}
	if supplierStatus != 0 {
		v.SupplierStatus = strconv.Itoa(int(supplierStatus))
	}
	for _, q := range queues {
		v.Tabs = append(v.Tabs, pages.QueueTab{Label: q.Label, Href: href(q.Key, 0), Current: q.Key == queue})
	}
	for _, st := range supplierStatusOptions() {
		v.SupplierOpts = append(v.SupplierOpts, views.FieldOption{Value: strconv.Itoa(int(st)), Label: st.Label()})
	}
	now := h.Now()
	for _, it := range items {
		r := pages.QueueRow{Href: fmt.Sprintf("%s/%d", QueuePage.Path, it.ID), Number: pay.InvoiceNumber(it.ID),
			Buyer: it.BuyerName, Supplier: it.SupplierName, SupplierStatus: it.SupplierStatus.Label(),
			SupplierApproved: it.SupplierStatus == pay.SupplierApproved, Amount: pay.Yen(it.Amount),
			Status: it.ExaminationStatus.Label(), AccountNew: it.AccountID != nil && pay.AccountIsNew(it.AccountFirstPaidAt, now),
			AccountUnapproved: it.AccountID != nil && it.AccountApprovedAt == nil}
		if it.SubmittedAt != nil {
			r.Submitted, r.Waited = dateTime(*it.SubmittedAt), waited(*it.SubmittedAt, now)
		}
		if it.CheckedByName != nil && it.ExaminationStatus == pay.InProgressExaminationChecked {
			r.CheckedBy = *it.CheckedByName
		}
		v.Rows = append(v.Rows, r)
	}
	if page > 0 {
		v.PrevHref = href(queue, page-1)
	}
	if (page+1)*queuePageSize < total {
		v.NextHref = href(queue, page+1)
	}
	return show(h, c, QueuePage.Title, nil, v, pages.QueuePage)
}
