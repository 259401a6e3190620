package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"cardpay/pay"
)

// ErrStateChanged is a conditional update that found the payment in another state than
// expected: someone (a second tab, an operator, the reconciler) changed it first.
var ErrStateChanged = errors.New("store: the payment's state changed")

// ErrPromotionUsed: the buyer already used the promotion code on another payment.
var ErrPromotionUsed = errors.New("store: promotion code already used")

// Payment is one of a buyer's invoices with what its pages show.
type Payment struct {
	Invoice
	AuthSeq            int            `db:"auth_seq"`
	PaymentRef         string         `db:"payment_ref"`
	SubmitKey          *string        `db:"submit_key"`
	CardID             *int64         `db:"card_id"`
	CardStatus         pay.CardStatus `db:"card_status"`
	CardResultCode     string         `db:"card_result_code"`
	ActionURL          string         `db:"action_url"`
	AuthorizedAmount   int64          `db:"authorized_amount"`
	FeeBasisPoints     int            `db:"fee_basis_points"`
	PromotionCode      string         `db:"promotion_code"`
	InvoiceNumber      string         `db:"invoice_number"`
	InvoiceDate        *time.Time     `db:"invoice_date"`
	RegistrationNumber string         `db:"registration_number"`
	Memo               string         `db:"memo"`
	FileID             *int64         `db:"file_id"`
	Acknowledged       JSONList       `db:"acknowledged"`
	SendBackReason     string         `db:"send_back_reason"`
	SubmittedAt        *time.Time     `db:"submitted_at"`
	SupplierName       string         `db:"supplier_name"`
	// TransferState is the transfer stage (part of the state); PayeeFee a request's fee
	// its requester bears; FeeFullBasisPoints the full rate before a promotion.
	TransferState      pay.TransferStage `db:"transfer_state"`
	PayeeFee           int64             `db:"payee_fee"`
	FeeFullBasisPoints int               `db:"fee_full_basis_points"`
	TransferFileID     *int64            `db:"transfer_file_id"`
	TransferAttempts   int               `db:"transfer_attempts"`
	// Prior is the state before the change, in the payment Transition hands to its
	// change func (for an audit row's "before"); EventID is the change's event row.
	Prior   pay.PaymentState `db:"-"`
	EventID int64            `db:"-"`
}

// State is the payment's place in pay.NextPayment.
func (p Payment) State() pay.PaymentState {
	return pay.PaymentState{Status: p.ExaminationStatus, ActionRequired: p.ActionRequired, Transfer: p.TransferState, Card: p.CardStatus,
		EverFiled: p.TransferAttempts > 0}
}

// Total is what the buyer's card is charged: the invoice and the fee.
func (p Payment) Total() int64 { return p.Amount + p.Fee }

// JSONList is a JSON array of strings kept in a JSONB column.
type JSONList []string

// Scan reads the column.
func (l *JSONList) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case []byte:
		b = v
	case string:
		b = []byte(v)
	case nil:
		*l = nil
		return nil
	default:
		return fmt.Errorf("store: JSONList from %T", src)
	}
	return json.Unmarshal(b, (*[]string)(l))
}

func (l JSONList) value() string {
	if l == nil {
		return "[]"
	}
	b, _ := json.Marshal([]string(l))
	return string(b)
}

const paymentColumns = `i.id, i.buyer_id, i.supplier_id, i.account_id, i.invoice_type, i.examination_status,
	i.action_required, i.amount, i.fee, i.due_date, i.transfer_date, i.created_at, i.auth_seq, i.payment_ref,
	i.submit_key, i.card_id, i.card_status, i.card_result_code, i.action_url, i.authorized_amount,
	i.fee_basis_points, i.promotion_code, i.invoice_number, i.invoice_date, i.registration_number, i.memo,
	i.file_id, i.acknowledged, i.send_back_reason, i.submitted_at, s.name AS supplier_name, i.transfer_state, i.payee_fee,
	i.fee_full_basis_points, i.transfer_file_id, i.transfer_attempts`

const paymentFrom = ` FROM invoices i JOIN suppliers s ON s.id = i.supplier_id AND s.buyer_id = i.buyer_id `

// Payment loads one of the buyer's submitted payments (or card-payment requests
// received); another buyer's, or a submission the PSP has not accepted, is ErrNotFound.
func (s *Store) Payment(ctx context.Context, buyerID, id int64) (Payment, error) {
	return getOne[Payment](ctx, s.DB, fmt.Sprintf("payment %d", id), `SELECT `+paymentColumns+paymentFrom+`
		WHERE i.buyer_id = $1 AND i.id = $2 AND i.submitted_at IS NOT NULL AND i.invoice_type IN ($3, $4)`,
		buyerID, id, pay.InvoicePayment, pay.InvoiceRequestBuyer)
}

