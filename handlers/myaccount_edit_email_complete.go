package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/views"
)

// showEmailChangeCompletePage is public (SPEC.md §2): signed in, it shows the new
// address; otherwise it only says to sign in with it.
func (a *App) showEmailChangeCompletePage(c *echo.Context) error {
	b, err := a.base(c, "メールアドレスの変更完了")
	if err != nil {
		return err
	}
	v := views.EmailChangeCompleteView{Base: b}
	if u := currentUser(c); u != nil {
		v.EmailAddress = u.EmailAddress
	}
	return render(c, http.StatusOK, views.EmailChangeCompletePage(v))
}
