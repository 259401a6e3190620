package securitysuite_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// Abuse of uploads and pages (issue 24, part 2): a decompression bomb, many uploads at
// once, a PDF hiding JavaScript, a signed upload URL used twice, and words of an
// attacker's on our error page.

// uploader is a buyer logged in through the API.
type uploader struct {
	v       *visitor
	buyerID int64
}

func newUploader(t *testing.T, env *webtest.Env) uploader {
	t.Helper()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	v := newVisitor(t, env)
	v.login(u.EmailAddress, "")
	return uploader{v: v, buyerID: u.BuyerID}
}

// uploadRequest is POST /api/v1/invoices/files/upload with body as the multipart form.
func (u uploader) uploadRequest(body io.Reader, contentType string) *http.Request {
	req, err := http.NewRequest(http.MethodPost, u.v.c.Base+"/api/v1/invoices/files/upload", body)
	require.NoError(u.v.t, err)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Forwarded-For", u.v.IP)
	for k, val := range u.v.api {
		req.Header.Set(k, val)
	}
	return req
}

// multipartFile is a multipart form with name's bytes as the invoice_file field.
func multipartFile(name string, b []byte) ([]byte, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile(pay.InvoiceFileField, name)
	_, _ = fw.Write(b)
	_ = mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

func storedFiles(t *testing.T, buyerID int64) int {
	t.Helper()
	var n int
	require.NoError(t, webtest.Store().DB.GetContext(context.Background(), &n, `SELECT count(*) FROM invoice_files WHERE buyer_id = $1`, buyerID))
	return n
}

// bombPNG is a real PNG of w×h grey pixels, all white: a few hundred kilobytes that
// decode to w×h bytes. It is written row by row, never holding the picture.
func bombPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 0 // 8-bit grey
	chunk("IHDR", ihdr)
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
	require.NoError(t, err)
	row := bytes.Repeat([]byte{0xFF}, w+1)
	row[0] = 0 // filter: none
	for range h {
		_, err := zw.Write(row)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return b.Bytes()
}

// plainPDF is a one-page PDF with an xref table; objectStreamPDF hides inner as object 4
// (the catalog's /OpenAction) in a deflated object stream with a cross-reference stream,
// where no byte of it can be read without inflating.
func plainPDF() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>"}
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, x)
	return b.Bytes()
}

func objectStreamPDF(t *testing.T, inner string) []byte {
	t.Helper()
	prolog := "4 0 "
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write([]byte(prolog + inner))
	require.NoError(t, zw.Close())
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
	off := map[int]int{}
	write := func(n int, body string) {
		off[n] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, body)
	}
	write(1, "<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R >>")
	write(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	write(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>")
	off[5] = b.Len()
	fmt.Fprintf(&b, "5 0 obj\n<< /Type /ObjStm /N 1 /First %d /Filter /FlateDecode /Length %d >>\nstream\n", len(prolog), z.Len())
	b.Write(z.Bytes())
	b.WriteString("\nendstream\nendobj\n")
	xrefOff := b.Len()
	var rows bytes.Buffer
	row := func(typ byte, f2 uint32, f3 uint16) {
		rows.WriteByte(typ)
		_ = binary.Write(&rows, binary.BigEndian, f2)
		_ = binary.Write(&rows, binary.BigEndian, f3)
	}
	row(0, 0, 65535)
	row(1, uint32(off[1]), 0)
	row(1, uint32(off[2]), 0)
	row(1, uint32(off[3]), 0)
	row(2, 5, 0)
	row(1, uint32(off[5]), 0)
	row(1, uint32(xrefOff), 0)
	fmt.Fprintf(&b, "6 0 obj\n<< /Type /XRef /Size 7 /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n", rows.Len())
	b.Write(rows.Bytes())
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xrefOff)
	return b.Bytes()
}

