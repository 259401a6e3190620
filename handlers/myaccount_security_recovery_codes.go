package handlers

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/views"
)

// showRecoveryCodesPage shows the recovery codes made by enableTOTP, once: they leave
// the session as they are shown, and only their hashes are stored.
func (a *App) showRecoveryCodesPage(c *echo.Context) error {
	sealed := a.Sessions.PopString(c.Request().Context(), sessionRecoveryCodes)
	if sealed == "" {
		return c.Redirect(http.StatusSeeOther, "/myaccount/security")
	}
	raw, err := a.Account.Sealer.Open(sealed)
	if err != nil {
		return err
	}
	var codes []string
	if err := json.Unmarshal([]byte(raw), &codes); err != nil {
		return err
	}
	b, err := a.base(c, "リカバリーコード")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.RecoveryCodesPage(views.RecoveryCodesView{Base: b, Codes: codes}))
}
