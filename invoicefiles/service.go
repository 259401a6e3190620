package invoicefiles

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/files"
	"cardpay/pay"
	"cardpay/store"
)

// Service is the invoice files' domain that the upload page, the file pages, the
// operator's screening and the API share (issue 11). The rules are pay.CheckInvoiceFile;
// the bytes go to Files; the row (and its OCR job) to the store.
type Service struct {
	Store *store.Store
	// Files keeps the invoice files' bytes (files.Local or files.S3).
	Files files.Store
	// Signer signs the app's own short-lived upload and download URLs (files.Signer,
	// from SECRET_KEY).
	Signer URLSigner
	// Thumbnailer draws the previews (ocr.Reader with PreviewTimeout).
	Thumbnailer Thumbnailer
	// Tools checks that the OCR tools are installed (ocr.Reader), for the upload page's
	// notice (ReadingUnavailable); nil takes them as installed.
	Tools  ToolCheck
	Logger *slog.Logger
	// Now is the time; tests move it. nil is time.Now.
	Now func() time.Time

	check readingCheck
}

// URLSigner makes and checks the app's signed URL tokens (files.Signer): purpose
// ("upload", "download"), the buyer, the file (0 for an upload) and the expiry are bound
// by an HMAC of SECRET_KEY; Verify fails on an expired or altered token.
type URLSigner interface {
	Sign(purpose string, buyerID, fileID int64, expires time.Time) string
	Verify(purpose, token string, now time.Time) (buyerID, fileID int64, err error)
}

// Upload is a file as a request brought it: its name as the sender gave it (clipped,
// valid UTF-8, without folders: web.FileName) and its bytes.
type Upload struct {
	Name  string
	Bytes []byte
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Save checks up (pay.CheckInvoiceFile), stores its bytes under a new random key and
// records the file for buyerID, which enqueues its reading (OCR). A refusal stores
// nothing and is returned as the message; when the record cannot be written the stored
// bytes are deleted again.
func (s *Service) Save(ctx context.Context, buyerID int64, up Upload) (store.InvoiceFile, string, error) {
	return s.save(ctx, buyerID, up, nil)
}

// save is Save, with also run in the file's transaction after its reading is queued.
func (s *Service) save(ctx context.Context, buyerID int64, up Upload, also func(tx *sqlx.Tx, f store.InvoiceFile) error) (store.InvoiceFile, string, error) {
	info, problem := pay.CheckInvoiceFile(up.Name, up.Bytes)
	if problem != "" {
		return store.InvoiceFile{}, problem, nil
	}
	if s.Files == nil {
		return store.InvoiceFile{}, "", errors.New("invoicefiles: no file storage (Service.Files)")
	}
	sum := sha256.Sum256(up.Bytes)
	// Server-made and random: never the sender's name, which could hold anything.
	key := fmt.Sprintf("invoices/%d/%s", buyerID, strings.ToLower(rand.Text()))
	if err := s.Files.Put(ctx, key, bytes.NewReader(up.Bytes), int64(len(up.Bytes)), info.MediaType); err != nil {
		return store.InvoiceFile{}, "", fmt.Errorf("invoicefiles: storing an invoice file: %w", err)
	}
	f, err := s.Store.CreateInvoiceFile(ctx, buyerID, store.NewInvoiceFile{
		StorageKey: key, OriginalName: up.Name, Size: int64(len(up.Bytes)), MediaType: info.MediaType,
		SHA256: hex.EncodeToString(sum[:]), Pages: info.Pages,
	}, func(tx *sqlx.Tx, f store.InvoiceFile) error {
		if err := QueueOCR(ctx, s.Store)(tx, f); err != nil || also == nil {
			return err
		}
		return also(tx, f)
	})
	if err != nil {
		if derr := s.Files.Delete(context.WithoutCancel(ctx), key); derr != nil {
			s.logger().Error("invoicefiles: deleting an unrecorded invoice file", "key", key, "error", derr)
		}
		return store.InvoiceFile{}, "", err
	}
	return f, "", nil
}

// Open reads f's stored bytes.
func (s *Service) Open(ctx context.Context, f store.InvoiceFile) (io.ReadCloser, error) {
	if s.Files == nil {
		return nil, errors.New("invoicefiles: no file storage (Service.Files)")
	}
	return s.Files.Open(ctx, f.StorageKey)
}

// SignedDownloadPath is where the app serves a signed download URL (handlers/api routes
// it): the token after it names the buyer and the file.
const SignedDownloadPath = "/api/v1/invoices/files/signed_download/"

// DownloadURLTTL is how long a signed download URL works.
const DownloadURLTTL = 5 * time.Minute

// DownloadURL is a signed, root-relative URL that sends buyerID's file fileID as a
// download until the returned time.
func (s *Service) DownloadURL(buyerID, fileID int64) (string, time.Time) {
	exp := s.now().Add(DownloadURLTTL)
	return SignedDownloadPath + s.Signer.Sign("download", buyerID, fileID, exp), exp
}

// VerifyDownload checks the token of a signed download URL (after SignedDownloadPath):
// the buyer and the file it sends, or an error when it expired or was altered.
func (s *Service) VerifyDownload(token string) (buyerID, fileID int64, err error) {
	return s.Signer.Verify("download", token, s.now())
}

// UploadToken is the token of a signed upload URL for buyerID that works until exp.
// nonce stands in the file's place: each URL is its own, also two asked for in the same
// second, so that each takes its own one upload.
func (s *Service) UploadToken(buyerID, nonce int64, exp time.Time) string {
	return s.Signer.Sign("upload", buyerID, nonce, exp)
}

// VerifyUpload checks the token of a signed upload URL: the buyer it uploads for, or an
// error when it expired or was altered.
func (s *Service) VerifyUpload(token string) (buyerID int64, err error) {
	buyerID, _, err = s.Signer.Verify("upload", token, s.now())
	return buyerID, err
}
