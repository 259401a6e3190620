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
	// MaxInvoicePDFPageArea is the largest page, in square points: the OCR draws a
	// scanned page at 300 DPI, and a page of a few bytes can claim 200 inches a side (3.6
	// gigapixels for poppler to allocate). This is MaxInvoiceImagePixels at 300 DPI,
	// A2 and a little more; invoices are A4.
	MaxInvoicePDFPageArea = MaxInvoiceImagePixels * (72.0 / 300) * (72.0 / 300)
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
	msgInvoiceFileZip       = "ZIP などの圧縮ファイル（パスワード付きを含む）は受け付けられません。請求書の PDF か画像（JPEG、PNG）を、圧縮せずにそのまま選択してください。"
	msgInvoiceFileExtension = "ファイル名の拡張子が .pdf、.jpg、.jpeg、.png のいずれでもありません。請求書の PDF か画像（JPEG、PNG）を選択してください。"
	msgInvoiceFileMismatch  = "ファイル名の拡張子（%s）と中身の形式（%s）が一致しません。拡張子を書き換えたファイルは受け付けられません。元のファイルを選択してください。"
	msgPDFJavaScript        = "JavaScript、プログラムの起動、フォームの送信などの自動で動く処理を含む PDF は受け付けられません。印刷用に保存し直した PDF を選択してください。"
	msgPDFEmbeddedFile      = "ほかのファイルが埋め込まれた PDF は受け付けられません。請求書だけを印刷用に保存し直した PDF を選択してください。"
	msgPDFEncrypted         = "パスワードまたは暗号化で保護された PDF は受け付けられません。保護を解除した PDF を選択してください。"
	msgPDFTooManyPages      = "PDF が%dページあります。請求書は%dページまでの PDF を選択してください。"
	msgPDFPageTooLarge      = "PDF のページが大きすぎます（%d×%d mm）。A4 などの用紙サイズで保存し直した PDF を選択してください。"
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
	if len(b) > 0 && isArchive(name, b) {
		return InvoiceFileInfo{}, msgInvoiceFileZip
	}
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

// isArchive: a ZIP (the signature of a local file header or an empty archive) or a
// file named as an archive. Suppliers often send a password-protected ZIP with the
// password in a second mail (PPAP); the message says to send the file itself.
func isArchive(name string, b []byte) bool {
	if bytes.HasPrefix(b, []byte("PK\x03\x04")) || bytes.HasPrefix(b, []byte("PK\x05\x06")) {
		return true
	}
	n := strings.ToLower(name)
	for _, ext := range []string{".zip", ".lzh", ".7z", ".rar", ".gz", ".tar"} {
		if strings.HasSuffix(n, ext) {
			return true
		}
	}
	return false
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
	unit := 1.0 // the largest /UserUnit of any page
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
		if msg := activeContent(o, 0); msg != "" {
			return InvoiceFileInfo{}, msg
		}
		unit = max(unit, userUnit(o))
	}
	if ctx.RootDict != nil {
		if msg := activeContent(ctx.RootDict, 0); msg != "" {
			return InvoiceFileInfo{}, msg
		}
	}
	if msg := activeNameInBytes(b); msg != "" {
		return InvoiceFileInfo{}, msg
	}
	pages, err := countPages(ctx.XRefTable)
	if err != nil || pages == 0 {
		return InvoiceFileInfo{}, msgPDFUnreadable
	}
	if pages > MaxInvoicePDFPages {
		return InvoiceFileInfo{}, fmt.Sprintf(msgPDFTooManyPages, pages, MaxInvoicePDFPages)
	}
	// pdfcpu sizes its answer by the /Count the file claims: the leaves are the truth.
	ctx.PageCount = pages
	dims, err := ctx.PageDims()
	if err != nil {
		return InvoiceFileInfo{}, msgPDFUnreadable
	}
	for _, d := range dims {
		if d.Width*d.Height*unit*unit > MaxInvoicePDFPageArea {
			return InvoiceFileInfo{}, fmt.Sprintf(msgPDFPageTooLarge, int(d.Width*unit*25.4/72), int(d.Height*unit*25.4/72))
		}
	}
	return InvoiceFileInfo{MediaType: FileTypePDF, Pages: pages}, ""
}

// userUnit is a page's /UserUnit (PDF 1.6: the size of its unit in points, 1 when
// absent), which multiplies the media box that pdfcpu reports.
func userUnit(o types.Object) float64 {
	d, ok := o.(types.Dict)
	if !ok {
		return 1
	}
	switch v := d["UserUnit"].(type) {
	case types.Float:
		return max(1, v.Value())
	case types.Integer:
		return max(1, float64(v.Value()))
	}
	return 1
}

