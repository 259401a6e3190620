package account_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/jobs"
	"cardpay/mail"
	"cardpay/mail/mailtest"
	"cardpay/pay"
	"cardpay/store/storetest"
)

var db *storetest.DB

func TestMain(m *testing.M) { storetest.Run(m, &db) }

// newService is the service with its mail job running, as in the server: requests
// enqueue mails and two workers send them to a real SMTP server.
func newService(t *testing.T) (*account.Service, *mailtest.Server) {
	t.Helper()
	srv := mailtest.NewServer(t)
	sender, err := mail.NewSMTP(srv.URL(), "no-reply@test.example")
	require.NoError(t, err)
	s := &account.Service{
		Store: db.Store, Mail: sender, Codes: auth.NewCodes("k"), Sealer: auth.NewSealer("k"),
		Throttle: auth.DefaultThrottle, ServiceName: "請求書カード払い",
		// The tests of the rules run many times a person would: the limiter's own tests
		// give it limits.
		Limits: account.Limits{},
	}
	r := &jobs.Runner{Store: db.Store, Workers: 2, PollInterval: 20 * time.Millisecond, BaseBackoff: 50 * time.Millisecond}
	r.Register(account.MailJobKind, s.DeliverMail)
	r.Start(context.Background())
	t.Cleanup(func() {
		settle(t)
		r.Stop()
	})
	return s, srv
}

// settle waits until every mail enqueued so far was sent or dropped, so that a test can
// assert what was not mailed.
func settle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := db.Store.PendingJobs(context.Background(), account.MailJobKind)
		require.NoError(t, err)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("mail jobs still pending after 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func corporation() account.Registration {
	return account.Registration{
		BusinessForm: pay.Corporation, UserLastName: "山田", UserFirstName: "太郎", PhoneNumber: "03-1234-5678",
		CorporateName: "テスト商事株式会社", CorporateNameKana: "てすとしょうじ", CorporateNumber: "7000012050002",
		RepresentativeLastName: "山田", RepresentativeFirstName: "一郎", RepresentativeLastNameKana: "ヤマダ", RepresentativeFirstNameKana: "イチロウ",
		RepresentativeBirthday: "1970-04-01", RepresentativePostalCode: "1000001", RepresentativeAddressState: "東京都",
		RepresentativeAddressCity: "千代田区", RepresentativeAddressStreet: "千代田1-1", RepresentativePhoneNumber: "0312345678",
		PostalCode: "1000001", AddressState: "東京都", AddressCity: "千代田区", AddressStreet: "千代田1-1", BusinessCategory: "I",
	}
}

func TestSignupToRegistration(t *testing.T) {
	ctx := context.Background()
	s, box := newService(t)
	const email = "signup@account.example"

	_, errs, err := s.StartSignup(ctx, "not an address", "short", false)
	require.NoError(t, err)
	assert.NotEmpty(t, errs.For("email_address"))
	assert.NotEmpty(t, errs.For("password"))
	assert.NotEmpty(t, errs.For("consent"))

	id, errs, err := s.StartSignup(ctx, email, "kakuninn2026pass", true)
	require.NoError(t, err)
	require.Empty(t, errs)
	msg := box.WaitFor(t, email, 5*time.Second)
	code := mailtest.Code(msg.Text)
	require.Len(t, code, 6)

	_, _, err = s.Register(ctx, id, corporation())
	_, refused := account.AsRefusal(err)
	assert.True(t, refused, "no registration before the address is confirmed")

	err = s.VerifySignupCode(ctx, id, "000000")
	if code == "000000" {
		err = s.VerifySignupCode(ctx, id, "111111")
	}
	_, refused = account.AsRefusal(err)
	assert.True(t, refused)
	require.NoError(t, s.VerifySignupCode(ctx, id, code))

	bad := corporation()
	bad.CorporateNumber = "1234567890123"
	_, errs, err = s.Register(ctx, id, bad)
	require.NoError(t, err)
	assert.NotEmpty(t, errs.For("corporate_number"), "an invalid corporate number stores nothing")

	u, errs, err := s.Register(ctx, id, corporation())
	require.NoError(t, err)
	require.Empty(t, errs)
	assert.Equal(t, "テスト商事株式会社", u.DisplayName())
	b, err := db.Store.Buyer(ctx, u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, "テストショウジ", b.CorporateNameKana, "kana is normalised to full-width katakana")
	assert.Equal(t, "テストショウジ", b.TransferPersonName, "the transfer name defaults to the kana name")
	require.NotNil(t, b.RepresentativeBirthday)

	_, _, err = s.Register(ctx, id, corporation())
	_, refused = account.AsRefusal(err)
	assert.True(t, refused, "a sign-up registers once")

	res, err := s.SignIn(ctx, email, "kakuninn2026pass", account.Client{IP: "127.0.0.1", UserAgent: "test"})
	require.NoError(t, err)
	assert.Equal(t, u.ID, res.User.ID)

	// Signing up again with a registered address mails the owner instead of a code.
	_, errs, err = s.StartSignup(ctx, email, "another2026pass", true)
	require.NoError(t, err)
	require.Empty(t, errs)
	again := box.WaitFor(t, email, 5*time.Second)
	assert.Contains(t, again.Text, "既に登録されている")
	assert.Empty(t, mailtest.Code(again.Text))
}

