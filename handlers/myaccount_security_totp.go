package handlers

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/views"
)

// showTOTPSetupPage shows the QR code and key of the authenticator registration in
// progress (the sealed secret is in the session); without one it goes back to the
// security page.
func (a *App) showTOTPSetupPage(c *echo.Context) error {
	setup, ok, err := a.pendingTOTP(c)
	if err != nil || !ok {
		return err
	}
	return a.renderTOTPSetup(c, setup, nil)
}

// pendingTOTP is the registration in progress; when there is none (or it cannot be
// opened, after a change of SECRET_KEY) it has already redirected.
func (a *App) pendingTOTP(c *echo.Context) (account.TOTPSetup, bool, error) {
	ctx := c.Request().Context()
	sealed := a.Sessions.GetString(ctx, sessionPendingTOTP)
	if sealed != "" {
		setup, err := a.Account.OpenTOTPSetup(sealed)
		if err == nil {
			return setup, true, nil
		}
		a.Logger.Warn("pending authenticator cannot be opened", "error", err)
		a.Sessions.Remove(ctx, sessionPendingTOTP)
	}
	return account.TOTPSetup{}, false, c.Redirect(http.StatusSeeOther, "/myaccount/security")
}

func (a *App) renderTOTPSetup(c *echo.Context, setup account.TOTPSetup, errs views.FieldErrors) error {
	b, err := a.base(c, "認証アプリの設定")
	if err != nil {
		return err
	}
	b.Errors = errs
	return render(c, statusFor(b), views.TOTPSetupPage(views.TOTPSetupView{Base: b, QRCode: setup.QRCode, Secret: groupsOfFour(setup.Secret)}))
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

// enableTOTP turns the authenticator on with its first code, then shows the recovery
// codes once: they are kept sealed in the session only until that page takes them.
func (a *App) enableTOTP(c *echo.Context) error {
	ctx := c.Request().Context()
	setup, ok, err := a.pendingTOTP(c)
	if err != nil || !ok {
		return err
	}
	codes, err := a.Account.EnableTOTP(ctx, *currentUser(c), setup.Sealed, c.FormValue("code"))
	if r, ok := account.AsRefusal(err); ok {
		var errs views.FieldErrors
		errs.Add("code", r.Message)
		return a.renderTOTPSetup(c, setup, errs)
	}
	if err != nil {
		return err
	}
	a.Sessions.Remove(ctx, sessionPendingTOTP)
	raw, err := json.Marshal(codes)
	if err != nil {
		return err
	}
	sealed, err := a.Account.Sealer.Seal(string(raw))
	if err != nil {
		return err
	}
	a.Sessions.Put(ctx, sessionRecoveryCodes, sealed)
	return a.twoFactorChanged(c, "認証アプリによる二段階認証を有効にしました", "/myaccount/security/recovery-codes")
}
