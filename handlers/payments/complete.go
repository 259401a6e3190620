package payments

import (
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/payments"
)

// CompletePage says the payment was submitted, what happens next and when.
var CompletePage = web.Page{Path: CompletePath, Title: "支払申請の完了", Access: web.SignedIn}

// ShowCompletePage is 支払申請の完了 for ?id=, one of the buyer's payments.
func (h *Handler) ShowCompletePage(c *echo.Context) error {
	id, err := strconv.ParseInt(c.QueryParam("id"), 10, 64)
	if err != nil || id <= 0 {
		return web.ErrNotFound
	}
	u := web.CurrentUser(c)
	p, err := h.Store.Payment(c.Request().Context(), u.BuyerID, id)
	if err != nil {
		return err
	}
	v := pages.CompleteView{Number: pay.InvoiceNumber(p.ID), Supplier: p.SupplierName, Total: pay.Yen(p.Total()),
		Href: paymentPath(reviewListPath, p.ID)}
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

func flashSuccess(title, text string) views.Flash {
	return views.Flash{Color: "success", Title: title, Text: text}
}

func flashError(title, text string) views.Flash {
	return views.Flash{Color: "error", Title: title, Text: text}
}

func flashDraftSaved() views.Flash {
	return flashSuccess("下書きを保存しました", "下書き一覧から、いつでも続きを入力できます。")
}
