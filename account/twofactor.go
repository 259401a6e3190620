package account

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pquerna/otp"

	"cardpay/auth"
	"cardpay/mail"
	"cardpay/pay"
	"cardpay/store"
)

// TwoFactorLabel names a second-factor method the way the security page does.
func TwoFactorLabel(method string) string {
	switch method {
	case SecondFactorEmail:
		return "メールで確認コードを受け取る"
	case SecondFactorTOTP:
		return "認証アプリを使う"
	}
	return "使用しない"
}

// ValidTwoFactorMethod reports whether method is one the security page offers.
func ValidTwoFactorMethod(method string) bool {
	return method == SecondFactorNone || method == SecondFactorEmail || method == SecondFactorTOTP
}

// twoFactorCodeSubject keeps the codes that confirm turning on mail two-factor apart
// from sign-in codes of the same user: neither can stand in for the other, and mailing
// one does not retire the other.
func twoFactorCodeSubject(u store.User) string {
	return "twofactor:" + strconv.FormatInt(u.ID, 10)
}

// DisableTwoFactor turns two-factor authentication off after checking the current
// password (field current_password), and drops the recovery codes.
func (s *Service) DisableTwoFactor(ctx context.Context, u store.User, password string) (pay.FieldErrors, error) {
	msg, err := s.checkCurrentPassword(ctx, u, password)
	if err != nil {
		return nil, err
	}
	if msg != "" {
		return pay.FieldErrors{{Field: "current_password", Message: msg}}, nil
	}
	notice, err := s.notice(twoFactorChangedMail(u.EmailAddress, s.ServiceName, SecondFactorNone, s.now()))
	if err != nil {
		return nil, err
	}
	if err := s.Store.ReplaceRecoveryCodes(ctx, u.BuyerID, u.ID, nil); err != nil {
		return nil, err
	}
	if err := s.Store.SetTwoFactor(ctx, u.BuyerID, u.ID, SecondFactorNone, "", notice); err != nil {
		return nil, err
	}
	return nil, s.EndOtherSessions(ctx, u)
}

// StartEmailTwoFactor checks the current password and mails a code to the user's
// address; EnableEmailTwoFactor turns mail two-factor on with it, so that it is never on
// for an address that does not receive the codes.
func (s *Service) StartEmailTwoFactor(ctx context.Context, u store.User, password string) (pay.FieldErrors, error) {
	msg, err := s.checkCurrentPassword(ctx, u, password)
	if err != nil {
		return nil, err
	}
	if msg != "" {
		return pay.FieldErrors{{Field: "current_password", Message: msg}}, nil
	}
	return nil, s.SendEmailTwoFactorCode(ctx, u)
}

// SendEmailTwoFactorCode mails a (new) code for turning mail two-factor on; the
// previous one stops working.
func (s *Service) SendEmailTwoFactorCode(ctx context.Context, u store.User) error {
	if err := s.LimitCaller(ctx, ActTwoFactor, strconv.FormatInt(u.ID, 10)); err != nil {
		return err
	}
	return s.sendCode(ctx, store.PurposeSignIn, twoFactorCodeSubject(u), "", mailAlways, func(code string) mail.Message {
		return twoFactorCodeMail(u.EmailAddress, s.ServiceName, code, auth.CodeTTL)
	})
}

// EnableEmailTwoFactor checks the code from StartEmailTwoFactor (Refusals on "code")
// and turns mail two-factor on; an authenticator registered before is forgotten.
func (s *Service) EnableEmailTwoFactor(ctx context.Context, u store.User, code string) error {
	if strings.TrimSpace(code) == "" {
		return &Refusal{Field: "code", Message: "確認コードを入力してください"}
	}
	if err := s.LimitCaller(ctx, ActTwoFactor, strconv.FormatInt(u.ID, 10)); err != nil {
		return err
	}
	if err := s.checkCode(ctx, store.PurposeSignIn, twoFactorCodeSubject(u), code, "code"); err != nil {
		return err
	}
	notice, err := s.notice(twoFactorChangedMail(u.EmailAddress, s.ServiceName, SecondFactorEmail, s.now()))
	if err != nil {
		return err
	}
	if err := s.Store.ReplaceRecoveryCodes(ctx, u.BuyerID, u.ID, nil); err != nil {
		return err
	}
	if err := s.Store.SetTwoFactor(ctx, u.BuyerID, u.ID, SecondFactorEmail, "", notice); err != nil {
		return err
	}
	return s.EndOtherSessions(ctx, u)
}

// TOTPSetup is a new authenticator registration waiting for its first code.
type TOTPSetup struct {
	// Secret is the key in base32, for typing into an app that cannot scan.
	Secret string
	// QRCode is a data: URL of the PNG QR code of the otpauth:// URL.
	QRCode string
	// Sealed is what the caller keeps (in the session) until the code arrives: the
	// otpauth:// URL, sealed so that the secret is never stored readable.
	Sealed string
}

