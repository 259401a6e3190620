package info_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/info"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

var (
	idAttr    = regexp.MustCompile(` id="([^"]+)"`)
	question  = regexp.MustCompile(`<h3 id="([^"]+)">`)
	faqSearch = "/help/faq?q="
)

// assertUniqueIDs fails when an id repeats on the page (aria-describedby and the
// anchors would point at the first).
func assertUniqueIDs(t *testing.T, body string) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range idAttr.FindAllStringSubmatch(body, -1) {
		assert.False(t, seen[m[1]], "id %q repeats", m[1])
		seen[m[1]] = true
	}
}

func TestFAQPageWithoutJavaScript(t *testing.T) {
	env := webtest.New(t)
	c := env.Client(t)
	res := c.Get(info.FAQPage.Path)
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.NotContains(t, res.Body, "<script src", "a page of text: no island")
	assert.Contains(t, res.Body, `<form method="get" action="/help/faq" class="form" role="search">`)
	assert.Contains(t, res.Body, `<label class="field__label" for="faq-q">キーワードで探す`)
	assert.Contains(t, res.Body, `name="q" type="search"`)
	assert.Contains(t, res.Body, "目次")
	qs := question.FindAllStringSubmatch(res.Body, -1)
	assert.GreaterOrEqual(t, len(qs), 25)
	assertUniqueIDs(t, res.Body)
	for _, g := range account.FAQ(account.FAQFacts{Payment: pay.DefaultLimits}) {
		assert.Contains(t, res.Body, fmt.Sprintf(`<a href="#%s">%s</a>`, g.ID, g.Heading), "the contents link to each group")
		assert.Contains(t, res.Body, fmt.Sprintf(`<h2 id="%s">%s</h2>`, g.ID, g.Heading))
	}
	// The figures are the configured ones.
	assert.Contains(t, res.Body, "請求金額の3.0%（税込）")
	assert.Contains(t, res.Body, "¥1,000から¥10,000,000まで")
}

func TestFAQSearch(t *testing.T) {
	env := webtest.New(t)
	c := env.Client(t)
	all := account.FAQ(account.FAQFacts{Payment: pay.DefaultLimits})
	for _, q := range []string{"振込", "手数料", "ｊｃｂ", "３Ｄ", "二段階認証 リカバリー"} {
		_, want := account.SearchFAQ(all, q)
		require.Positive(t, want, q)
		res := c.Get(faqSearch + url.QueryEscape(q))
		require.Equal(t, http.StatusOK, res.StatusCode, q)
		assert.Contains(t, res.Body, fmt.Sprintf("「%s」を含む質問：%d件", q, want), q)
		assert.Len(t, question.FindAllString(res.Body, -1), want, "only the matching questions: %s", q)
		assert.Contains(t, res.Body, `value="`+q+`"`, "the search stays in the box")
		assert.Contains(t, res.Body, `<a href="/help/faq">すべての質問を見る</a>`)
		assert.NotContains(t, res.Body, "目次", "no contents over the results")
		assertUniqueIDs(t, res.Body)
	}
	res := c.Get(faqSearch + url.QueryEscape("JCB"))
	assert.Contains(t, res.Body, `<h3 id="card-brands">どのカードが使えますか？</h3>`)
	assert.Contains(t, res.Body, `<h2 id="cards">カード</h2>`, "a match keeps its group's heading")
}

func TestFAQSearchFindsNothing(t *testing.T) {
	env := webtest.New(t)
	c := env.Client(t)
	res := c.Get(faqSearch + url.QueryEscape("宇宙旅行"))
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "「宇宙旅行」を含む質問：0件")
	assert.Contains(t, res.Body, "「宇宙旅行」を含む質問は見つかりませんでした。")
	assert.Contains(t, res.Body, `<a href="/help/faq">すべての質問を見る</a>`)
	assert.Empty(t, question.FindAllString(res.Body, -1))
}

func TestFAQSearchBadInput(t *testing.T) {
	env := webtest.New(t)
	c := env.Client(t)
	for name, q := range map[string]string{
		"very long":     strings.Repeat("振込", 5_000),
		"NUL":           "振込\x00日",
		"controls":      "\x01\x02\x1b[31m\x7f",
		"invalid UTF-8": string([]byte{0xff, 0xfe, 0xfd}),
		"markup":        `<script>alert(1)</script>`,
		"only spaces":   "  　 ",
	} {
		res := c.Get(faqSearch + url.QueryEscape(q))
		assert.Equal(t, http.StatusOK, res.StatusCode, name)
		assert.NotContains(t, res.Body, "<script>alert", name)
		assert.NotContains(t, res.Body, "\x00", name)
	}
	// The long query is cut to its first characters, and still finds.
	res := c.Get(faqSearch + url.QueryEscape(strings.Repeat("振込", 5_000)))
	assert.Contains(t, res.Body, "「"+strings.Repeat("振込", account.MaxFAQQueryRunes/2)+"」を含む質問：0件")
	res = c.Get(faqSearch + url.QueryEscape("振込\x00日"))
	_, want := account.SearchFAQ(account.FAQ(account.FAQFacts{Payment: pay.DefaultLimits}), "振込日")
	assert.Contains(t, res.Body, fmt.Sprintf("「振込日」を含む質問：%d件", want), "a NUL is dropped, not a 500")
	res = c.Get(faqSearch + url.QueryEscape("  　 "))
	assert.NotContains(t, res.Body, "を含む質問：", "spaces alone are no search")
}
