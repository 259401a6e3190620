package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"cardpay/pay"
)

// Bank transfers (振込), for the operators' transfer pages only: every buyer's payments.

// ErrNothingToTransfer: no payment is due for a file on that day.
var ErrNothingToTransfer = errors.New("store: no transfer due")

// TransferItem is a screened payment with the account it is paid to.
type TransferItem struct {
	ID           int64  `db:"id"`
	BuyerID      int64  `db:"buyer_id"`
	BuyerName    string `db:"buyer_name"`
	SupplierName string `db:"supplier_name"`
	// Amount is what the payee receives: the invoice, less the fee when a request's
	// requester bears it.
	Amount           int64                 `db:"amount"`
	Fee              int64                 `db:"fee"`
	PaymentRef       string                `db:"payment_ref"`
	TransferDate     time.Time             `db:"transfer_date"`
	Status           pay.ExaminationStatus `db:"examination_status"`
	ActionRequired   bool                  `db:"action_required"`
	CardStatus       pay.CardStatus        `db:"card_status"`
	AuthorizedAmount int64                 `db:"authorized_amount"`
	TransferFileID   *int64                `db:"transfer_file_id"`
	TransferState    pay.TransferStage     `db:"transfer_state"`
	TransferFailure  string                `db:"transfer_failure"`
	TransferredAt    *time.Time            `db:"transferred_at"`
	CapturedAt       *time.Time            `db:"captured_at"`
	SubmittedAt      *time.Time            `db:"submitted_at"`
	BankCode         string                `db:"bank_code"`
	BankName         string                `db:"bank_name"`
	BranchCode       string                `db:"branch_code"`
	BranchName       string                `db:"branch_name"`
	AccountType      pay.AccountType       `db:"account_type"`
	AccountNumber    string                `db:"account_number"`
	HolderName       string                `db:"holder_name"`
	// AccountApproved: the account was vouched for (store.SupplierAccount.Approved); a
	// payment to an account that was not waits out of every transfer file.
	AccountApproved bool `db:"account_approved"`
}

const transferColumns = `i.id, i.buyer_id, CASE WHEN b.business_form = 1 THEN b.corporate_name ELSE b.business_name END AS buyer_name,
	s.name AS supplier_name, i.amount - i.payee_fee AS amount, i.fee, i.payment_ref, i.transfer_date, i.examination_status, i.action_required,
	i.card_status, i.authorized_amount, i.transfer_file_id, i.transfer_state, i.transfer_failure, i.transferred_at, i.captured_at, i.submitted_at,
	a.bank_code, a.bank_name, a.branch_code, a.branch_name, a.account_type, a.account_number, a.holder_name,
	a.approved_at IS NOT NULL AS account_approved`

const transferFrom = ` FROM invoices i JOIN suppliers s ON s.id = i.supplier_id AND s.buyer_id = i.buyer_id
	JOIN buyers b ON b.id = i.buyer_id
	JOIN supplier_accounts a ON a.id = i.account_id AND a.buyer_id = i.buyer_id `

// TransfersOn lists the payments whose transfer date is day and whose screening is
// complete: those waiting for a file, those in a file and those that failed.
// Operators only.
func (s *Store) TransfersOn(ctx context.Context, day time.Time) ([]TransferItem, error) {
	list := []TransferItem{}
	err := s.DB.SelectContext(ctx, &list, `SELECT `+transferColumns+transferFrom+`
		WHERE i.transfer_date = $1 AND i.submitted_at IS NOT NULL AND i.examination_status IN (3, 4)
		ORDER BY i.id`, day.Format("2006-01-02"))
	if err != nil {
		return nil, fmt.Errorf("store: transfers on %s: %w", day.Format("2006-01-02"), err)
	}
	return list, nil
}

// Transfer reads one payment for the transfer pages. Operators only.
func (s *Store) Transfer(ctx context.Context, id int64) (TransferItem, error) {
	return getOne[TransferItem](ctx, s.DB, fmt.Sprintf("transfer %d", id), `SELECT `+transferColumns+transferFrom+`
		WHERE i.id = $1 AND i.submitted_at IS NOT NULL`, id)
}

// TransferFile is a made 総合振込 file.
type TransferFile struct {
	ID           int64      `db:"id"`
	TransferDate time.Time  `db:"transfer_date"`
	RecordCount  int        `db:"record_count"`
	Total        int64      `db:"total"`
	SHA256       string     `db:"sha256"`
	CreatedBy    int64      `db:"created_by"`
	CreatedAt    time.Time  `db:"created_at"`
	SentBy       *int64     `db:"sent_by"`
	SentAt       *time.Time `db:"sent_at"`
}

const transferFileColumns = `id, transfer_date, record_count, total, sha256, created_by, created_at, sent_by, sent_at`

