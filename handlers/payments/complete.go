package payments

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/payments"
)

// CompletePage says the payment was submitted, what happens next and when.
var CompletePage = web.Page{Path: CompletePath, Title: "支払申請の完了", Access: web.SignedIn}

// ShowCompletePage is 支払申請の完了 for ?id=, one of the buyer's payments, while it is
// in review, as it is when submitted. Opened again later (a reload, a bookmark, the
// browser's history) it leads to where the payment is now: its page in its list once it
// moved on, the payments' landing list (SPEC.md §2) when ?id= names none of the buyer's
// payments. Either is a 303: the answer changes as the payment goes on.
func (h *Handler) ShowCompletePage(c *echo.Context) error {
	u := web.CurrentUser(c)
	ctx := c.Request().Context()
	id, err := strconv.ParseInt(c.QueryParam("id"), 10, 64)
	if err != nil || id <= 0 {
		return h.toLanding(c)
	}
	p, err := h.Store.Payment(ctx, u.BuyerID, id)
	if errors.Is(err, store.ErrNotFound) {
		return h.toLanding(c)
	}
	if err != nil {
		return err
	}
	l := listOf(p, Lists[0])
	if l.Path != reviewListPath {
		return c.Redirect(http.StatusSeeOther, l.ItemPath(p.ID))
	}
	v := pages.CompleteView{Number: pay.InvoiceNumber(p.ID), Supplier: p.SupplierName, Total: pay.Yen(p.Total()),
		Href: l.ItemPath(p.ID)}
	if p.TransferDate != nil {
		var cy *pay.CardCycle
		if p.CardID != nil {
			if card, err := h.Store.CardAny(c.Request().Context(), u.BuyerID, *p.CardID); err == nil {
				cy = card.Cycle()
			}
		}
		plan := pay.PlanFor(*p.TransferDate, cy)
		v.Plan = &plan
	}
	return web.Show(h.App, c, CompletePage.Title, nil, v, pages.CompletePage)
}

// toLanding sends the buyer to the payments' landing list (SPEC.md §2 landing rules);
// when the stats cannot be read (only logged, SPEC.md §8), to 審査中.
func (h *Handler) toLanding(c *echo.Context) error {
	to := reviewListPath
	if st, err := h.Store.Stats(c.Request().Context(), web.CurrentUser(c).BuyerID); err == nil {
		to = pay.PaymentLanding(st.Payments)
	} else {
		h.Logger.ErrorContext(c.Request().Context(), "payments: the stats could not be read for the landing list", "error", err)
	}
	return c.Redirect(http.StatusSeeOther, to)
}

func flashSuccess(title, text string) views.Flash {
	return views.Flash{Color: "success", Title: title, Text: text}
}

func flashError(title, text string) views.Flash {
	return views.Flash{Color: "error", Title: title, Text: text}
}

func flashDraftSaved() views.Flash {
	return flashSuccess("下書きを保存しました", "下書き一覧から、いつでも続きを入力できます。")
}
