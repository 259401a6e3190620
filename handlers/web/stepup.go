package web

import (
	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// Step-up on the pages (account.StepUp): the forms that add or change a supplier's bank
// account ask for the second factor again when the session has not given it within
// account.StepUpWindow.

// StepUpFor is the code field u's form needs now: nil when the session's second factor
// is fresh; else the field, a mailed code being on its way for mail users (one is sent
// unless a good one already is, so revisiting the form does not retire it).
func (a *App) StepUpFor(c *echo.Context, u store.User) (*views.StepUpField, error) {
	ctx := c.Request().Context()
	fresh, err := a.Account.StepUpFresh(ctx, u)
	if err != nil || fresh {
		return nil, err
	}
	f := &views.StepUpField{Label: "確認コード（6桁）"}
	if account.StepUpMethod(u) == account.SecondFactorTOTP {
		f.Hint = "口座の登録・変更の前に、本人確認をお願いしています。認証アプリに表示されている6桁の数字（またはリカバリーコード）を入力してください"
		return f, nil
	}
	f.Resend = true
	f.Hint = "口座の登録・変更の前に、本人確認をお願いしています。" + u.EmailAddress + " にお送りした6桁の確認コードを入力してください（有効期限10分）"
	if err := a.Account.EnsureStepUpCode(ctx, u); err != nil {
		// Over the limit: the hint says when a code can be sent (the page is the form).
		if l, ok := account.AsLimited(err); ok {
			f.Hint += "。" + l.Message()
			return f, nil
		}
		return nil, err
	}
	return f, nil
}

// CheckStepUp checks the posted step_up_code when the session needs a step-up. It
// answers the refusal on step_up_code (nothing may be saved), or none when the factor
// is fresh or the code was right (the session's factor is now fresh). A press of the
// resend button mails a new code and is itself a refusal: the form comes back with it.
func (a *App) CheckStepUp(c *echo.Context, u store.User) (pay.FieldErrors, error) {
	ctx := c.Request().Context()
	fresh, err := a.Account.StepUpFresh(ctx, u)
	if err != nil || fresh {
		return nil, err
	}
	var errs pay.FieldErrors
	if c.FormValue("resend_code") != "" {
		err := a.Account.SendStepUpCode(ctx, u)
		if Refused(c, &errs, account.StepUpField, err) {
			return errs, nil
		}
		if err != nil {
			return nil, err
		}
		return pay.FieldErrors{{Field: account.StepUpField, Message: "確認コードを再送しました。メールに記載の6桁の数字を入力してください"}}, nil
	}
	err = a.Account.StepUp(ctx, u, c.FormValue(account.StepUpField))
	if Refused(c, &errs, account.StepUpField, err) {
		return errs, nil
	}
	return nil, err
}
