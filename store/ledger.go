package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"cardpay/pay"
)

// The journal (migrations/00013_ledger.sql): postings are written only here, each in the
// caller's transaction with the state change that causes it; the database refuses a
// posting that does not balance, and any change or deletion.

// LedgerEntry is one line of the journal with its posting.
type LedgerEntry struct {
	ID             int64             `db:"id"`
	PostingID      int64             `db:"posting_id"`
	Kind           pay.PostingKind   `db:"kind"`
	Account        pay.LedgerAccount `db:"account"`
	Amount         int64             `db:"amount"`
	InvoiceID      *int64            `db:"invoice_id"`
	BuyerID        *int64            `db:"buyer_id"`
	PaymentRef     string            `db:"payment_ref"`
	TransferFileID *int64            `db:"transfer_file_id"`
	CreatedAt      time.Time         `db:"created_at"`
}

// PostingOf says what a posting is about.
type PostingOf struct {
	InvoiceID, BuyerID int64
	PaymentRef         string
	TransferFileID     *int64
}

// post writes p in tx. A posting that does not balance is refused here already, before
// the database's own check at commit.
func post(ctx context.Context, tx *sqlx.Tx, p pay.Posting, of PostingOf, now time.Time) error {
	if !p.Balanced() {
		return fmt.Errorf("store: %s posting of invoice %d does not balance: %+v", p.Kind, of.InvoiceID, p.Lines)
	}
	var id int64
	if err := tx.GetContext(ctx, &id, `INSERT INTO ledger_postings (kind, invoice_id, buyer_id, payment_ref, transfer_file_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, p.Kind, of.InvoiceID, of.BuyerID, of.PaymentRef, of.TransferFileID, now); err != nil {
		return fmt.Errorf("store: %s posting of invoice %d: %w", p.Kind, of.InvoiceID, err)
	}
	for _, l := range p.Lines {
		if _, err := tx.ExecContext(ctx, `INSERT INTO ledger_entries (posting_id, account, amount, invoice_id, buyer_id, created_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, id, l.Account, l.Amount, of.InvoiceID, of.BuyerID, now); err != nil {
			return fmt.Errorf("store: %s posting of invoice %d: %w", p.Kind, of.InvoiceID, err)
		}
	}
	return nil
}

// moneyOf reads what a payment's postings are made of, in tx.
func moneyOf(ctx context.Context, tx *sqlx.Tx, buyerID, id int64) (pay.PaymentMoney, string, error) {
	var row struct {
		Amount   int64  `db:"amount"`
		Fee      int64  `db:"fee"`
		PayeeFee int64  `db:"payee_fee"`
		FullBps  int    `db:"fee_full_basis_points"`
		Ref      string `db:"payment_ref"`
	}
	if err := tx.GetContext(ctx, &row, `SELECT amount, fee, payee_fee, fee_full_basis_points, payment_ref FROM invoices
		WHERE buyer_id = $1 AND id = $2`, buyerID, id); err != nil {
		return pay.PaymentMoney{}, "", fmt.Errorf("store: money of payment %d: %w", id, err)
	}
	return moneyFrom(row.Amount, row.Fee, row.PayeeFee, row.FullBps), row.Ref, nil
}

func moneyFrom(amount, fee, payeeFee int64, fullBps int) pay.PaymentMoney {
	return pay.PaymentMoney{Amount: amount, Fee: fee, PayeeFee: payeeFee, FullFee: max(fee+payeeFee, pay.Fee(amount, fullBps))}
}

// Money is what the payment's postings are made of.
func (p Payment) Money() pay.PaymentMoney {
	return moneyFrom(p.Amount, p.Fee, p.PayeeFee, p.FeeFullBasisPoints)
}

