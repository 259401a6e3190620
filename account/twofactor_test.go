package account_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/mail/mailtest"
)

func TestTOTPEnableAndDisable(t *testing.T) {
	ctx := context.Background()
	s, box := newService(t)
	now := time.Now()
	s.Now = func() time.Time { return now }
	u := newUser(t, "totp@twofactor.example")

	_, errs, err := s.StartTOTP(ctx, u, "wrong password 1")
	require.NoError(t, err)
	assert.Equal(t, "現在のパスワードが正しくありません", errs.For("current_password"))

	setup, errs, err := s.StartTOTP(ctx, u, accountPassword)
	require.NoError(t, err)
	require.Empty(t, errs)
	assert.True(t, strings.HasPrefix(setup.QRCode, "data:image/png;base64,"))
	assert.Len(t, setup.Secret, 32, "160 bits in base32")
	assert.NotContains(t, setup.Sealed, setup.Secret, "the pending secret is sealed")
	again, err := s.OpenTOTPSetup(setup.Sealed)
	require.NoError(t, err)
	assert.Equal(t, setup.Secret, again.Secret)
	assert.Equal(t, "", reload(t, u).TwoFactorMethod, "nothing is stored before the first code")

	_, err = s.EnableTOTP(ctx, u, setup.Sealed, "")
	_, refused := account.AsRefusal(err)
	assert.True(t, refused)
	code, err := totp.GenerateCode(setup.Secret, now)
	require.NoError(t, err)
	_, err = s.EnableTOTP(ctx, u, setup.Sealed, wrong(code))
	r, refused := account.AsRefusal(err)
	require.True(t, refused)
	assert.Contains(t, r.Message, "確認コードが正しくありません")
	_, err = s.EnableTOTP(ctx, u, "tampered"+setup.Sealed, code)
	require.Error(t, err, "a tampered pending secret does not open")

	codes, err := s.EnableTOTP(ctx, u, setup.Sealed, code)
	require.NoError(t, err)
	require.Len(t, codes, 10)
	got := reload(t, u)
	assert.Equal(t, account.SecondFactorTOTP, got.TwoFactorMethod)
	assert.NotContains(t, got.TOTPSecretSealed, setup.Secret, "stored sealed")
	stored, err := db.Store.UnusedRecoveryCodes(ctx, u.ID)
	require.NoError(t, err)
	require.Len(t, stored, 10)
	for _, c := range codes {
		for _, sc := range stored {
			assert.NotEqual(t, c, sc.CodeHash, "only hashes are stored")
		}
	}
	assert.Contains(t, box.WaitFor(t, u.EmailAddress, 5*time.Second).Subject, "二段階認証の設定変更")

	// The code that turned it on cannot sign in; the next one can.
	_, err = s.VerifySecondFactor(ctx, got, code, account.Client{IP: "127.0.0.1", UserAgent: "test"})
	_, refused = account.AsRefusal(err)
	assert.True(t, refused, "the enabling code is used up")
	now = now.Add(30 * time.Second)
	next, err := totp.GenerateCode(setup.Secret, now)
	require.NoError(t, err)
	_, err = s.VerifySecondFactor(ctx, reload(t, u), next, account.Client{IP: "127.0.0.1", UserAgent: "test"})
	require.NoError(t, err)
	_, err = s.VerifySecondFactor(ctx, reload(t, u), codes[3], account.Client{IP: "127.0.0.1", UserAgent: "test"})
	require.NoError(t, err, "a recovery code signs in")

	errs, err = s.DisableTwoFactor(ctx, got, "")
	require.NoError(t, err)
	assert.Equal(t, "現在のパスワードを入力してください", errs.For("current_password"))
	errs, err = s.DisableTwoFactor(ctx, got, "wrong password 1")
	require.NoError(t, err)
	assert.NotEmpty(t, errs.For("current_password"))
	assert.Equal(t, account.SecondFactorTOTP, reload(t, u).TwoFactorMethod, "still on")
	errs, err = s.DisableTwoFactor(ctx, got, accountPassword)
	require.NoError(t, err)
	require.Empty(t, errs)
	got = reload(t, u)
	assert.Equal(t, "", got.TwoFactorMethod)
	assert.Equal(t, "", got.TOTPSecretSealed)
	stored, err = db.Store.UnusedRecoveryCodes(ctx, u.ID)
	require.NoError(t, err)
	assert.Empty(t, stored, "recovery codes go with the authenticator")
}

func TestEmailTwoFactor(t *testing.T) {
	ctx := context.Background()
	s, box := newService(t)
	u := newUser(t, "mail@twofactor.example")

	errs, err := s.StartEmailTwoFactor(ctx, u, "wrong password 1")
	require.NoError(t, err)
	assert.NotEmpty(t, errs.For("current_password"))
	settle(t)
	assert.Empty(t, box.Messages())

	errs, err = s.StartEmailTwoFactor(ctx, u, accountPassword)
	require.NoError(t, err)
	require.Empty(t, errs)
	msg := box.WaitFor(t, u.EmailAddress, 5*time.Second)
	assert.Contains(t, msg.Subject, "二段階認証の設定用")
	code := mailtest.Code(msg.Text)
	require.Len(t, code, 6)

	// A sign-in code of the same user is no stand-in for it.
	require.NoError(t, s.SendSignInCode(ctx, u))
	signInCode := mailtest.Code(box.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	if signInCode != code {
		_, refused := account.AsRefusal(s.EnableEmailTwoFactor(ctx, u, signInCode))
		assert.True(t, refused)
	}
	assert.Equal(t, "", reload(t, u).TwoFactorMethod)

	require.NoError(t, s.EnableEmailTwoFactor(ctx, u, code), "mailing a sign-in code did not retire it")
	assert.Equal(t, account.SecondFactorEmail, reload(t, u).TwoFactorMethod)
	assert.Contains(t, box.WaitFor(t, u.EmailAddress, 5*time.Second).Text, "メールで確認コードを受け取る")
	_, refused := account.AsRefusal(s.EnableEmailTwoFactor(ctx, u, code))
	assert.True(t, refused, "a code works once")
}

func TestTwoFactorLabels(t *testing.T) {
	assert.Equal(t, "使用しない", account.TwoFactorLabel(""))
	assert.Equal(t, "メールで確認コードを受け取る", account.TwoFactorLabel("email"))
	assert.Equal(t, "認証アプリを使う", account.TwoFactorLabel("totp"))
	for _, m := range []string{"", "email", "totp"} {
		assert.True(t, account.ValidTwoFactorMethod(m), m)
	}
	assert.False(t, account.ValidTwoFactorMethod("sms"))
}
