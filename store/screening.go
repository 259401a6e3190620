package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"cardpay/pay"
)

// The operator console reads every buyer's payments: the methods below are for the
// operators' pages only (handlers/ops), never for a buyer's, and each says so.

// ScreeningItem is a payment as screening sees it: the payment, its buyer, and where
// its supplier and bank account stand.
type ScreeningItem struct {
	Payment
	BuyerName      string             `db:"buyer_name"`
	SupplierStatus pay.SupplierStatus `db:"supplier_status"`
	CheckedBy      *int64             `db:"checked_by"`
	CheckedByName  *string            `db:"checked_by_name"`
	SendBackCode   string             `db:"send_back_code"`
	// RequestFileID is the requester's invoice file when the payment pays a card-payment
	// request (the customer's invoice has none of its own); RequesterID its owner.
	RequestFileID *int64 `db:"request_file_id"`
	RequesterID   *int64 `db:"requester_id"`
	// The account the payment goes to, whether someone vouched for it, and when another
	// payment to it was first made (pay.AccountIsNew).
	AccountBankName    string          `db:"account_bank_name"`
	AccountBranchName  string          `db:"account_branch_name"`
	AccountType        pay.AccountType `db:"account_type"`
	AccountNumber      string          `db:"account_number"`
	AccountHolderName  string          `db:"account_holder_name"`
	AccountOrigin      string          `db:"account_origin"`
	AccountApprovedAt  *time.Time      `db:"account_approved_at"`
	AccountApprovedBy  *int64          `db:"account_approved_by"`
	AccountFirstPaidAt *time.Time      `db:"account_first_paid_at"`
}

// EvidenceFile is the invoice file screening compares with: the payment's own, or the
// requester's of a card-payment request, with the buyer who owns it.
func (p ScreeningItem) EvidenceFile() (ownerID int64, fileID *int64) {
	if p.FileID == nil && p.RequestFileID != nil && p.RequesterID != nil {
		return *p.RequesterID, p.RequestFileID
	}
	return p.BuyerID, p.FileID
}

// Queues of the screening page.
const (
	QueueWaiting  = ""        // 審査中 and 確認済, not waiting for the buyer: the operators' work
	QueueNew      = "new"     // 審査中 only
	QueueChecked  = "checked" // 確認済 only: waiting for a second operator
	QueueSentBack = "sent_back"
)

// ScreeningFilter narrows the queue.
type ScreeningFilter struct {
	Queue          string
	SupplierStatus pay.SupplierStatus // 0: every status
	Page, Size     int
}

const screeningColumns = paymentColumns + `, CASE WHEN b.business_form = 1 THEN b.corporate_name ELSE b.business_name END AS buyer_name,
	s.status AS supplier_status, i.checked_by, o.name AS checked_by_name, i.send_back_code,
	rq.file_id AS request_file_id, ir.requester_id,
	COALESCE(sa.bank_name, '') AS account_bank_name, COALESCE(sa.branch_name, '') AS account_branch_name,
	COALESCE(sa.account_type, 0) AS account_type, COALESCE(sa.account_number, '') AS account_number,
	COALESCE(sa.holder_name, '') AS account_holder_name, COALESCE(sa.origin, '') AS account_origin, sa.approved_at AS account_approved_at,
	sa.approved_by AS account_approved_by,
	(SELECT min(e.submitted_at) FROM invoices e WHERE e.account_id = i.account_id AND e.id <> i.id
		AND e.submitted_at IS NOT NULL AND e.card_status IN ('authorized', 'captured')) AS account_first_paid_at`

const screeningFrom = paymentFrom + ` JOIN buyers b ON b.id = i.buyer_id LEFT JOIN operators o ON o.id = i.checked_by
	LEFT JOIN invoice_requests ir ON ir.payment_invoice_id = i.id LEFT JOIN invoices rq ON rq.id = ir.invoice_id
	LEFT JOIN supplier_accounts sa ON sa.id = i.account_id AND sa.buyer_id = i.buyer_id `