// Submission loads one of the buyer's invoice rows whether or not the PSP has accepted
// it: the submit flow and the 3-D Secure return page need the pending ones.
func (s *Store) Submission(ctx context.Context, buyerID, id int64) (Payment, error) {
	return getOne[Payment](ctx, s.DB, fmt.Sprintf("submission %d", id), `SELECT `+paymentColumns+paymentFrom+`
		WHERE i.buyer_id = $1 AND i.id = $2`, buyerID, id)
}

// SubmissionByRef finds an invoice row by its PSP payment id (any authorisation of it,
// the current or an earlier one is not found: only the current).
func (s *Store) SubmissionByRef(ctx context.Context, buyerID int64, ref string) (Payment, error) {
	return getOne[Payment](ctx, s.DB, "submission "+ref, `SELECT `+paymentColumns+paymentFrom+`
		WHERE i.buyer_id = $1 AND i.payment_ref = $2`, buyerID, ref)
}

// PaymentFilter selects one of a buyer's payment lists.
type PaymentFilter struct {
	BuyerID    int64
	Bucket     pay.PaymentBucket
	SupplierID int64 // 0: every supplier
	// From and To bound the submission date (Japan time), inclusive; zero: open.
	From, To   time.Time
	Page, Size int
	// Total, when Counted, is the list's size already known (an unfiltered list's count
	// from the stats every page reads): the count query is skipped.
	Total   int
	Counted bool
}

func bucketStatuses(b pay.PaymentBucket) pq.Int64Array {
	var out pq.Int64Array
	for _, st := range pay.PaymentBucketStatuses(b) {
		out = append(out, int64(st))
	}
	return out
}

func bucketTypes(b pay.PaymentBucket) pq.Int64Array {
	var out pq.Int64Array
	for _, t := range pay.PaymentBucketTypes(b) {
		out = append(out, int64(t))
	}
	return out
}

func (f PaymentFilter) where() (string, []any) {
	b := f.Bucket
	if b == pay.BucketReviewAll {
		// 審査中 lists the payments that need the buyer first (要対応), then the rest: the
		// two buckets' rules, from pay.
		args := []any{f.BuyerID, bucketStatuses(pay.BucketReview), bucketTypes(pay.BucketReview),
			bucketStatuses(pay.BucketActionRequired), bucketTypes(pay.BucketActionRequired)}
		w := ` WHERE i.buyer_id = $1 AND i.submitted_at IS NOT NULL AND (
			(NOT i.action_required AND i.examination_status = ANY($2) AND i.invoice_type = ANY($3))
			OR (i.action_required AND i.examination_status = ANY($4) AND i.invoice_type = ANY($5)))`
		return f.narrow(w, args)
	}
	args := []any{f.BuyerID, bucketStatuses(b), bucketTypes(b)}
	var w strings.Builder
	w.WriteString(` WHERE i.buyer_id = $1 AND i.submitted_at IS NOT NULL AND i.examination_status = ANY($2) AND i.invoice_type = ANY($3)`)
	switch b {
	case pay.BucketActionRequired:
		w.WriteString(` AND i.action_required`)
	case pay.BucketReview, pay.BucketReserved:
		w.WriteString(` AND NOT i.action_required`)
	}
	return f.narrow(w.String(), args)
}

// narrow adds the supplier and date filters.
func (f PaymentFilter) narrow(where string, args []any) (string, []any) {
	var w strings.Builder
	w.WriteString(where)
	if f.SupplierID != 0 {
		args = append(args, f.SupplierID)
		fmt.Fprintf(&w, ` AND i.supplier_id = $%d`, len(args))
	}
	if !f.From.IsZero() {
		args = append(args, f.From)
		fmt.Fprintf(&w, ` AND i.submitted_at >= $%d`, len(args))
	}
	if !f.To.IsZero() {
		args = append(args, f.To.AddDate(0, 0, 1))
		fmt.Fprintf(&w, ` AND i.submitted_at < $%d`, len(args))
	}
	return w.String(), args
}

