package myaccount

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/oauth"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/myaccount"
)

// The method radio's value for "off": an empty value would look like no choice.
const twoFactorOff = "none"

// SecurityPage is セキュリティ設定: the second factor, the live sessions and the
// sign-in history.
var SecurityPage = web.Page{Path: "/myaccount/security", Title: "セキュリティ設定", Access: web.SignedIn}

// ShowSecurityPage shows the second factor in force, the form to change it, the
// sessions signed in now (each other one with a button that ends it), and the recent
// sign-ins.
func (h *Handler) ShowSecurityPage(c *echo.Context) error {
	return h.renderSecurity(c, "", nil)
}

// renderSecurity shows セキュリティ設定; choice is the radio to keep checked after a
// failed submit ("" checks the method in force).
func (h *Handler) renderSecurity(c *echo.Context, choice string, errs pay.FieldErrors) error {
	ctx := c.Request().Context()
	u := web.CurrentUser(c)
	events, err := h.Store.SignInEvents(ctx, u.BuyerID, u.ID, pages.SignInHistoryLimit)
	if err != nil {
		return err
	}
	sessions, err := h.Account.Sessions(ctx, *u)
	if err != nil {
		return err
	}
	if choice == "" {
		choice = formTwoFactorValue(u.TwoFactorMethod)
	}
	totpHint := "スマートフォンの認証アプリ（Google Authenticator など）に表示される6桁のコードを入力します。メールよりも安全です。"
	if u.TwoFactorMethod == account.SecondFactorTOTP {
		totpHint = "選ぶと、新しい認証アプリを登録し直します（これまでのアプリとリカバリーコードは使えなくなります）。"
	}
	v := pages.SecurityView{
		CurrentLabel: account.TwoFactorLabel(u.TwoFactorMethod), Choice: choice,
		Options: []pages.TwoFactorOption{
			{Value: twoFactorOff, Label: account.TwoFactorLabel(account.SecondFactorNone), Hint: "パスワードだけでログインします。"},
			{Value: account.SecondFactorEmail, Label: account.TwoFactorLabel(account.SecondFactorEmail),
				Hint: "ログインのたびに、ご登録のメールアドレスに6桁の確認コードをお送りします。"},
			{Value: account.SecondFactorTOTP, Label: account.TwoFactorLabel(account.SecondFactorTOTP), Hint: totpHint},
		},
	}
	// This browser's session first, then the others newest first.
	current := account.CallerOf(ctx).SessionID
	for _, s := range sessions {
		row := pages.SessionRow{
			ID: strconv.FormatInt(s.ID, 10), Device: sessionDevice(s), IPAddress: s.IPAddress,
			SignedInAt: pay.JapaneseDateTime(s.SignedInAt), LastSeenAt: pay.JapaneseDateTime(s.LastSeenAt),
			Current: s.ID == current,
		}
		if row.Current {
			v.Sessions = append([]pages.SessionRow{row}, v.Sessions...)
		} else {
			v.Sessions = append(v.Sessions, row)
		}
	}
	for _, e := range events {
		ua := e.UserAgent
		if ua == "" {
			ua = "不明"
		}
		v.Events = append(v.Events, pages.SignInEventRow{
			At: pay.JapaneseDateTime(e.CreatedAt), Succeeded: e.Succeeded, IPAddress: e.IPAddress, UserAgent: ua,
		})
	}
	consents, err := h.Store.OAuthConsents(ctx, u.BuyerID)
	if err != nil {
		return err
	}
	for _, a := range consents {
		row := pages.AppRow{Name: a.ClientName, Since: pay.JapaneseDateTime(a.GrantedAt), LastUsed: "まだありません",
			Action: DisconnectAppPath(a.ClientID)}
		if a.LastUsedAt != nil {
			row.LastUsed = pay.JapaneseDateTime(*a.LastUsedAt)
		}
		for _, sc := range a.Scopes {
			row.Scopes = append(row.Scopes, oauth.Scope(sc).Text())
		}
		v.Apps = append(v.Apps, row)
	}
	return web.Show(h.App, c, SecurityPage.Title, errs, v, pages.SecurityPage)
}

