package ocr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/signintech/gopdf"
	"golang.org/x/image/font/opentype"
	"golang.org/x/text/unicode/norm"

	"cardpay/ocr/invoicegen"
)

const fontPath = "/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf"

const installHint = "install the OCR tools and font with `go tool -modfile=tools/go.mod task ocr-tools` (Debian: tesseract-ocr tesseract-ocr-jpn tesseract-ocr-jpn-vert tesseract-ocr-osd poppler-utils fonts-ipaexfont-gothic)"

// invoiceLines is a small Japanese invoice: title, parties, the fields the buyer needs.
var invoiceLines = []struct {
	text string
	pt   float64
}{
	{"請求書", 22},
	{"株式会社ひかり商事 御中", 12},
	{"発行日 2026年11月30日", 11},
	{"株式会社サンプル製作所", 12},
	{"東京都千代田区丸の内1-2-3", 10},
	{"登録番号 T1234567890123", 11},
	{"下記のとおりご請求申し上げます。", 11},
	{"ご請求金額 ¥125,400", 14},
	{"支払期日 2026年12月25日", 11},
	{"品名 数量 単価 金額", 10},
	{"部品加工費 10 11,400 114,000", 10},
	{"小計 ¥114,000", 10},
	{"消費税(10%) ¥11,400", 10},
	{"振込先 みずほ銀行 東京営業部 普通 1234567", 11},
	{"口座名義 カ)サンプルセイサクシヨ", 11},
}

var fontOnce = sync.OnceValues(func() (*opentype.Font, error) {
	b, err := os.ReadFile(fontPath)
	if err != nil {
		return nil, err
	}
	return opentype.Parse(b)
})

func ipaex(t *testing.T) *opentype.Font {
	t.Helper()
	f, err := fontOnce()
	if err != nil {
		t.Fatalf("the IPAex Gothic font is missing (%v): %s", err, installHint)
	}
	return f
}

// renderInvoice draws the invoice on white A4 paper at dpi, as a scanner would see it.
func renderInvoice(t *testing.T, dpi float64) *image.Gray {
	t.Helper()
	return renderLines(t, dpi, invoiceLines)
}

// renderLines draws lines of text on white A4 paper at dpi (invoicegen.DrawText).
func renderLines(t *testing.T, dpi float64, invoiceLines []struct {
	text string
	pt   float64
}) *image.Gray {
	t.Helper()
	ipaex(t)
	lines := make([]invoicegen.TextLine, len(invoiceLines))
	for i, l := range invoiceLines {
		lines[i] = invoicegen.TextLine{Text: l.text, Pt: l.pt}
	}
	g, err := invoicegen.DrawText(lines, dpi)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// textPDF writes the invoice as a PDF with a text layer, as accounting software makes them.
func textPDF(t *testing.T) []byte { return buildPDF(t, nil) }

// scannedPDF wraps page images in a PDF with no text layer, as a scanner's PDF is.
func scannedPDF(t *testing.T, pages ...*image.Gray) []byte { return buildPDF(t, pages...) }

// buildPDF makes an A4 PDF: a nil page is the invoice as text, any other the image
// filling the page.
func buildPDF(t *testing.T, pages ...*image.Gray) []byte {
	t.Helper()
	ipaex(t)
	if len(pages) == 0 {
		pages = []*image.Gray{nil}
	}
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4})
	if err := pdf.AddTTFFont("ipaexg", fontPath); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		pdf.AddPage()
		if p != nil {
			if err := pdf.ImageFrom(p, 0, 0, &gopdf.Rect{W: 595, H: 842}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		y := 60.0
		for _, l := range invoiceLines {
			if err := pdf.SetFont("ipaexg", "", l.pt); err != nil {
				t.Fatal(err)
			}
			y += l.pt * 1.9
			pdf.SetXY(65, y)
			if err := pdf.Cell(nil, l.text); err != nil {
				t.Fatal(err)
			}
		}
	}
	b, err := pdf.GetBytesPdfReturnErr()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pngBytes(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// jpegWithOrientation encodes img as a JPEG carrying an EXIF orientation tag, as phones do.
func jpegWithOrientation(t *testing.T, img image.Image, orientation uint16, quality int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	var tiff bytes.Buffer
	tiff.WriteString("MM\x00\x2a")
	binary.Write(&tiff, binary.BigEndian, uint32(8))
	binary.Write(&tiff, binary.BigEndian, uint16(1))                                 // one entry
	binary.Write(&tiff, binary.BigEndian, []uint16{0x0112, 3, 0, 1, orientation, 0}) // tag, SHORT, count 1, value
	binary.Write(&tiff, binary.BigEndian, uint32(0))                                 // no next IFD
	seg := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	app1 := append([]byte{0xFF, 0xE1, byte((len(seg) + 2) >> 8), byte(len(seg) + 2)}, seg...)
	return slices.Concat(b[:2], app1, b[2:])
}

// faxLike is what a fax machine prints: 200 DPI, a little skewed, black and white only,
// with speckles of line noise.
func faxLike(t *testing.T) *image.Gray {
	g := rotate(renderInvoice(t, 200), 2.5)
	rng := rand.New(rand.NewPCG(1, 2))
	for i, v := range g.Pix {
		switch {
		case rng.Float64() < 0.004:
			g.Pix[i] = 0
		case rng.Float64() < 0.004:
			g.Pix[i] = 255
		case v < 140:
			g.Pix[i] = 0
		default:
			g.Pix[i] = 255
		}
	}
	return g
}

// photoLike is a grey, low-contrast, noisy, unevenly lit and skewed shot of the page at a
// low resolution (text well under 300 DPI), JPEG-compressed.
func photoLike(t *testing.T) []byte {
	g := rotate(renderInvoice(t, 130), -4)
	rng := rand.New(rand.NewPCG(3, 4))
	w, h := g.Rect.Dx(), g.Rect.Dy()
	for y := range h {
		for x := range w {
			v := float64(g.Pix[y*g.Stride+x])
			light := 0.75 + 0.25*float64(x)/float64(w) // a shadow on the left
			v = (95 + v*75/255) * light * 1.15
			v += rng.NormFloat64() * 9
			g.Pix[y*g.Stride+x] = uint8(math.Max(0, math.Min(255, v)))
		}
	}
	return jpegWithOrientation(t, g, 1, 80)
}

// digits keeps only the digits of s after NFKC (full-width digits become ASCII).
func digits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, norm.NFKC.String(s))
}