// Payments lists one bucket of the buyer's payments, newest first, a page at a time
// (page from 0), with the bucket's total. Size 0 answers the count alone, without reading
// rows (the stats calls, SPEC.md §7).
func (s *Store) Payments(ctx context.Context, f PaymentFilter) ([]Payment, int, error) {
	where, args := f.where()
	total := f.Total
	if !f.Counted {
		if err := s.DB.GetContext(ctx, &total, `SELECT count(*) FROM invoices i`+where, args...); err != nil {
			return nil, 0, fmt.Errorf("store: payments of buyer %d: %w", f.BuyerID, err)
		}
	}
	list := []Payment{}
	if total == 0 || f.Size <= 0 || f.Page*f.Size >= total {
		return list, total, nil
	}
	args = append(args, f.Size, f.Page*f.Size)
	order := ` ORDER BY i.id DESC`
	if f.Bucket == pay.BucketReviewAll {
		order = ` ORDER BY i.action_required DESC, i.id DESC`
	}
	// The page is cut from the buyer's invoices first (newest first, by index), then
	// joined to its suppliers: joined first, the planner misjudges the rows and sorts them all.
	q := `SELECT ` + paymentColumns + ` FROM (SELECT * FROM invoices i` + where + order +
		fmt.Sprintf(` LIMIT $%d OFFSET $%d`, len(args)-1, len(args)) +
		`) i JOIN suppliers s ON s.id = i.supplier_id AND s.buyer_id = i.buyer_id` + order
	if err := s.selectPrepared(ctx, &list, q, args...); err != nil {
		return nil, 0, fmt.Errorf("store: payments of buyer %d: %w", f.BuyerID, err)
	}
	return list, total, nil
}

// PaymentEvent is one change in a payment's life.
type PaymentEvent struct {
	ID                 int64                  `db:"id"`
	Action             pay.PaymentAction      `db:"action"`
	FromStatus         *pay.ExaminationStatus `db:"from_status"`
	ToStatus           pay.ExaminationStatus  `db:"to_status"`
	FromActionRequired bool                   `db:"from_action_required"`
	ToActionRequired   bool                   `db:"to_action_required"`
	Actor              string                 `db:"actor"`
	Reason             string                 `db:"reason"`
	CreatedAt          time.Time              `db:"created_at"`
}

// PaymentEvents is the payment's timeline as its buyer reads it, oldest first: the
// transfer file's own steps (pay.PaymentAction.ForBuyer) are the operators'.
func (s *Store) PaymentEvents(ctx context.Context, buyerID, id int64) ([]PaymentEvent, error) {
	all, err := s.OperatorPaymentEvents(ctx, buyerID, id)
	if err != nil {
		return nil, err
	}
	list := all[:0]
	for _, e := range all {
		if e.Action.ForBuyer() {
			list = append(list, e)
		}
	}
	return list, nil
}

// OperatorPaymentEvents is the payment's whole timeline, the transfer's steps with it,
// oldest first. Operators only.
func (s *Store) OperatorPaymentEvents(ctx context.Context, buyerID, id int64) ([]PaymentEvent, error) {
	list := []PaymentEvent{}
	err := s.DB.SelectContext(ctx, &list, `SELECT id, action, from_status, to_status, from_action_required,
		to_action_required, actor, reason, created_at FROM invoice_events WHERE buyer_id = $1 AND invoice_id = $2 ORDER BY id`,
		buyerID, id)
	if err != nil {
		return nil, fmt.Errorf("store: events of payment %d: %w", id, err)
	}
	return list, nil
}

// NewPayment is a submission: the payment as the confirm page checked it.
type NewPayment struct {
	SubmitKey string
	CreatedBy int64
	// SupplierID, or NewSupplier to create it in the same transaction.
	SupplierID  int64
	NewSupplier *pay.SupplierInput
	// AccountID (one of the supplier's), or NewAccount to create it.
	AccountID      int64
	NewAccount     *AccountFields
	CardID         int64
	Invoice        pay.CheckedInvoice
	Fee            int64
	FeeBasisPoints int
	// FeeFullBasisPoints is the service's full rate (FeeBasisPoints before a promotion's
	// discount): the ledger posts the discount as an expense.
	FeeFullBasisPoints int
	PromotionCode      string
	FileID             *int64
	Acknowledged       []string
}

