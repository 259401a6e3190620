package collections

import (
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	pages "cardpay/views/collections"
)

// CompletePage says the request went and what happens next.
var CompletePage = web.Page{Path: CompletePath, Title: "カード払い依頼の送信完了", Access: web.Collections}

// ShowCompletePage is 依頼の完了 for ?id=, one of the requester's requests.
func (h *Handler) ShowCompletePage(c *echo.Context) error {
	id, err := strconv.ParseInt(c.QueryParam("id"), 10, 64)
	if err != nil || id <= 0 {
		return web.ErrNotFound
	}
	r, err := h.Store.Request(c.Request().Context(), web.CurrentUser(c).BuyerID, id)
	if err != nil {
		return err
	}
	v := pages.CompleteView{Number: pay.InvoiceNumber(r.ID), Customer: r.CustomerName, Email: r.CustomerEmail,
		Deadline: pay.JapaneseDate(r.Deadline), Href: listOf(r.ExaminationStatus).ItemPath(r.ID)}
	return web.Show(h.App, c, CompletePage.Title, nil, v, pages.CompletePage)
}