// TransferFilesOn lists the files made for day.
func (s *Store) TransferFilesOn(ctx context.Context, day time.Time) ([]TransferFile, error) {
	list := []TransferFile{}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+transferFileColumns+` FROM transfer_files WHERE transfer_date = $1 ORDER BY id`,
		day.Format("2006-01-02")); err != nil {
		return nil, fmt.Errorf("store: transfer files: %w", err)
	}
	return list, nil
}

// TransferFilesBetween lists the files of a date range (the reconciliation).
func (s *Store) TransferFilesBetween(ctx context.Context, from, to time.Time) ([]TransferFile, error) {
	list := []TransferFile{}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+transferFileColumns+` FROM transfer_files
		WHERE transfer_date BETWEEN $1 AND $2 ORDER BY transfer_date, id`, from.Format("2006-01-02"), to.Format("2006-01-02")); err != nil {
		return nil, fmt.Errorf("store: transfer files: %w", err)
	}
	return list, nil
}

// TransferFileContent is a file's bytes as they were made.
func (s *Store) TransferFileContent(ctx context.Context, id int64) (TransferFile, []byte, error) {
	f, err := getOne[TransferFile](ctx, s.DB, fmt.Sprintf("transfer file %d", id), `SELECT `+transferFileColumns+` FROM transfer_files WHERE id = $1`, id)
	if err != nil {
		return f, nil, err
	}
	var b []byte
	if err := s.DB.GetContext(ctx, &b, `SELECT content FROM transfer_files WHERE id = $1`, id); err != nil {
		return f, nil, fmt.Errorf("store: transfer file %d: %w", id, err)
	}
	return f, b, nil
}

// TransferFileIDs are the payments a file holds.
func (s *Store) TransferFileIDs(ctx context.Context, fileID int64) ([]int64, error) {
	var ids []int64
	if err := s.DB.SelectContext(ctx, &ids, `SELECT id FROM invoices WHERE transfer_file_id = $1 ORDER BY id`, fileID); err != nil {
		return nil, fmt.Errorf("store: payments of transfer file %d: %w", fileID, err)
	}
	return ids, nil
}

