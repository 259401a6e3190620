// Package payments is the area of /payments: paying a supplier's invoice by card.
package payments

import "cardpay/handlers/web"

// Handler serves the payment pages.
type Handler struct {
	*web.App
}

// Placeholders are the payment screens still waiting for their issue (SPEC.md §2): each
// leaves this list for a handler file of its own when the payment journey lands.
var Placeholders = []web.Page{
	{Path: "/payments/draft", Title: "下書き", Access: web.SignedIn},
	{Path: "/payments/review", Title: "審査中", Access: web.SignedIn},
	{Path: "/payments/reserved", Title: "支払予約", Access: web.SignedIn},
	{Path: "/payments/history", Title: "支払履歴", Access: web.SignedIn},
	{Path: "/payments/waiting", Title: "支払待ち", Access: web.SignedIn},
	{Path: "/payments/add/invoiceinfo", Title: "請求書情報の入力", Access: web.SignedIn},
	{Path: "/payments/add/confirm", Title: "支払内容の確認", Access: web.SignedIn},
	{Path: "/payments/complete", Title: "支払申請の完了", Access: web.SignedIn},
}
