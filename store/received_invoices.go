package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/pay"
)

// Where a received invoice came from (received_invoices.source).
const (
	ReceivedByUpload       = "upload"
	ReceivedByMail         = "mail"
	ReceivedBySupplierLink = "supplier_link"
)

// ReceivedInvoice is a received invoice as its lists and page show it
// (received_invoice_views): the row, its file, the latest payment made from it, its
// state and its search keys.
type ReceivedInvoice struct {
	ID                 int64           `db:"id"`
	BuyerID            int64           `db:"buyer_id"`
	FileID             int64           `db:"file_id"`
	Source             string          `db:"source"`
	Sender             string          `db:"sender"`
	Subject            string          `db:"subject"`
	AuthSPF            string          `db:"auth_spf"`
	AuthDKIM           string          `db:"auth_dkim"`
	AuthDMARC          string          `db:"auth_dmarc"`
	NewSender          bool            `db:"new_sender"`
	Disposition        pay.Disposition `db:"disposition"`
	DispositionReason  string          `db:"disposition_reason"`
	TransactionDate    *time.Time      `db:"transaction_date"`
	DueDate            *time.Time      `db:"due_date"`
	Amount             *int64          `db:"amount"`
	Counterparty       string          `db:"counterparty"`
	RegistrationNumber string          `db:"registration_number"`
	InvoiceNumber      string          `db:"invoice_number"`
	RetainUntil        time.Time       `db:"retain_until"`
	ReceivedAt         time.Time       `db:"received_at"`

	OriginalName string `db:"original_name"`
	MediaType    string `db:"media_type"`
	Size         int64  `db:"size"`
	SHA256       string `db:"sha256"`
	Pages        int    `db:"pages"`
	OCRStatus    string `db:"ocr_status"`

	PaymentID     *int64                 `db:"payment_id"`
	PaymentStatus *pay.ExaminationStatus `db:"payment_status"`
	State         pay.ReceivedState      `db:"state"`
	// ByPayment: a payment made from it is in screening or was transferred; no mark then.
	ByPayment bool `db:"by_payment"`

	KeyDate               *time.Time `db:"key_date"`
	KeyDueDate            *time.Time `db:"key_due_date"`
	KeyAmount             *int64     `db:"key_amount"`
	KeyCounterparty       string     `db:"key_counterparty"`
	KeyRegistrationNumber string     `db:"key_registration_number"`
}

// NewReceivedInvoice is where an invoice came from, recorded with its file.
type NewReceivedInvoice struct {
	Source    string
	Sender    string
	Subject   string
	AuthSPF   string // pass, fail or "" (none)
	AuthDKIM  string
	AuthDMARC string
	NewSender bool
	// Actor and UserID: who received it (the buyer's user for an upload, "" for mail).
	UserID int64
	Actor  string
}

const receivedColumns = `id, buyer_id, file_id, source, sender, subject, auth_spf, auth_dkim, auth_dmarc,
	new_sender, disposition, disposition_reason, transaction_date, due_date, amount, counterparty,
	registration_number, invoice_number, retain_until, received_at, original_name, media_type, size,
	sha256, pages, ocr_status, payment_id, payment_status, state, by_payment, key_date, key_due_date, key_amount,
	key_counterparty, key_registration_number`

func orNone(v string) string {
	if v == "" {
		return "none"
	}
	return v
}