// activeKeys are the dictionary keys through which a PDF runs code or carries other
// files (issue 24): /JS and /JavaScript (name tree, action), /AA (actions on open, close,
// focus…), /EmbeddedFiles (the name tree of attachments), /EF (a file specification's
// embedded file) and /RichMedia (Flash and video with their own scripts). pdfcpu has
// decoded #xx in every name already, so /J#61vaScript arrives as /JavaScript.
var activeKeys = map[string]string{
	"JS": msgPDFJavaScript, "JavaScript": msgPDFJavaScript, "AA": msgPDFJavaScript, "RichMedia": msgPDFJavaScript,
	"EmbeddedFiles": msgPDFEmbeddedFile, "EF": msgPDFEmbeddedFile,
}

// activeActions are the action types (/S) that run something: a script, a program
// (/Launch), a form sent or data read elsewhere (/SubmitForm, /ImportData), a jump into
// an embedded file (/GoToE). An /OpenAction or /AA entry is an action dictionary of one
// of them, found by the same walk wherever it lives (in the catalog, a page, an
// annotation, an object stream).
var activeActions = map[string]bool{
	"JavaScript": true, "Launch": true, "SubmitForm": true, "ImportData": true, "GoToE": true, "RichMediaExecute": true,
}

// activeTypes are the /Type and /Subtype values of embedded files and of annotations
// that carry them.
var activeTypes = map[string]string{
	"EmbeddedFile": msgPDFEmbeddedFile, "FileAttachment": msgPDFEmbeddedFile, "RichMedia": msgPDFJavaScript,
}

// maxPDFObjectDepth bounds the walk into one object's direct contents: no real file nests
// dictionaries and arrays this deep, and one that does is refused rather than left
// partly unseen.
const maxPDFObjectDepth = 64

// activeContent walks one object's direct contents and names the refusal ("" when none);
// indirect objects are visited on their own from the table, so references are not
// followed.
func activeContent(o types.Object, depth int) string {
	if depth > maxPDFObjectDepth {
		return msgPDFUnreadable
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
	case types.XRefStreamDict:
		d = v.Dict
	case *types.XRefStreamDict:
		d = v.Dict
	case types.Array:
		for _, e := range v {
			if msg := activeContent(e, depth+1); msg != "" {
				return msg
			}
		}
		return ""
	default:
		return ""
	}
	for k, v := range d {
		if msg, ok := activeKeys[k]; ok {
			return msg
		}
		if n, ok := v.(types.Name); ok {
			switch {
			case k == "S" && activeActions[string(n)]:
				return msgPDFJavaScript
			case k == "Type" || k == "Subtype":
				if msg, ok := activeTypes[string(n)]; ok {
					return msg
				}
			}
		}
		if msg := activeContent(v, depth+1); msg != "" {
			return msg
		}
	}
	return ""
}

// activeNames are the names that the raw bytes of a PDF must not hold, #xx-decoded: the
// second look, for what pdfcpu's reading may have hidden (a duplicate key, where pdfcpu
// keeps the last and a reader may run the first). Only names long enough never to occur
// by chance in compressed bytes are looked for; the short ones (/JS, /AA, /EF) are found by
// the walk.
var activeNames = map[string]string{
	"JavaScript": msgPDFJavaScript, "Launch": msgPDFJavaScript, "SubmitForm": msgPDFJavaScript,
	"ImportData": msgPDFJavaScript, "RichMedia": msgPDFJavaScript, "RichMediaExecute": msgPDFJavaScript,
	"EmbeddedFile": msgPDFEmbeddedFile, "EmbeddedFiles": msgPDFEmbeddedFile, "FileAttachment": msgPDFEmbeddedFile,
}

// activeNameInBytes scans b for a name token (a slash and the regular characters after
// it, #xx decoded as PDF readers do) among activeNames.
func activeNameInBytes(b []byte) string {
	for i := 0; i < len(b); i++ {
		if b[i] != '/' {
			continue
		}
		j := i + 1
		for j < len(b) && j-i <= 64 && !pdfDelimiter(b[j]) {
			j++
		}
		if j-i > 64 || j == i+1 {
			continue
		}
		name := b[i+1 : j]
		if bytes.IndexByte(name, '#') >= 0 {
			decoded, err := types.DecodeName(string(name))
			if err != nil {
				continue
			}
			name = []byte(decoded)
		}
		if msg, ok := activeNames[string(name)]; ok {
			return msg
		}
	}
	return ""
}

// pdfDelimiter is PDF's white space and delimiter characters: what ends a name.
func pdfDelimiter(c byte) bool {
	switch c {
	case 0, '\t', '\n', '\f', '\r', ' ', '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
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
