package account

import (
	"context"
	"errors"
	"strconv"

	"cardpay/auth"
	"cardpay/mail"
	"cardpay/pay"
	"cardpay/store"
)

// SendPasswordReset mails a reset code when the address has an account, and nothing
// otherwise: the page says the same either way, and the request does the same work (a
// code and a mail job, which for an unknown address mails nobody), so that its timing
// does not tell either.
func (s *Service) SendPasswordReset(ctx context.Context, email string) (pay.FieldErrors, error) {
	email, msg := pay.ValidateEmail(email)
	if msg != "" {
		var errs pay.FieldErrors
		errs.Add("email_address", msg)
		return errs, nil
	}
	if err := s.LimitCaller(ctx, ActPasswordReset, email); err != nil {
		return nil, err
	}
	u, err := s.Store.UserByEmail(ctx, email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	subject, to, rule := strconv.FormatInt(u.ID, 10), u.EmailAddress, mailAlways
	if err != nil {
		subject, to, rule = noSubject, email, mailNowhere
	}
	return nil, s.sendCode(ctx, store.PurposePasswordReset, subject, "", rule, func(code string) mail.Message {
		return mail.PasswordResetCode(to, s.ServiceName, code, auth.CodeTTL)
	})
}

// ResetPassword sets a new password with a mailed code and ends every session of the
// user. An unknown address fails like a wrong code.
func (s *Service) ResetPassword(ctx context.Context, email, code, password string) (pay.FieldErrors, error) {
	var errs pay.FieldErrors
	email, msg := pay.ValidateEmail(email)
	errs.Add("email_address", msg)
	if code == "" {
		errs.Add("code", "確認コードを入力してください")
	}
	errs.Add("password", ValidatePassword(password, email))
	if len(errs) > 0 {
		return errs, nil
	}
	if err := s.LimitCaller(ctx, ActCode, "reset:"+email); err != nil {
		return nil, err
	}
	u, err := s.Store.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		errs.Add("code", auth.CodeWrong.Message())
		return errs, nil
	}
	if err != nil {
		return nil, err
	}
	if err := s.checkCode(ctx, store.PurposePasswordReset, strconv.FormatInt(u.ID, 10), code, "code"); err != nil {
		if r, ok := AsRefusal(err); ok {
			errs.Add(r.Field, r.Message)
			return errs, nil
		}
		return nil, err
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return nil, err
	}
	notice, err := s.notice(mail.PasswordChanged(u.EmailAddress, s.ServiceName, s.now()))
	if err != nil {
		return nil, err
	}
	if _, err := s.Store.SetPasswordAndEndSessions(ctx, u.BuyerID, u.ID, hash, notice); err != nil {
		return nil, err
	}
	// The reset is the way back in for an owner kept out by a lock.
	if err := s.Store.ClearSignInFailures(ctx, throttleKey(u.EmailAddress, 0)); err != nil {
		return nil, err
	}
	if err := s.EndOtherSessions(ctx, u); err != nil {
		return nil, err
	}
	return nil, nil
}

// ChangePassword replaces the password of a signed-in user after checking the current
// one, and ends the user's other sessions; it returns the new session epoch for the
// caller's own session.
func (s *Service) ChangePassword(ctx context.Context, u store.User, current, password string) (int, pay.FieldErrors, error) {
	var errs pay.FieldErrors
	msg, err := s.checkCurrentPassword(ctx, u, current)
	if err != nil {
		return 0, nil, err
	}
	errs.Add("current_password", msg)
	errs.Add("password", ValidatePassword(password, u.EmailAddress))
	if len(errs) > 0 {
		return 0, errs, nil
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return 0, nil, err
	}
	notice, err := s.notice(mail.PasswordChanged(u.EmailAddress, s.ServiceName, s.now()))
	if err != nil {
		return 0, nil, err
	}
	epoch, err := s.Store.SetPasswordAndEndSessions(ctx, u.BuyerID, u.ID, hash, notice)
	if err != nil {
		return 0, nil, err
	}
	return epoch, nil, s.EndOtherSessions(ctx, u)
}