// StartPayment records a submission before its card is authorised (card_status
// pending), creating the new supplier and account when asked, in one transaction, and
// marks the promotion code used and the invoice file locked. A second call with the same
// SubmitKey creates nothing and answers the first row (created false): a double click,
// a replayed request or a second tab makes one payment. ErrPromotionUsed when the code
// was used on another payment; ErrNotFound when the supplier, account, card or file is
// not the buyer's.
//
// also runs in the same transaction with the new row's id: the caller enqueues there the
// job that settles the submission should nobody else (invoices.SettleJobKind), so that
// no submission exists without it. It is required; a repeated call does not run it.
func (s *Store) StartPayment(ctx context.Context, buyerID int64, n NewPayment, now time.Time, also func(tx *sqlx.Tx, id int64) error) (p Payment, created bool, err error) {
	if also == nil {
		return Payment{}, false, errors.New("store: start payment without its settle job")
	}
	if p, err := s.submissionByKey(ctx, buyerID, n.SubmitKey); err == nil {
		return p, false, nil
	} else if !errors.Is(err, ErrNotFound) {
		return Payment{}, false, err
	}
	var id int64
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		supplierID, accountID := n.SupplierID, n.AccountID
		if n.NewSupplier != nil {
			in := *n.NewSupplier
			if err := tx.GetContext(ctx, &supplierID, `INSERT INTO suppliers (buyer_id, business_form, name, name_kana, corporate_number, business_name, status)
				VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
				buyerID, in.BusinessForm, in.Name, in.NameKana, in.CorporateNumber, in.BusinessName, pay.SupplierUnapproved); err != nil {
				return fmt.Errorf("store: create supplier: %w", err)
			}
		}
		if n.NewAccount != nil {
			var err error
			if accountID, err = insertAccount(ctx, tx, buyerID, supplierID, *n.NewAccount); err != nil {
				return err
			}
			if n.NewSupplier == nil {
				if err := reexamine(ctx, tx, buyerID, supplierID); err != nil {
					return err
				}
			}
		}
		c := n.Invoice
		var key *string
		if n.SubmitKey != "" {
			key = &n.SubmitKey
		}
		// Every id is checked against the buyer by the insert itself.
		err := tx.GetContext(ctx, &id, `INSERT INTO invoices (buyer_id, supplier_id, account_id, invoice_type,
			examination_status, amount, fee, due_date, transfer_date, submit_key, card_id, card_status,
			authorized_amount, fee_basis_points, promotion_code, invoice_number, invoice_date, registration_number,
			memo, file_id, acknowledged, created_by, submitted_at, fee_full_basis_points)
			SELECT $1, s.id, a.id, $4, $5, $6, $7, $8, $9, $10, c.id, 'pending', $6::bigint + $7::bigint, $12, $13, $14, $15, $16,
			$17, $18, $19, $20, NULL, GREATEST($21::int, $12::int)
			FROM suppliers s
			JOIN supplier_accounts a ON a.buyer_id = $1 AND a.supplier_id = s.id AND a.id = $3
			JOIN cards c ON c.buyer_id = $1 AND c.id = $11 AND c.deleted_at IS NULL
			WHERE s.buyer_id = $1 AND s.id = $2 AND s.deleted_at IS NULL
			AND ($18::bigint IS NULL OR EXISTS (SELECT 1 FROM invoice_files f WHERE f.buyer_id = $1 AND f.id = $18))
			ON CONFLICT (buyer_id, submit_key) DO NOTHING
			RETURNING id`,
			buyerID, supplierID, accountID, pay.InvoicePayment, pay.InProgress, c.Amount, n.Fee, c.DueDate, c.TransferDate,
			key, n.CardID, n.FeeBasisPoints, n.PromotionCode, c.InvoiceNumber, c.InvoiceDate, c.RegistrationNumber,
			c.Memo, n.FileID, JSONList(n.Acknowledged).value(), nullID(n.CreatedBy), n.FeeFullBasisPoints)
		if notFound(err) {
			// Either a concurrent submission of the same page won the key (found below,
			// after this transaction rolls back), or an id is not the buyer's.
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("store: start payment: %w", err)
		}
		if n.PromotionCode != "" {
			res, err := tx.ExecContext(ctx, `INSERT INTO promotion_uses (buyer_id, code, invoice_id, used_at)
				VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, buyerID, n.PromotionCode, id, now)
			if err != nil {
				return fmt.Errorf("store: use promotion %s: %w", n.PromotionCode, err)
			}
			if k, _ := res.RowsAffected(); k == 0 {
				return ErrPromotionUsed
			}
		}
		if err := also(tx, id); err != nil {
			return err
		}
		if n.FileID != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE invoice_files SET locked_at = COALESCE(locked_at, $3)
				WHERE buyer_id = $1 AND id = $2`, buyerID, *n.FileID, now); err != nil {
				return fmt.Errorf("store: lock invoice file %d: %w", *n.FileID, err)
			}
		}
		return nil
	})
	if errors.Is(err, ErrNotFound) && n.SubmitKey != "" {
		if p, kerr := s.submissionByKey(ctx, buyerID, n.SubmitKey); kerr == nil {
			return p, false, nil
		}
	}
	if err != nil {
		return Payment{}, false, err
	}
	p, err = s.Submission(ctx, buyerID, id)
	return p, true, err
}

func (s *Store) submissionByKey(ctx context.Context, buyerID int64, key string) (Payment, error) {
	if key == "" {
		return Payment{}, fmt.Errorf("store: submission without a key: %w", ErrNotFound)
	}
	return getOne[Payment](ctx, s.DB, "submission "+key, `SELECT `+paymentColumns+paymentFrom+`
		WHERE i.buyer_id = $1 AND i.submit_key = $2`, buyerID, key)
}

// AuthOutcome is the PSP's answer to a submission's authorisation.
type AuthOutcome struct {
	Status     pay.CardStatus // CardAuthorized, CardRequiresAction or CardDeclined
	ResultCode string
	ActionURL  string
	Actor      string
}

// SettleSubmission records the PSP's answer on a submission that is still pending or
// waiting for its challenge: authorised makes it a payment (審査中, submitted_at, the
// submit event); a challenge keeps it waiting; a decline ends it (the buyer may submit
// again under a new key). A submission already settled is left as it is and answered:
// the return page, the webhook and the reconciler may all settle the same one.
func (s *Store) SettleSubmission(ctx context.Context, buyerID, id int64, o AuthOutcome, now time.Time) (Payment, error) {
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var res sqlResult
		var err error
		switch o.Status {
		case pay.CardAuthorized:
			res, err = tx.ExecContext(ctx, `UPDATE invoices SET card_status = 'authorized', card_result_code = $3,
				action_url = '', submitted_at = $4, examination_status = $5, updated_at = $4
				WHERE buyer_id = $1 AND id = $2 AND card_status IN ('pending', 'requires_action')`,
				buyerID, id, o.ResultCode, now, pay.InProgress)
			if err == nil && rowsAffected(res) == 1 {
				_, err = s.insertEvent(ctx, tx, buyerID, id, pay.ActSubmit, nil, pay.PaymentState{Status: pay.InProgress}, o.Actor, "", now)
			}
		case pay.CardRequiresAction:
			_, err = tx.ExecContext(ctx, `UPDATE invoices SET card_status = 'requires_action', card_result_code = $3,
				action_url = $4, updated_at = $5 WHERE buyer_id = $1 AND id = $2 AND card_status = 'pending'`,
				buyerID, id, o.ResultCode, o.ActionURL, now)
		case pay.CardDeclined:
			_, err = tx.ExecContext(ctx, `UPDATE invoices SET card_status = 'declined', card_result_code = $3,
				action_url = '', updated_at = $4 WHERE buyer_id = $1 AND id = $2 AND card_status IN ('pending', 'requires_action')`,
				buyerID, id, o.ResultCode, now)
			if err == nil {
				// The code may be used again on the next attempt.
				_, err = tx.ExecContext(ctx, `DELETE FROM promotion_uses WHERE buyer_id = $1 AND invoice_id = $2`, buyerID, id)
			}
		default:
			return fmt.Errorf("store: settle submission %d with %q", id, o.Status)
		}
		if err != nil {
			return fmt.Errorf("store: settle submission %d: %w", id, err)
		}
		return nil
	})
	if err != nil {
		return Payment{}, err
	}
	return s.Submission(ctx, buyerID, id)
}

// Unsettled lists submissions the PSP has not settled that were made before the cut-off,
// across buyers, for the reconciler.
func (s *Store) Unsettled(ctx context.Context, before time.Time, limit int) ([]Payment, error) {
	list := []Payment{}
	err := s.DB.SelectContext(ctx, &list, `SELECT `+paymentColumns+paymentFrom+`
		WHERE i.card_status IN ('pending', 'requires_action') AND i.created_at < $1 ORDER BY i.id LIMIT $2`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unsettled submissions: %w", err)
	}
	return list, nil
}

// Transition changes a payment by action a when the state machine allows it, with a
// conditional update on the whole state it was read in (status, action required, transfer
// stage, card status) and an event row, in one transaction; change, when not nil, runs in
// the same transaction (to enqueue the card job, record a reason…). ErrStateChanged when
// the payment moved meanwhile; pay.ErrTransition when the action does not fit its state.
func (s *Store) Transition(ctx context.Context, buyerID, id int64, a pay.PaymentAction, actor, reason string, now time.Time, change func(tx *sqlx.Tx, p Payment) error) (Payment, error) {
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		p, err := getOne[Payment](ctx, tx, fmt.Sprintf("payment %d", id), `SELECT `+paymentColumns+paymentFrom+`
			WHERE i.buyer_id = $1 AND i.id = $2 AND i.submitted_at IS NOT NULL`, buyerID, id)
		if err != nil {
			return err
		}
		p, err = s.transition(ctx, tx, p, a, actor, reason, now)
		if err != nil {
			return err
		}
		if change != nil {
			return change(tx, p)
		}
		return nil
	})
	if err != nil {
		return Payment{}, err
	}
	return s.Payment(ctx, buyerID, id)
}

// transition moves p (as read in tx) by action a: the conditional update on the state it
// was read in, the event row with the buyer's notice, and the postings the move causes
// (a transfer stage's). It answers p in its new state, with Prior the state before.
func (s *Store) transition(ctx context.Context, tx *sqlx.Tx, p Payment, a pay.PaymentAction, actor, reason string, now time.Time) (Payment, error) {
	from := p.State()
	to, err := pay.NextPayment(from, a)
	if err != nil {
		return p, err
	}
	sendBack := p.SendBackReason
	switch a {
	case pay.ActSendBack:
		sendBack = reason
	case pay.ActResubmit:
		sendBack = ""
	}
	res, err := tx.ExecContext(ctx, `UPDATE invoices SET examination_status = $7, action_required = $8, transfer_state = $9,
		send_back_reason = $10, updated_at = $11,
		transfer_attempts = transfer_attempts + CASE WHEN $9 = 'filed' AND transfer_state <> 'filed' THEN 1 ELSE 0 END
		WHERE buyer_id = $1 AND id = $2 AND examination_status = $3 AND action_required = $4 AND transfer_state = $5
		AND card_status = $6 AND (transfer_attempts > 0) = $12`,
		p.BuyerID, p.ID, from.Status, from.ActionRequired, from.Transfer, from.Card, to.Status, to.ActionRequired, to.Transfer,
		sendBack, now, from.EverFiled)
	if err != nil {
		return p, fmt.Errorf("store: payment %d %s: %w", p.ID, a, err)
	}
	if rowsAffected(res) != 1 {
		return p, fmt.Errorf("store: payment %d %s: %w", p.ID, a, ErrStateChanged)
	}
	eventID, err := s.insertEvent(ctx, tx, p.BuyerID, p.ID, a, &from, to, actor, reason, now)
	if err != nil {
		return p, err
	}
	p.EventID = eventID
	if posting, ok := pay.TransferPosting(a, p.Money().Payable()); ok {
		if err := post(ctx, tx, posting, PostingOf{InvoiceID: p.ID, BuyerID: p.BuyerID, PaymentRef: p.PaymentRef,
			TransferFileID: p.TransferFileID}, now); err != nil {
			return p, err
		}
	}
	p.Prior = from
	p.ExaminationStatus, p.ActionRequired, p.TransferState, p.SendBackReason = to.Status, to.ActionRequired, to.Transfer, sendBack
	if to.EverFiled && !from.EverFiled {
		p.TransferAttempts++
	}
	return p, nil
}

// SetPaymentCard records where the payment's money stands at the PSP (a capture, a void,
// a refund) after the PSP answered about its authorisation ref: a conditional update from
// the card status it reads, allowed by pay.NextCard, with the postings the change causes,
// in one transaction. The card status is the status of the payment's current
// authorisation, so an answer about another one — an old authorisation of a payment
// corrected while the PSP was being asked — is ErrStateChanged and writes nothing. The
// same status again changes nothing (a job that runs twice). A change the card's life
// does not allow — a capture answered after the refund — is pay.ErrCardTransition and
// writes nothing. q is the caller's transaction, or nil for one of its own.
func (s *Store) SetPaymentCard(ctx context.Context, q *sqlx.Tx, buyerID, id int64, ref string, st pay.CardStatus, resultCode string, now time.Time) error {
	if q == nil {
		return s.inTx(ctx, func(tx *sqlx.Tx) error { return s.setPaymentCard(ctx, tx, buyerID, id, ref, st, resultCode, now) })
	}
	return s.setPaymentCard(ctx, q, buyerID, id, ref, st, resultCode, now)
}

func (s *Store) setPaymentCard(ctx context.Context, tx *sqlx.Tx, buyerID, id int64, ref string, st pay.CardStatus, resultCode string, now time.Time) error {
	var row struct {
		Card      pay.CardStatus        `db:"card_status"`
		Ref       string                `db:"payment_ref"`
		Status    pay.ExaminationStatus `db:"examination_status"`
		AR        bool                  `db:"action_required"`
		Transfer  pay.TransferStage     `db:"transfer_state"`
		EverFiled bool                  `db:"ever_filed"`
	}
	if err := tx.GetContext(ctx, &row, `SELECT card_status, payment_ref, examination_status, action_required, transfer_state,
		transfer_attempts > 0 AS ever_filed FROM invoices WHERE buyer_id = $1 AND id = $2 FOR UPDATE`, buyerID, id); err != nil {
		if notFound(err) {
			return fmt.Errorf("store: card status of payment %d: %w", id, ErrNotFound)
		}
		return fmt.Errorf("store: card status of payment %d: %w", id, err)
	}
	if row.Ref != ref {
		return fmt.Errorf("store: card status of payment %d: %s is not its authorisation (%s is): %w", id, ref, row.Ref, ErrStateChanged)
	}
	from := row.Card
	change, err := pay.NextCard(from, st)
	if err != nil || !change {
		return err
	}
	res, err := tx.ExecContext(ctx, `UPDATE invoices SET card_status = $4, card_result_code = $5, updated_at = $6,
		captured_at = CASE WHEN $4 = 'captured' THEN COALESCE(captured_at, $6) ELSE captured_at END
		WHERE buyer_id = $1 AND id = $2 AND card_status = $3`, buyerID, id, from, st, resultCode, now)
	if err != nil {
		return fmt.Errorf("store: card status of payment %d: %w", id, err)
	}
	if rowsAffected(res) != 1 {
		return fmt.Errorf("store: card status of payment %d: %w", id, ErrStateChanged)
	}
	if a := pay.CardAction(st); a != "" && row.Status != 0 {
		// The card's move is an event of the payment's (the operators' timeline), with the
		// rest of its state as it stands.
		before := pay.PaymentState{Status: row.Status, ActionRequired: row.AR, Transfer: row.Transfer, Card: from, EverFiled: row.EverFiled}
		after := before
		after.Card = st
		if _, err := s.insertEvent(ctx, tx, buyerID, id, a, &before, after, "system", resultCode, now); err != nil {
			return err
		}
	}
	return postCard(ctx, tx, buyerID, id, from, st, now)
}

type sqlResult interface{ RowsAffected() (int64, error) }

func rowsAffected(r sqlResult) int64 {
	if r == nil {
		return 0
	}
	n, _ := r.RowsAffected()
	return n
}

type promotionRow struct {
	Code     string    `db:"code"`
	Discount int       `db:"discount_basis_points"`
	From     time.Time `db:"valid_from"`
	To       time.Time `db:"valid_to"`
}

// Promotion loads a promotion code's terms.
func (s *Store) Promotion(ctx context.Context, code string) (pay.Promotion, error) {
	row, err := getOne[promotionRow](ctx, s.DB, "promotion "+code,
		`SELECT code, discount_basis_points, valid_from, valid_to FROM promotions WHERE code = $1`, code)
	if err != nil {
		return pay.Promotion{}, err
	}
	return pay.Promotion{Code: row.Code, DiscountBasisPoints: row.Discount, ValidFrom: row.From, ValidTo: row.To}, nil
}

// PromotionUsed says whether the buyer used the code on a payment.
func (s *Store) PromotionUsed(ctx context.Context, buyerID int64, code string) (bool, error) {
	var used bool
	err := s.DB.GetContext(ctx, &used, `SELECT EXISTS (SELECT 1 FROM promotion_uses WHERE buyer_id = $1 AND code = $2)`, buyerID, code)
	if err != nil {
		return false, fmt.Errorf("store: promotion %s used: %w", code, err)
	}
	return used, nil
}

// CreatePromotion adds a promotion code (operators, the demo data and tests).
func (s *Store) CreatePromotion(ctx context.Context, p pay.Promotion) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO promotions (code, discount_basis_points, valid_from, valid_to)
		VALUES ($1, $2, $3, $4) ON CONFLICT (code) DO UPDATE SET discount_basis_points = $2, valid_from = $3, valid_to = $4`,
		p.Code, p.DiscountBasisPoints, p.ValidFrom, p.ValidTo)
	if err != nil {
		return fmt.Errorf("store: create promotion %s: %w", p.Code, err)
	}
	return nil
}

