package account

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"cardpay/auth"
	"cardpay/mail"
	"cardpay/store"
)

// Step-up: changing where a supplier's money goes (adding or changing a bank account)
// asks for the second factor again unless the session gave it in the last StepUpWindow.
// A stolen session cookie or access token alone cannot redirect payments: the thief
// also needs the owner's authenticator or mailbox. Buyers without a second factor get a
// mailed code, so that the mailbox stands in for it.

// StepUpWindow is how long a given second factor counts for a step-up.
const StepUpWindow = 5 * time.Minute

// StepUpField is the field a step-up code is entered in (pages and API alike).
const StepUpField = "step_up_code"

// Messages of the step-up.
const (
	MsgStepUpCodeMail = "口座の登録・変更には確認が必要です。メールでお送りした確認コードを入力してください"
	MsgStepUpCodeTOTP = "口座の登録・変更には確認が必要です。認証アプリに表示されている確認コードを入力してください"
)

// stepUpSubject keeps step-up codes apart from sign-in and two-factor set-up codes of
// the same user: none can stand in for another.
func stepUpSubject(u store.User) string {
	return "stepup:" + strconv.FormatInt(u.ID, 10)
}

// StepUpMethod is how u gives the step-up: the authenticator for TOTP users, a mailed
// code for everyone else (mail two-factor, or none).
func StepUpMethod(u store.User) string {
	if u.TwoFactorMethod == SecondFactorTOTP {
		return SecondFactorTOTP
	}
	return SecondFactorEmail
}

// StepUpMessage asks u for the step-up code the way u gives it.
func StepUpMessage(u store.User) string {
	if StepUpMethod(u) == SecondFactorTOTP {
		return MsgStepUpCodeTOTP
	}
	return MsgStepUpCodeMail
}

// StepUpFresh says whether the caller's session (on ctx) gave u's second factor within
// StepUpWindow. The time is kept on the session's row, read with u's ids: another
// user's session, or none, is never fresh.
func (s *Service) StepUpFresh(ctx context.Context, u store.User) (bool, error) {
	sid := CallerOf(ctx).SessionID
	if sid == 0 {
		return false, nil
	}
	at, err := s.Store.SessionFactorAt(ctx, u.BuyerID, u.ID, sid)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return at != nil && s.now().Sub(*at) < StepUpWindow && !at.After(s.now().Add(time.Minute)), nil
}

// SendStepUpCode mails u a step-up code (the previous one stops working); an
// authenticator user needs none.
func (s *Service) SendStepUpCode(ctx context.Context, u store.User) error {
	if StepUpMethod(u) == SecondFactorTOTP {
		return nil
	}
	if err := s.LimitCaller(ctx, ActTwoFactor, strconv.FormatInt(u.ID, 10)); err != nil {
		return err
	}
	return s.sendCode(ctx, store.PurposeSignIn, stepUpSubject(u), "", mailAlways, func(code string) mail.Message {
		return mail.StepUpCode(u.EmailAddress, s.ServiceName, code, auth.CodeTTL)
	})
}

// EnsureStepUpCode mails u a step-up code unless one is already on its way and still
// good (unused, not expired, not worn out by wrong attempts): the form's screens can ask
// for it on every visit without retiring the code the person is typing.
func (s *Service) EnsureStepUpCode(ctx context.Context, u store.User) error {
	if StepUpMethod(u) == SecondFactorTOTP {
		return nil
	}
	c, err := s.Store.LatestCode(ctx, store.PurposeSignIn, stepUpSubject(u))
	if err == nil && c.UsedAt == nil && s.now().Before(c.ExpiresAt) && c.Attempts < auth.CodeMaxAttempts {
		return nil
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return s.SendStepUpCode(ctx, u)
}

// StepUp checks a step-up code (the authenticator's or a recovery code for TOTP users,
// else the mailed one) under the rate limiter, and records on the caller's session that
// the factor was given now. Refusals are on StepUpField.
func (s *Service) StepUp(ctx context.Context, u store.User, code string) error {
	code = strings.TrimSpace(code)
	if code == "" {
		return &Refusal{Field: StepUpField, Message: StepUpMessage(u)}
	}
	if err := s.LimitCaller(ctx, ActTwoFactor, strconv.FormatInt(u.ID, 10)); err != nil {
		return err
	}
	var err error
	if StepUpMethod(u) == SecondFactorTOTP {
		err = s.checkTOTP(ctx, u, code)
	} else {
		err = s.checkCode(ctx, store.PurposeSignIn, stepUpSubject(u), code, StepUpField)
	}
	if r, ok := AsRefusal(err); ok {
		r.Field = StepUpField
		return r
	}
	if err != nil {
		return err
	}
	return s.MarkFactor(ctx, u, CallerOf(ctx).SessionID)
}

// MarkFactor records that u's session sessionID gave the second factor now (a sign-in
// with two-factor, or a step-up).
func (s *Service) MarkFactor(ctx context.Context, u store.User, sessionID int64) error {
	if sessionID == 0 {
		return errors.New("account: a second factor without a session")
	}
	return s.Store.SetSessionFactor(ctx, u.BuyerID, u.ID, sessionID, s.now())
}