// CreateReceivedInvoice records that the file (just stored, in tx) was received, with its
// first event: called from the file's own transaction (CreateInvoiceFile's also), so a
// received invoice never lacks its file nor a file its record.
func (s *Store) CreateReceivedInvoice(ctx context.Context, tx *sqlx.Tx, f InvoiceFile, r NewReceivedInvoice) (int64, error) {
	var id int64
	err := sqlx.GetContext(ctx, tx, &id, `INSERT INTO received_invoices
		(buyer_id, file_id, source, sender, subject, auth_spf, auth_dkim, auth_dmarc, new_sender, retain_until, received_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
		f.BuyerID, f.ID, r.Source, clip(r.Sender, 320), clip(r.Subject, 500), orNone(r.AuthSPF), orNone(r.AuthDKIM), orNone(r.AuthDMARC),
		r.NewSender, pay.RetainUntil(f.CreatedAt), f.CreatedAt)
	if err != nil {
		return 0, fmt.Errorf("store: receive invoice file %d: %w", f.ID, err)
	}
	after, _ := json.Marshal(map[string]string{"source": r.Source, "sender": r.Sender, "sha256": f.SHA256})
	if _, err := tx.ExecContext(ctx, `INSERT INTO received_invoice_events
		(received_invoice_id, buyer_id, kind, user_id, actor, after) VALUES ($1, $2, 'received', NULLIF($3, 0), $4, $5)`,
		id, f.BuyerID, r.UserID, r.Actor, string(after)); err != nil {
		return 0, fmt.Errorf("store: receive invoice file %d: %w", f.ID, err)
	}
	return id, nil
}

// ReceivedFilter chooses received invoices: a state's list, and the search that
// 電子帳簿保存法 asks for — 取引年月日 in a range, 取引金額 in a range, 取引先 — alone or
// combined. Zero values do not filter.
type ReceivedFilter struct {
	BuyerID      int64
	State        pay.ReceivedState // "": all
	From, To     time.Time         // the transaction date, both days included
	Min, Max     int64             // the amount, both included
	Counterparty string            // part of the counterparty's name
	Page, Size   int               // Size 0: the count alone
}

func (f ReceivedFilter) where() (string, []any) {
	args := []any{f.BuyerID}
	var w strings.Builder
	w.WriteString(` WHERE buyer_id = $1`)
	add := func(cond string, v any) {
		args = append(args, v)
		fmt.Fprintf(&w, cond, len(args))
	}
	if f.State != "" {
		add(` AND state = $%d`, string(f.State))
	}
	if !f.From.IsZero() {
		add(` AND key_date >= $%d`, f.From.Format(time.DateOnly))
	}
	if !f.To.IsZero() {
		add(` AND key_date <= $%d`, f.To.Format(time.DateOnly))
	}
	if f.Min > 0 {
		add(` AND key_amount >= $%d`, f.Min)
	}
	if f.Max > 0 {
		add(` AND key_amount <= $%d`, f.Max)
	}
	if c := strings.TrimSpace(f.Counterparty); c != "" {
		// A part of the name, its LIKE characters taken as themselves.
		add(` AND key_counterparty ILIKE '%%' || $%d || '%%'`, strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(c))
	}
	return w.String(), args
}

// ReceivedInvoices lists the buyer's received invoices that f chooses, newest first, a
// page at a time (page from 0), with how many there are.
func (s *Store) ReceivedInvoices(ctx context.Context, f ReceivedFilter) ([]ReceivedInvoice, int, error) {
	where, args := f.where()
	var total int
	if err := s.DB.GetContext(ctx, &total, `SELECT count(*) FROM received_invoice_views`+where, args...); err != nil {
		return nil, 0, fmt.Errorf("store: received invoices of buyer %d: %w", f.BuyerID, err)
	}
	list := []ReceivedInvoice{}
	if total == 0 || f.Size <= 0 || f.Page*f.Size >= total {
		return list, total, nil
	}
	args = append(args, f.Size, f.Page*f.Size)
	q := `SELECT ` + receivedColumns + ` FROM received_invoice_views` + where +
		fmt.Sprintf(` ORDER BY id DESC LIMIT $%d OFFSET $%d`, len(args)-1, len(args))
	if err := s.DB.SelectContext(ctx, &list, q, args...); err != nil {
		return nil, 0, fmt.Errorf("store: received invoices of buyer %d: %w", f.BuyerID, err)
	}
	return list, total, nil
}

// ReceivedInvoice loads one of the buyer's received invoices; another buyer's is
// ErrNotFound.
func (s *Store) ReceivedInvoice(ctx context.Context, buyerID, id int64) (ReceivedInvoice, error) {
	return getOne[ReceivedInvoice](ctx, s.DB, fmt.Sprintf("received invoice %d", id),
		`SELECT `+receivedColumns+` FROM received_invoice_views WHERE buyer_id = $1 AND id = $2`, buyerID, id)
}

// ReceivedInvoiceCounts is how many of the buyer's received invoices each list holds.
func (s *Store) ReceivedInvoiceCounts(ctx context.Context, buyerID int64) (map[pay.ReceivedState]int, error) {
	var rows []struct {
		State pay.ReceivedState `db:"state"`
		N     int               `db:"n"`
	}
	// The view's state rule over received_invoices alone: the view also joins the file,
	// the latest payment and its supplier and reads the reading's JSON for every row,
	// which the tabs on every page of the area do not need.
	if err := s.DB.SelectContext(ctx, &rows, `SELECT CASE
			WHEN EXISTS (SELECT 1 FROM invoices i WHERE i.file_id = ri.file_id AND i.buyer_id = ri.buyer_id
				AND i.submitted_at IS NOT NULL AND i.examination_status = 4) THEN 'paid'
			WHEN EXISTS (SELECT 1 FROM invoices i WHERE i.file_id = ri.file_id AND i.buyer_id = ri.buyer_id
				AND i.submitted_at IS NOT NULL AND i.examination_status IN (1, 2, 3)) THEN 'scheduled'
			WHEN ri.disposition = 'paid_elsewhere' THEN 'paid'
			WHEN ri.disposition = 'not_to_pay' THEN 'set_aside'
			ELSE 'new' END AS state, count(*) AS n
		FROM received_invoices ri WHERE ri.buyer_id = $1 GROUP BY 1`, buyerID); err != nil {
		return nil, fmt.Errorf("store: received invoice counts of buyer %d: %w", buyerID, err)
	}
	out := map[pay.ReceivedState]int{}
	for _, r := range rows {
		out[r.State] = r.N
	}
	return out, nil
}

// ReceivedInvoiceEvent is one event of a received invoice's history.
type ReceivedInvoiceEvent struct {
	ID        int64           `db:"id"`
	Kind      string          `db:"kind"`
	Actor     string          `db:"actor"`
	Before    json.RawMessage `db:"before"`
	After     json.RawMessage `db:"after"`
	CreatedAt time.Time       `db:"created_at"`
}

// ReceivedInvoiceEvents is the invoice's history, oldest first.
func (s *Store) ReceivedInvoiceEvents(ctx context.Context, buyerID, id int64) ([]ReceivedInvoiceEvent, error) {
	list := []ReceivedInvoiceEvent{}
	if err := s.DB.SelectContext(ctx, &list, `SELECT id, kind, actor, before, after, created_at
		FROM received_invoice_events WHERE buyer_id = $1 AND received_invoice_id = $2 ORDER BY id`, buyerID, id); err != nil {
		return nil, fmt.Errorf("store: events of received invoice %d: %w", id, err)
	}
	return list, nil
}

// ErrReceivedChanged: the invoice changed since the buyer looked (another tab marked it,
// or a payment from it was submitted); nothing was written.
var ErrReceivedChanged = errors.New("store: the received invoice changed meanwhile")

// MarkReceivedInvoice records what the buyer decided (paid elsewhere, not to be paid,
// or open again) with its event, if the invoice still has the disposition the buyer saw
// (from) and no payment from it is being screened or was transferred: a conditional
// update, so two tabs or a payment submitted meanwhile cannot both win.
func (s *Store) MarkReceivedInvoice(ctx context.Context, buyerID, id int64, from, to pay.Disposition, reason string, userID int64, actor string) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE received_invoices ri SET disposition = $4, disposition_reason = $5
			WHERE ri.buyer_id = $1 AND ri.id = $2 AND ri.disposition = $3
			AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.file_id = ri.file_id AND i.buyer_id = ri.buyer_id
				AND i.submitted_at IS NOT NULL AND i.examination_status IN (1, 2, 3, 4))`,
			buyerID, id, from, to, reason)
		if err != nil {
			return fmt.Errorf("store: mark received invoice %d: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrReceivedChanged
		}
		before, _ := json.Marshal(map[string]string{"disposition": string(from)})
		after, _ := json.Marshal(map[string]string{"disposition": string(to), "reason": reason})
		_, err = tx.ExecContext(ctx, `INSERT INTO received_invoice_events
			(received_invoice_id, buyer_id, kind, user_id, actor, before, after) VALUES ($1, $2, 'marked', NULLIF($3, 0), $4, $5, $6)`,
			id, buyerID, userID, actor, string(before), string(after))
		if err != nil {
			return fmt.Errorf("store: mark received invoice %d: %w", id, err)
		}
		return nil
	})
}