// postCard posts what a change of a payment's card status from → to moves: a capture, a
// refund, or both when a capture the service never recorded is refunded.
func postCard(ctx context.Context, tx *sqlx.Tx, buyerID, id int64, from, to pay.CardStatus, now time.Time) error {
	capture := to == pay.CardCaptured || (to == pay.CardRefunded && from == pay.CardAuthorized)
	refund := to == pay.CardRefunded
	if !capture && !refund {
		return nil
	}
	m, ref, err := moneyOf(ctx, tx, buyerID, id)
	if err != nil {
		return err
	}
	of := PostingOf{InvoiceID: id, BuyerID: buyerID, PaymentRef: ref}
	if capture {
		ps, err := pay.CapturePostings(m)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if err := post(ctx, tx, p, of, now); err != nil {
				return err
			}
		}
	}
	if refund {
		p, err := pay.RefundPosting(m)
		if err != nil {
			return err
		}
		return post(ctx, tx, p, of, now)
	}
	return nil
}

// postOpening posts a payment's balances as its state says (an invoice created directly
// in a state past the capture: the demo data and tests).
func postOpening(ctx context.Context, tx *sqlx.Tx, buyerID, id int64, card pay.CardStatus, t pay.TransferStage, now time.Time) error {
	m, ref, err := moneyOf(ctx, tx, buyerID, id)
	if err != nil {
		return err
	}
	p := pay.Posting{Kind: pay.PostOpening}
	for _, a := range pay.LedgerAccounts {
		if v := pay.ExpectedBalances(m, card, t)[a]; v != 0 {
			p.Lines = append(p.Lines, pay.LedgerLine{Account: a, Amount: v})
		}
	}
	if len(p.Lines) == 0 {
		return nil
	}
	return post(ctx, tx, p, PostingOf{InvoiceID: id, BuyerID: buyerID, PaymentRef: ref}, now)
}

// LedgerEntriesOf lists a payment's journal lines, oldest first. Operators only.
func (s *Store) LedgerEntriesOf(ctx context.Context, invoiceID int64) ([]LedgerEntry, error) {
	list := []LedgerEntry{}
	if err := s.DB.SelectContext(ctx, &list, `SELECT e.id, e.posting_id, p.kind, e.account, e.amount, e.invoice_id, e.buyer_id,
		p.payment_ref, p.transfer_file_id, e.created_at FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id
		WHERE e.invoice_id = $1 ORDER BY e.posting_id, e.id`, invoiceID); err != nil {
		return nil, fmt.Errorf("store: ledger of invoice %d: %w", invoiceID, err)
	}
	return list, nil
}

// Balances are ledger balances by account (debits positive).
type Balances map[pay.LedgerAccount]int64

func (s *Store) balances(ctx context.Context, where string, args ...any) (Balances, error) {
	var rows []struct {
		Account pay.LedgerAccount `db:"account"`
		Sum     int64             `db:"sum"`
	}
	if err := s.DB.SelectContext(ctx, &rows, `SELECT account, sum(amount)::bigint AS sum FROM ledger_entries WHERE `+where+
		` GROUP BY account`, args...); err != nil {
		return nil, fmt.Errorf("store: ledger balances: %w", err)
	}
	b := Balances{}
	for _, r := range rows {
		if r.Sum != 0 {
			b[r.Account] = r.Sum
		}
	}
	return b, nil
}

// PaymentBalances are one of the buyer's payments' balances.
func (s *Store) PaymentBalances(ctx context.Context, buyerID, id int64) (Balances, error) {
	return s.balances(ctx, `buyer_id = $1 AND invoice_id = $2`, buyerID, id)
}

// TrialBalance is the service's balances of every account from the first posting up to
// (not including) before. Operators only.
func (s *Store) TrialBalance(ctx context.Context, before time.Time) (Balances, error) {
	return s.balances(ctx, `created_at < $1`, before)
}

// LedgerActivity is an account's debits and credits over a period.
type LedgerActivity struct {
	Account pay.LedgerAccount `db:"account"`
	Debit   int64             `db:"debit"`
	Credit  int64             `db:"credit"`
}

