package info_test

import (
	"html"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/info"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// in asserts that body has every one of texts, as the page escapes them.
func in(t *testing.T, body string, texts []string, page string) {
	t.Helper()
	for _, s := range texts {
		assert.Contains(t, body, html.EscapeString(s), "%s shows %q", page, s)
	}
}

// termsTexts are every heading, paragraph, item and history line of the terms in force.
func termsTexts() (headings, rest []string) {
	for _, a := range account.Terms {
		headings = append(headings, a.Heading)
		rest = append(rest, a.Paragraphs...)
		rest = append(rest, a.Items...)
	}
	for _, r := range account.TermsRevisions {
		rest = append(rest, r.Summary, r.Date)
	}
	return headings, rest
}

// The terms are one text: the public /terms (before signing up) and the signed-in
// /termsofservice show every article of account.Terms, with the version and its date.
func TestTermsAreTheSameTextSignedInAndOut(t *testing.T) {
	env := webtest.New(t)
	headings, rest := termsTexts()
	version := "第" + strconv.Itoa(account.TermsVersion) + "版（" + account.TermsEffectiveDate + "施行）"

	public := env.Client(t).Get(info.PolicyTermsPath)
	require.Equal(t, http.StatusOK, public.StatusCode)
	in(t, public.Body, headings, "/terms")
	in(t, public.Body, rest, "/terms")
	in(t, public.Body, []string{version, "改定履歴", "目次"}, "/terms")
	assert.NotContains(t, public.Body, "ログイン後の「利用規約」画面でご確認", "the full text is public")
	assert.NotContains(t, public.Body, `action="/termsofservice"`, "no accept form signed out")
	assert.Contains(t, public.Body, `href="#article-1"`, "the contents lead to the articles")
	assert.Contains(t, public.Body, `id="article-1"`)

	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	signed := c.Get(info.TermsPage.Path)
	require.Equal(t, http.StatusOK, signed.StatusCode)
	in(t, signed.Body, headings, "/termsofservice")
	in(t, signed.Body, rest, "/termsofservice")
	in(t, signed.Body, []string{version, "改定履歴"}, "/termsofservice")

	// Signed in, /terms is still the public page with the same text.
	again := c.Get(info.PolicyTermsPath)
	require.Equal(t, http.StatusOK, again.StatusCode)
	in(t, again.Body, headings, "/terms signed in")
}

// The sign-up form's terms link leads to the page with the full text.
func TestSignupLinksToTheFullTerms(t *testing.T) {
	env := webtest.New(t)
	res := env.Client(t).Get("/signup")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, `href="`+info.PolicyTermsPath+`"`)
	assert.Contains(t, res.Body, `href="`+info.PrivacyPath+`"`)
}

// Every policy page renders every section signed out, as plain HTML (no script needed):
// headings, paragraphs, lists and links, with the 制定日・改定日 line.
func TestPolicyPages(t *testing.T) {
	env := webtest.New(t)
	c := env.Client(t)
	for _, p := range info.Pages {
		res := c.Get(p.Path)
		require.Equal(t, http.StatusOK, res.StatusCode, p.Path)
		assert.Contains(t, res.Body, "<h1 class=\"page-title\">"+html.EscapeString(p.Title)+"</h1>", p.Path)
	}
	for path, texts := range info.PolicyTextsForTest() {
		res := c.Get(path)
		require.Equal(t, http.StatusOK, res.StatusCode, path)
		in(t, res.Body, texts, path)
	}

	privacy := c.Get(info.PrivacyPath).Body
	in(t, privacy, []string{info.PrivacyDated, "個人情報の保護に関する法律", "開示", "訂正", "利用の停止", "安全管理措置",
		"Cookie", "cardpay_session", "cardpay_device", "決済代行会社"}, info.PrivacyPath)
	assert.Contains(t, privacy, `href="`+info.InquiryPath+`"`, "the contact is the inquiry page")
	assert.Contains(t, privacy, `href="`+info.PersonalInfoPath+`"`)

	personal := c.Get(info.PersonalInfoPath).Body
	in(t, personal, []string{info.PersonalInfoDated, "取得する情報", "利用目的", "第三者への提供", "保存期間",
		"IPアドレス", "カード番号とセキュリティコードは取得しません", "国税庁", "金融機関", "連携アプリ",
		"8年3か月", "7年間", "30日", "180日", "7日"}, info.PersonalInfoPath)
	assert.Contains(t, personal, `href="`+info.InquiryPath+`"`)

	supplier := c.Get(info.SupplierServicePath).Body
	in(t, supplier, []string{"代金のお受け取り", "振込手数料は当社が負担", "振込のお知らせメールはお送りしていません",
		"振込先口座を変更するとき", "請求書をお送りいただく方法", "請求書アップロードのご案内", "請求書受付メールアドレス",
		"カード払いを依頼する"}, info.SupplierServicePath)
	assert.False(t, strings.Contains(supplier, "terms__meta"), "the supplier page has no policy date")
}
