package myaccount

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/oauth"
	"cardpay/store"
	"cardpay/views"
)

// DisconnectAppPattern is where セキュリティ設定 disconnects a partner application.
const DisconnectAppPattern = "/myaccount/security/apps/:client/disconnect"

// DisconnectAppPath is the disconnect form's action for clientID.
func DisconnectAppPath(clientID string) string {
	return "/myaccount/security/apps/" + url.PathEscape(clientID) + "/disconnect"
}

// DisconnectApp ends the buyer's consent to the :client application: its access and
// refresh tokens stop at once. One the buyer never connected is the 404 page.
func (h *Handler) DisconnectApp(c *echo.Context) error {
	u := web.CurrentUser(c)
	clientID := c.Param("client")
	if !oauth.ValidClientID(clientID) {
		return web.ErrNotFound
	}
	err := h.Store.RevokeOAuthConsent(c.Request().Context(), u.BuyerID, clientID, h.Now())
	if errors.Is(err, store.ErrNotFound) {
		return web.ErrNotFound
	}
	if err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "アプリケーションの連携を解除しました",
		Text: "このアプリケーションは、もうあなたのアカウントを使えません。"})
	return c.Redirect(http.StatusSeeOther, SecurityPage.Path)
}
