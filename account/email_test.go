package account_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/mail/mailtest"
	"cardpay/pay"
	"cardpay/store"
)

const accountPassword = "kakuninn2026pass"

var userSeq int

// newUser makes a buyer and its user signing in with accountPassword.
func newUser(t *testing.T, email string) store.User {
	t.Helper()
	userSeq++
	hash, err := auth.HashPassword(accountPassword)
	require.NoError(t, err)
	u, err := db.Store.CreateBuyer(context.Background(), store.NewBuyer{
		BusinessForm: pay.Corporation, CorporateName: "テスト商事株式会社", EmailAddress: email,
		PasswordHash: hash, LastName: "山田", FirstName: "太郎",
	})
	require.NoError(t, err)
	return u
}

func reload(t *testing.T, u store.User) store.User {
	t.Helper()
	got, err := db.Store.User(context.Background(), u.BuyerID, u.ID)
	require.NoError(t, err)
	return got
}

func TestEmailChange(t *testing.T) {
	ctx := context.Background()
	s, box := newService(t)
	u := newUser(t, "old@email-change.example")
	other := newUser(t, "taken@email-change.example")

	cases := []struct {
		name, email, password, field, message string
	}{
		{"empty address", "", accountPassword, "email_address", "メールアドレスを入力してください"},
		{"malformed address", "not-an-address", accountPassword, "email_address", "正しい形式"},
		{"invalid UTF-8", "a\xffb@example.jp", accountPassword, "email_address", "正しい形式"},
		{"the same address", "OLD@email-change.example", accountPassword, "email_address", "現在のメールアドレスと同じです"},
		{"no password", "new@email-change.example", "", "current_password", "現在のパスワードを入力してください"},
		{"wrong password", "new@email-change.example", "wrong password 1", "current_password", "現在のパスワードが正しくありません"},
	}
	for _, tc := range cases {
		errs, err := s.StartEmailChange(ctx, u, tc.email, tc.password)
		require.NoError(t, err, tc.name)
		assert.Contains(t, errs.For(tc.field), tc.message, tc.name)
	}
	// A wrong password says nothing about whether the address is taken.
	errs, err := s.StartEmailChange(ctx, u, other.EmailAddress, "wrong password 1")
	require.NoError(t, err)
	assert.Empty(t, errs.For("email_address"))
	settle(t)
	assert.Empty(t, box.Messages(), "no mail for a refused change")

	// An address another account signs in with is not refused on the page (that would
	// tell who has an account): its owner is told, and no code goes out.
	errs, err = s.StartEmailChange(ctx, u, strings.ToUpper(other.EmailAddress), accountPassword)
	require.NoError(t, err)
	assert.Empty(t, errs)
	inUse := box.WaitFor(t, other.EmailAddress, 5*time.Second)
	assert.Contains(t, inUse.Subject, "メールアドレス変更のお申し込みについて")
	assert.Contains(t, inUse.Text, "既に請求書カード払いに登録されている")
	assert.Empty(t, mailtest.Code(inUse.Text), "no code for an address in use")
	for _, guess := range []string{"000000", "123456"} {
		_, err = s.ConfirmEmailChange(ctx, u, guess)
		_, refused := account.AsRefusal(err)
		assert.True(t, refused)
	}
	assert.Equal(t, u.EmailAddress, reload(t, u).EmailAddress)
	assert.Equal(t, other.EmailAddress, reload(t, other).EmailAddress)

	_, err = s.ConfirmEmailChange(ctx, u, "123456")
	_, refused := account.AsRefusal(err)
	assert.True(t, refused, "no code was sent yet")

	errs, err = s.StartEmailChange(ctx, u, " ｎｅｗ＠email-change.example ", accountPassword)
	require.NoError(t, err)
	require.Empty(t, errs)
	msg := box.WaitFor(t, "new@email-change.example", 5*time.Second)
	assert.Contains(t, msg.Subject, "メールアドレス変更")
	code := mailtest.Code(msg.Text)
	require.Len(t, code, 6)

	_, err = s.ConfirmEmailChange(ctx, u, wrong(code))
	r, refused := account.AsRefusal(err)
	require.True(t, refused)
	assert.Equal(t, "code", r.Field)
	assert.Equal(t, u.EmailAddress, reload(t, u).EmailAddress, "a wrong code changes nothing")

	email, err := s.ConfirmEmailChange(ctx, u, code)
	require.NoError(t, err)
	assert.Equal(t, "new@email-change.example", email)
	assert.Equal(t, "new@email-change.example", reload(t, u).EmailAddress)
	notice := box.WaitFor(t, "old@email-change.example", 5*time.Second)
	assert.Contains(t, notice.Text, "new@email-change.example", "the old address hears of the change")

	_, err = s.ConfirmEmailChange(ctx, u, code)
	r, refused = account.AsRefusal(err)
	require.True(t, refused)
	assert.Contains(t, r.Message, "使用済み", "a code works once")
}

func TestEmailChangeCodeExpires(t *testing.T) {
	ctx := context.Background()
	s, box := newService(t)
	now := time.Now()
	s.Now = func() time.Time { return now }
	u := newUser(t, "expire@email-change.example")
	errs, err := s.StartEmailChange(ctx, u, "expired-new@email-change.example", accountPassword)
	require.NoError(t, err)
	require.Empty(t, errs)
	code := mailtest.Code(box.WaitFor(t, "expired-new@email-change.example", 5*time.Second).Text)
	now = now.Add(auth.CodeTTL + time.Second)
	_, err = s.ConfirmEmailChange(ctx, u, code)
	r, refused := account.AsRefusal(err)
	require.True(t, refused)
	assert.Contains(t, r.Message, "有効期限")
	assert.Equal(t, u.EmailAddress, reload(t, u).EmailAddress)
}

// An address taken by someone else between the request and the code is refused.
func TestEmailChangeAddressTakenMeanwhile(t *testing.T) {
	ctx := context.Background()
	s, box := newService(t)
	u := newUser(t, "first@email-race.example")
	errs, err := s.StartEmailChange(ctx, u, "wanted@email-race.example", accountPassword)
	require.NoError(t, err)
	require.Empty(t, errs)
	code := mailtest.Code(box.WaitFor(t, "wanted@email-race.example", 5*time.Second).Text)
	newUser(t, "Wanted@email-race.example")
	_, err = s.ConfirmEmailChange(ctx, u, code)
	r, refused := account.AsRefusal(err)
	require.True(t, refused)
	assert.Contains(t, r.Message, "既に使用されています")
	assert.Equal(t, "first@email-race.example", reload(t, u).EmailAddress)
}

func wrong(code string) string {
	if code == "000000" {
		return "111111"
	}
	return "000000"
}
