package account

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"cardpay/auth"
	"cardpay/mail"
	"cardpay/pay"
	"cardpay/store"
)

const (
	msgCurrentPasswordRequired = "現在のパスワードを入力してください"
	msgCurrentPasswordWrong    = "現在のパスワードが正しくありません"
	msgEmailSame               = "現在のメールアドレスと同じです。新しいメールアドレスを入力してください"
)

// StartEmailChange checks the new address and the current password and mails a code to
// the new address: the change happens only once ConfirmEmailChange receives that code,
// which proves the user reads mail there. When another account signs in with the new
// address, its owner is told instead and no code goes out (mailUnlessInUse); the answer
// and the work done are the same either way, so that the page cannot be used to find
// out which addresses have accounts. Field names: email_address (the new address) and
// current_password.
func (s *Service) StartEmailChange(ctx context.Context, u store.User, newEmail, password string) (pay.FieldErrors, error) {
	var errs pay.FieldErrors
	email, msg := pay.ValidateEmail(newEmail)
	errs.Add("email_address", msg)
	if msg == "" && strings.EqualFold(email, u.EmailAddress) {
		errs.Add("email_address", msgEmailSame)
	}
	if err := s.LimitCaller(ctx, ActEmailChange, strconv.FormatInt(u.ID, 10)); err != nil {
		return nil, err
	}
	msg, err := s.checkCurrentPassword(ctx, u, password)
	if err != nil {
		return nil, err
	}
	if errs.Add("current_password", msg); len(errs) > 0 {
		return errs, nil
	}
	return nil, s.sendCode(ctx, store.PurposeEmailChange, strconv.FormatInt(u.ID, 10), email, mailUnlessInUse, func(code string) mail.Message {
		return mail.EmailChangeCode(email, s.ServiceName, code, auth.CodeTTL)
	})
}

// ConfirmEmailChange checks the code mailed by StartEmailChange and makes its address
// the user's sign-in address; the old address is told, so that a change by someone else
// does not go unnoticed. Wrong, expired and used codes are Refusals on the field "code".
// It returns the new address.
func (s *Service) ConfirmEmailChange(ctx context.Context, u store.User, input string) (string, error) {
	if strings.TrimSpace(input) == "" {
		return "", &Refusal{Field: "code", Message: "確認コードを入力してください"}
	}
	if err := s.LimitCaller(ctx, ActCode, "email_change:"+strconv.FormatInt(u.ID, 10)); err != nil {
		return "", err
	}
	// The address is the payload of the very code that was accepted: a newer request
	// made meanwhile retires this code rather than swapping the address behind it.
	c, err := s.useLatestCode(ctx, store.PurposeEmailChange, strconv.FormatInt(u.ID, 10), input, "code")
	if err != nil {
		return "", err
	}
	email := c.Payload
	taken, err := s.Store.EmailTaken(ctx, email)
	if err != nil {
		return "", err
	}
	if taken {
		return "", &Refusal{Field: "code", Message: "このメールアドレスは既に使用されています。もう一度メールアドレスの変更をお申し込みください"}
	}
	notice, err := s.notice(mail.EmailChanged(u.EmailAddress, email, s.ServiceName, s.now()))
	if err != nil {
		return "", err
	}
	if err := s.Store.SetEmailAddress(ctx, u.BuyerID, u.ID, email, notice); err != nil {
		// Another account took the address between the check and the update (the
		// unique index refuses it).
		if taken, terr := s.Store.EmailTaken(ctx, email); terr == nil && taken {
			return "", &Refusal{Field: "code", Message: "このメールアドレスは既に使用されています。もう一度メールアドレスの変更をお申し込みください"}
		}
		return "", err
	}
	if err := s.EndOtherSessions(ctx, u); err != nil {
		return "", err
	}
	return email, nil
}

// useLatestCode checks input against the newest code for (purpose, subject) and answers
// the accepted code (its payload). The attempt is counted before the comparison, in the
// statement that checks the limit (store.CountCodeAttempt), so that parallel guesses
// cannot compare more than auth.CodeMaxAttempts entries; the right code is then used up
// (once, even when two requests bring it at the same time).
func (s *Service) useLatestCode(ctx context.Context, purpose, subject, input, field string) (store.OneTimeCode, error) {
	now := s.now()
	c, counted, err := s.Store.CountCodeAttempt(ctx, purpose, subject, now, auth.CodeMaxAttempts)
	if errors.Is(err, store.ErrNotFound) {
		return store.OneTimeCode{}, &Refusal{Field: field, Message: auth.CodeWrong.Message()}
	}
	if err != nil {
		return store.OneTimeCode{}, err
	}
	stored := auth.StoredCode{Hash: c.CodeHash, ExpiresAt: c.ExpiresAt, Attempts: c.Attempts, UsedAt: c.UsedAt}
	if counted {
		stored.Attempts-- // CheckCode wants the entries before this one
	}
	res := auth.CheckCode(stored, input, now, s.Codes)
	if !counted && (res == auth.CodeOK || res == auth.CodeWrong) {
		// Not counted, yet the newest code may be tried: it was sent after the count
		// looked. This entry was never compared with it, so it cannot be accepted.
		res = auth.CodeWrong
	}
	if res == auth.CodeOK {
		if err := s.Store.UseCode(ctx, c.ID); errors.Is(err, store.ErrNotFound) {
			return store.OneTimeCode{}, &Refusal{Field: field, Message: auth.CodeUsed.Message()}
		} else if err != nil {
			return store.OneTimeCode{}, err
		}
		return c, nil
	}
	return store.OneTimeCode{}, &Refusal{Field: field, Message: res.Message()}
}