// ScreeningQueue lists submitted payments of every buyer for the operators, oldest
// first (the longest waiting at the top), with the total. Operators only.
func (s *Store) ScreeningQueue(ctx context.Context, f ScreeningFilter) ([]ScreeningItem, int, error) {
	where := ` WHERE i.submitted_at IS NOT NULL AND i.card_status IN ('authorized', 'captured')`
	args := []any{}
	switch f.Queue {
	case QueueNew:
		where += ` AND i.examination_status = 1 AND NOT i.action_required`
	case QueueChecked:
		where += ` AND i.examination_status = 2 AND NOT i.action_required`
	case QueueSentBack:
		where += ` AND i.examination_status IN (1, 2, 3) AND i.action_required`
	default:
		where += ` AND i.examination_status IN (1, 2) AND NOT i.action_required`
	}
	if f.SupplierStatus != 0 {
		args = append(args, f.SupplierStatus)
		where += fmt.Sprintf(` AND s.status = $%d`, len(args))
	}
	var total int
	if err := s.DB.GetContext(ctx, &total, `SELECT count(*)`+paymentFrom+where, args...); err != nil {
		return nil, 0, fmt.Errorf("store: screening queue count: %w", err)
	}
	size := f.Size
	if size <= 0 {
		size = 50
	}
	args = append(args, size, f.Page*size)
	list := []ScreeningItem{}
	err := s.DB.SelectContext(ctx, &list, `SELECT `+screeningColumns+screeningFrom+where+
		fmt.Sprintf(` ORDER BY i.submitted_at, i.id LIMIT $%d OFFSET $%d`, len(args)-1, len(args)), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: screening queue: %w", err)
	}
	return list, total, nil
}

// ScreeningPayment reads any buyer's submitted payment for its screening page.
// Operators only.
func (s *Store) ScreeningPayment(ctx context.Context, id int64) (ScreeningItem, error) {
	return getOne[ScreeningItem](ctx, s.DB, fmt.Sprintf("payment %d for screening", id), `SELECT `+screeningColumns+screeningFrom+`
		WHERE i.id = $1 AND i.submitted_at IS NOT NULL AND i.card_status NOT IN ('none', 'pending', 'requires_action', 'declined')`, id)
}

// CheckedBy says which operator checked the payment (確认済), read in tx, the
// transaction that is about to complete it.
func (s *Store) CheckedBy(ctx context.Context, tx *sqlx.Tx, buyerID, id int64) (int64, error) {
	var by *int64
	if err := tx.GetContext(ctx, &by, `SELECT checked_by FROM invoices WHERE buyer_id = $1 AND id = $2`, buyerID, id); err != nil {
		return 0, fmt.Errorf("store: checked_by of payment %d: %w", id, err)
	}
	if by == nil {
		return 0, nil
	}
	return *by, nil
}

// SetCheckedBy records the operator who checked the payment, in tx; a send-back or a
// resubmission clears it with 0, so the next check starts the dual control again.
func (s *Store) SetCheckedBy(ctx context.Context, tx *sqlx.Tx, buyerID, id, operatorID int64, sendBackCode string) error {
	_, err := tx.ExecContext(ctx, `UPDATE invoices SET checked_by = $3, send_back_code = $4 WHERE buyer_id = $1 AND id = $2`,
		buyerID, id, nullID(operatorID), sendBackCode)
	if err != nil {
		return fmt.Errorf("store: checked_by of payment %d: %w", id, err)
	}
	return nil
}

// SupplierStatusOf reads the status of a payment's supplier in tx (the operator's
// completion waits for an approved supplier).
func (s *Store) SupplierStatusOf(ctx context.Context, tx *sqlx.Tx, buyerID, supplierID int64) (pay.SupplierStatus, error) {
	var st pay.SupplierStatus
	if err := tx.GetContext(ctx, &st, `SELECT status FROM suppliers WHERE buyer_id = $1 AND id = $2`, buyerID, supplierID); err != nil {
		return 0, fmt.Errorf("store: status of supplier %d: %w", supplierID, err)
	}
	return st, nil
}

// ReviewItem is a supplier waiting for an operator's review, with its buyer.
type ReviewItem struct {
	ID              int64              `db:"id"`
	BuyerID         int64              `db:"buyer_id"`
	BuyerName       string             `db:"buyer_name"`
	Name            string             `db:"name"`
	BusinessForm    pay.BusinessForm   `db:"business_form"`
	CorporateNumber string             `db:"corporate_number"`
	Status          pay.SupplierStatus `db:"status"`
	ReviewReason    string             `db:"review_reason"`
	CreatedAt       time.Time          `db:"created_at"`
	Payments        int                `db:"payments"`
}