// MakeTransferFile puts the payments due on day that are not in a file yet (screening
// complete, card captured, not waiting for the buyer, paid to an approved account) into a new file, built by build
// from them, in one transaction that locks them: two operators making the day's file
// at once make one file. Each payment moves to the transfer stage filed with its event
// and its posting (payable → in transit). ErrNothingToTransfer when none is due.
// beforeCommit, when not nil, is called last in the transaction, before it commits (the
// kill test's point).
func (s *Store) MakeTransferFile(ctx context.Context, day time.Time, operatorID int64, now time.Time,
	build func([]TransferItem) ([]byte, error), beforeCommit func()) (TransferFile, error) {
	var f TransferFile
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var ids []int64
		// A payment whose account no one has vouched for (a request's account the
		// operators have not approved) stays out: money goes only where it was checked.
		if err := tx.SelectContext(ctx, &ids, `SELECT i.id FROM invoices i WHERE i.transfer_date = $1 AND i.examination_status = 3
			AND NOT i.action_required AND i.card_status = 'captured' AND i.transfer_state = '' AND i.submitted_at IS NOT NULL
			AND EXISTS (SELECT 1 FROM supplier_accounts a WHERE a.id = i.account_id AND a.buyer_id = i.buyer_id
				AND a.approved_at IS NOT NULL)
			ORDER BY i.id FOR UPDATE OF i`, day.Format("2006-01-02")); err != nil {
			return fmt.Errorf("store: transfer file of %s: %w", day.Format("2006-01-02"), err)
		}
		if len(ids) == 0 {
			return ErrNothingToTransfer
		}
		var items []TransferItem
		if err := tx.SelectContext(ctx, &items, `SELECT `+transferColumns+transferFrom+` WHERE i.id = ANY($1) ORDER BY i.id`,
			pq.Int64Array(ids)); err != nil {
			return fmt.Errorf("store: transfer file of %s: %w", day.Format("2006-01-02"), err)
		}
		content, err := build(items)
		if err != nil {
			return err
		}
		var total int64
		for _, it := range items {
			total += it.Amount
		}
		sum := sha256.Sum256(content)
		f, err = getOne[TransferFile](ctx, tx, "new transfer file", `INSERT INTO transfer_files
			(transfer_date, record_count, total, content, sha256, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
			RETURNING `+transferFileColumns, day.Format("2006-01-02"), len(items), total, content, hex.EncodeToString(sum[:]), operatorID, now)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE invoices SET transfer_file_id = $1, transfer_failure = '', updated_at = $3
			WHERE id = ANY($2)`, f.ID, pq.Int64Array(ids), now); err != nil {
			return fmt.Errorf("store: transfer file %d: %w", f.ID, err)
		}
		if err := s.transitionAll(ctx, tx, ids, pay.ActFile, operatorActor(operatorID), "", now); err != nil {
			return err
		}
		if err := s.AddAudit(ctx, tx, NewAudit{OperatorID: operatorID, ObjectType: AuditTransferFile, ObjectID: f.ID, Action: "make_file",
			After: map[string]any{"transfer_date": day.Format("2006-01-02"), "records": len(items), "total": total, "payments": ids}}, now); err != nil {
			return err
		}
		if beforeCommit != nil {
			beforeCommit()
		}
		return nil
	})
	return f, err
}

func operatorActor(id int64) string { return fmt.Sprintf("operator:%d", id) }

// lockedPayment reads a submitted payment by id alone and locks its row, in tx (the
// operators' transfer tools start from the id).
func lockedPayment(ctx context.Context, tx *sqlx.Tx, id int64) (Payment, error) {
	return getOne[Payment](ctx, tx, fmt.Sprintf("payment %d", id), `SELECT `+paymentColumns+paymentFrom+`
		WHERE i.id = $1 AND i.submitted_at IS NOT NULL FOR UPDATE OF i`, id)
}

// transitionAll moves each payment of ids by a, in tx.
func (s *Store) transitionAll(ctx context.Context, tx *sqlx.Tx, ids []int64, a pay.PaymentAction, actor, reason string, now time.Time) error {
	for _, id := range ids {
		p, err := lockedPayment(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := s.transition(ctx, tx, p, a, actor, reason, now); err != nil {
			return err
		}
	}
	return nil
}

// MarkTransferFileSent records that the file was given to the bank, once; each of its
// payments moves to the transfer stage sent, with its event.
func (s *Store) MarkTransferFileSent(ctx context.Context, id, operatorID int64, now time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := execOneOn(ctx, tx, fmt.Sprintf("transfer file %d sent", id),
			`UPDATE transfer_files SET sent_by = $2, sent_at = $3 WHERE id = $1 AND sent_at IS NULL`, id, operatorID, now); err != nil {
			if errors.Is(err, ErrNotFound) {
				return fmt.Errorf("store: transfer file %d: %w", id, ErrStateChanged)
			}
			return err
		}
		var ids []int64
		if err := tx.SelectContext(ctx, &ids, `SELECT id FROM invoices WHERE transfer_file_id = $1 AND transfer_state = 'filed'
			ORDER BY id`, id); err != nil {
			return fmt.Errorf("store: payments of transfer file %d: %w", id, err)
		}
		if err := s.transitionAll(ctx, tx, ids, pay.ActSend, operatorActor(operatorID), "", now); err != nil {
			return err
		}
		return s.AddAudit(ctx, tx, NewAudit{OperatorID: operatorID, ObjectType: AuditTransferFile, ObjectID: id, Action: "file_sent"}, now)
	})
}

// SetTransferred records when a payment's transfer was done, in tx (with its state change).
func (s *Store) SetTransferred(ctx context.Context, tx *sqlx.Tx, buyerID, id int64, now time.Time) error {
	return execOneOn(ctx, tx, fmt.Sprintf("transferred payment %d", id), `UPDATE invoices SET transferred_at = $3
		WHERE buyer_id = $1 AND id = $2 AND transfer_state = 'done'`, buyerID, id, now)
}

// SetTransferFailed records that the bank could not pay a sent payment, with the reason:
// the transfer stage failed, its event and its posting (in transit → payable again).
func (s *Store) SetTransferFailed(ctx context.Context, id int64, reason string, audit NewAudit, now time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		p, err := lockedPayment(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := s.transition(ctx, tx, p, pay.ActTransferFail, operatorActor(audit.OperatorID), reason, now); err != nil {
			if errors.Is(err, pay.ErrTransition) {
				return fmt.Errorf("store: transfer %d failed: %w", id, ErrStateChanged)
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE invoices SET transfer_failure = $2 WHERE id = $1`, id, reason); err != nil {
			return fmt.Errorf("store: transfer %d failed: %w", id, err)
		}
		return s.AddAudit(ctx, tx, audit, now)
	})
}

