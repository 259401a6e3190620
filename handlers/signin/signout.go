package signin

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/views"
)

// SignOutPath is where the header's sign-out form posts.
const SignOutPath = links.SignOut

// SignOut destroys the server session, so the old cookie no longer signs anyone in,
// ends its row (the security page lists it no more), and confirms on the sign-in page.
func (h *Handler) SignOut(c *echo.Context) error {
	ctx := c.Request().Context()
	if u := web.CurrentUser(c); u != nil {
		if sid := account.CallerOf(ctx).SessionID; sid != 0 {
			if err := h.Account.EndSession(ctx, *u, sid); err != nil {
				return err
			}
		}
	}
	if err := h.Sessions.Destroy(ctx); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "info", Title: "ログアウトしました"})
	return c.Redirect(http.StatusSeeOther, SignInPage.Path)
}
