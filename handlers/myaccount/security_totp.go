package myaccount

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/pay"
	pages "cardpay/views/myaccount"
)

// TOTPSetupPath is the authenticator set-up page and where it posts.
const TOTPSetupPath = "/myaccount/security/totp"

// ShowTOTPSetupPage shows the QR code and key of the authenticator registration in
// progress (the sealed secret is in the session); without one it goes back to the
// security page.
func (h *Handler) ShowTOTPSetupPage(c *echo.Context) error {
	setup, ok, err := h.pendingTOTP(c)
	if err != nil || !ok {
		return err
	}
	return h.renderTOTPSetup(c, setup, nil)
}

// pendingTOTP is the registration in progress; when there is none (or it cannot be
// opened, after a change of SECRET_KEY) it has already redirected.
func (h *Handler) pendingTOTP(c *echo.Context) (account.TOTPSetup, bool, error) {
	ctx := c.Request().Context()
	sealed := h.Sessions.GetString(ctx, sessionPendingTOTP)
	if sealed != "" {
		setup, err := h.Account.OpenTOTPSetup(sealed)
		if err == nil {
			return setup, true, nil
		}
		h.Logger.Warn("pending authenticator cannot be opened", "error", err)
		h.Sessions.Remove(ctx, sessionPendingTOTP)
	}
	return account.TOTPSetup{}, false, c.Redirect(http.StatusSeeOther, SecurityPage.Path)
}

func (h *Handler) renderTOTPSetup(c *echo.Context, setup account.TOTPSetup, errs pay.FieldErrors) error {
	return web.Show(h.App, c, "認証アプリの設定", errs, pages.TOTPSetupView{QRCode: setup.QRCode, Secret: groupsOfFour(setup.Secret)}, pages.TOTPSetupPage)
}

// groupsOfFour writes a base32 key as "ABCD EFGH …", easier to copy by hand; apps
// ignore the spaces.
func groupsOfFour(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// EnableTOTP turns the authenticator on with its first code, then shows the recovery
// codes once: they are kept sealed in the session only until that page takes them.
func (h *Handler) EnableTOTP(c *echo.Context) error {
	ctx := c.Request().Context()
	setup, ok, err := h.pendingTOTP(c)
	if err != nil || !ok {
		return err
	}
	codes, err := h.Account.EnableTOTP(ctx, *web.CurrentUser(c), setup.Sealed, c.FormValue("code"))
	if errs := (pay.FieldErrors{}); web.Refused(c, &errs, "code", err) {
		return h.renderTOTPSetup(c, setup, errs)
	}
	if err != nil {
		return err
	}
	h.Sessions.Remove(ctx, sessionPendingTOTP)
	raw, err := json.Marshal(codes)
	if err != nil {
		return err
	}
	sealed, err := h.Account.Sealer.Seal(string(raw))
	if err != nil {
		return err
	}
	h.Sessions.Put(ctx, sessionRecoveryCodes, sealed)
	return h.twoFactorChanged(c, "認証アプリによる二段階認証を有効にしました", RecoveryCodesPath)
}
