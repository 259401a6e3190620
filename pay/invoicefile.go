package pay

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Limits of an invoice file beyond its size (DESIGN §4, issue 11).
const (
	// MaxInvoicePDFPages: an invoice is a few pages; more is a catalogue or a
	// whole ledger, and OCR time grows with every page.
	MaxInvoicePDFPages = 20
	// MaxInvoiceImagePixels: 40 megapixels is more than any phone camera or a
	// 600 DPI A4 scan gives. A small PNG or JPEG can claim far more, and
	// decoding it would take gigabytes (a decompression bomb).
	MaxInvoiceImagePixels = 40_000_000
)

// InvoiceFileField is the form and API field name of the invoice file.
const InvoiceFileField = "invoice_file"

// InvoiceFileInfo is what CheckInvoiceFile learnt about an accepted file.
type InvoiceFileInfo struct {
	MediaType string // FileTypeJPEG, FileTypePNG or FileTypePDF
	Pages     int    // PDF only
	Width     int    // images only, in pixels as stored
	Height    int
}

// The refusals of CheckInvoiceFile, shown next to the invoice_file field.
const (
	msgInvoiceFileEmpty     = "ファイルが空です。請求書のファイルを選択してください。"
	msgInvoiceFileTooLarge  = "ファイルサイズが10MBを超えています。10MB以下のファイルを選択してください。"
	msgInvoiceFileType      = "JPEG、PNG、PDF のいずれかの形式のファイルを選択してください。"
	msgInvoiceFileExtension = "ファイル名の拡張子が .pdf、.jpg、.jpeg、.png のいずれでもありません。請求書の PDF か画像（JPEG、PNG）を選択してください。"
	msgInvoiceFileMismatch  = "ファイル名の拡張子（%s）と中身の形式（%s）が一致しません。拡張子を書き換えたファイルは受け付けられません。元のファイルを選択してください。"
	msgPDFJavaScript        = "JavaScript などの自動で動く処理を含む PDF は受け付けられません。印刷用に保存し直した PDF を選択してください。"
	msgPDFEncrypted         = "パスワードまたは暗号化で保護された PDF は受け付けられません。保護を解除した PDF を選択してください。"
	msgPDFTooManyPages      = "PDF が%dページあります。請求書は%dページまでの PDF を選択してください。"
	msgPDFUnreadable        = "PDF を読み取れませんでした。ファイルが壊れている可能性があります。PDF を保存し直してから選択してください。"
	msgImageTooManyPixels   = "画像の画素数が大きすぎます（%d×%d）。4000万画素以下に縮小した画像を選択してください。"
	msgImageTooMuchMemory   = "画像を開くのに必要なメモリが大きすぎます（%d×%d 画素、約%dMB）。画素数を減らした画像か、通常の JPEG で保存し直した画像を選択してください。"
	msgImageUnreadable      = "画像を読み取れませんでした。ファイルが壊れている可能性があります。撮影またはスキャンし直した画像を選択してください。"
)

func fileTypeLabel(mediaType string) string {
	switch mediaType {
	case FileTypeJPEG:
		return "JPEG"
	case FileTypePNG:
		return "PNG"
	case FileTypePDF:
		return "PDF"
	}
	return "不明"
}

// CheckInvoiceFile decides whether the uploaded file name with bytes b may be
// stored as an invoice, and returns what it is. The string is the Japanese
// message for the invoice_file field, "" when the file is accepted. It trusts
// the bytes, not the name: the name must only agree with them, so a PNG
// renamed to .pdf or a PDF renamed to .txt is refused rather than stored under a
// type it is not.
func CheckInvoiceFile(name string, b []byte) (InvoiceFileInfo, string) {
	if msg := InvoiceFileProblem(int64(len(b)), b); msg != "" {
		return InvoiceFileInfo{}, msg
	}
	byContent := FileTypeFromContent(b)
	byName := FileTypeFromName(name)
	switch {
	case byName == "":
		return InvoiceFileInfo{}, msgInvoiceFileExtension
	case byName != byContent:
		return InvoiceFileInfo{}, fmt.Sprintf(msgInvoiceFileMismatch, fileTypeLabel(byName), fileTypeLabel(byContent))
	}
	if byContent == FileTypePDF {
		return checkPDF(b)
	}
	return checkImage(byContent, b)
}

