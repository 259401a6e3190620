package payments_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
)

// uploaded posts content through the plain form and returns the file page's path.
func uploaded(t *testing.T, c *webtest.Client, name string, content []byte) string {
	t.Helper()
	res := upload(t, c, name, content)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	return res.Header.Get("Location")
}

func decodePNG(t *testing.T, res webtest.Response) image.Image {
	t.Helper()
	img, err := png.Decode(strings.NewReader(res.Body))
	require.NoError(t, err, "the body is a PNG")
	return img
}

func getWith(t *testing.T, c *webtest.Client, path, header, value string) webtest.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.Base+path, nil)
	require.NoError(t, err)
	req.Header.Set(header, value)
	return c.Do(req)
}

// The owner sees the first page of a PDF as a small PNG, cached privately under an ETag
// of the file's hash; the file page shows it with its size and a Japanese alternative
// text; another buyer gets the 404 page.
func TestPreviewIsTheOwnersFirstPage(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	pdf, err := invoicegen.RenderPDF(invoicegen.New(3).Invoice(), invoicegen.LayoutClassic)
	require.NoError(t, err, "needs the font from the ocr-tools task")
	loc := uploaded(t, c, "請求書.pdf", pdf)
	preview := loc + "/preview"

	page := c.Get(loc)
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, `<img class="file-preview__image" src="`+preview+`" alt="請求書の1ページ目のプレビュー" width="424" height="600">`)

	res := c.Get(preview)
	require.Equal(t, http.StatusOK, res.StatusCode, res.Body)
	assert.Equal(t, "image/png", res.Header.Get("Content-Type"))
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
	assert.Equal(t, "private, max-age=3600", res.Header.Get("Cache-Control"))
	sum := sha256.Sum256(pdf)
	etag := res.Header.Get("ETag")
	assert.Contains(t, etag, hex.EncodeToString(sum[:]), "the ETag is the file's SHA-256")
	assert.True(t, strings.HasPrefix(etag, `"`) && strings.HasSuffix(etag, `"`), "a quoted entity tag: %s", etag)
	img := decodePNG(t, res)
	assert.Equal(t, 600, img.Bounds().Dy(), "A4 portrait, the long side 600 px")
	assert.InDelta(t, 424, img.Bounds().Dx(), 2)
	t.Logf("preview of a %d-byte PDF: %d bytes", len(pdf), len(res.Body))

	// The browser asks again with the tag: 304, nothing drawn or sent.
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		again := getWith(t, c, preview, "If-None-Match", inm)
		assert.Equal(t, http.StatusNotModified, again.StatusCode, inm)
		assert.Empty(t, again.Body)
		assert.Equal(t, etag, again.Header.Get("ETag"))
		assert.Equal(t, "private, max-age=3600", again.Header.Get("Cache-Control"))
	}
	assert.Equal(t, http.StatusOK, getWith(t, c, preview, "If-None-Match", `"stale"`).StatusCode)

	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := env.Client(t)
	oc.SignIn(other.EmailAddress)
	for _, h := range []string{"", etag} {
		res := getWith(t, oc, preview, "If-None-Match", h)
		assert.Equal(t, http.StatusNotFound, res.StatusCode, "another buyer's file is not found (If-None-Match %q)", h)
		assert.NotEqual(t, "image/png", res.Header.Get("Content-Type"), "the 404 page, not a picture")
		assert.Empty(t, res.Header.Get("ETag"))
	}
	for _, p := range []string{"/payments/create/files/0/preview", "/payments/create/files/x/preview", fmt.Sprintf("/payments/create/files/%d/preview", 1<<40)} {
		assert.Equal(t, http.StatusNotFound, c.Get(p).StatusCode, p)
	}

	// Signed out: the sign-in page, not the picture.
	anon := env.Client(t)
	res = anon.Get(preview)
	assert.NotEqual(t, http.StatusOK, res.StatusCode)
	assert.NotEqual(t, "image/png", res.Header.Get("Content-Type"))
}

// An image is scaled down (never up) and keeps its colour; its alternative text does
// not speak of pages.
func TestPreviewOfAnImage(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	src := image.NewRGBA(image.Rect(0, 0, 320, 200))
	for y := range 200 {
		for x := range 320 {
			src.Set(x, y, color.RGBA{255, 255, 255, 255})
			if x > 100 && x < 200 && y > 50 && y < 150 {
				src.Set(x, y, color.RGBA{200, 20, 20, 255})
			}
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, src))
	loc := uploaded(t, c, "seal.png", b.Bytes())

	page := c.Get(loc)
	assert.Contains(t, page.Body, `alt="請求書のプレビュー"`)
	res := c.Get(loc + "/preview")
	require.Equal(t, http.StatusOK, res.StatusCode)
	img := decodePNG(t, res)
	assert.Equal(t, image.Pt(320, 200), img.Bounds().Size())
	r, g, _, _ := img.At(150, 100).RGBA()
	assert.Greater(t, r>>8, uint32(150))
	assert.Less(t, g>>8, uint32(80))
}

// Without pdftoppm the page still stands: the preview answers 404 with a neutral
// placeholder picture of the same box, never cached, and the file page is unchanged.
func TestPreviewWithoutTheToolIsAPlaceholder(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	pdf, err := invoicegen.RenderPDF(invoicegen.New(4).Invoice(), invoicegen.LayoutClassic)
	require.NoError(t, err)
	loc := uploaded(t, c, "請求書.pdf", pdf)

	t.Setenv("PATH", t.TempDir()) // no poppler, no tesseract
	res := c.Get(loc + "/preview")
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
	assert.Equal(t, "image/png", res.Header.Get("Content-Type"))
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	assert.Empty(t, res.Header.Get("ETag"), "nothing to revalidate")
	img := decodePNG(t, res)
	assert.Equal(t, image.Pt(424, 600), img.Bounds().Size(), "the preview's box")
	assert.Less(t, len(res.Body), 2000, "a few hundred bytes")

	page := c.Get(loc)
	assert.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, `class="file-preview__image"`)
}