// SetSubmissionAction records a challenge the reconciler found still open.
func (s *Store) SetSubmissionAction(ctx context.Context, buyerID, id int64, actionURL, resultCode string) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE invoices SET card_status = 'requires_action', action_url = $3, card_result_code = $4
		WHERE buyer_id = $1 AND id = $2 AND card_status = 'pending'`, buyerID, id, actionURL, resultCode)
	if err != nil {
		return fmt.Errorf("store: challenge of submission %d: %w", id, err)
	}
	return nil
}

// nullID is NULL for a zero id.
func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// CorrectPayment writes a sent-back payment's corrected invoice in the caller's
// transaction (Transition's change); next, when not nil, moves the payment to its next
// authorisation (auth_seq), already authorised for amount + fee with that outcome. The
// card status is then that authorisation's, whatever became of the one before (a safety net may have
// voided it, the void recorded, before this correction), or the books would say voided
// while the PSP holds the new one's money and no job would ever release it.
func (s *Store) CorrectPayment(ctx context.Context, tx *sqlx.Tx, buyerID, id int64, c pay.CheckedInvoice, fee int64, acks []string, next *AuthOutcome) error {
	var status pay.CardStatus
	var code string
	if next != nil {
		status, code = next.Status, next.ResultCode
	}
	_, err := tx.ExecContext(ctx, `UPDATE invoices SET amount = $3, fee = $4, authorized_amount = $3::bigint + $4::bigint,
		due_date = $5, transfer_date = $6, invoice_number = $7, invoice_date = $8, registration_number = $9, memo = $10,
		acknowledged = $11, auth_seq = auth_seq + CASE WHEN $12 THEN 1 ELSE 0 END, pending_correction = NULL,
		card_status = CASE WHEN $12 THEN $13 ELSE card_status END,
		card_result_code = CASE WHEN $12 THEN $14 ELSE card_result_code END
		WHERE buyer_id = $1 AND id = $2`,
		buyerID, id, c.Amount, fee, c.DueDate, c.TransferDate, c.InvoiceNumber, c.InvoiceDate, c.RegistrationNumber, c.Memo,
		JSONList(acks).value(), next != nil, status, code)
	if err != nil {
		return fmt.Errorf("store: correct payment %d: %w", id, err)
	}
	return nil
}

// InvoiceOwner is the buyer of an invoice, for operator tools that start from an invoice's
// id alone; every later read goes through the buyer found here.
func (s *Store) InvoiceOwner(ctx context.Context, id int64) (int64, error) {
	return getOne[int64](ctx, s.DB, fmt.Sprintf("owner of invoice %d", id), `SELECT buyer_id FROM invoices WHERE id = $1`, id)
}

// SeedPayments adds n submitted payments of the buyer's supplier and account, spread over
// the lists (three in four in the history), for the load bench and large demos. Each gets
// its submission event, like a real one.
func (s *Store) SeedPayments(ctx context.Context, buyerID, supplierID, accountID int64, n int) error {
	_, err := s.DB.ExecContext(ctx, `WITH i AS (
		INSERT INTO invoices (buyer_id, supplier_id, account_id, invoice_type, examination_status, amount, fee,
			due_date, transfer_date, submitted_at, authorized_amount, fee_basis_points, invoice_number, card_status, created_at)
		SELECT $1, s.id, a.id, $4,
			(ARRAY[4, 4, 5, 8, 4, 4, 1, 3])[1 + g % 8],
			10000 + g * 37, (10000 + g * 37) * 3 / 100,
			current_date + (g % 60), current_date + (g % 60) - 3,
			now() - (g || ' hours')::interval, (10000 + g * 37) + (10000 + g * 37) * 3 / 100, 300,
			'SEED-' || g, 'authorized', now() - (g || ' hours')::interval
		FROM generate_series(1, $5::int) g
		JOIN suppliers s ON s.buyer_id = $1 AND s.id = $2
		JOIN supplier_accounts a ON a.buyer_id = $1 AND a.supplier_id = s.id AND a.id = $3
		RETURNING id, buyer_id, examination_status)
		INSERT INTO invoice_events (invoice_id, buyer_id, action, to_status, actor)
		SELECT id, buyer_id, 'submit', examination_status, 'system' FROM i`,
		buyerID, supplierID, accountID, pay.InvoicePayment, n)
	if err != nil {
		return fmt.Errorf("store: seed %d payments: %w", n, err)
	}
	_, err = s.DB.ExecContext(ctx, `ANALYZE invoices; ANALYZE invoice_events`)
	return err
}

// SetPendingCorrection keeps a correction that waits for the buyer's challenge (JSON of
// the caller's type), so that the buyer's return applies it whichever client sent it.
func (s *Store) SetPendingCorrection(ctx context.Context, buyerID, id int64, data []byte) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE invoices SET pending_correction = $3 WHERE buyer_id = $1 AND id = $2`, buyerID, id, string(data))
	if err != nil {
		return fmt.Errorf("store: pending correction of payment %d: %w", id, err)
	}
	if rowsAffected(res) != 1 {
		return fmt.Errorf("store: pending correction of payment %d: %w", id, ErrNotFound)
	}
	return nil
}

// PendingCorrection is the correction waiting for a challenge, or ErrNotFound.
func (s *Store) PendingCorrection(ctx context.Context, buyerID, id int64) ([]byte, error) {
	var data []byte
	err := s.DB.GetContext(ctx, &data, `SELECT pending_correction FROM invoices WHERE buyer_id = $1 AND id = $2 AND pending_correction IS NOT NULL`, buyerID, id)
	if notFound(err) {
		return nil, fmt.Errorf("store: pending correction of payment %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: pending correction of payment %d: %w", id, err)
	}
	return data, nil
}