// checkImage reads only the header first (CheckImageHeader), so a file claiming
// 100000×100000 pixels, or a bomb that would decode to hundreds of megabytes, is refused
// before any pixel buffer exists; a file within the limits is then decoded once to prove
// the data is an image at all, which the OCR will need anyway.
func checkImage(mediaType string, b []byte) (InvoiceFileInfo, string) {
	_, h, err := DecodeImage(b)
	switch {
	case errors.Is(err, ErrImageTooLarge) && int64(h.Width)*int64(h.Height) > MaxInvoiceImagePixels:
		return InvoiceFileInfo{}, fmt.Sprintf(msgImageTooManyPixels, h.Width, h.Height)
	case errors.Is(err, ErrImageTooLarge):
		return InvoiceFileInfo{}, fmt.Sprintf(msgImageTooMuchMemory, h.Width, h.Height, h.DecodeBytes>>20)
	case err != nil || h.MediaType != mediaType:
		return InvoiceFileInfo{}, msgImageUnreadable
	}
	return InvoiceFileInfo{MediaType: mediaType, Width: h.Width, Height: h.Height}, ""
}

var pdfConfigOnce sync.Once

// pdfConfig gives pdfcpu's defaults (with its resource limits against
// oversized streams and object counts) without the config.yml it otherwise
// writes to the user's config directory: checking an upload touches no disk.
func pdfConfig() *model.Configuration {
	pdfConfigOnce.Do(func() { model.ConfigPath = "disable" })
	c := model.NewDefaultConfiguration()
	// The file is at most 10 MB; pdfcpu's defaults (512 MB per stream, ten
	// million objects) are sized for any PDF, not for one upload among many
	// at once. These still leave a real invoice far inside them.
	c.Limits.MaxStreamBytes = MaxInvoiceFileBytes
	c.Limits.MaxDecodeBytes = 64 << 20
	c.Limits.MaxObjectCount = 200_000
	c.Limits.MaxObjectStreamCount = 100_000
	c.Limits.MaxXRefEntries = 200_000
	return c
}

// checkPDF parses the whole PDF with pdfcpu (object streams included, so
// nothing hides in a compressed object), then refuses encryption, active
// content and long documents. The page count is of the leaves of the page
// tree, not the /Count the file claims.
func checkPDF(b []byte) (info InvoiceFileInfo, msg string) {
	defer func() {
		// A hostile file must never take the request down with it.
		if recover() != nil {
			info, msg = InvoiceFileInfo{}, msgPDFUnreadable
		}
	}()
	ctx, err := pdfcpu.Read(bytes.NewReader(b), pdfConfig())
	if err != nil {
		if errors.Is(err, pdfcpu.ErrWrongPassword) || strings.Contains(err.Error(), "password") || bytes.Contains(b, []byte("/Encrypt")) {
			return InvoiceFileInfo{}, msgPDFEncrypted
		}
		return InvoiceFileInfo{}, msgPDFUnreadable
	}
	// An /Encrypt entry pdfcpu did not take up (a malformed or unknown handler) still
	// means a reader elsewhere may treat the file as encrypted: refuse it the same way.
	if ctx.Encrypt != nil || ctx.E != nil || bytes.Contains(b, []byte("/Encrypt")) {
		return InvoiceFileInfo{}, msgPDFEncrypted
	}
	for nr, e := range ctx.Table {
		if e == nil || e.Free {
			continue
		}
		// Dereferencing decodes objects that pdfcpu keeps lazily inside
		// compressed object streams, where /JS would otherwise stay unseen.
		gen := 0
		if e.Generation != nil {
			gen = *e.Generation
		}
		o, err := ctx.Dereference(*types.NewIndirectRef(nr, gen))
		if err != nil {
			return InvoiceFileInfo{}, msgPDFUnreadable
		}
		if hasActiveContent(o, 0) {
			return InvoiceFileInfo{}, msgPDFJavaScript
		}
	}
	if ctx.RootDict != nil && hasActiveContent(ctx.RootDict, 0) {
		return InvoiceFileInfo{}, msgPDFJavaScript
	}
	pages, err := countPages(ctx.XRefTable)
	if err != nil || pages == 0 {
		return InvoiceFileInfo{}, msgPDFUnreadable
	}
	if pages > MaxInvoicePDFPages {
		return InvoiceFileInfo{}, fmt.Sprintf(msgPDFTooManyPages, pages, MaxInvoicePDFPages)
	}
	return InvoiceFileInfo{MediaType: FileTypePDF, Pages: pages}, ""
}