// compact is s in NFKC without spaces, for comparing OCR text with what was drawn.
func compact(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, norm.NFKC.String(s))
}

// requireInvoiceRead checks that the amount, the due date and the registration number
// came through, each on one line (digits only, so that a misread ¥ or 年 does not matter).
func requireInvoiceRead(t *testing.T, res Result) {
	t.Helper()
	for _, want := range []struct{ name, digits string }{
		{"ご請求金額 ¥125,400", "125400"},
		{"支払期日 2026年12月25日", "20261225"},
		{"登録番号 T1234567890123", "1234567890123"},
	} {
		found := false
		for _, l := range res.Lines {
			if strings.Contains(digits(l.Text), want.digits) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no line reads %q (digits %s); the text was:\n%s", want.name, want.digits, res.Text)
		}
	}
	if !strings.Contains(compact(res.Text), "請求") {
		t.Errorf("請求 not read; the text was:\n%s", res.Text)
	}
}

// figures collects what every read cost, printed by TestMain (go test -v ./ocr).
var figures struct {
	sync.Mutex
	pages  []time.Duration
	rss    int64
	goRSS  int64
	byCase []string
}

func record(name string, res Result) {
	figures.Lock()
	defer figures.Unlock()
	for _, p := range res.PageStats {
		figures.pages = append(figures.pages, p.Duration)
		figures.byCase = append(figures.byCase, fmt.Sprintf("  %-22s page %d  %-9s %6d ms  tools max RSS %7d kB  rot %3d  skew %+.1f°",
			name, p.Page, p.Source, p.Duration.Milliseconds(), p.MaxRSSKB, p.Rotation, p.Skew))
	}
	figures.rss = max(figures.rss, res.MaxRSSKB)
	figures.goRSS = max(figures.goRSS, res.GoMaxRSSKB)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if len(figures.pages) > 0 {
		p := slices.Clone(figures.pages)
		slices.Sort(p)
		fmt.Println("OCR figures (per page):")
		for _, l := range figures.byCase {
			fmt.Println(l)
		}
		fmt.Printf("  pages %d, median %d ms, max %d ms; tools max RSS %d kB; test process VmHWM %d kB\n",
			len(p), p[len(p)/2].Milliseconds(), p[len(p)-1].Milliseconds(), figures.rss, figures.goRSS)
	}
	os.Exit(code)
}
