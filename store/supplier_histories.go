package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"cardpay/pay"
)

// SupplierHistory is what the buyer last used when paying one supplier's uploaded invoice
// (issue 28, learn per supplier): the issuer's numbers, the values the buyer finally
// submitted for the fields an invoice's reading produces, and the fields the reading had
// missed or got wrong (Corrected, by invoiceread.Fields' JSON keys). One row per
// supplier, the newest payment's.
type SupplierHistory struct {
	BuyerID    int64 `db:"buyer_id"`
	SupplierID int64 `db:"supplier_id"`
	// InvoiceID is the payment it was learned from.
	InvoiceID          int64           `db:"invoice_id"`
	RegistrationNumber string          `db:"registration_number"` // T + 13 digits, or ""
	CorporateNumber    string          `db:"corporate_number"`    // 13 digits, or ""
	IssuerName         string          `db:"issuer_name"`
	BankCode           string          `db:"bank_code"`
	BankName           string          `db:"bank_name"`
	BranchCode         string          `db:"branch_code"`
	BranchName         string          `db:"branch_name"`
	AccountType        pay.AccountType `db:"account_type"`
	AccountNumber      string          `db:"account_number"`
	HolderName         string          `db:"holder_name"`
	Corrected          pq.StringArray  `db:"corrected"`
	// Places are where the invoice printed its changing values (invoiceread.Place, as
	// JSON; nil keeps []).
	Places    json.RawMessage `db:"places"`
	UpdatedAt time.Time       `db:"updated_at"`
}

const supplierHistoryColumns = `h.buyer_id, h.supplier_id, h.invoice_id, h.registration_number, h.corporate_number,
	h.issuer_name, h.bank_code, h.bank_name, h.branch_code, h.branch_name, h.account_type, h.account_number,
	h.holder_name, h.corrected, h.places, h.updated_at`

// SaveSupplierHistory remembers h for the supplier of the buyer's payment invoiceID, in
// tx: the submission's transaction (the also of StartPayment), so that a rolled-back
// submission teaches nothing. The supplier is the payment's own, also one created with
// it; h's BuyerID, SupplierID and InvoiceID are not read. It replaces what the supplier's
// last payment taught (its places only when h has some). ErrNotFound when the payment is
// not the buyer's.
func (s *Store) SaveSupplierHistory(ctx context.Context, tx *sqlx.Tx, buyerID, invoiceID int64, h SupplierHistory) error {
	corrected, places := h.Corrected, h.Places
	if corrected == nil {
		corrected = pq.StringArray{}
	}
	if len(places) == 0 {
		places = json.RawMessage(`[]`)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO supplier_histories (buyer_id, supplier_id, invoice_id,
		registration_number, corporate_number, issuer_name, bank_code, bank_name, branch_code, branch_name,
		account_type, account_number, holder_name, corrected, places, updated_at)
		SELECT i.buyer_id, i.supplier_id, i.id, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, now()
		FROM invoices i WHERE i.buyer_id = $1 AND i.id = $2
		ON CONFLICT (buyer_id, supplier_id) DO UPDATE SET invoice_id = EXCLUDED.invoice_id,
			registration_number = EXCLUDED.registration_number, corporate_number = EXCLUDED.corporate_number,
			issuer_name = EXCLUDED.issuer_name, bank_code = EXCLUDED.bank_code, bank_name = EXCLUDED.bank_name,
			branch_code = EXCLUDED.branch_code, branch_name = EXCLUDED.branch_name,
			account_type = EXCLUDED.account_type, account_number = EXCLUDED.account_number,
			holder_name = EXCLUDED.holder_name, corrected = EXCLUDED.corrected,
			-- A file that taught no places (a PDF's text layer) keeps the last ones.
			places = CASE WHEN EXCLUDED.places = '[]' THEN supplier_histories.places ELSE EXCLUDED.places END,
			updated_at = now()`,
		buyerID, invoiceID, h.RegistrationNumber, h.CorporateNumber, h.IssuerName, h.BankCode, h.BankName,
		h.BranchCode, h.BranchName, h.AccountType, h.AccountNumber, h.HolderName, corrected, string(places))
	if err != nil {
		return fmt.Errorf("store: supplier history of payment %d: %w", invoiceID, err)
	}
	if rowsAffected(res) == 0 {
		return fmt.Errorf("store: supplier history of payment %d: %w", invoiceID, ErrNotFound)
	}
	return nil
}

// SupplierHistories lists what the buyer's suppliers taught, those not deleted, by
// supplier. A buyer has one row per supplier at most, so all of them are few enough to
// choose from in Go (invoiceread.FindHistory), as the match candidates are.
func (s *Store) SupplierHistories(ctx context.Context, buyerID int64) ([]SupplierHistory, error) {
	var out []SupplierHistory
	if err := s.DB.SelectContext(ctx, &out, `SELECT `+supplierHistoryColumns+` FROM supplier_histories h
		JOIN suppliers s ON s.buyer_id = h.buyer_id AND s.id = h.supplier_id AND s.deleted_at IS NULL
		WHERE h.buyer_id = $1 ORDER BY h.supplier_id`, buyerID); err != nil {
		return nil, fmt.Errorf("store: supplier histories of buyer %d: %w", buyerID, err)
	}
	return out, nil
}

// forgetSupplierHistory is DeleteSupplier's: a deleted supplier's invoices teach nothing
// any more.
func forgetSupplierHistory(ctx context.Context, tx *sqlx.Tx, buyerID, supplierID int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM supplier_histories WHERE buyer_id = $1 AND supplier_id = $2`, buyerID, supplierID); err != nil {
		return fmt.Errorf("store: forget supplier history %d: %w", supplierID, err)
	}
	return nil
}
