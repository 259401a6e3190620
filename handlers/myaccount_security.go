package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/pay"
	"cardpay/views"
)

// The method radio's value for "off": an empty value would look like no choice.
const twoFactorOff = "none"

func (a *App) showSecurityPage(c *echo.Context) error {
	return a.renderSecurity(c, "", nil)
}

// renderSecurity shows セキュリティ設定; choice is the radio to keep checked after a
// failed submit ("" checks the method in force).
func (a *App) renderSecurity(c *echo.Context, choice string, errs views.FieldErrors) error {
	u := currentUser(c)
	events, err := a.Store.SignInEvents(c.Request().Context(), u.BuyerID, u.ID, views.SignInHistoryLimit)
	if err != nil {
		return err
	}
	b, err := a.base(c, "セキュリティ設定")
	if err != nil {
		return err
	}
	b.Errors = errs
	if choice == "" {
		choice = formTwoFactorValue(u.TwoFactorMethod)
	}
	totpHint := "スマートフォンの認証アプリ（Google Authenticator など）に表示される6桁のコードを入力します。メールよりも安全です。"
	if u.TwoFactorMethod == account.SecondFactorTOTP {
		totpHint = "選ぶと、新しい認証アプリを登録し直します（これまでのアプリとリカバリーコードは使えなくなります）。"
	}
	v := views.SecurityView{
		Base: b, CurrentLabel: account.TwoFactorLabel(u.TwoFactorMethod), Choice: choice,
		Options: []views.TwoFactorOption{
			{Value: twoFactorOff, Label: account.TwoFactorLabel(account.SecondFactorNone), Hint: "パスワードだけでログインします。"},
			{Value: account.SecondFactorEmail, Label: account.TwoFactorLabel(account.SecondFactorEmail),
				Hint: "ログインのたびに、ご登録のメールアドレスに6桁の確認コードをお送りします。"},
			{Value: account.SecondFactorTOTP, Label: account.TwoFactorLabel(account.SecondFactorTOTP), Hint: totpHint},
		},
	}
	for _, e := range events {
		ua := e.UserAgent
		if ua == "" {
			ua = "不明"
		}
		v.Events = append(v.Events, views.SignInEventRow{
			At: pay.JapaneseDateTime(e.CreatedAt), Succeeded: e.Succeeded, IPAddress: e.IPAddress, UserAgent: ua,
		})
	}
	return render(c, statusFor(b), views.SecurityPage(v))
}

func formTwoFactorValue(method string) string {
	if method == account.SecondFactorNone {
		return twoFactorOff
	}
	return method
}

// chooseTwoFactor starts a change of the two-factor method, always behind the current
// password: off takes effect at once; mail and the authenticator app are confirmed by a
// code first, on their own pages.
func (a *App) chooseTwoFactor(c *echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	choice := c.FormValue("two_factor_method")
	password := c.FormValue("current_password")
	method := choice
	if choice == twoFactorOff {
		method = account.SecondFactorNone
	}
	if choice == "" || !account.ValidTwoFactorMethod(method) {
		var errs views.FieldErrors
		errs.Add("two_factor_method", "二段階認証の方法を選択してください")
		if password == "" {
			errs.Add("current_password", "現在のパスワードを入力してください")
		}
		return a.renderSecurity(c, "", errs)
	}
	if method != account.SecondFactorTOTP && method == u.TwoFactorMethod {
		a.setFlash(c, views.Flash{Color: "info", Title: "設定は変更されていません", Text: "二段階認証は「" + account.TwoFactorLabel(method) + "」のままです。"})
		return c.Redirect(http.StatusSeeOther, "/myaccount/security")
	}
	// A change started earlier and left unfinished is abandoned.
	a.Sessions.Remove(ctx, sessionPendingTOTP)
	a.Sessions.Remove(ctx, sessionPendingMail2FA)

	switch method {
	case account.SecondFactorNone:
		errs, err := a.Account.DisableTwoFactor(ctx, *u, password)
		if err != nil {
			return err
		}
		if len(errs) > 0 {
			return a.renderSecurity(c, choice, accountFieldErrors(errs))
		}
		return a.twoFactorChanged(c, "二段階認証を無効にしました", "/myaccount/security")
	case account.SecondFactorEmail:
		errs, err := a.Account.StartEmailTwoFactor(ctx, *u, password)
		if err != nil {
			return err
		}
		if len(errs) > 0 {
			return a.renderSecurity(c, choice, accountFieldErrors(errs))
		}
		a.Sessions.Put(ctx, sessionPendingMail2FA, true)
		a.setFlash(c, views.Flash{Color: "info", Title: "確認コードを送信しました", Text: u.EmailAddress + " 宛てのメールをご確認ください。"})
		return c.Redirect(http.StatusSeeOther, "/myaccount/security/email")
	default:
		setup, errs, err := a.Account.StartTOTP(ctx, *u, password)
		if err != nil {
			return err
		}
		if len(errs) > 0 {
			return a.renderSecurity(c, choice, accountFieldErrors(errs))
		}
		a.Sessions.Put(ctx, sessionPendingTOTP, setup.Sealed)
		return c.Redirect(http.StatusSeeOther, "/myaccount/security/totp")
	}
}

// twoFactorChanged renews the session token after a change of the second factor (a
// privilege change) and goes on with a notice.
func (a *App) twoFactorChanged(c *echo.Context, title, next string) error {
	fresh, err := a.reloadUser(c)
	if err != nil {
		return err
	}
	if err := a.renewAfterChange(c, fresh); err != nil {
		return err
	}
	a.setFlash(c, views.Flash{Color: "success", Title: title})
	return c.Redirect(http.StatusSeeOther, next)
}
