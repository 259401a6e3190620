package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// OCR states of an invoice file (invoice_files.ocr_status).
const (
	OCRPending     = "pending"
	OCRRunning     = "running"
	OCRDone        = "done"
	OCRFailed      = "failed"
	OCRUnavailable = "unavailable" // a tool is missing: the buyer types the fields
)

// InvoiceFile is an uploaded invoice as stored: the bytes are in the file store under
// StorageKey.
type InvoiceFile struct {
	ID           int64           `db:"id"`
	BuyerID      int64           `db:"buyer_id"`
	StorageKey   string          `db:"storage_key"`
	OriginalName string          `db:"original_name"`
	Size         int64           `db:"size"`
	MediaType    string          `db:"media_type"`
	SHA256       string          `db:"sha256"`
	Pages        int             `db:"pages"`
	OCRStatus    string          `db:"ocr_status"`
	OCRFields    json.RawMessage `db:"ocr_fields"`
	OCRText      string          `db:"ocr_text"`
	OCRError     string          `db:"ocr_error"`
	OCRMs        int             `db:"ocr_ms"`
	LockedAt     *time.Time      `db:"locked_at"`
	CreatedAt    time.Time       `db:"created_at"`
}

// NewInvoiceFile is a file whose bytes are already in the file store: the key the
// server made for it, what pay.CheckInvoiceFile found, the SHA-256 in hex.
type NewInvoiceFile struct {
	StorageKey   string
	OriginalName string
	Size         int64
	MediaType    string
	SHA256       string
	Pages        int
}

// InvoiceFileOCR is what the OCR job writes back.
type InvoiceFileOCR struct {
	Status string
	Fields json.RawMessage // nil keeps {}
	// Lines are the reading's lines with their boxes (invoiceread.MarshalLines; nil
	// keeps []): what a payment of the file learns its supplier's places from.
	Lines json.RawMessage
	Text  string
	Error string
	Ms    int
}

const invoiceFileColumns = `id, buyer_id, storage_key, original_name, size, media_type, sha256, pages,
	ocr_status, ocr_fields, ocr_text, ocr_error, ocr_ms, locked_at, created_at`

// CreateInvoiceFile records an uploaded file and runs also with it in the same
// transaction: the caller queues the file's reading there (invoicefiles.QueueOCR), so
// that every file has its job and a rolled-back upload none. also is required.
func (s *Store) CreateInvoiceFile(ctx context.Context, buyerID int64, f NewInvoiceFile, also func(tx *sqlx.Tx, f InvoiceFile) error) (InvoiceFile, error) {
	if also == nil {
		return InvoiceFile{}, errors.New("store: invoice file without its reading job")
	}
	var out InvoiceFile
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := sqlx.GetContext(ctx, tx, &out, `INSERT INTO invoice_files
			(buyer_id, storage_key, original_name, size, media_type, sha256, pages)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+invoiceFileColumns,
			buyerID, f.StorageKey, f.OriginalName, f.Size, f.MediaType, f.SHA256, f.Pages); err != nil {
			return fmt.Errorf("store: create invoice file: %w", err)
		}
		return also(tx, out)
	})
	if err != nil {
		return InvoiceFile{}, err
	}
	return out, nil
}

// InvoiceFile loads one of the buyer's files; another buyer's is ErrNotFound.
func (s *Store) InvoiceFile(ctx context.Context, buyerID, id int64) (InvoiceFile, error) {
	return getOne[InvoiceFile](ctx, s.DB, fmt.Sprintf("invoice file %d", id),
		`SELECT `+invoiceFileColumns+` FROM invoice_files WHERE buyer_id = $1 AND id = $2`, buyerID, id)
}

// SetInvoiceFileOCR stores the OCR state and, when given, what was read.
func (s *Store) SetInvoiceFileOCR(ctx context.Context, buyerID, id int64, r InvoiceFileOCR) error {
	fields, lines := r.Fields, r.Lines
	if len(fields) == 0 {
		fields = json.RawMessage(`{}`)
	}
	if len(lines) == 0 {
		lines = json.RawMessage(`[]`)
	}
	res, err := s.DB.ExecContext(ctx, `UPDATE invoice_files
		SET ocr_status = $3, ocr_fields = $4, ocr_text = $5, ocr_error = $6, ocr_ms = $7, ocr_lines = $8
		WHERE buyer_id = $1 AND id = $2`, buyerID, id, r.Status, string(fields), r.Text, r.Error, r.Ms, string(lines))
	if err != nil {
		return fmt.Errorf("store: set OCR of invoice file %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: set OCR of invoice file %d: %w", id, ErrNotFound)
	}
	return nil
}

// InvoiceFileReading is the reading of another of the buyer's files with the same bytes
// (sha256), the newest done one: the OCR job copies it rather than read the same file
// twice. ok is false when there is none.
func (s *Store) InvoiceFileReading(ctx context.Context, buyerID int64, sha256 string, exceptID int64) (r InvoiceFileOCR, ok bool, err error) {
	var row struct {
		Fields json.RawMessage `db:"ocr_fields"`
		Lines  json.RawMessage `db:"ocr_lines"`
		Text   string          `db:"ocr_text"`
		Ms     int             `db:"ocr_ms"`
	}
	err = sqlx.GetContext(ctx, s.DB, &row, `SELECT ocr_fields, ocr_lines, ocr_text, ocr_ms FROM invoice_files
		WHERE buyer_id = $1 AND sha256 = $2 AND id <> $3 AND ocr_status = $4 ORDER BY id DESC LIMIT 1`,
		buyerID, sha256, exceptID, OCRDone)
	if notFound(err) {
		return InvoiceFileOCR{}, false, nil
	}
	if err != nil {
		return InvoiceFileOCR{}, false, fmt.Errorf("store: reading of invoice file %s: %w", sha256, err)
	}
	return InvoiceFileOCR{Status: OCRDone, Fields: row.Fields, Lines: row.Lines, Text: row.Text, Ms: row.Ms}, true, nil
}

// InvoiceFileLines are the lines of the buyer's file's reading (InvoiceFileOCR.Lines; []
// when it has none), read apart from the file's row: only a payment of the file needs
// them. ErrNotFound when the file is not the buyer's.
func (s *Store) InvoiceFileLines(ctx context.Context, buyerID, id int64) (json.RawMessage, error) {
	var lines json.RawMessage
	err := sqlx.GetContext(ctx, s.DB, &lines, `SELECT ocr_lines FROM invoice_files WHERE buyer_id = $1 AND id = $2`, buyerID, id)
	if notFound(err) {
		return nil, fmt.Errorf("store: lines of invoice file %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: lines of invoice file %d: %w", id, err)
	}
	return lines, nil
}

// LockInvoiceFile marks the file as used by a submitted payment and returns when it
// was locked: the first lock's time stands, whoever locks again.
func (s *Store) LockInvoiceFile(ctx context.Context, buyerID, id int64, now time.Time) (time.Time, error) {
	var at time.Time
	err := sqlx.GetContext(ctx, s.DB, &at, `UPDATE invoice_files SET locked_at = COALESCE(locked_at, $3)
		WHERE buyer_id = $1 AND id = $2 RETURNING locked_at`, buyerID, id, now)
	if notFound(err) {
		return time.Time{}, fmt.Errorf("store: lock invoice file %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("store: lock invoice file %d: %w", id, err)
	}
	return at, nil
}
