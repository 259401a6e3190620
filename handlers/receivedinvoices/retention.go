package receivedinvoices

import (
	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	pages "cardpay/views/receivedinvoices"
)

// RetentionPage explains what the service keeps of received invoices under
// 電子帳簿保存法 and gives a sample 事務処理規程 the buyer can adopt.
var RetentionPage = web.Page{Path: "/receipt-invoices/retention", Title: "受け取った請求書の保存について", Access: web.SignedIn}

// ShowRetentionPage is the explanation and the sample rules.
func (h *Handler) ShowRetentionPage(c *echo.Context) error {
	return web.Show(h.App, c, RetentionPage.Title, nil, pages.RetentionView{}, pages.RetentionPage)
}