// SupplierReviews lists suppliers of every buyer in the given statuses, oldest first,
// with the number of payments waiting on each. Operators only.
func (s *Store) SupplierReviews(ctx context.Context, statuses []pay.SupplierStatus) ([]ReviewItem, error) {
	var sts pq.Int64Array
	for _, st := range statuses {
		sts = append(sts, int64(st))
	}
	list := []ReviewItem{}
	err := s.DB.SelectContext(ctx, &list, `SELECT s.id, s.buyer_id,
		CASE WHEN b.business_form = 1 THEN b.corporate_name ELSE b.business_name END AS buyer_name,
		s.name, s.business_form, s.corporate_number, s.status, s.review_reason, s.created_at,
		(SELECT count(*) FROM invoices i WHERE i.supplier_id = s.id AND i.submitted_at IS NOT NULL
			AND i.examination_status IN (1, 2, 3)) AS payments
		FROM suppliers s JOIN buyers b ON b.id = s.buyer_id
		WHERE s.deleted_at IS NULL AND s.status = ANY($1) ORDER BY s.created_at, s.id`, sts)
	if err != nil {
		return nil, fmt.Errorf("store: supplier reviews: %w", err)
	}
	return list, nil
}

// SupplierReview reads one supplier of any buyer for its review. Operators only.
func (s *Store) SupplierReview(ctx context.Context, id int64) (ReviewItem, error) {
	return getOne[ReviewItem](ctx, s.DB, fmt.Sprintf("supplier %d for review", id), `SELECT s.id, s.buyer_id,
		CASE WHEN b.business_form = 1 THEN b.corporate_name ELSE b.business_name END AS buyer_name,
		s.name, s.business_form, s.corporate_number, s.status, s.review_reason, s.created_at,
		(SELECT count(*) FROM invoices i WHERE i.supplier_id = s.id AND i.submitted_at IS NOT NULL
			AND i.examination_status IN (1, 2, 3)) AS payments
		FROM suppliers s JOIN buyers b ON b.id = s.buyer_id WHERE s.id = $1 AND s.deleted_at IS NULL`, id)
}

// ReviewSupplier sets a supplier's status by an operator's review, when it is still
// from, with the audit row, and runs also (the buyer's notification) in the same
// transaction with the supplier's buyer and name and the audit row's id.
// ErrStateChanged when another operator reviewed it meanwhile.
func (s *Store) ReviewSupplier(ctx context.Context, id int64, from, to pay.SupplierStatus, reason string, audit NewAudit, now time.Time,
	also func(tx *sqlx.Tx, buyerID int64, name string, auditID int64) error) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var row struct {
			BuyerID int64  `db:"buyer_id"`
			Name    string `db:"name"`
		}
		err := tx.GetContext(ctx, &row, `UPDATE suppliers SET status = $3, review_reason = $4, updated_at = $5
			WHERE id = $1 AND status = $2 AND deleted_at IS NULL RETURNING buyer_id, name`, id, from, to, reason, now)
		if notFound(err) {
			return fmt.Errorf("store: review supplier %d: %w", id, ErrStateChanged)
		}
		if err != nil {
			return fmt.Errorf("store: review supplier %d: %w", id, err)
		}
		if err := s.AddAudit(ctx, tx, audit, now); err != nil {
			return err
		}
		var auditID int64
		if err := tx.GetContext(ctx, &auditID, `SELECT currval('operator_audit_id_seq')`); err != nil {
			return fmt.Errorf("store: review supplier %d: %w", id, err)
		}
		return also(tx, row.BuyerID, row.Name, auditID)
	})
}

// AuditSupplierAccount is the audit object of a supplier's bank account.
const AuditSupplierAccount = "supplier_account"

// ApproveSupplierAccount records an operator's approval of an account that came with a
// card-payment request, when it is still waiting, with its audit row, in one
// transaction: from then on transfer files take payments to it. ErrStateChanged when it
// was approved meanwhile; ErrNotFound when there is no such account. Operators only.
func (s *Store) ApproveSupplierAccount(ctx context.Context, id int64, audit NewAudit, now time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var supplierID int64
		err := tx.GetContext(ctx, &supplierID, `UPDATE supplier_accounts SET approved_at = $2, approved_by = $3, updated_at = $2
			WHERE id = $1 AND approved_at IS NULL RETURNING supplier_id`, id, now, audit.OperatorID)
		if notFound(err) {
			var exists bool
			if err := tx.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM supplier_accounts WHERE id = $1)`, id); err != nil {
				return fmt.Errorf("store: approve account %d: %w", id, err)
			}
			if !exists {
				return fmt.Errorf("store: approve account %d: %w", id, ErrNotFound)
			}
			return fmt.Errorf("store: approve account %d: %w", id, ErrStateChanged)
		}
		if err != nil {
			return fmt.Errorf("store: approve account %d: %w", id, err)
		}
		audit.ObjectType, audit.ObjectID = AuditSupplierAccount, id
		return s.AddAudit(ctx, tx, audit, now)
	})
}
