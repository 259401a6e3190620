package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/pay"
)

// Invoice is what a buyer pays (a payment to a supplier, or a card-payment request
// received from one) as the supplier screens read it: who was paid, how much and in
// which status. Payment is the whole row, for the payment screens.
type Invoice struct {
	ID                int64                 `db:"id"`
	BuyerID           int64                 `db:"buyer_id"`
	SupplierID        int64                 `db:"supplier_id"`
	AccountID         *int64                `db:"account_id"`
	InvoiceType       pay.InvoiceType       `db:"invoice_type"`
	ExaminationStatus pay.ExaminationStatus `db:"examination_status"`
	ActionRequired    bool                  `db:"action_required"`
	Amount            int64                 `db:"amount"`
	Fee               int64                 `db:"fee"`
	DueDate           *time.Time            `db:"due_date"`
	TransferDate      *time.Time            `db:"transfer_date"`
	CreatedAt         time.Time             `db:"created_at"`
}

const invoiceColumns = `id, buyer_id, supplier_id, account_id, invoice_type, examination_status, action_required, amount, fee, due_date, transfer_date, created_at`

// SupplierInvoices lists what the buyer paid or was asked to pay one of its suppliers,
// newest first, with paging (page from 0) and the total.
func (s *Store) SupplierInvoices(ctx context.Context, buyerID, supplierID int64, page, size int) ([]Invoice, int, error) {
	var total int
	if err := s.DB.GetContext(ctx, &total, `SELECT count(*) FROM invoices WHERE buyer_id = $1 AND supplier_id = $2 AND invoice_type IN ($3, $4)
		AND submitted_at IS NOT NULL`,
		buyerID, supplierID, pay.InvoicePayment, pay.InvoiceRequestBuyer); err != nil {
		return nil, 0, fmt.Errorf("store: invoices of supplier %d: %w", supplierID, err)
	}
	list := []Invoice{}
	if total == 0 || size <= 0 {
		return list, total, nil
	}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+invoiceColumns+` FROM invoices
		WHERE buyer_id = $1 AND supplier_id = $2 AND invoice_type IN ($3, $4) AND submitted_at IS NOT NULL
		ORDER BY id DESC LIMIT $5 OFFSET $6`,
		buyerID, supplierID, pay.InvoicePayment, pay.InvoiceRequestBuyer, size, page*size); err != nil {
		return nil, 0, fmt.Errorf("store: invoices of supplier %d: %w", supplierID, err)
	}
	return list, total, nil
}

// SupplierInvoice loads one invoice of type t that the buyer paid one of its suppliers.
func (s *Store) SupplierInvoice(ctx context.Context, buyerID, supplierID, id int64, t pay.InvoiceType) (Invoice, error) {
	var inv Invoice
	err := s.DB.GetContext(ctx, &inv, `SELECT `+invoiceColumns+` FROM invoices
		WHERE buyer_id = $1 AND supplier_id = $2 AND id = $3 AND invoice_type = $4 AND submitted_at IS NOT NULL`, buyerID, supplierID, id, t)
	if notFound(err) {
		return Invoice{}, fmt.Errorf("store: invoice %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Invoice{}, fmt.Errorf("store: invoice %d: %w", id, err)
	}
	return inv, nil
}

// NewInvoice is the part of an invoice the supplier screens need. Only the demo data and
// tests make invoices this way; the app's payments are made by StartPayment.
type NewInvoice struct {
	SupplierID        int64
	AccountID         *int64
	InvoiceType       pay.InvoiceType
	ExaminationStatus pay.ExaminationStatus
	Amount            int64
	Fee               int64
	TransferDate      *time.Time
	DueDate           *time.Time
	InvoiceNumber     string
}

// CreateInvoice inserts an invoice for one of the buyer's suppliers. The supplier (and
// the account, when given) must be the buyer's: the insert selects them by buyer. An
// invoice made past its screening (審査完了, 振込完了: the demo data, tests) holds a
// captured card and, once transferred, a done transfer, with the ledger's opening
// balances of that state, so that its books agree with it.
func (s *Store) CreateInvoice(ctx context.Context, buyerID int64, n NewInvoice) (int64, error) {
	card, transfer := pay.CardAuthorized, pay.TransferNone
	switch n.ExaminationStatus {
	case pay.InProgressExaminationCompleted:
		card = pay.CardCaptured
	case pay.TransferCompleted:
		card, transfer = pay.CardCaptured, pay.TransferDone
	}
	var id int64
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &id, `WITH i AS (INSERT INTO invoices (buyer_id, supplier_id, account_id, invoice_type,
			examination_status, amount, fee, transfer_date, submitted_at, authorized_amount, due_date, invoice_number,
			card_status, transfer_state)
			SELECT s.buyer_id, s.id, $3, $4, $5, $6, $7, $8, now(), $6::bigint + $7::bigint, $9, $10, $11, $12 FROM suppliers s
			WHERE s.buyer_id = $1 AND s.id = $2 AND s.deleted_at IS NULL
			AND ($3::bigint IS NULL OR EXISTS (SELECT 1 FROM supplier_accounts a WHERE a.buyer_id = $1 AND a.supplier_id = $2 AND a.id = $3))
			RETURNING id, buyer_id, examination_status)
			-- Its timeline starts with the submission, like a payment made through the journey.
			INSERT INTO invoice_events (invoice_id, buyer_id, action, to_status, actor)
			SELECT id, buyer_id, 'submit', examination_status, 'system' FROM i RETURNING invoice_id`,
			buyerID, n.SupplierID, n.AccountID, n.InvoiceType, n.ExaminationStatus, n.Amount, n.Fee, n.TransferDate, n.DueDate,
			n.InvoiceNumber, card, transfer)
		if notFound(err) {
			return fmt.Errorf("store: create invoice for supplier %d: %w", n.SupplierID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: create invoice: %w", err)
		}
		if card != pay.CardCaptured {
			return nil
		}
		return postOpening(ctx, tx, buyerID, id, card, transfer, time.Now())
	})
	return id, err
}

