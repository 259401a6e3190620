package pay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestFileTypeFromName(t *testing.T) {
	tests := []struct {
		name string
		want string
	}{
		{"invoice.jpg", "image/jpeg"},
		{"invoice.jpeg", "image/jpeg"},
		{"INVOICE.JPG", "image/jpeg"},
		{"scan.Jpeg", "image/jpeg"},
		{"invoice.png", "image/png"},
		{"請求書.pdf", "application/pdf"},
		{"請求書.PDF", "application/pdf"},
		{"archive.pdf.zip", ""},
		{"invoice.gif", ""},
		{"invoice.heic", ""},
		{"pdf", ""},
		{"invoice.", ""},
		{"", ""},
		{`C:\Users\yamada\請求書.pdf`, "application/pdf"},
		{`C:\scans.pdf\invoice`, ""},
		{"dir.png/invoice", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.FileTypeFromName(tt.name))
		})
	}
}

func TestFileTypeFromContent(t *testing.T) {
	tests := []struct {
		name string
		head []byte
		want string
	}{
		{"JPEG JFIF", []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F'}, "image/jpeg"},
		{"JPEG Exif", []byte{0xFF, 0xD8, 0xFF, 0xE1}, "image/jpeg"},
		{"PNG", []byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 'I', 'H', 'D', 'R'}, "image/png"},
		{"PDF", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"), "application/pdf"},
		{"truncated PNG signature", []byte{0x89, 'P', 'N', 'G'}, ""},
		{"truncated JPEG signature", []byte{0xFF, 0xD8}, ""},
		{"PDF marker not at the start", []byte(" %PDF-1.4"), ""},
		{"GIF", []byte("GIF89a"), ""},
		{"HTML", []byte("<!DOCTYPE html>"), ""},
		{"ZIP", []byte("PK\x03\x04"), ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.FileTypeFromContent(tt.head))
		})
	}
}

func TestMaxInvoiceFileBytes(t *testing.T) {
	assert.Equal(t, 10*1024*1024, pay.MaxInvoiceFileBytes)
}

func TestInvoiceFileProblem(t *testing.T) {
	pdf := []byte("%PDF-1.4")
	tests := []struct {
		name string
		size int64
		head []byte
		want string
	}{
		{"small PDF", 1024, pdf, ""},
		{"exactly 10 MB", pay.MaxInvoiceFileBytes, pdf, ""},
		{"one byte over", pay.MaxInvoiceFileBytes + 1, pdf, "ファイルサイズが10MBを超えています。10MB以下のファイルを選択してください。"},
		{"empty", 0, nil, "ファイルが空です。請求書のファイルを選択してください。"},
		{"not an accepted format", 1024, []byte("GIF89a"), "JPEG、PNG、PDF のいずれかの形式のファイルを選択してください。"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.InvoiceFileProblem(tt.size, tt.head))
		})
	}
}
