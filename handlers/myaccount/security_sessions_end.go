package myaccount

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/views"
)

// EndSessionPattern is where the security page ends one of the buyer's sessions.
const EndSessionPattern = "/myaccount/security/sessions/:id/end"

// EndSession ends the :id session of the signed-in user (a browser's next request
// signs in again; an API client's tokens stop working). An id that is not one of the
// user's own sessions is the 404 page and ends nothing; the session this request
// comes from is not ended here (ログアウト in the menu does that).
func (h *Handler) EndSession(c *echo.Context) error {
	ctx := c.Request().Context()
	u := web.CurrentUser(c)
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	s, err := h.Store.UserSession(ctx, u.BuyerID, u.ID, id)
	if err != nil {
		return err
	}
	device := sessionDevice(s)
	switch {
	case s.ID == account.CallerOf(ctx).SessionID:
		h.SetFlash(c, views.Flash{Color: "info", Title: "この端末はここではログアウトできません",
			Text: "この端末からログアウトするには、メニューの「ログアウト」を選んでください。"})
	case s.EndedAt != nil:
		h.SetFlash(c, views.Flash{Color: "info", Title: "選択した端末はすでにログアウトしています", Text: device + "のセッションは終了しています。"})
	default:
		if err := h.Account.EndSession(ctx, *u, s.ID); err != nil {
			return err
		}
		h.SetFlash(c, views.Flash{Color: "success", Title: "選択した端末をログアウトさせました",
			Text: device + "（" + s.IPAddress + "）は、もう一度ログインするまでご利用いただけません。"})
	}
	return c.Redirect(http.StatusSeeOther, SecurityPage.Path)
}
