// Package notifications is the area of /notifications: the buyer's お知らせ.
package notifications

import "cardpay/handlers/web"

// Handler serves the notification pages.
type Handler struct {
	*web.App
}

// Placeholders are the notification screens still waiting for their issue (SPEC.md §2).
var Placeholders = []web.Page{
	{Path: "/notifications", Title: "お知らせ", Access: web.SignedIn},
}
