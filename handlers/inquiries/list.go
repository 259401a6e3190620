package inquiries

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/inquiries"
)

// ListPage is a signed-in buyer's inquiries, newest first, with their status.
var ListPage = web.Page{Path: "/inquiries", Title: "お問い合わせ履歴", Access: web.SignedIn}

const pageSize = 20

// summaryLength: the list shows the text's first characters.
const summaryLength = 40

// ShowListPage lists the buyer's inquiries.
func (h *Handler) ShowListPage(c *echo.Context) error {
	u := web.CurrentUser(c)
	page := web.PageParam(c)
	list, total, err := h.Store.Inquiries(c.Request().Context(), u.BuyerID, (page-1)*pageSize, pageSize)
	if err != nil {
		return err
	}
	count := max(pay.PageCount(total, pageSize), 1)
	if page > count {
		return c.Redirect(http.StatusSeeOther, listHref(count))
	}
	v := pages.ListView{Pages: views.Pagination{Current: page, Total: count, Items: pay.PageItems(page, count), Href: listHref}}
	for _, q := range list {
		summary := []rune(q.Body)
		if len(summary) > summaryLength {
			summary = append(summary[:summaryLength], '…')
		}
		v.Rows = append(v.Rows, pages.Row{Href: pay.InquiryLink(q.ID), Number: pay.InquiryNumber(q.ID), Category: q.Category.Label(),
			Status: q.Status.Label(), StatusColor: statusColor(q.Status), At: dateTime(q.CreatedAt), Summary: string(summary)})
	}
	return web.Show(h.App, c, ListPage.Title, nil, v, pages.ListPage)
}

func listHref(page int) string {
	if page <= 1 {
		return ListPage.Path
	}
	return ListPage.Path + "?page=" + strconv.Itoa(page)
}

// statusColor is the badge of a status: answered stands out, closed recedes.
func statusColor(s pay.InquiryStatus) string {
	switch s {
	case pay.InquiryAnswered:
		return "success"
	case pay.InquiryClosed:
		return "neutral"
	}
	return "attention"
}
