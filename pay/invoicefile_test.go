package pay_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

// buildPDF writes a classic PDF (xref table) whose objects are numbered 1..n
// in order; object 1 must be the catalog. The offsets are computed, so each
// fixture is a well-formed file that differs from a plain invoice only in the
// property under test.
func buildPDF(objects []string, trailerExtra string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, trailerExtra, xref)
	return b.Bytes()
}

// pagesPDF is an invoice-like PDF of n pages; catalogExtra goes into the catalog.
func pagesPDF(n int, catalogExtra string) []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R " + catalogExtra + ">>", ""}
	var kids []string
	for i := range n {
		kids = append(kids, fmt.Sprintf("%d 0 R", 3+i))
		objs = append(objs, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>")
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	return buildPDF(objs, "")
}

// objectStreamJSPDF hides a JavaScript action inside a compressed object
// stream (PDF 1.5, cross-reference stream), where a plain byte scan for /JS
// sees only deflated bytes.
func objectStreamJSPDF(t *testing.T) []byte {
	t.Helper()
	return objectStreamPDF(t, "<< /Type /Action /S /JavaScript /JS (app.alert\\(1\\)) >>")
}

// objectStreamPDF is a one-page PDF whose catalog's /OpenAction is object 4, inner,
// kept deflated inside an object stream.
func objectStreamPDF(t *testing.T, inner string) []byte {
	t.Helper()
	prolog := "4 0 "
	var raw bytes.Buffer
	raw.WriteString(prolog + inner)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, err := zw.Write(raw.Bytes())
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NotContains(t, z.String(), "/JS")
	require.NotContains(t, z.String(), "JavaScript")

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
	// Cross-reference stream (object 6): W [1 4 2], entries for objects 0..6.
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
	row(2, 5, 0) // object 4 is the first object of object stream 5
	row(1, uint32(off[5]), 0)
	row(1, uint32(xrefOff), 0)
	fmt.Fprintf(&b, "6 0 obj\n<< /Type /XRef /Size 7 /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n", rows.Len())
	b.Write(rows.Bytes())
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xrefOff)
	return b.Bytes()
}

func encryptPDF(t *testing.T, in []byte, userPW string) []byte {
	t.Helper()
	model.ConfigPath = "disable"
	var out bytes.Buffer
	require.NoError(t, api.Encrypt(bytes.NewReader(in), &out, model.NewAESConfiguration(userPW, "owner-secret", 256)))
	require.True(t, bytes.HasPrefix(out.Bytes(), []byte("%PDF-")))
	return out.Bytes()
}

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

func jpegOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, x%h, color.Black)
	}
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, img, nil))
	return b.Bytes()
}

// pngHeaderClaiming is a PNG of a few dozen bytes whose header claims w×h
// pixels: decoding it would allocate w×h bytes at least.
func pngHeaderClaiming(w, h uint32) []byte {
	var b bytes.Buffer
	b.Write([]byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A})
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 0 // 8-bit grayscale
	chunk("IHDR", ihdr)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(make([]byte, 1024))
	_ = zw.Close()
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return b.Bytes()
}