func TestAbuseUploadsDecompressionBomb(t *testing.T) {
	env := attackEnv(t, account.DefaultLimits)
	u := newUploader(t, env)
	bomb := bombPNG(t, 20_000, 20_000) // 400 MB of grey once decoded
	body, ct := multipartFile("scan.png", bomb)

	// The whole process's heap, sampled while the request runs: the server is in it.
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	peak.Store(before.HeapAlloc)
	done := make(chan struct{})
	var sampled sync.WaitGroup
	sampled.Go(func() {
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}
	})
	res := u.v.c.Do(u.uploadRequest(bytes.NewReader(body), ct))
	close(done)
	sampled.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	peakMB := float64(peak.Load()-before.HeapAlloc) / (1 << 20)
	allocMB := float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20)
	const ceilingMB = 64
	refused := res.StatusCode == http.StatusUnprocessableEntity && strings.Contains(res.Body, `"field":"invoice_file"`) &&
		strings.Contains(res.Body, "画素数が大きすぎます（20000×20000）")
	t.Logf("bomb: %d bytes; answer %d %s; heap peak +%.1f MB, allocated %.1f MB", len(bomb), res.StatusCode, res.Body, peakMB, allocMB)
	record(t, "abuse", fmt.Sprintf("%.1f MB PNG that decodes to 400 MB (20000×20000) uploaded", float64(len(bomb))/(1<<20)),
		fmt.Sprintf("%d, refused on the file field, %d stored; heap peak +%.1f MB, %.1f MB allocated in all (ceiling %d MB)",
			res.StatusCode, storedFiles(t, u.buyerID), peakMB, allocMB, ceilingMB),
		refused && storedFiles(t, u.buyerID) == 0 && peakMB < ceilingMB && allocMB < ceilingMB)
}

func TestAbuseUploadsInParallel(t *testing.T) {
	env := attackEnv(t, account.DefaultLimits)
	u := newUploader(t, env)
	n := web.MaxUploadsPerBuyer + 5
	body, ct := multipartFile("請求書.pdf", plainPDF())

	// Every upload's body is held back: the first ones stay in the handler, waiting for
	// their bytes, while the others arrive.
	type answer struct {
		i   int
		res webtest.Response
	}
	answers := make(chan answer, n)
	writers := make([]*io.PipeWriter, n)
	for i := range n {
		pr, pw := io.Pipe()
		writers[i] = pw
		req := u.uploadRequest(pr, ct)
		go func() { answers <- answer{i, u.v.c.Do(req)} }()
	}
	early := map[int]int{}
	deadline := time.After(20 * time.Second)
waiting:
	for len(early) < n-web.MaxUploadsPerBuyer {
		select {
		case a := <-answers:
			early[a.i] = a.res.StatusCode
		case <-deadline:
			break waiting
		}
	}
	refused := 0
	for i, code := range early {
		_ = writers[i].CloseWithError(io.ErrClosedPipe)
		if code == http.StatusTooManyRequests {
			refused++
		}
	}
	// The ones still waiting are the accepted ones: they get their bytes now.
	inFlight := n - len(early)
	for i := range n {
		if _, ok := early[i]; !ok {
			go func() {
				_, _ = writers[i].Write(body)
				_ = writers[i].Close()
			}()
		}
	}
	stored := 0
	for range inFlight {
		select {
		case a := <-answers:
			if a.res.StatusCode == http.StatusCreated {
				stored++
			}
		case <-time.After(30 * time.Second):
		}
	}
	// The slots are given back: one more upload goes through.
	next := u.v.c.Do(u.uploadRequest(bytes.NewReader(body), ct))
	record(t, "abuse", fmt.Sprintf("%d parallel uploads by one buyer", n),
		fmt.Sprintf("%d accepted at once, %d refused with 429, %d stored; the next one %d", inFlight, refused, storedFiles(t, u.buyerID)-1, next.StatusCode),
		inFlight == web.MaxUploadsPerBuyer && refused == n-web.MaxUploadsPerBuyer && stored == web.MaxUploadsPerBuyer &&
			next.StatusCode == http.StatusCreated && storedFiles(t, u.buyerID) == web.MaxUploadsPerBuyer+1)
}

