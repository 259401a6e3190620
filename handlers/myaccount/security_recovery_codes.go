package myaccount

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	pages "cardpay/views/myaccount"
)

// RecoveryCodesPath shows the recovery codes once, after the authenticator is set up.
const RecoveryCodesPath = "/myaccount/security/recovery-codes"

// ShowRecoveryCodesPage shows the recovery codes made by EnableTOTP, once: they leave
// the session as they are shown, and only their hashes are stored.
func (h *Handler) ShowRecoveryCodesPage(c *echo.Context) error {
	sealed := h.Sessions.PopString(c.Request().Context(), sessionRecoveryCodes)
	if sealed == "" {
		return c.Redirect(http.StatusSeeOther, SecurityPage.Path)
	}
	raw, err := h.Account.Sealer.Open(sealed)
	if err != nil {
		return err
	}
	var codes []string
	if err := json.Unmarshal([]byte(raw), &codes); err != nil {
		return err
	}
	return web.Show(h.App, c, "リカバリーコード", nil, pages.RecoveryCodesView{Codes: codes}, pages.RecoveryCodesPage)
}