// StartTOTP checks the current password and makes a new authenticator secret; nothing
// is stored until EnableTOTP receives a code the app computed from it.
func (s *Service) StartTOTP(ctx context.Context, u store.User, password string) (TOTPSetup, pay.FieldErrors, error) {
	msg, err := s.checkCurrentPassword(ctx, u, password)
	if err != nil {
		return TOTPSetup{}, nil, err
	}
	if msg != "" {
		return TOTPSetup{}, pay.FieldErrors{{Field: "current_password", Message: msg}}, nil
	}
	key, err := auth.NewTOTP(s.ServiceName, u.EmailAddress)
	if err != nil {
		return TOTPSetup{}, nil, err
	}
	sealed, err := s.Sealer.Seal(key.URL)
	if err != nil {
		return TOTPSetup{}, nil, err
	}
	setup, err := s.OpenTOTPSetup(sealed)
	return setup, nil, err
}

// OpenTOTPSetup shows a pending registration again from what StartTOTP sealed.
func (s *Service) OpenTOTPSetup(sealed string) (TOTPSetup, error) {
	u, err := s.Sealer.Open(sealed)
	if err != nil {
		return TOTPSetup{}, fmt.Errorf("account: pending authenticator: %w", err)
	}
	key, err := otp.NewKeyFromURL(u)
	if err != nil {
		return TOTPSetup{}, fmt.Errorf("account: pending authenticator: %w", err)
	}
	qr, err := auth.TOTPQRCodeDataURL(u)
	if err != nil {
		return TOTPSetup{}, err
	}
	return TOTPSetup{Secret: key.Secret(), QRCode: qr, Sealed: sealed}, nil
}

// EnableTOTP checks a code from the authenticator against the pending secret (Refusals
// on "code"), stores the secret sealed, and returns new recovery codes, which exist
// from now on only as hashes: the caller shows them once. The accepted code cannot be
// used again to sign in.
func (s *Service) EnableTOTP(ctx context.Context, u store.User, sealed, code string) ([]string, error) {
	if strings.TrimSpace(code) == "" {
		return nil, &Refusal{Field: "code", Message: "確認コードを入力してください"}
	}
	if err := s.LimitCaller(ctx, ActTwoFactor, strconv.FormatInt(u.ID, 10)); err != nil {
		return nil, err
	}
	setup, err := s.OpenTOTPSetup(sealed)
	if err != nil {
		return nil, err
	}
	ok, step := auth.ValidateTOTP(setup.Secret, code, s.now(), 0)
	if !ok {
		return nil, &Refusal{Field: "code", Message: "確認コードが正しくありません。認証アプリに表示されている6桁の数字を入力してください"}
	}
	secretSealed, err := s.Sealer.Seal(setup.Secret)
	if err != nil {
		return nil, err
	}
	codes, hashes, err := auth.NewRecoveryCodes(auth.RecoveryCodeCount)
	if err != nil {
		return nil, err
	}
	if err := s.Store.ReplaceRecoveryCodes(ctx, u.BuyerID, u.ID, hashes); err != nil {
		return nil, err
	}
	notice, err := s.notice(twoFactorChangedMail(u.EmailAddress, s.ServiceName, SecondFactorTOTP, s.now()))
	if err != nil {
		return nil, err
	}
	if err := s.Store.SetTwoFactor(ctx, u.BuyerID, u.ID, SecondFactorTOTP, secretSealed, notice); err != nil {
		return nil, err
	}
	if err := s.Store.UseTOTPStep(ctx, u.ID, step); err != nil {
		return nil, err
	}
	return codes, s.EndOtherSessions(ctx, u)
}

// The two mails below belong with the templates in mail/templates; they are written
// here until that package gains them (twofactor_code.txt, twofactor_changed.txt).

func twoFactorCodeMail(to, serviceName, code string, validFor time.Duration) mail.Message {
	minutes := max(int((validFor+time.Minute-1)/time.Minute), 1)
	return mail.Message{
		To:      to,
		Subject: "【" + serviceName + "】二段階認証の設定用の確認コード",
		Text: "いつもご利用いただきありがとうございます。\n\n" +
			"二段階認証（メール）の設定を受け付けました。セキュリティ設定の画面で次のコードを入力してください。\n\n" +
			code + "\n\n" +
			"このコードの有効期限は" + strconv.Itoa(minutes) + "分です。\n" +
			"このコードは、当社の担当者を含め、どなたにもお伝えにならないでください。\n\n" +
			"このメールにお心当たりがない場合は、このメールを破棄してください。設定は変更されません。\n" +
			mailFooter(serviceName),
	}
}

func twoFactorChangedMail(to, serviceName, method string, at time.Time) mail.Message {
	return mail.Message{
		To:      to,
		Subject: "【" + serviceName + "】二段階認証の設定変更のお知らせ",
		Text: "いつもご利用いただきありがとうございます。\n\n" +
			"お客さまのアカウントの二段階認証の設定が変更されましたので、お知らせいたします。\n\n" +
			"変更日時：" + pay.JapaneseDateTime(at) + "\n" +
			"変更後の設定：" + TwoFactorLabel(method) + "\n\n" +
			"お客さまご自身による変更でしたら、このメールへの対応は不要です。\n\n" +
			"心当たりがない場合は、第三者がお客さまのアカウントを不正に操作した可能性があります。お手数ですが、直ちにパスワードを変更し、お問い合わせ窓口までご連絡ください。\n" +
			mailFooter(serviceName),
	}
}

func mailFooter(serviceName string) string {
	return "\n※このメールは送信専用のアドレスから自動で送信しています。ご返信いただいてもお答えできませんので、あらかじめご了承ください。\n\n" +
		"――――――――――――――――――――\n" + serviceName + "\n――――――――――――――――――――"
}
