package myaccount

import (
	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	pages "cardpay/views/myaccount"
)

// EmailChangeCompletePage ends an e-mail change; it is reached from the mail, signed
// out too.
var EmailChangeCompletePage = web.Page{Path: "/myaccount/edit-email-complete", Title: "メールアドレスの変更完了", Access: web.Public}

// ShowEmailChangeCompletePage is public (SPEC.md §2): signed in, it shows the new
// address; otherwise it only says to sign in with it.
func (h *Handler) ShowEmailChangeCompletePage(c *echo.Context) error {
	v := pages.EmailChangeCompleteView{}
	if u := web.CurrentUser(c); u != nil {
		v.EmailAddress = u.EmailAddress
	}
	return web.Show(h.App, c, EmailChangeCompletePage.Title, nil, v, pages.EmailChangeCompletePage)
}