// PaymentCounts sizes the buyer's payment lists by the SPEC.md §4 bucket rules.
func (s *Store) PaymentCounts(ctx context.Context, buyerID int64) (pay.PaymentCounts, error) {
	p, _, err := s.listCounts(ctx, buyerID)
	return p, err
}

// CollectionCounts sizes the buyer's card-payment request lists (SPEC.md §4).
func (s *Store) CollectionCounts(ctx context.Context, buyerID int64) (pay.CollectionCounts, error) {
	_, c, err := s.listCounts(ctx, buyerID)
	return c, err
}

// listCountsQuery sizes both the payment and the request lists in one statement: the
// buckets from the counts index (what = 'invoices'), and the drafts of payments and of
// requests.
const listCountsQuery = `SELECT 'invoices' AS what, examination_status, invoice_type, action_required, count(*) AS n
	FROM invoices WHERE buyer_id = $1 AND submitted_at IS NOT NULL GROUP BY 2, 3, 4
	UNION ALL SELECT kind || '_drafts', 0, 0, false, count(*) FROM drafts WHERE buyer_id = $1 GROUP BY kind`

// countRow is one row of the counts' statements.
type countRow struct {
	What           string                `db:"what"`
	Status         pay.ExaminationStatus `db:"examination_status"`
	Type           pay.InvoiceType       `db:"invoice_type"`
	ActionRequired bool                  `db:"action_required"`
	N              int                   `db:"n"`
}

// listCounts sizes both the payment and the request lists in one round trip.
func (s *Store) listCounts(ctx context.Context, buyerID int64) (pay.PaymentCounts, pay.CollectionCounts, error) {
	var rows []countRow
	if err := s.selectPrepared(ctx, &rows, listCountsQuery, buyerID); err != nil {
		return pay.PaymentCounts{}, pay.CollectionCounts{}, fmt.Errorf("store: list counts of buyer %d: %w", buyerID, err)
	}
	c, cc := sumListCounts(rows)
	return c, cc, nil
}

// sumListCounts adds the rows of listCountsQuery into the lists' sizes (other rows are
// the caller's).
func sumListCounts(rows []countRow) (pay.PaymentCounts, pay.CollectionCounts) {
	var c pay.PaymentCounts
	var cc pay.CollectionCounts
	for _, r := range rows {
		switch {
		case r.What == "payment_drafts":
			c.Draft = r.N
			continue
		case r.What == "request_drafts":
			cc.Draft = r.N
			continue
		case r.What != "invoices":
			continue
		case r.Type == pay.InvoiceRequestSeller:
			switch b, _ := pay.CollectionBucketOf(pay.CollectionStatusOf(r.Status)); b {
			case pay.CollectionRequest:
				cc.Request += r.N
			case pay.CollectionDecided:
				cc.Decided += r.N
			case pay.CollectionHistory:
				cc.History += r.N
			}
			continue
		}
		b, ok := pay.PaymentBucketOf(r.Status, r.Type, r.ActionRequired)
		if !ok {
			continue
		}
		switch b {
		case pay.BucketWaiting:
			c.Waiting += r.N
		case pay.BucketReview:
			c.Review += r.N
		case pay.BucketActionRequired:
			c.ActionRequired += r.N
		case pay.BucketReserved:
			c.Reserved += r.N
		case pay.BucketHistory:
			c.History += r.N
		}
	}
	return c, cc
}
