package info_test

import (
	"bytes"
	"html"
	"image"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/info"
	"cardpay/handlers/webtest"
	"cardpay/static"
)

var (
	imgTag  = regexp.MustCompile(`<img [^>]*>`)
	imgAttr = regexp.MustCompile(`([a-z]+)="([^"]*)"`)
)

// maxManualBytes keeps the manual's pictures small: they are committed, and a reader
// on a phone downloads those they scroll to.
const maxManualBytes = 1_500_000

// Every picture the manual names is in the embedded static files, a JPEG, served under
// its hashed URL; the page shows each with its size, alt text, lazy loading and a
// caption.
func TestManualPictures(t *testing.T) {
	env := webtest.New(t)
	c := env.Client(t)
	res := c.Get(info.ManualPage.Path)
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.NotContains(t, res.Body, "<script src", "a page of text: no island")
	assertUniqueIDs(t, res.Body)

	names := info.ManualImages()
	require.NotEmpty(t, names)
	imgs := imgTag.FindAllString(res.Body, -1)
	assert.Len(t, imgs, len(names), "one picture for each step that has one")
	assert.Equal(t, len(names), countOf(res.Body, "<figcaption>"), "each picture has a caption")

	byURL := map[string]string{}
	total := 0
	h := static.Handler()
	for _, n := range names {
		u := static.URL(n)
		require.NotEmpty(t, u, "%s is in the embedded static files (static/%s)", n, n)
		byURL[u] = n
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
		require.Equal(t, http.StatusOK, rec.Code, u)
		assert.Equal(t, "image/jpeg", rec.Header().Get("Content-Type"), n)
		_, err := jpeg.Decode(bytes.NewReader(rec.Body.Bytes()))
		assert.NoError(t, err, "%s is a JPEG", n)
		total += rec.Body.Len()
	}
	t.Logf("manual: %d pictures, %d bytes in all", len(names), total)
	assert.Less(t, total, maxManualBytes, "the manual's pictures stay small")

	for _, tag := range imgs {
		attrs := map[string]string{}
		for _, m := range imgAttr.FindAllStringSubmatch(tag, -1) {
			attrs[m[1]] = html.UnescapeString(m[2])
		}
		name, ok := byURL[attrs["src"]]
		if !assert.True(t, ok, "%s is one of the manual's pictures, by its hashed URL", attrs["src"]) {
			continue
		}
		assert.GreaterOrEqual(t, len([]rune(attrs["alt"])), 15, "%s: alt text says what the picture shows", name)
		assert.Equal(t, "lazy", attrs["loading"], name)
		b, err := static.ReadFile(name)
		require.NoError(t, err)
		cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
		require.NoError(t, err)
		assert.Equal(t, strconv.Itoa(cfg.Width), attrs["width"], "%s: width is the picture's", name)
		assert.Equal(t, strconv.Itoa(cfg.Height), attrs["height"], "%s: height is the picture's", name)
	}
}

func TestManualPageJourneys(t *testing.T) {
	env := webtest.New(t)
	c := env.Client(t)
	res := c.Get(info.ManualPage.Path)
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, want := range []string{
		`<h2 id="signup">会員登録</h2>`, `<h2 id="cards">カードの登録</h2>`, `<h2 id="pay">請求書をカードで支払う</h2>`,
		`<h2 id="suppliers">取引先の登録</h2>`, `<h2 id="send-back">差し戻しへの対応</h2>`, `<h2 id="receipts">領収書</h2>`,
		`<h2 id="collections">カード払い依頼（法人のお客さま）</h2>`, `<h2 id="inbox">請求書受付メールアドレス</h2>`,
		`<h2 id="security">セキュリティ設定（二段階認証）</h2>`,
		`<h3 id="pay-7">手順7：本人認証（3Dセキュア）を行う</h3>`,
		`<a href="#pay">請求書をカードで支払う</a>`, `<a href="/help/faq">よくあるご質問</a>`,
	} {
		assert.Contains(t, res.Body, want)
	}
}

func countOf(s, sub string) int {
	return len(regexp.MustCompile(regexp.QuoteMeta(sub)).FindAllStringIndex(s, -1))
}
