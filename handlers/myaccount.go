package handlers

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// accountPages are the password-reset and my-account GET pages that show without a flow in progress,
// for Pages(). The others (edit-email-auth, security/totp, security/email,
// security/recovery-codes) send a visitor with nothing pending back to where the flow
// starts.
func accountPages() []PageInfo {
	return []PageInfo{
		{"/password/sendemail", "パスワード再設定メールの送信", "public"},
		{"/password/reset", "パスワードの再設定", "public"},
		{"/myaccount/edit-email-complete", "メールアドレスの変更完了", "public"},
		{"/termsofservice", "利用規約", "signed_in"},
		{"/myaccount", "ログイン情報", "signed_in"},
		{"/myaccount/company", "会社情報", "signed_in"},
		{"/myaccount/edit-password", "パスワードの変更", "signed_in"},
		{"/myaccount/edit-email-address", "メールアドレスの変更", "signed_in"},
		{"/myaccount/security", "セキュリティ設定", "signed_in"},
	}
}

// Session keys of the account flows (SPEC.md §3 keeps these in session storage: the
// password-reset address, the pending e-mail edit, the two-factor set-up).
const (
	sessionResetEmail     = "password_reset_email"
	sessionEmailChange    = "email_change_address"
	sessionPendingTOTP    = "two_factor_totp_sealed"
	sessionPendingMail2FA = "two_factor_email_pending"
	sessionRecoveryCodes  = "two_factor_recovery_codes_sealed"
)

// accountFieldErrors turns the account rules' field errors into the page's.
func accountFieldErrors(errs pay.FieldErrors) views.FieldErrors {
	out := make(views.FieldErrors, 0, len(errs))
	for _, e := range errs {
		out.Add(e.Field, e.Message)
	}
	return out
}

// reloadUser reads the signed-in user again after a change, for the renewed session
// and the next page.
func (a *App) reloadUser(c *echo.Context) (store.User, error) {
	u := currentUser(c)
	return a.Store.User(c.Request().Context(), u.BuyerID, u.ID)
}

// renewAfterChange starts the session again for u after a change to how u signs in
// (password, e-mail address, second factor): a new token, and the user's current
// session epoch. The sign-in time is kept, so such changes never stretch the absolute
// session limit.
func (a *App) renewAfterChange(c *echo.Context, u store.User) error {
	ctx := c.Request().Context()
	signedIn := a.Sessions.GetInt64(ctx, sessionSignedIn)
	if err := a.startSession(c, u); err != nil {
		return err
	}
	if signedIn != 0 {
		a.Sessions.Put(ctx, sessionSignedIn, signedIn)
	}
	return nil
}

// checkPasswordConfirmation is the message for the confirmation field of a new password.
func checkPasswordConfirmation(password, confirmation string) string {
	switch {
	case confirmation == "":
		return "確認のため、新しいパスワードをもう一度入力してください"
	case confirmation != password:
		return "新しいパスワード（確認用）が一致しません。同じパスワードを入力してください"
	}
	return ""
}

// accountShownValue is what a form echoes back: never bytes that are not UTF-8.
func accountShownValue(s string) string {
	return strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
}

// showMyAccountPage is ログイン情報.
func (a *App) showMyAccountPage(c *echo.Context) error {
	u := currentUser(c)
	b, err := a.base(c, "ログイン情報")
	if err != nil {
		return err
	}
	terms := "未同意"
	if u.TermsVersion > 0 {
		terms = "第" + strconv.Itoa(u.TermsVersion) + "版に同意済み"
	}
	if account.NeedsTerms(*u) {
		terms += "（最新は第" + strconv.Itoa(account.TermsVersion) + "版です）"
	}
	return render(c, http.StatusOK, views.MyAccountPage(views.MyAccountView{
		Base: b, EmailAddress: u.EmailAddress, TwoFactorLabel: account.TwoFactorLabel(u.TwoFactorMethod),
		TermsAccepted: terms, TermsOutdated: account.NeedsTerms(*u),
	}))
}