// activeKeys are the dictionary keys through which a PDF runs code: /JS and
// /JavaScript (name tree, action), /AA (actions on open, close, focus…).
// An /OpenAction that runs JavaScript is an action dictionary with /S
// /JavaScript and /JS, found by the same walk wherever it lives.
var activeKeys = []string{"JS", "JavaScript", "AA"}

// hasActiveContent walks one object's direct contents; indirect objects are
// visited on their own from the table, so references are not followed.
func hasActiveContent(o types.Object, depth int) bool {
	if depth > 64 {
		return false
	}
	var d types.Dict
	switch v := o.(type) {
	case types.Dict:
		d = v
	case types.StreamDict:
		d = v.Dict
	case *types.StreamDict:
		d = v.Dict
	case types.ObjectStreamDict:
		d = v.Dict
	case *types.ObjectStreamDict:
		d = v.Dict
	case types.Array:
		for _, e := range v {
			if hasActiveContent(e, depth+1) {
				return true
			}
		}
		return false
	default:
		return false
	}
	for _, k := range activeKeys {
		if _, ok := d[k]; ok {
			return true
		}
	}
	if s, ok := d["S"].(types.Name); ok && s == "JavaScript" {
		return true
	}
	for _, v := range d {
		if hasActiveContent(v, depth+1) {
			return true
		}
	}
	return false
}

// countPages counts the page objects under the root /Pages, guarding against
// cycles and trees deeper than any real file.
func countPages(x *model.XRefTable) (int, error) {
	root, err := x.Pages()
	if err != nil {
		return 0, err
	}
	seen := map[int]bool{}
	var walk func(o types.Object, depth int) (int, error)
	walk = func(o types.Object, depth int) (int, error) {
		if depth > 32 {
			return 0, errors.New("page tree too deep")
		}
		if ref, ok := o.(types.IndirectRef); ok {
			if seen[ref.ObjectNumber.Value()] {
				return 0, errors.New("page tree cycle")
			}
			seen[ref.ObjectNumber.Value()] = true
		}
		d, err := x.DereferenceDict(o)
		if err != nil || d == nil {
			return 0, errors.New("page tree node is not a dictionary")
		}
		if t := d.Type(); t != nil && *t == "Page" {
			return 1, nil
		}
		kids, ok := d["Kids"]
		if !ok {
			return 0, errors.New("page tree node without kids")
		}
		arr, err := x.DereferenceArray(kids)
		if err != nil {
			return 0, err
		}
		n := 0
		for _, k := range arr {
			c, err := walk(k, depth+1)
			if err != nil {
				return 0, err
			}
			n += c
			if n > 10*MaxInvoicePDFPages {
				// Enough to refuse; no need to walk a huge tree.
				return n, nil
			}
		}
		return n, nil
	}
	return walk(*root, 0)
}