// ReceivedKeys are the values a buyer corrects on a received invoice: the search keys
// and what finds duplicates. A nil or "" value is the reading's.
type ReceivedKeys struct {
	TransactionDate    *time.Time `json:"transaction_date"`
	DueDate            *time.Time `json:"due_date"`
	Amount             *int64     `json:"amount"`
	Counterparty       string     `json:"counterparty"`
	RegistrationNumber string     `json:"registration_number"`
	InvoiceNumber      string     `json:"invoice_number"`
}

// Keys are the corrections stored on r.
func (r ReceivedInvoice) Keys() ReceivedKeys {
	return ReceivedKeys{r.TransactionDate, r.DueDate, r.Amount, r.Counterparty, r.RegistrationNumber, r.InvoiceNumber}
}

// CorrectReceivedInvoice stores the buyer's corrections, keeping the values they replace
// in the invoice's history with who and when (電子帳簿保存法: a correction never erases).
// from is what the buyer saw; if the invoice was corrected meanwhile nothing is written
// (ErrReceivedChanged).
func (s *Store) CorrectReceivedInvoice(ctx context.Context, buyerID, id int64, from, to ReceivedKeys, userID int64, actor string) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var cur ReceivedInvoice
		if err := sqlx.GetContext(ctx, tx, &cur, `SELECT `+receivedColumns+` FROM received_invoice_views
			WHERE buyer_id = $1 AND id = $2`, buyerID, id); err != nil {
			if notFound(err) {
				return fmt.Errorf("store: received invoice %d: %w", id, ErrNotFound)
			}
			return fmt.Errorf("store: correct received invoice %d: %w", id, err)
		}
		// Lock the row, then compare what the buyer saw with what is stored.
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM received_invoices WHERE id = $1 FOR UPDATE`, id); err != nil {
			return fmt.Errorf("store: correct received invoice %d: %w", id, err)
		}
		before, _ := json.Marshal(cur.Keys())
		saw, _ := json.Marshal(from)
		if string(before) != string(saw) {
			return ErrReceivedChanged
		}
		after, _ := json.Marshal(to)
		if string(after) == string(before) {
			return nil // nothing changed: no event
		}
		if _, err := tx.ExecContext(ctx, `UPDATE received_invoices SET transaction_date = $3, due_date = $4,
			amount = $5, counterparty = $6, registration_number = $7, invoice_number = $8
			WHERE buyer_id = $1 AND id = $2`, buyerID, id, dateOrNil(to.TransactionDate), dateOrNil(to.DueDate),
			to.Amount, to.Counterparty, to.RegistrationNumber, to.InvoiceNumber); err != nil {
			return fmt.Errorf("store: correct received invoice %d: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO received_invoice_events
			(received_invoice_id, buyer_id, kind, user_id, actor, before, after) VALUES ($1, $2, 'corrected', NULLIF($3, 0), $4, $5, $6)`,
			id, buyerID, userID, actor, string(before), string(after)); err != nil {
			return fmt.Errorf("store: correct received invoice %d: %w", id, err)
		}
		return nil
	})
}

func dateOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.Format(time.DateOnly)
}

// ReceivedInvoiceDuplicates are the buyer's other received invoices that look like the
// same invoice as r: the same file (its SHA-256: sent twice), the same registration
// number and invoice number, or the same counterparty, amount and transaction date.
// Flagged before paying, never refused: a supplier may bill the same amount twice on one
// day.
func (s *Store) ReceivedInvoiceDuplicates(ctx context.Context, r ReceivedInvoice) ([]ReceivedInvoice, error) {
	list := []ReceivedInvoice{}
	err := s.DB.SelectContext(ctx, &list, `SELECT `+receivedColumns+` FROM received_invoice_views
		WHERE buyer_id = $1 AND id <> $2 AND (sha256 = $8
			OR ($3 <> '' AND $4 <> '' AND key_registration_number = $3 AND invoice_number = $4)
			OR (key_counterparty = $5 AND key_amount = $6 AND key_date = $7))
		ORDER BY id DESC LIMIT 10`,
		r.BuyerID, r.ID, r.KeyRegistrationNumber, r.InvoiceNumber, r.KeyCounterparty, r.KeyAmount, dateOrNil(r.KeyDate), r.SHA256)
	if err != nil {
		return nil, fmt.Errorf("store: duplicates of received invoice %d: %w", r.ID, err)
	}
	return list, nil
}

// PaymentDuplicate is a card payment the buyer submitted here that looks like the same
// invoice as a received one.
type PaymentDuplicate struct {
	ID           int64                 `db:"id"`
	Status       pay.ExaminationStatus `db:"examination_status"`
	Amount       int64                 `db:"amount"`
	SupplierName string                `db:"supplier_name"`
	SubmittedAt  time.Time             `db:"submitted_at"`
}

// ReceivedInvoicePaymentDuplicates are the buyer's payments, in screening or
// transferred, made from another file that looks like the same invoice as r: the same
// bytes, the same registration and invoice number, or the same supplier, amount and
// invoice date. The payments made from r's own file are its state, not duplicates.
func (s *Store) ReceivedInvoicePaymentDuplicates(ctx context.Context, r ReceivedInvoice) ([]PaymentDuplicate, error) {
	list := []PaymentDuplicate{}
	err := s.DB.SelectContext(ctx, &list, `SELECT i.id, i.examination_status, i.amount, s.name AS supplier_name, i.submitted_at
		FROM invoices i JOIN suppliers s ON s.id = i.supplier_id
		LEFT JOIN invoice_files f ON f.id = i.file_id
		WHERE i.buyer_id = $1 AND i.submitted_at IS NOT NULL AND i.examination_status IN (1, 2, 3, 4)
			AND i.file_id IS DISTINCT FROM $2
			AND (f.sha256 = $3
				OR ($4 <> '' AND $5 <> '' AND i.registration_number = $4 AND i.invoice_number = $5)
				OR (s.name = $6 AND i.amount = $7 AND i.invoice_date = $8))
		ORDER BY i.id DESC LIMIT 10`,
		r.BuyerID, r.FileID, r.SHA256, r.KeyRegistrationNumber, r.InvoiceNumber, r.KeyCounterparty, r.KeyAmount, dateOrNil(r.KeyDate))
	if err != nil {
		return nil, fmt.Errorf("store: payments like received invoice %d: %w", r.ID, err)
	}
	return list, nil
}
