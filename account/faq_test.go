package account_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/pay"
)

func defaultFAQ() []account.FAQGroup {
	return account.FAQ(account.FAQFacts{Payment: pay.DefaultLimits})
}

func TestFAQHasEnoughQuestionsWithUniqueAnchors(t *testing.T) {
	groups := defaultFAQ()
	seen := map[string]bool{}
	n := 0
	for _, g := range groups {
		require.NotEmpty(t, g.Items, g.Heading)
		require.False(t, seen[g.ID], "group id %s repeats", g.ID)
		seen[g.ID] = true
		for _, it := range g.Items {
			n++
			assert.Regexp(t, `^[a-z0-9-]+$`, it.ID, "an anchor is ASCII, so a link to it survives any mailer")
			assert.False(t, seen[it.ID], "id %s repeats", it.ID)
			seen[it.ID] = true
			assert.NotEmpty(t, it.Question)
			assert.NotEmpty(t, it.Answer, it.ID)
		}
	}
	assert.GreaterOrEqual(t, n, 25, "at least 25 questions (issue 31)")
}

// The answers quote the rules' own figures, and the configured ones.
func TestFAQQuotesTheRules(t *testing.T) {
	text := func(groups []account.FAQGroup) string {
		var b strings.Builder
		for _, g := range groups {
			for _, it := range g.Items {
				b.WriteString(it.Question + strings.Join(it.Answer, ""))
			}
		}
		return b.String()
	}
	all := text(defaultFAQ())
	for _, want := range []string{
		"3.0%", "¥3,000", "¥103,000", // the fee on ¥100,000, rounded down
		"JCB、VISA、Mastercard", "¥1,000から¥10,000,000まで", "15時", "3銀行営業日", "60日以内",
		"10MB", "20ページ", "4000万画素", "5枚まで", "10個のリカバリーコード", "10回続くと", "15分間",
		"1時間に5回まで", "180日以内", "10個まで", "30MBまで", "60日間有効", "法人のお客さまのみ",
		"請求金額が請求書と一致しません", "freee会計",
	} {
		assert.Contains(t, all, want)
	}
	configured := text(account.FAQ(account.FAQFacts{
		Payment: pay.Limits{MinAmount: 5_000, MaxAmount: 2_000_000, FeeBasisPoints: 275},
		Rate:    account.Limits{account.ActPasswordReset + ".target": {N: 3, Window: 24 * time.Hour}},
	}))
	for _, want := range []string{"2.75%", "¥2,750", "¥5,000から¥2,000,000まで", "1日に3回まで"} {
		assert.Contains(t, configured, want)
	}
	off := text(account.FAQ(account.FAQFacts{Payment: pay.DefaultLimits, Rate: account.Limits{}}))
	assert.NotContains(t, off, "パスワード再設定のメールは", "a rule turned off is not quoted")
}

func TestSearchFAQ(t *testing.T) {
	groups := defaultFAQ()
	total := 0
	for _, g := range groups {
		total += len(g.Items)
	}
	count := func(q string) int {
		_, n := account.SearchFAQ(groups, q)
		return n
	}
	for _, tc := range []struct {
		q    string
		want int
	}{
		{"", total},
		{"   　", total},
		{"JCB", 1},
		{"ｊｃｂ", 1},            // full-width, lower case
		{"3Dセキュア", 1},         // in a question
		{"３Ｄｾｷｭｱ", 1},         // full-width digits, half-width kana
		{"リカバリーコード", 1},       // in an answer
		{"差し戻", 2},            // the two send-back questions
		{"振込日", count("振込日")}, // itself (a sanity check of the helper)
		{"適格請求書", count("適格請求書")},
		{"カード 既定", 1},  // every word must match
		{"JCB 振込日", 0}, // no question holds both
		{"存在しない言葉", 0},
		{"\x00\x01JCB\x7f", 1},                  // control characters are dropped
		{strings.Repeat("あ", 10_000), 0},        // cut, and no question holds it
		{"JCB" + strings.Repeat(" ", 1_000), 1}, // trailing space is no word
		{string([]byte{0xff, 0xfe}) + "JCB", 1}, // invalid UTF-8 is dropped
	} {
		assert.Equal(t, tc.want, count(tc.q), "%q", tc.q)
	}
	// Figures that are real: 振込日 and 適格請求書 match several questions, and fewer
	// than all.
	for _, q := range []string{"振込日", "適格請求書", "手数料"} {
		n := count(q)
		assert.Greater(t, n, 1, q)
		assert.Less(t, n, total, q)
	}
	kept, n := account.SearchFAQ(groups, "JCB")
	require.Len(t, kept, 1)
	assert.Equal(t, 1, n)
	assert.Equal(t, "cards", kept[0].ID, "the group of a match is kept with its heading")
	assert.Equal(t, "card-brands", kept[0].Items[0].ID)
}

func TestCleanFAQQuery(t *testing.T) {
	for in, want := range map[string]string{
		"  振込　 日 ":                     "振込 日",
		"a\x00b\tc\nd":                 "ab c d",
		strings.Repeat("x", 80):        strings.Repeat("x", account.MaxFAQQueryRunes),
		string([]byte{'a', 0xc3, 'b'}): "ab",
	} {
		assert.Equal(t, want, account.CleanFAQQuery(in), "%q", in)
	}
}