// RetryTransfer puts a failed transfer back, for a new file on day.
func (s *Store) RetryTransfer(ctx context.Context, id int64, day time.Time, audit NewAudit, now time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		p, err := lockedPayment(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := s.transition(ctx, tx, p, pay.ActRetry, operatorActor(audit.OperatorID), "", now); err != nil {
			if errors.Is(err, pay.ErrTransition) {
				return fmt.Errorf("store: retry transfer %d: %w", id, ErrStateChanged)
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE invoices SET transfer_file_id = NULL, transfer_date = $2 WHERE id = $1`,
			id, day.Format("2006-01-02")); err != nil {
			return fmt.Errorf("store: retry transfer %d: %w", id, err)
		}
		return s.AddAudit(ctx, tx, audit, now)
	})
}

// AuditTransferFile is the audit object of a transfer file.
const AuditTransferFile = "transfer_file"

// Expiring is a payment the daily expiry ends, and why.
type Expiring struct {
	BuyerID int64 `db:"buyer_id"`
	ID      int64 `db:"id"`
	// Lapsing is set when the card's authorisation would lapse before a capture; else
	// the transfer date passed.
	Lapsing bool `db:"lapsing"`
}

// ExpiringPayments are the payments of every buyer the daily expiry ends: not
// transferred, not in a file the bank has, and either past their transfer date (today
// is later) or authorised before authorisedBefore and not captured. The daily job only.
func (s *Store) ExpiringPayments(ctx context.Context, today, authorisedBefore time.Time) ([]Expiring, error) {
	list := []Expiring{}
	err := s.DB.SelectContext(ctx, &list, `SELECT buyer_id, id, NOT (transfer_date < $1) AS lapsing FROM invoices
		WHERE submitted_at IS NOT NULL AND examination_status IN (1, 2, 3) AND transfer_state = '' AND transfer_attempts = 0
		AND card_status IN ('authorized', 'captured')
		AND (transfer_date < $1 OR (card_status = 'authorized' AND submitted_at < $2))
		ORDER BY id`, today.Format("2006-01-02"), authorisedBefore)
	if err != nil {
		return nil, fmt.Errorf("store: expiring payments: %w", err)
	}
	return list, nil
}

// TakeDailyRun records that the daily run name ran for day; false when it already had:
// whichever instance runs it, it runs once a day.
func (s *Store) TakeDailyRun(ctx context.Context, name string, day time.Time) (bool, error) {
	res, err := s.DB.ExecContext(ctx, `INSERT INTO daily_runs (name, run_date) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
		name, day.Format("2006-01-02"))
	if err != nil {
		return false, fmt.Errorf("store: daily run %s: %w", name, err)
	}
	return rowsAffected(res) == 1, nil
}

// DailyRunDone says whether the daily run name already ran for day.
func (s *Store) DailyRunDone(ctx context.Context, name string, day time.Time) (bool, error) {
	var n int
	if err := s.DB.GetContext(ctx, &n, `SELECT count(*) FROM daily_runs WHERE name = $1 AND run_date = $2`, name, day.Format("2006-01-02")); err != nil {
		return false, fmt.Errorf("store: daily run %s: %w", name, err)
	}
	return n > 0, nil
}

// PaymentsBetween lists the submitted payments whose transfer date is in [from, to],
// for the reconciliation. Operators only.
func (s *Store) PaymentsBetween(ctx context.Context, from, to time.Time) ([]TransferItem, error) {
	list := []TransferItem{}
	err := s.DB.SelectContext(ctx, &list, `SELECT `+transferColumns+transferFrom+`
		WHERE i.transfer_date BETWEEN $1 AND $2 AND i.submitted_at IS NOT NULL
		AND i.card_status NOT IN ('pending', 'requires_action', 'declined') ORDER BY i.transfer_date, i.id`,
		from.Format("2006-01-02"), to.Format("2006-01-02"))
	if err != nil {
		return nil, fmt.Errorf("store: payments for reconciliation: %w", err)
	}
	return list, nil
}

// TransfersByID reads the payments of ids (a file's records). Operators only.
func (s *Store) TransfersByID(ctx context.Context, ids []int64) ([]TransferItem, error) {
	list := []TransferItem{}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+transferColumns+transferFrom+` WHERE i.id = ANY($1) ORDER BY i.id`,
		pq.Int64Array(ids)); err != nil {
		return nil, fmt.Errorf("store: transfers by id: %w", err)
	}
	return list, nil
}

// ReceiptFacts are what a transferred payment's receipts print besides the payment:
// when the card was charged and the supplier paid, and the buyer's name.
type ReceiptFacts struct {
	CapturedAt    *time.Time `db:"captured_at"`
	TransferredAt *time.Time `db:"transferred_at"`
	BuyerName     string     `db:"buyer_name"`
}

// ReceiptFactsOf reads them for one of the buyer's payments.
func (s *Store) ReceiptFactsOf(ctx context.Context, buyerID, id int64) (ReceiptFacts, error) {
	return getOne[ReceiptFacts](ctx, s.DB, fmt.Sprintf("receipt of payment %d", id), `SELECT i.captured_at, i.transferred_at,
		CASE WHEN b.business_form = 1 THEN b.corporate_name ELSE b.business_name END AS buyer_name
		FROM invoices i JOIN buyers b ON b.id = i.buyer_id WHERE i.buyer_id = $1 AND i.id = $2`, buyerID, id)
}