// sessionDevice names a session's client in the list and in notices: the browser and
// system read from its user agent, or APIクライアント for a sign-in through the API.
func sessionDevice(s store.UserSession) string {
	if s.Kind == store.SessionAPI {
		return "APIクライアント"
	}
	return account.DeviceLabel(s.UserAgent)
}

func formTwoFactorValue(method string) string {
	if method == account.SecondFactorNone {
		return twoFactorOff
	}
	return method
}

// ChooseTwoFactor starts a change of the two-factor method, always behind the current
// password: off takes effect at once; mail and the authenticator app are confirmed by a
// code first, on their own pages.
func (h *Handler) ChooseTwoFactor(c *echo.Context) error {
	ctx := c.Request().Context()
	u := web.CurrentUser(c)
	choice := c.FormValue("two_factor_method")
	password := c.FormValue("current_password")
	method := choice
	if choice == twoFactorOff {
		method = account.SecondFactorNone
	}
	if choice == "" || !account.ValidTwoFactorMethod(method) {
		var errs pay.FieldErrors
		errs.Add("two_factor_method", "二段階認証の方法を選択してください")
		if password == "" {
			errs.Add("current_password", "現在のパスワードを入力してください")
		}
		return h.renderSecurity(c, "", errs)
	}
	if method != account.SecondFactorTOTP && method == u.TwoFactorMethod {
		h.SetFlash(c, views.Flash{Color: "info", Title: "設定は変更されていません", Text: "二段階認証は「" + account.TwoFactorLabel(method) + "」のままです。"})
		return c.Redirect(http.StatusSeeOther, SecurityPage.Path)
	}
	// A change started earlier and left unfinished is abandoned.
	h.Sessions.Remove(ctx, sessionPendingTOTP)
	h.Sessions.Remove(ctx, sessionPendingMail2FA)

	switch method {
	case account.SecondFactorNone:
		errs, err := h.Account.DisableTwoFactor(ctx, *u, password)
		if err != nil && !web.Refused(c, &errs, "current_password", err) {
			return err
		}
		if len(errs) > 0 {
			return h.renderSecurity(c, choice, errs)
		}
		return h.twoFactorChanged(c, "二段階認証を無効にしました", SecurityPage.Path)
	case account.SecondFactorEmail:
		errs, err := h.Account.StartEmailTwoFactor(ctx, *u, password)
		if err != nil && !web.Refused(c, &errs, "current_password", err) {
			return err
		}
		if len(errs) > 0 {
			return h.renderSecurity(c, choice, errs)
		}
		h.Sessions.Put(ctx, sessionPendingMail2FA, true)
		h.SetFlash(c, views.Flash{Color: "info", Title: "確認コードを送信しました", Text: u.EmailAddress + " 宛てのメールをご確認ください。"})
		return c.Redirect(http.StatusSeeOther, EmailTwoFactorPath)
	default:
		setup, errs, err := h.Account.StartTOTP(ctx, *u, password)
		if err != nil && !web.Refused(c, &errs, "current_password", err) {
			return err
		}
		if len(errs) > 0 {
			return h.renderSecurity(c, choice, errs)
		}
		h.Sessions.Put(ctx, sessionPendingTOTP, setup.Sealed)
		return c.Redirect(http.StatusSeeOther, TOTPSetupPath)
	}
}

// twoFactorChanged renews the session token after a change of the second factor (a
// privilege change) and goes on with a notice.
func (h *Handler) twoFactorChanged(c *echo.Context, title, next string) error {
	fresh, err := h.reloadUser(c)
	if err != nil {
		return err
	}
	if err := h.RenewSession(c, fresh); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: title})
	return c.Redirect(http.StatusSeeOther, next)
}
