package collections

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	pages "cardpay/views/collections"
)

// CompletePage says the request went and what happens next.
var CompletePage = web.Page{Path: CompletePath, Title: "カード払い依頼の送信完了", Access: web.Collections}

// ShowCompletePage is 依頼の完了 for ?id=, one of the requester's requests, while it is
// in 依頼中, as it is when sent. Opened again later (a reload, a bookmark, the browser's
// history) it leads to where the request is now: its page in its list once it moved on,
// the collections' landing list (SPEC.md §2) when ?id= names none of the requester's
// requests. Either is a 303: the answer changes as the request goes on.
func (h *Handler) ShowCompletePage(c *echo.Context) error {
	u := web.CurrentUser(c)
	ctx := c.Request().Context()
	id, err := strconv.ParseInt(c.QueryParam("id"), 10, 64)
	if err != nil || id <= 0 {
		return h.toLanding(c)
	}
	r, err := h.Store.Request(ctx, u.BuyerID, id)
	if errors.Is(err, store.ErrNotFound) {
		return h.toLanding(c)
	}
	if err != nil {
		return err
	}
	l := listOf(r.ExaminationStatus)
	if l.Path != Lists[0].Path {
		return c.Redirect(http.StatusSeeOther, l.ItemPath(r.ID))
	}
	v := pages.CompleteView{Number: pay.InvoiceNumber(r.ID), Customer: r.CustomerName, Email: r.CustomerEmail,
		Deadline: pay.JapaneseDate(r.Deadline), Href: l.ItemPath(r.ID)}
	return web.Show(h.App, c, CompletePage.Title, nil, v, pages.CompletePage)
}

// toLanding sends the requester to the collections' landing list (SPEC.md §2 landing
// rules); when the stats cannot be read (only logged, SPEC.md §8), to 依頼中.
func (h *Handler) toLanding(c *echo.Context) error {
	to := Lists[0].Path
	if st, err := h.Store.Stats(c.Request().Context(), web.CurrentUser(c).BuyerID); err == nil {
		to = pay.CollectionLanding(st.Collections)
	} else {
		h.Logger.ErrorContext(c.Request().Context(), "collections: the stats could not be read for the landing list", "error", err)
	}
	return c.Redirect(http.StatusSeeOther, to)
}