func TestResignupAndPasswordReset(t *testing.T) {
	ctx := context.Background()
	s, box := newService(t)
	const email = "reset@account.example"

	id, _, err := s.StartSignup(ctx, email, "firstpass2026x", true)
	require.NoError(t, err)
	first := mailtest.Code(box.WaitFor(t, email, 5*time.Second).Text)
	again, errs, err := s.Resignup(ctx, email)
	require.NoError(t, err)
	require.Empty(t, errs)
	assert.Equal(t, id, again)
	second := mailtest.Code(box.WaitFor(t, email, 5*time.Second).Text)
	if first != second {
		_, refused := account.AsRefusal(s.VerifySignupCode(ctx, id, first))
		assert.True(t, refused, "re-registration retires the old code")
	}
	require.NoError(t, s.VerifySignupCode(ctx, id, second))
	u, _, err := s.Register(ctx, id, corporation())
	require.NoError(t, err)
	none, _, err := s.Resignup(ctx, "nobody@account.example")
	require.NoError(t, err)
	assert.Zero(t, none)

	errs, err = s.SendPasswordReset(ctx, "nobody@account.example")
	require.NoError(t, err)
	assert.Empty(t, errs, "the same answer for an unknown address")
	errs, err = s.SendPasswordReset(ctx, email)
	require.NoError(t, err)
	require.Empty(t, errs)
	code := mailtest.Code(box.WaitFor(t, email, 5*time.Second).Text)

	errs, err = s.ResetPassword(ctx, email, code, "short")
	require.NoError(t, err)
	assert.NotEmpty(t, errs.For("password"))
	errs, err = s.ResetPassword(ctx, email, code, "newpassword2026")
	require.NoError(t, err)
	require.Empty(t, errs)
	changed := box.WaitFor(t, email, 5*time.Second)
	assert.Contains(t, changed.Subject, "パスワード")
	errs, err = s.ResetPassword(ctx, email, code, "otherpassword2026")
	require.NoError(t, err)
	assert.NotEmpty(t, errs.For("code"), "a reset code works once")

	after, err := db.Store.User(ctx, u.BuyerID, u.ID)
	require.NoError(t, err)
	assert.Equal(t, u.SessionEpoch+1, after.SessionEpoch, "a reset ends every session")
	_, err = s.SignIn(ctx, email, "newpassword2026", account.Client{})
	require.NoError(t, err)

	_, errs, err = s.ChangePassword(ctx, after, "wrong current", "changed2026pass")
	require.NoError(t, err)
	assert.NotEmpty(t, errs.For("current_password"))
	epoch, errs, err := s.ChangePassword(ctx, after, "newpassword2026", "changed2026pass")
	require.NoError(t, err)
	require.Empty(t, errs)
	assert.Equal(t, after.SessionEpoch+1, epoch)
}