func TestCheckInvoiceFile(t *testing.T) {
	onePage := pagesPDF(1, "")
	pngB := pngOf(t, 64, 48)
	jpg := jpegOf(t, 80, 60)

	// A PDF whose /Count says 1 while its tree holds 21 pages.
	lying := pagesPDF(21, "")
	lying = bytes.Replace(lying, []byte("/Count 21"), []byte("/Count 1 "), 1)

	tooBig := append(pagesPDF(1, ""), bytes.Repeat([]byte(" "), pay.MaxInvoiceFileBytes)...)
	tooBig = tooBig[:pay.MaxInvoiceFileBytes+1]

	for _, tc := range []struct {
		name     string
		fileName string
		b        []byte
		want     pay.InvoiceFileInfo
		msg      string // a part of the refusal; "" when accepted
	}{
		{"one-page PDF", "請求書.pdf", onePage, pay.InvoiceFileInfo{MediaType: pay.FileTypePDF, Pages: 1}, ""},
		{"upper-case extension", "INVOICE.PDF", onePage, pay.InvoiceFileInfo{MediaType: pay.FileTypePDF, Pages: 1}, ""},
		{"20 pages is the limit", "a.pdf", pagesPDF(20, ""), pay.InvoiceFileInfo{MediaType: pay.FileTypePDF, Pages: 20}, ""},
		{"PNG", "scan.png", pngB, pay.InvoiceFileInfo{MediaType: pay.FileTypePNG, Width: 64, Height: 48}, ""},
		{"JPEG as .jpg", "photo.jpg", jpg, pay.InvoiceFileInfo{MediaType: pay.FileTypeJPEG, Width: 80, Height: 60}, ""},
		{"JPEG as .jpeg with a Windows path", `C:\Users\経理\fax.jpeg`, jpg, pay.InvoiceFileInfo{MediaType: pay.FileTypeJPEG, Width: 80, Height: 60}, ""},

		{"empty file", "a.pdf", nil, pay.InvoiceFileInfo{}, "ファイルが空です"},
		{"10 MB + 1 byte", "a.pdf", tooBig, pay.InvoiceFileInfo{}, "10MBを超えています"},
		{"exactly 10 MB is not refused for its size", "a.pdf", tooBig[:pay.MaxInvoiceFileBytes], pay.InvoiceFileInfo{MediaType: pay.FileTypePDF, Pages: 1}, ""},
		{"wrong magic: text", "a.pdf", []byte("これは請求書です"), pay.InvoiceFileInfo{}, "JPEG、PNG、PDF のいずれか"},
		{"wrong magic: GIF", "a.png", []byte("GIF89a\x01\x00\x01\x00"), pay.InvoiceFileInfo{}, "JPEG、PNG、PDF のいずれか"},
		{"PNG renamed to .pdf", "invoice.pdf", pngB, pay.InvoiceFileInfo{}, "拡張子（PDF）と中身の形式（PNG）が一致しません"},
		{"PDF renamed to .jpg", "invoice.jpg", onePage, pay.InvoiceFileInfo{}, "拡張子（JPEG）と中身の形式（PDF）が一致しません"},
		{"PDF renamed to .txt", "invoice.txt", onePage, pay.InvoiceFileInfo{}, "拡張子が .pdf、.jpg、.jpeg、.png のいずれでもありません"},
		{"no extension", "invoice", pngB, pay.InvoiceFileInfo{}, "拡張子が .pdf、.jpg、.jpeg、.png のいずれでもありません"},
		{"a ZIP", "請求書.zip", append([]byte("PK\x03\x04"), bytes.Repeat([]byte{0}, 40)...), pay.InvoiceFileInfo{}, "ZIP などの圧縮ファイル"},
		{"a ZIP renamed to .pdf", "請求書.pdf", append([]byte("PK\x03\x04"), bytes.Repeat([]byte{0}, 40)...), pay.InvoiceFileInfo{}, "ZIP などの圧縮ファイル"},
		{"an LZH by its name", "請求書.lzh", []byte("-lh5- archive"), pay.InvoiceFileInfo{}, "ZIP などの圧縮ファイル"},

		{"PDF with a JavaScript open action", "a.pdf", pagesPDF(1, "/OpenAction << /S /JavaScript /JS (app.alert\\(1\\)) >> "), pay.InvoiceFileInfo{}, "JavaScript"},
		{"PDF with a JavaScript name tree", "a.pdf", pagesPDF(1, "/Names << /JavaScript << /Names [(x) << /S /JavaScript /JS (1) >>] >> >> "), pay.InvoiceFileInfo{}, "JavaScript"},
		{"PDF with additional actions", "a.pdf", pagesPDF(1, "/AA << /WC << /S /Named /N /Print >> >> "), pay.InvoiceFileInfo{}, "JavaScript"},
		{"PDF with JavaScript inside a compressed object stream", "a.pdf", objectStreamJSPDF(t), pay.InvoiceFileInfo{}, "JavaScript"},
		{"PDF encrypted with an open password", "a.pdf", encryptPDF(t, onePage, "user-secret"), pay.InvoiceFileInfo{}, "保護された PDF"},
		{"PDF encrypted with only an owner password", "a.pdf", encryptPDF(t, onePage, ""), pay.InvoiceFileInfo{}, "保護された PDF"},
		{"21 pages", "a.pdf", pagesPDF(21, ""), pay.InvoiceFileInfo{}, "PDF が21ページあります"},
		{"21 pages behind a /Count of 1", "a.pdf", lying, pay.InvoiceFileInfo{}, "PDF が21ページあります"},
		{"unparseable PDF", "a.pdf", []byte("%PDF-1.4\nこれは壊れています\n%%EOF\n"), pay.InvoiceFileInfo{}, "PDF を読み取れませんでした"},
		{"truncated PDF", "a.pdf", onePage[:len(onePage)/2], pay.InvoiceFileInfo{}, "PDF を読み取れませんでした"},
		{"PDF with a page tree cycle", "a.pdf", buildPDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R] /Count 1 >>"}, ""), pay.InvoiceFileInfo{}, "PDF を読み取れませんでした"},

		{"pixel bomb: PNG header claiming 100000×100000", "bomb.png", pngHeaderClaiming(100000, 100000), pay.InvoiceFileInfo{}, "画素数が大きすぎます（100000×100000）"},
		{"just over 40 MP", "big.png", pngHeaderClaiming(8000, 5001), pay.InvoiceFileInfo{}, "画素数が大きすぎます"},
		{"undecodable PNG", "a.png", pngB[:len(pngB)/2], pay.InvoiceFileInfo{}, "画像を読み取れませんでした"},
		{"PNG with only a header", "a.png", pngHeaderClaiming(100, 100)[:8], pay.InvoiceFileInfo{}, "画像を読み取れませんでした"},
		{"undecodable JPEG", "a.jpg", append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, bytes.Repeat([]byte{0x42}, 100)...), pay.InvoiceFileInfo{}, "画像を読み取れませんでした"},
		{"truncated JPEG", "a.jpg", jpg[:len(jpg)*2/3], pay.InvoiceFileInfo{}, "画像を読み取れませんでした"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, msg := pay.CheckInvoiceFile(tc.fileName, tc.b)
			if tc.msg == "" {
				require.Empty(t, msg)
			} else {
				require.Contains(t, msg, tc.msg)
				require.True(t, strings.HasSuffix(msg, "。"), "a whole Japanese sentence: %q", msg)
			}
			require.Equal(t, tc.want, info)
		})
	}
}