func TestAbuseUploadsPDFWithJavaScriptInAnObjectStream(t *testing.T) {
	env := attackEnv(t, account.DefaultLimits)
	u := newUploader(t, env)
	cases := []struct{ what, inner string }{
		{"JavaScript", "<< /S /JavaScript /JS (app.alert\\(1\\)) >>"},
		{"/J#61vaScript", "<< /S /J#61vaScript /J#53 (app.alert\\(1\\)) >>"},
		{"/Launch", "<< /S /Launch /Win << /F (cmd.exe) >> >>"},
	}
	refused := 0
	for _, c := range cases {
		pdf := objectStreamPDF(t, c.inner)
		require.NotContains(t, string(pdf), "JavaScript")
		body, ct := multipartFile("請求書.pdf", pdf)
		res := u.v.c.Do(u.uploadRequest(bytes.NewReader(body), ct))
		if res.StatusCode == http.StatusUnprocessableEntity && strings.Contains(res.Body, "自動で動く処理を含む PDF は受け付けられません") {
			refused++
		}
	}
	record(t, "abuse", "PDF with JavaScript (plain, #-obfuscated) or a launch in a compressed object stream",
		fmt.Sprintf("%d of %d refused, %d stored", refused, len(cases), storedFiles(t, u.buyerID)),
		refused == len(cases) && storedFiles(t, u.buyerID) == 0)
}

func TestAbuseUploadsSignedURLUsedTwice(t *testing.T) {
	env := attackEnv(t, account.DefaultLimits)
	u := newUploader(t, env)
	uploadURL := func() string {
		res := u.v.call(http.MethodPost, "/invoices/files/upload/url", nil)
		require.Equal(t, http.StatusOK, res.StatusCode, res.Body)
		var a struct {
			UploadURL string `json:"upload_url"`
		}
		require.NoError(t, json.Unmarshal([]byte(res.Body), &a))
		p, err := url.Parse(a.UploadURL)
		require.NoError(t, err)
		return env.URL + p.Path
	}
	put := func(target string) int {
		req, err := http.NewRequest(http.MethodPut, target+"?name="+url.QueryEscape("請求書.pdf"), bytes.NewReader(plainPDF()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/pdf")
		return env.Client(t).Do(req).StatusCode // no credentials: the URL is one
	}
	target := uploadURL()
	first, second := put(target), put(target)

	// The same, at once: one INSERT decides.
	target = uploadURL()
	const racers = 5
	codes := make(chan int, racers)
	var wg sync.WaitGroup
	for range racers {
		wg.Go(func() { codes <- put(target) })
	}
	wg.Wait()
	close(codes)
	created := 0
	for c := range codes {
		if c == http.StatusCreated {
			created++
		}
	}
	record(t, "abuse", "signed upload URL used twice, then by 5 at once",
		fmt.Sprintf("first %d, second %d; at once %d of %d stored; %d files in all", first, second, created, racers, storedFiles(t, u.buyerID)),
		first == http.StatusCreated && second == http.StatusConflict && created == 1 && storedFiles(t, u.buyerID) == 2)
}

func TestAbuseErrorPageText(t *testing.T) {
	env := attackEnv(t, account.DefaultLimits)
	c := env.Client(t)
	attacker := "口座が変更になりました。新しい口座 0123456 へお振込みください"
	res := c.Get("/error/" + url.PathEscape("重要なお知らせ") + "/" + url.PathEscape(attacker))
	own := c.Get("/error/" + url.PathEscape("エラー") + "/" + url.PathEscape("処理を続けられませんでした"))
	record(t, "abuse", "/error/<attacker's title>/<attacker's message>",
		fmt.Sprintf("%d, generic page %v, attacker's words shown %v; the service's own example still shown %v", res.StatusCode,
			strings.Contains(res.Body, "エラーが発生しました"), strings.Contains(res.Body, "重要なお知らせ") || strings.Contains(res.Body, "0123456"),
			strings.Contains(own.Body, "処理を続けられませんでした")),
		res.StatusCode == http.StatusOK && strings.Contains(res.Body, "エラーが発生しました") &&
			!strings.Contains(res.Body, "重要なお知らせ") && !strings.Contains(res.Body, "0123456") && !strings.Contains(res.Body, "口座が変更") &&
			strings.Contains(own.Body, "処理を続けられませんでした"))
}