// TrialBalanceDay is a day's trial balance in [start, end): each account's balance
// before start, its debits and credits of the day, and its balance before end, read by one
// statement (one snapshot), so the three always add up. Operators only.
func (s *Store) TrialBalanceDay(ctx context.Context, start, end time.Time) (open Balances, activity []LedgerActivity, closing Balances, err error) {
	var rows []struct {
		LedgerActivity
		Open    int64 `db:"open"`
		Closing int64 `db:"closing"`
	}
	if err := s.DB.SelectContext(ctx, &rows, `SELECT account,
		COALESCE(sum(amount) FILTER (WHERE created_at < $1), 0)::bigint AS open,
		COALESCE(sum(amount) FILTER (WHERE created_at >= $1 AND created_at < $2 AND amount > 0), 0)::bigint AS debit,
		COALESCE(-sum(amount) FILTER (WHERE created_at >= $1 AND created_at < $2 AND amount < 0), 0)::bigint AS credit,
		COALESCE(sum(amount) FILTER (WHERE created_at < $2), 0)::bigint AS closing
		FROM ledger_entries WHERE created_at < $2 GROUP BY account ORDER BY account`, start, end); err != nil {
		return nil, nil, nil, fmt.Errorf("store: trial balance: %w", err)
	}
	open, closing, activity = Balances{}, Balances{}, []LedgerActivity{}
	for _, r := range rows {
		if r.Open != 0 {
			open[r.Account] = r.Open
		}
		if r.Closing != 0 {
			closing[r.Account] = r.Closing
		}
		if r.Debit != 0 || r.Credit != 0 {
			activity = append(activity, r.LedgerActivity)
		}
	}
	return open, activity, closing, nil
}

// LedgerUnbalanced lists the postings whose lines do not sum to zero (the database
// refuses them at commit; this is the check that it did). Operators and the checks.
func (s *Store) LedgerUnbalanced(ctx context.Context) ([]int64, error) {
	var ids []int64
	if err := s.DB.SelectContext(ctx, &ids, `SELECT posting_id FROM ledger_entries GROUP BY posting_id HAVING sum(amount) <> 0
		ORDER BY posting_id`); err != nil {
		return nil, fmt.Errorf("store: unbalanced postings: %w", err)
	}
	return ids, nil
}

// PaymentLedgerRow is a payment's state beside its journal balances, for the checks
// that the two agree.
type PaymentLedgerRow struct {
	ID         int64                 `db:"id"`
	BuyerID    int64                 `db:"buyer_id"`
	PaymentRef string                `db:"payment_ref"`
	Status     pay.ExaminationStatus `db:"examination_status"`
	Card       pay.CardStatus        `db:"card_status"`
	Transfer   pay.TransferStage     `db:"transfer_state"`
	Amount     int64                 `db:"amount"`
	Fee        int64                 `db:"fee"`
	PayeeFee   int64                 `db:"payee_fee"`
	FullBps    int                   `db:"fee_full_basis_points"`
	Authorized int64                 `db:"authorized_amount"`
	Balances   Balances              `db:"-"`
	// Captures and Refunds count the payment's capture and refund postings (opening
	// balances count as a capture).
	Captures int `db:"captures"`
	Refunds  int `db:"refunds"`
	// Filed counts its transfer_filed postings, Done its transfer_done ones.
	Filed int `db:"filed"`
	Done  int `db:"done"`
}

// Money is what the row's postings are made of.
func (r PaymentLedgerRow) Money() pay.PaymentMoney {
	return moneyFrom(r.Amount, r.Fee, r.PayeeFee, r.FullBps)
}

// Expected are the balances the payment's state says its journal holds.
func (r PaymentLedgerRow) Expected() map[pay.LedgerAccount]int64 {
	return pay.ExpectedBalances(r.Money(), r.Card, r.Transfer)
}

// Agrees says whether the journal holds exactly what the state says: the check of every
// proof and of the reconciliation.
func (r PaymentLedgerRow) Agrees() bool {
	want := r.Expected()
	for k, v := range want {
		if r.Balances[k] != v {
			return false
		}
	}
	for k, v := range r.Balances {
		if want[k] != v {
			return false
		}
	}
	return true
}

