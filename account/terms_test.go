package account_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/mail/mailtest"
	"cardpay/pay"
	"cardpay/store"
)

func TestAcceptTerms(t *testing.T) {
	ctx := context.Background()
	s, _ := newService(t)
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	s.Now = func() time.Time { return at }
	u := newUser(t, "terms@terms.example")
	require.True(t, account.NeedsTerms(u), "a user who accepted no version is asked")
	_, err := db.Store.TermsAcceptance(ctx, u.BuyerID, u.ID, account.TermsVersion)
	require.ErrorIs(t, err, store.ErrNotFound, "no acceptance before accepting")

	require.NoError(t, s.AcceptTerms(ctx, u))
	got := reload(t, u)
	assert.Equal(t, account.TermsVersion, got.TermsVersion)
	assert.False(t, account.NeedsTerms(got))
	a, err := db.Store.TermsAcceptance(ctx, u.BuyerID, u.ID, account.TermsVersion)
	require.NoError(t, err)
	assert.True(t, at.Equal(a.AcceptedAt), "the acceptance is dated by the service's clock: %v", a.AcceptedAt)

	s.Now = func() time.Time { return at.Add(48 * time.Hour) }
	require.NoError(t, s.AcceptTerms(ctx, got))
	a, err = db.Store.TermsAcceptance(ctx, u.BuyerID, u.ID, account.TermsVersion)
	require.NoError(t, err)
	assert.True(t, at.Equal(a.AcceptedAt), "accepting the same version again keeps its first date")
}

// The sign-up form's consent is the acceptance: registration gives the user the
// sign-up's version and records it dated when the sign-up began (the box was ticked).
func TestRegistrationRecordsTheTermsAccepted(t *testing.T) {
	ctx := context.Background()
	s, box := newService(t)
	const email = "consent@terms.example"
	id, errs, err := s.StartSignup(ctx, email, "kakuninn2026pass", true)
	require.NoError(t, err)
	require.Empty(t, errs)
	require.NoError(t, s.VerifySignupCode(ctx, id, mailtest.Code(box.WaitFor(t, email, 5*time.Second).Text)))
	su, err := db.Store.Signup(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, account.TermsVersion, su.TermsVersion, "the sign-up records the version of the form")

	r := corporation()
	const base = "700110005901"
	d, ok := pay.CorporateCheckDigit(base)
	require.True(t, ok)
	r.CorporateNumber = strconv.Itoa(d) + base
	u, errs, err := s.Register(ctx, id, r)
	require.NoError(t, err)
	require.Empty(t, errs)
	assert.Equal(t, account.TermsVersion, u.TermsVersion, "signups.terms_version becomes users.terms_version")
	assert.False(t, account.NeedsTerms(u))
	a, err := db.Store.TermsAcceptance(ctx, u.BuyerID, u.ID, account.TermsVersion)
	require.NoError(t, err)
	assert.True(t, su.CreatedAt.Equal(a.AcceptedAt), "accepted when the sign-up began: %v, %v", su.CreatedAt, a.AcceptedAt)
}

func TestTermsText(t *testing.T) {
	require.NotEmpty(t, account.Terms)
	seen := map[string]bool{}
	for i, a := range account.Terms {
		assert.True(t, strings.HasPrefix(a.Heading, "第"+strconv.Itoa(i+1)+"条（"), "articles are numbered in order: %s", a.Heading)
		assert.NotEmpty(t, a.Paragraphs, a.Heading)
		assert.False(t, seen[a.Heading], "one article per heading: %s", a.Heading)
		seen[a.Heading] = true
	}
	// The subjects issue 31 asks the terms to cover, each in the text.
	var all strings.Builder
	for _, a := range account.Terms {
		all.WriteString(a.Heading + strings.Join(a.Paragraphs, "") + strings.Join(a.Items, ""))
	}
	for _, want := range []string{"法人および個人事業主", "審査", "お断り", "手数料", "プロモーションコード", "振込日", "15時",
		"キャンセル", "返金", "カード払い依頼", "受取請求書", "連携アプリ", "現金化", "架空", "反社会的勢力", "利用の停止",
		"損害", "個人情報", "規約の変更", "準拠法", "東京地方裁判所"} {
		assert.Contains(t, all.String(), want)
	}
	last := account.TermsRevisions[len(account.TermsRevisions)-1]
	assert.Equal(t, account.TermsVersion, last.Version, "the history ends with the version in force")
	assert.Equal(t, account.TermsEffectiveDate, last.Date)
	assert.Len(t, account.TermsRevisions, account.TermsVersion, "one line per version")
}
