// Package collections is the area of /collections: card-payment requests a corporation
// sends to its own customers.
package collections

import (
	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
)

// Handler serves the card-payment request pages.
type Handler struct {
	*web.App
}

// Placeholders are the request screens still waiting for their issue (SPEC.md §2).
var Placeholders = []web.Page{
	{Path: "/collections/draft", Title: "下書き", Access: web.Collections},
	{Path: "/collections/request", Title: "依頼中", Access: web.Collections},
	{Path: "/collections/decided", Title: "支払確定", Access: web.Collections},
	{Path: "/collections/history", Title: "依頼履歴", Access: web.Collections},
	{Path: "/collections/create", Title: "カード払い依頼を作成", Access: web.Collections},
	{Path: "/collections/add/invoice", Title: "請求書情報の入力", Access: web.Collections},
	{Path: "/collections/add/bank", Title: "入金先口座の選択", Access: web.Collections},
	{Path: "/collections/add/confirm", Title: "依頼内容の確認", Access: web.Collections},
	{Path: "/collections/complete", Title: "依頼の完了", Access: web.Collections},
}

// RequireCollections refuses the request screens to buyers who may not request card
// payments: sole proprietors and excluded corporations. It runs after RequireSignIn.
func (h *Handler) RequireCollections(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if !h.CollectionsEnabled(web.CurrentUser(c)) {
			return web.Forbidden("カード払い依頼はご利用いただけません", "カード払い依頼は法人のお客さまがご利用いただける機能です。")
		}
		return next(c)
	}
}
