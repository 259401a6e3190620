package pay

import (
	"bytes"
	"path"
	"strings"
)

// Media types of the invoice files we accept (DESIGN §4: JPEG, PNG or PDF).
const (
	FileTypeJPEG = "image/jpeg"
	FileTypePNG  = "image/png"
	FileTypePDF  = "application/pdf"
)

// MaxInvoiceFileBytes is the largest invoice file we store (10 MB).
const MaxInvoiceFileBytes = 10 << 20

// FileTypeFromName gives the media type for a file name's extension
// (SPEC §5), ignoring case; "" for any other extension. Use it for what the
// browser shows before upload; trust FileTypeFromContent once bytes arrive.
func FileTypeFromName(name string) string {
	// Browsers on Windows may send a full path with backslashes.
	name = name[strings.LastIndexAny(name, `/\`)+1:]
	switch strings.ToLower(path.Ext(name)) {
	case ".jpg", ".jpeg":
		return FileTypeJPEG
	case ".png":
		return FileTypePNG
	case ".pdf":
		return FileTypePDF
	}
	return ""
}

var fileSignatures = []struct {
	magic     []byte
	mediaType string
}{
	{[]byte{0xFF, 0xD8, 0xFF}, FileTypeJPEG},
	{[]byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, FileTypePNG},
	{[]byte("%PDF-"), FileTypePDF},
}

// FileTypeFromContent identifies an invoice file by its first bytes, because
// a file's name and the browser's Content-Type are whatever the sender says.
// It returns "" for anything other than JPEG, PNG or PDF.
func FileTypeFromContent(head []byte) string {
	for _, s := range fileSignatures {
		if bytes.HasPrefix(head, s.magic) {
			return s.mediaType
		}
	}
	return ""
}

// InvoiceFileProblem says in Japanese what is wrong with an uploaded invoice
// file of size bytes starting with head, or "" when it can be accepted.
func InvoiceFileProblem(size int64, head []byte) string {
	switch {
	case size <= 0:
		return "ファイルが空です。請求書のファイルを選択してください。"
	case size > MaxInvoiceFileBytes:
		return "ファイルサイズが10MBを超えています。10MB以下のファイルを選択してください。"
	case FileTypeFromContent(head) == "":
		return "JPEG、PNG、PDF のいずれかの形式のファイルを選択してください。"
	}
	return ""
}