// PaymentLedger reads every submitted payment (all buyers when buyerID is 0) with its
// journal balances and counts of postings, from one snapshot of the database (a
// repeatable-read transaction), so a change made meanwhile is seen whole or not at all.
// Operators and the checks.
func (s *Store) PaymentLedger(ctx context.Context, buyerID int64) ([]PaymentLedgerRow, error) {
	return s.paymentLedger(ctx, `($1 = 0 OR i.buyer_id = $1)`, `($1 = 0 OR buyer_id = $1)`, buyerID)
}

// PaymentLedgerOf is PaymentLedger for the payments of ids, whoever their buyers.
func (s *Store) PaymentLedgerOf(ctx context.Context, ids []int64) ([]PaymentLedgerRow, error) {
	return s.paymentLedger(ctx, `i.id = ANY($1)`, `invoice_id = ANY($1)`, pq.Int64Array(ids))
}

func (s *Store) paymentLedger(ctx context.Context, invoicesWhere, entriesWhere string, arg any) ([]PaymentLedgerRow, error) {
	tx, err := s.DB.BeginTxx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("store: payment ledger: %w", err)
	}
	defer tx.Rollback()
	rows := []PaymentLedgerRow{}
	if err := tx.SelectContext(ctx, &rows, `SELECT i.id, i.buyer_id, i.payment_ref, i.examination_status, i.card_status,
		i.transfer_state, i.amount, i.fee, i.payee_fee, i.fee_full_basis_points, i.authorized_amount,
		(SELECT count(*) FROM ledger_postings p WHERE p.invoice_id = i.id AND p.kind IN ('capture', 'opening')) AS captures,
		(SELECT count(*) FROM ledger_postings p WHERE p.invoice_id = i.id AND p.kind = 'refund') AS refunds,
		(SELECT count(*) FROM ledger_postings p WHERE p.invoice_id = i.id AND p.kind = 'transfer_filed') AS filed,
		(SELECT count(*) FROM ledger_postings p WHERE p.invoice_id = i.id AND p.kind = 'transfer_done') AS done
		FROM invoices i WHERE i.submitted_at IS NOT NULL AND i.invoice_type IN (1, 2) AND `+invoicesWhere+`
		ORDER BY i.id`, arg); err != nil {
		return nil, fmt.Errorf("store: payment ledger: %w", err)
	}
	var lines []struct {
		InvoiceID int64             `db:"invoice_id"`
		Account   pay.LedgerAccount `db:"account"`
		Sum       int64             `db:"sum"`
	}
	if err := tx.SelectContext(ctx, &lines, `SELECT invoice_id, account, sum(amount)::bigint AS sum FROM ledger_entries
		WHERE invoice_id IS NOT NULL AND `+entriesWhere+` GROUP BY invoice_id, account`, arg); err != nil {
		return nil, fmt.Errorf("store: payment ledger: %w", err)
	}
	byID := map[int64]Balances{}
	for _, l := range lines {
		if l.Sum == 0 {
			continue
		}
		if byID[l.InvoiceID] == nil {
			byID[l.InvoiceID] = Balances{}
		}
		byID[l.InvoiceID][l.Account] = l.Sum
	}
	for i := range rows {
		rows[i].Balances = byID[rows[i].ID]
		if rows[i].Balances == nil {
			rows[i].Balances = Balances{}
		}
	}
	return rows, nil
}

// LedgerMoves are what the journal moved for a payment or a transfer file: card charges
// and refunds, and the payee's money filed, paid and returned by the bank.
type LedgerMoves struct {
	Captured int64 // card receivable debited by captures (and opening balances)
	Refunded int64 // card receivable credited by refunds
	Filed    int64 // moved into transfer files
	Done     int64 // paid by the bank
	Failed   int64 // returned by the bank
}

// ledgerMovesSQL sums the moves by a key column of the postings.
const ledgerMovesSQL = `SELECT p.%[1]s AS key,
	COALESCE(sum(e.amount) FILTER (WHERE p.kind IN ('capture', 'opening') AND e.account = 'card_receivable'), 0)::bigint AS captured,
	COALESCE(-sum(e.amount) FILTER (WHERE p.kind = 'refund' AND e.account = 'card_receivable'), 0)::bigint AS refunded,
	COALESCE(-sum(e.amount) FILTER (WHERE p.kind = 'transfer_filed' AND e.account = 'transfers_in_transit'), 0)::bigint AS filed,
	COALESCE(-sum(e.amount) FILTER (WHERE p.kind = 'transfer_done' AND e.account = 'bank'), 0)::bigint AS done,
	COALESCE(-sum(e.amount) FILTER (WHERE p.kind = 'transfer_failed' AND e.account = 'supplier_payable'), 0)::bigint AS failed
	FROM ledger_postings p JOIN ledger_entries e ON e.posting_id = p.id WHERE p.%[1]s = ANY($1) GROUP BY p.%[1]s`

func (s *Store) ledgerMoves(ctx context.Context, column string, ids []int64) (map[int64]LedgerMoves, error) {
	var rows []struct {
		Key int64 `db:"key"`
		LedgerMoves
	}
	if err := s.DB.SelectContext(ctx, &rows, fmt.Sprintf(ledgerMovesSQL, column), pq.Int64Array(ids)); err != nil {
		return nil, fmt.Errorf("store: ledger moves by %s: %w", column, err)
	}
	out := make(map[int64]LedgerMoves, len(rows))
	for _, r := range rows {
		out[r.Key] = r.LedgerMoves
	}
	return out, nil
}

// PaymentMoves are the journal's moves of each payment of ids. Operators only.
func (s *Store) PaymentMoves(ctx context.Context, ids []int64) (map[int64]LedgerMoves, error) {
	return s.ledgerMoves(ctx, "invoice_id", ids)
}

// FileMoves are the journal's moves of each transfer file of ids. Operators only.
func (s *Store) FileMoves(ctx context.Context, ids []int64) (map[int64]LedgerMoves, error) {
	return s.ledgerMoves(ctx, "transfer_file_id", ids)
}

// ReconciliationRun is one daily reconciliation as kept: its range, its counts, and the
// differences and totals as JSON (the service's types).
type ReconciliationRun struct {
	RunDate    time.Time `db:"run_date"`
	From       time.Time `db:"from_date"`
	To         time.Time `db:"to_date"`
	Payments   int       `db:"payments"`
	Files      int       `db:"files"`
	Mismatches []byte    `db:"mismatches"`
	Totals     []byte    `db:"totals"`
	CreatedAt  time.Time `db:"created_at"`
}

// SaveReconciliationRun keeps the day's run (a second run of the day replaces it).
func (s *Store) SaveReconciliationRun(ctx context.Context, r ReconciliationRun) error {
	if _, err := s.DB.ExecContext(ctx, `INSERT INTO reconciliation_runs (run_date, from_date, to_date, payments, files, mismatches, totals)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (run_date) DO UPDATE SET from_date = $2, to_date = $3, payments = $4, files = $5,
		mismatches = $6, totals = $7, created_at = now()`,
		r.RunDate.Format("2006-01-02"), r.From.Format("2006-01-02"), r.To.Format("2006-01-02"), r.Payments, r.Files,
		string(r.Mismatches), string(r.Totals)); err != nil {
		return fmt.Errorf("store: reconciliation run: %w", err)
	}
	return nil
}

// LastReconciliationRun is the newest daily run; ErrNotFound before the first.
func (s *Store) LastReconciliationRun(ctx context.Context) (ReconciliationRun, error) {
	return getOne[ReconciliationRun](ctx, s.DB, "last reconciliation", `SELECT run_date, from_date, to_date, payments, files,
		mismatches, totals, created_at FROM reconciliation_runs ORDER BY run_date DESC LIMIT 1`)
}
