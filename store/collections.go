package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"cardpay/pay"
)

// Card-payment requests (collections). The requester's side is an invoice of type
// InvoiceRequestSeller with its invoice_requests row; the customer's side, once the
// customer is known, an invoice of type InvoiceRequestBuyer paid like any payment. Every
// change of the customer's invoice goes through insertEvent, whose Events (the app's
// invoices service) move the requester's invoice with it in the same transaction
// (RequestPaidBy, MoveRequest), so the two sides cannot disagree.

// ErrRequestClaimed: the request's key was used by another buyer, or the request is
// addressed to another corporation.
var ErrRequestClaimed = errors.New("store: the request belongs to another buyer")

// requestMailUniqueKey is the unique key of the job that mails the customer the
// request's link; the job itself is built (sealed, since it holds the key) by the caller
// of SendRequest.
const requestMailUniqueKey = "request-mail-%d"

// BuyerAccount is one of a buyer's own receiving accounts (for card-payment requests).
type BuyerAccount struct {
	ID            int64           `db:"id"`
	BuyerID       int64           `db:"buyer_id"`
	BankCode      string          `db:"bank_code"`
	BankName      string          `db:"bank_name"`
	BranchCode    string          `db:"branch_code"`
	BranchName    string          `db:"branch_name"`
	AccountType   pay.AccountType `db:"account_type"`
	AccountNumber string          `db:"account_number"`
	HolderName    string          `db:"holder_name"`
	CreatedAt     time.Time       `db:"created_at"`
}

const buyerAccountColumns = `id, buyer_id, bank_code, bank_name, branch_code, branch_name, account_type, account_number, holder_name, created_at`

// BuyerAccounts lists the buyer's receiving accounts, oldest first.
func (s *Store) BuyerAccounts(ctx context.Context, buyerID int64) ([]BuyerAccount, error) {
	list := []BuyerAccount{}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+buyerAccountColumns+` FROM buyer_accounts WHERE buyer_id = $1 ORDER BY id`, buyerID); err != nil {
		return nil, fmt.Errorf("store: accounts of buyer %d: %w", buyerID, err)
	}
	return list, nil
}

// BuyerAccount loads one of the buyer's receiving accounts.
func (s *Store) BuyerAccount(ctx context.Context, buyerID, id int64) (BuyerAccount, error) {
	return getOne[BuyerAccount](ctx, s.DB, fmt.Sprintf("buyer account %d", id),
		`SELECT `+buyerAccountColumns+` FROM buyer_accounts WHERE buyer_id = $1 AND id = $2`, buyerID, id)
}

// CreateBuyerAccount adds a receiving account; the same account twice is
// ErrDuplicateAccount.
func (s *Store) CreateBuyerAccount(ctx context.Context, buyerID int64, f AccountFields) (BuyerAccount, error) {
	var id int64
	err := s.DB.GetContext(ctx, &id, `INSERT INTO buyer_accounts (buyer_id, bank_code, bank_name, branch_code, branch_name,
		account_type, account_number, holder_name) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
		buyerID, f.BankCode, f.BankName, f.BranchCode, f.BranchName, f.AccountType, f.AccountNumber, f.HolderName)
	if err != nil {
		return BuyerAccount{}, accountWriteError(0, err)
	}
	return s.BuyerAccount(ctx, buyerID, id)
}

// Request is a card-payment request as its requester sees it.
type Request struct {
	// ID is the requester's invoice.
	ID                      int64                 `db:"id"`
	RequesterID             int64                 `db:"requester_id"`
	ExaminationStatus       pay.ExaminationStatus `db:"examination_status"`
	Amount                  int64                 `db:"amount"`
	Fee                     int64                 `db:"fee"`
	FeeBasisPoints          int                   `db:"fee_basis_points"`
	FeeBearer               pay.FeeBearer         `db:"fee_bearer"`
	Deadline                time.Time             `db:"due_date"`
	InvoiceNumber           string                `db:"invoice_number"`
	InvoiceDate             *time.Time            `db:"invoice_date"`
	Message                 string                `db:"message"`
	FileID                  *int64                `db:"file_id"`
	CustomerName            string                `db:"customer_name"`
	CustomerContactName     string                `db:"customer_contact_name"`
	CustomerEmail           string                `db:"customer_email"`
	CustomerCorporateNumber string                `db:"customer_corporate_number"`
	CustomerBuyerID         *int64                `db:"customer_buyer_id"`
	PaymentInvoiceID        *int64                `db:"payment_invoice_id"`
	KeyUsedAt               *time.Time            `db:"key_used_at"`
	AccountID               int64                 `db:"account_id"`
	BankCode                string                `db:"bank_code"`
	BankName                string                `db:"bank_name"`
	BranchCode              string                `db:"branch_code"`
	BranchName              string                `db:"branch_name"`
	AccountType             pay.AccountType       `db:"account_type"`
	AccountNumber           string                `db:"account_number"`
	HolderName              string                `db:"holder_name"`
	RequesterName           string                `db:"requester_name"`
	RequesterCorporate      string                `db:"requester_corporate_number"`
	CreatedAt               time.Time             `db:"created_at"`
	// PaidAt is when the customer's card was authorised; TransferDate the day the
	// requester is paid (both nil until the customer pays).
	PaidAt       *time.Time `db:"paid_at"`
	TransferDate *time.Time `db:"transfer_date"`
}

// Status is the request's status number for the requester (1–7).
func (r Request) Status() pay.CollectionStatus { return pay.CollectionStatusOf(r.ExaminationStatus) }

// Transfer is what the requester receives: the amount, less the fee when the requester
// bears it.
func (r Request) Transfer() int64 {
	_, payee := pay.RequestCharges(r.Fee, r.FeeBearer)
	return r.Amount - payee
}

// CustomerCharge is what the customer's card is charged.
func (r Request) CustomerCharge() int64 {
	customer, _ := pay.RequestCharges(r.Fee, r.FeeBearer)
	return r.Amount + customer
}

const requestColumns = `i.id, r.requester_id, i.examination_status, i.amount, i.fee, i.fee_basis_points, r.fee_bearer,
	i.due_date, i.invoice_number, i.invoice_date, r.message, i.file_id, r.customer_name, r.customer_contact_name,
	r.customer_email, r.customer_corporate_number, r.customer_buyer_id, r.payment_invoice_id, r.key_used_at, r.account_id,
	a.bank_code, a.bank_name, a.branch_code, a.branch_name, a.account_type, a.account_number, a.holder_name,
	b.corporate_name AS requester_name, b.corporate_number AS requester_corporate_number, i.created_at,
	CASE WHEN p.card_status IN ('authorized', 'captured', 'refunded') OR (p.card_status = 'voided' AND p.examination_status <> 7)
		THEN p.submitted_at END AS paid_at,
	CASE WHEN p.examination_status IN (1, 2, 3, 4) THEN p.transfer_date END AS transfer_date`

const requestFrom = ` FROM invoices i JOIN invoice_requests r ON r.invoice_id = i.id
	JOIN buyer_accounts a ON a.id = r.account_id
	JOIN buyers b ON b.id = r.requester_id
	LEFT JOIN invoices p ON p.id = r.payment_invoice_id `

// Request loads one of the requester's requests; another buyer's is ErrNotFound.
func (s *Store) Request(ctx context.Context, requesterID, id int64) (Request, error) {
	return getOne[Request](ctx, s.DB, fmt.Sprintf("request %d", id), `SELECT `+requestColumns+requestFrom+`
		WHERE i.buyer_id = $1 AND i.id = $2 AND i.invoice_type = $3`, requesterID, id, pay.InvoiceRequestSeller)
}

// RequestOfPayment loads the request behind the customer's invoice paymentID, for that
// customer only (their creditcard page shows the requester's details and file).
func (s *Store) RequestOfPayment(ctx context.Context, customerID, paymentID int64) (Request, error) {
	return getOne[Request](ctx, s.DB, fmt.Sprintf("request of payment %d", paymentID), `SELECT `+requestColumns+requestFrom+`
		WHERE r.payment_invoice_id = $2 AND r.customer_buyer_id = $1 AND p.buyer_id = $1`, customerID, paymentID)
}

// RequestFilter selects one of the requester's lists.
type RequestFilter struct {
	RequesterID int64
	Bucket      pay.CollectionBucket // "" for every request
	Page, Size  int
}

// Requests lists one bucket of the requester's requests, newest first, a page at a time
// (page from 0), with the bucket's total; size 0 answers the count alone.
func (s *Store) Requests(ctx context.Context, f RequestFilter) ([]Request, int, error) {
	args := []any{f.RequesterID, pay.InvoiceRequestSeller}
	where := ` WHERE i.buyer_id = $1 AND i.invoice_type = $2`
	if f.Bucket != "" {
		var statuses pq.Int64Array
		for _, st := range pay.ExaminationStatusesOf(f.Bucket) {
			statuses = append(statuses, int64(st))
		}
		args = append(args, statuses)
		where += ` AND i.examination_status = ANY($3)`
	}
	var total int
	if err := s.DB.GetContext(ctx, &total, `SELECT count(*) FROM invoices i`+where, args...); err != nil {
		return nil, 0, fmt.Errorf("store: requests of buyer %d: %w", f.RequesterID, err)
	}
	list := []Request{}
	if total == 0 || f.Size <= 0 || f.Page*f.Size >= total {
		return list, total, nil
	}
	args = append(args, f.Size, f.Page*f.Size)
	q := `SELECT ` + requestColumns + requestFrom + where +
		fmt.Sprintf(` ORDER BY i.id DESC LIMIT $%d OFFSET $%d`, len(args)-1, len(args))
	if err := s.DB.SelectContext(ctx, &list, q, args...); err != nil {
		return nil, 0, fmt.Errorf("store: requests of buyer %d: %w", f.RequesterID, err)
	}
	return list, total, nil
}

// NewRequest is a request as the confirm page checked it.
type NewRequest struct {
	RequesterID int64
	CreatedBy   int64
	// SubmitKey makes sending idempotent: a second send with it answers the first request.
	SubmitKey      string
	Request        pay.CheckedRequest
	Fee            int64
	FeeBasisPoints int
	FeeBearer      pay.FeeBearer
	AccountID      int64
	FileID         *int64
	KeyHash        []byte
	// Mail is the customer's mail job (sealed: it holds the key), enqueued in the same
	// transaction so the request and its mail exist together. No kind: no mail (the demo
	// data's requests).
	Mail NewJob
}

// SendRequest records a request with its key and queues the customer's mail, in one
// transaction. A customer whose corporate number belongs to a registered corporation is
// linked at once: the request waits in their 支払待ち list. A second call with the same
// SubmitKey creates nothing and answers the first request (created false); an account or
// file that is not the requester's is ErrNotFound.
func (s *Store) SendRequest(ctx context.Context, n NewRequest, now time.Time) (r Request, created bool, err error) {
	if id, err := s.requestByKey(ctx, n.RequesterID, n.SubmitKey); err == nil {
		r, err := s.Request(ctx, n.RequesterID, id)
		return r, false, err
	}
	var id int64
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		c := n.Request
		err := tx.GetContext(ctx, &id, `INSERT INTO invoices (buyer_id, supplier_id, account_id, invoice_type,
			examination_status, amount, fee, fee_basis_points, due_date, submit_key, card_status, authorized_amount,
			invoice_number, invoice_date, file_id, created_by, submitted_at, created_at, updated_at)
			SELECT $1, NULL, NULL, $2, $3, $4, $5, $6, $7, $8, 'none', 0, $9, $10, $11, $12, $13, $13, $13
			WHERE EXISTS (SELECT 1 FROM buyer_accounts WHERE buyer_id = $1 AND id = $14)
			AND ($11::bigint IS NULL OR EXISTS (SELECT 1 FROM invoice_files f WHERE f.buyer_id = $1 AND f.id = $11))
			ON CONFLICT (buyer_id, submit_key) DO NOTHING RETURNING id`,
			n.RequesterID, pay.InvoiceRequestSeller, pay.BuyerNotRegistered, c.Amount, n.Fee, n.FeeBasisPoints, c.Deadline,
			nullString(n.SubmitKey), c.InvoiceNumber, c.InvoiceDate, n.FileID, nullID(n.CreatedBy), now, n.AccountID)
		if notFound(err) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("store: send request: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO invoice_requests (invoice_id, requester_id, customer_name,
			customer_contact_name, customer_email, customer_corporate_number, account_id, fee_bearer, message, key_hash, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			id, n.RequesterID, c.CustomerName, c.CustomerContactName, c.CustomerEmail, c.CustomerCorporateNumber,
			n.AccountID, n.FeeBearer, c.Message, n.KeyHash, now); err != nil {
			return fmt.Errorf("store: send request %d: %w", id, err)
		}
		actor := "buyer"
		if n.CreatedBy != 0 {
			actor = fmt.Sprintf("buyer:%d", n.CreatedBy)
		}
		if err := s.requestEvent(ctx, tx, n.RequesterID, id, pay.ActRequest, nil, pay.BuyerNotRegistered, actor, now); err != nil {
			return err
		}
		if j := n.Mail; j.Kind != "" {
			j.UniqueKey = fmt.Sprintf(requestMailUniqueKey, id)
			if _, err := enqueueJob(ctx, tx, j); err != nil {
				return err
			}
		}
		if n.FileID != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE invoice_files SET locked_at = COALESCE(locked_at, $3)
				WHERE buyer_id = $1 AND id = $2`, n.RequesterID, *n.FileID, now); err != nil {
				return fmt.Errorf("store: lock invoice file %d: %w", *n.FileID, err)
			}
		}
		if c.CustomerCorporateNumber == "" {
			return nil
		}
		// A customer who already uses the service: the request is theirs at once. Only an
		// active buyer: one held for review may be an impostor claiming the number.
		var customerID int64
		err = tx.GetContext(ctx, &customerID, `SELECT id FROM buyers WHERE business_form = 1 AND corporate_number = $1
			AND id <> $2 AND review_status = 'active' ORDER BY id LIMIT 1`, c.CustomerCorporateNumber, n.RequesterID)
		if notFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: customer of request %d: %w", id, err)
		}
		_, err = s.linkCustomer(ctx, tx, id, customerID, "system", now)
		return err
	})
	if errors.Is(err, ErrNotFound) && n.SubmitKey != "" {
		if id, kerr := s.requestByKey(ctx, n.RequesterID, n.SubmitKey); kerr == nil {
			r, err := s.Request(ctx, n.RequesterID, id)
			return r, false, err
		}
	}
	if err != nil {
		return Request{}, false, err
	}
	r, err = s.Request(ctx, n.RequesterID, id)
	return r, true, err
}

func (s *Store) requestByKey(ctx context.Context, requesterID int64, key string) (int64, error) {
	if key == "" {
		return 0, ErrNotFound
	}
	var id int64
	err := s.DB.GetContext(ctx, &id, `SELECT id FROM invoices WHERE buyer_id = $1 AND submit_key = $2 AND invoice_type = $3`,
		requesterID, key, pay.InvoiceRequestSeller)
	if notFound(err) {
		return 0, ErrNotFound
	}
	return id, err
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// linkCustomer makes request id the customer's: the requester among the customer's
// suppliers (found by corporate number, or added as approved: the requester is a
// registered corporation), its receiving account among the supplier's as a new account
// waiting for the operators' approval, and the customer's invoice waiting for their card. The
// customer's event moves the requester's invoice to 支払待ち (through Events).
func (s *Store) linkCustomer(ctx context.Context, tx *sqlx.Tx, id, customerID int64, actor string, now time.Time) (int64, error) {
	var req struct {
		Requester int64         `db:"requester_id"`
		Name      string        `db:"corporate_name"`
		Kana      string        `db:"corporate_name_kana"`
		Number    string        `db:"corporate_number"`
		Amount    int64         `db:"amount"`
		Fee       int64         `db:"fee"`
		Bps       int           `db:"fee_basis_points"`
		Bearer    pay.FeeBearer `db:"fee_bearer"`
		Deadline  time.Time     `db:"due_date"`
		Number2   string        `db:"invoice_number"`
		Date      *time.Time    `db:"invoice_date"`
		AccountID int64         `db:"account_id"`
	}
	if err := tx.GetContext(ctx, &req, `SELECT r.requester_id, b.corporate_name, b.corporate_name_kana, b.corporate_number,
		i.amount, i.fee, i.fee_basis_points, r.fee_bearer, i.due_date, i.invoice_number, i.invoice_date, r.account_id
		FROM invoice_requests r JOIN invoices i ON i.id = r.invoice_id JOIN buyers b ON b.id = r.requester_id
		WHERE r.invoice_id = $1`, id); err != nil {
		return 0, fmt.Errorf("store: link request %d: %w", id, err)
	}
	var supplierID int64
	err := tx.GetContext(ctx, &supplierID, `SELECT id FROM suppliers WHERE buyer_id = $1 AND corporate_number = $2
		AND deleted_at IS NULL AND status <> $3 ORDER BY id LIMIT 1`, customerID, req.Number, pay.SupplierRejected)
	if notFound(err) {
		err = tx.GetContext(ctx, &supplierID, `INSERT INTO suppliers (buyer_id, business_form, name, name_kana, corporate_number, status)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			customerID, pay.Corporation, req.Name, req.Kana, req.Number, pay.SupplierApproved)
	}
	if err != nil {
		return 0, fmt.Errorf("store: link request %d: supplier: %w", id, err)
	}
	// The requester's receiving account is the requester's word only: on the customer's
	// supplier it is a new row waiting for the operators (approved_at NULL), never
	// attached to an account the customer vouched for. The same account already on the
	// supplier is reused as it stands (approved or still waiting).
	var accountID int64
	if err := tx.GetContext(ctx, &accountID, `INSERT INTO supplier_accounts (buyer_id, supplier_id, bank_code, bank_name,
		branch_code, branch_name, account_type, account_number, holder_name, origin, approved_at)
		SELECT $1, $2, bank_code, bank_name, branch_code, branch_name, account_type, account_number, holder_name, $4, NULL
		FROM buyer_accounts WHERE id = $3
		ON CONFLICT (supplier_id, bank_code, branch_code, account_type, account_number) DO UPDATE SET updated_at = now()
		RETURNING id`, customerID, supplierID, req.AccountID, AccountFromRequest); err != nil {
		return 0, fmt.Errorf("store: link request %d: account: %w", id, err)
	}
	customerFee, payeeFee := pay.RequestCharges(req.Fee, req.Bearer)
	var paymentID int64
	if err := tx.GetContext(ctx, &paymentID, `INSERT INTO invoices (buyer_id, supplier_id, account_id, invoice_type,
		examination_status, amount, fee, payee_fee, fee_basis_points, fee_full_basis_points, due_date, card_status, authorized_amount,
		invoice_number, invoice_date, submitted_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, 'none', 0, $11, $12, $13, $13, $13) RETURNING id`,
		customerID, supplierID, accountID, pay.InvoiceRequestBuyer, pay.WaitingForPayment, req.Amount, customerFee, payeeFee,
		req.Bps, req.Deadline, req.Number2, req.Date, now); err != nil {
		return 0, fmt.Errorf("store: link request %d: invoice: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE invoice_requests SET customer_buyer_id = $2, payment_invoice_id = $3 WHERE invoice_id = $1`,
		id, customerID, paymentID); err != nil {
		return 0, fmt.Errorf("store: link request %d: %w", id, err)
	}
	from := pay.PaymentState{Status: pay.BuyerNotRegistered}
	if _, err := s.insertEvent(ctx, tx, customerID, paymentID, pay.ActLink, &from, pay.PaymentState{Status: pay.WaitingForPayment}, actor, "", now); err != nil {
		return 0, err
	}
	return paymentID, nil
}

// CancelRequest cancels one of the requester's requests before it is paid; its key stops
// working at once. pay.ErrTransition when it is no longer open; ErrStateChanged when the
// customer's card is being authorised right now (the payment decides).
func (s *Store) CancelRequest(ctx context.Context, requesterID, id int64, actor string, now time.Time) (Request, error) {
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		return s.endRequest(ctx, tx, requesterID, id, pay.ActCancel, actor, "依頼者がキャンセルしました", now)
	})
	if err != nil {
		return Request{}, err
	}
	return s.Request(ctx, requesterID, id)
}

// endRequest cancels or expires an open request: the customer's invoice first when there
// is one (its event moves the requester's), else the requester's alone.
func (s *Store) endRequest(ctx context.Context, tx *sqlx.Tx, requesterID, id int64, a pay.PaymentAction, actor, reason string, now time.Time) error {
	var row struct {
		Status    pay.ExaminationStatus `db:"examination_status"`
		PaymentID *int64                `db:"payment_invoice_id"`
		Customer  *int64                `db:"customer_buyer_id"`
	}
	err := tx.GetContext(ctx, &row, `SELECT i.examination_status, r.payment_invoice_id, r.customer_buyer_id
		FROM invoices i JOIN invoice_requests r ON r.invoice_id = i.id
		WHERE i.buyer_id = $1 AND i.id = $2 AND i.invoice_type = $3 FOR UPDATE OF i`, requesterID, id, pay.InvoiceRequestSeller)
	if notFound(err) {
		return fmt.Errorf("store: request %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("store: request %d: %w", id, err)
	}
	to, err := pay.NextPayment(pay.PaymentState{Status: row.Status}, a)
	if err != nil || !pay.RequestOpen(row.Status) {
		return fmt.Errorf("store: request %d %s: %w", id, a, pay.ErrTransition)
	}
	if row.PaymentID == nil || row.Customer == nil {
		if _, err := tx.ExecContext(ctx, `UPDATE invoices SET examination_status = $2, updated_at = $3 WHERE id = $1`,
			id, to.Status, now); err != nil {
			return fmt.Errorf("store: request %d %s: %w", id, a, err)
		}
		from := row.Status
		return s.requestEvent(ctx, tx, requesterID, id, a, &from, to.Status, actor, now)
	}
	var cur struct {
		Status pay.ExaminationStatus `db:"examination_status"`
		Card   pay.CardStatus        `db:"card_status"`
	}
	if err := tx.GetContext(ctx, &cur, `SELECT examination_status, card_status FROM invoices WHERE buyer_id = $1 AND id = $2 FOR UPDATE`,
		*row.Customer, *row.PaymentID); err != nil {
		return fmt.Errorf("store: request %d %s: %w", id, a, err)
	}
	if !pay.RequestOpen(cur.Status) || (cur.Card != pay.CardNone && cur.Card != pay.CardDeclined) {
		// The customer's card is being authorised (or was, and the request is paid).
		return fmt.Errorf("store: request %d %s: %w", id, a, ErrStateChanged)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE invoices SET examination_status = $2, updated_at = $3 WHERE id = $1`,
		*row.PaymentID, to.Status, now); err != nil {
		return fmt.Errorf("store: request %d %s: %w", id, a, err)
	}
	from := cur.Status
	fromState := pay.PaymentState{Status: from}
	_, err = s.insertEvent(ctx, tx, *row.Customer, *row.PaymentID, a, &fromState, to, actor, reason, now)
	return err
}

// ExpireRequests ends the open requests whose deadline is before day (the daily job, run
// on day in Japan), and answers how many.
func (s *Store) ExpireRequests(ctx context.Context, day, now time.Time) (int, error) {
	var due []struct {
		ID        int64 `db:"id"`
		Requester int64 `db:"buyer_id"`
	}
	today := pay.ISODate(day)
	if err := s.DB.SelectContext(ctx, &due, `SELECT id, buyer_id FROM invoices WHERE invoice_type = 3
		AND examination_status IN (6, 7) AND due_date < $1 ORDER BY id`, today); err != nil {
		return 0, fmt.Errorf("store: requests past their deadline: %w", err)
	}
	n := 0
	for _, r := range due {
		err := s.inTx(ctx, func(tx *sqlx.Tx) error {
			return s.endRequest(ctx, tx, r.Requester, r.ID, pay.ActExpire, "system", "お支払い期限を過ぎました", now)
		})
		switch {
		case errors.Is(err, pay.ErrTransition), errors.Is(err, ErrStateChanged):
			// Paid or ended meanwhile, or being paid right now: the payment decides.
		case err != nil:
			return n, err
		default:
			n++
		}
	}
	return n, nil
}

// RequestKey is what a request's key opens, for the key's checks.
type RequestKey struct {
	ID                      int64                 `db:"id"`
	RequesterID             int64                 `db:"requester_id"`
	RequesterName           string                `db:"requester_name"`
	ExaminationStatus       pay.ExaminationStatus `db:"examination_status"`
	Deadline                time.Time             `db:"due_date"`
	CustomerCorporateNumber string                `db:"customer_corporate_number"`
	CustomerBuyerID         *int64                `db:"customer_buyer_id"`
	PaymentInvoiceID        *int64                `db:"payment_invoice_id"`
	KeyUsedAt               *time.Time            `db:"key_used_at"`
	KeyUsedBy               *int64                `db:"key_used_by"`
}

const requestKeyQuery = `SELECT i.id, r.requester_id, b.corporate_name AS requester_name, i.examination_status, i.due_date,
	r.customer_corporate_number, r.customer_buyer_id, r.payment_invoice_id, r.key_used_at, r.key_used_by
	FROM invoice_requests r JOIN invoices i ON i.id = r.invoice_id JOIN buyers b ON b.id = r.requester_id
	WHERE r.key_hash = $1`

// RequestByKey finds the request of a key's hash; none is ErrNotFound.
func (s *Store) RequestByKey(ctx context.Context, hash []byte) (RequestKey, error) {
	return getOne[RequestKey](ctx, s.DB, "request key", requestKeyQuery, hash)
}

// UseRequestKey links the request of a key's hash to the customer and marks the key used,
// answering the customer's invoice. check, run on the locked request, refuses what the
// key's rules refuse (expired, used by another, addressed to another corporation). A key
// the same customer already used answers their invoice again without change.
func (s *Store) UseRequestKey(ctx context.Context, hash []byte, customerID int64, check func(RequestKey) error, now time.Time) (int64, error) {
	var paymentID int64
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		k, err := getOne[RequestKey](ctx, tx, "request key", requestKeyQuery+` FOR UPDATE OF r`, hash)
		if err != nil {
			return err
		}
		if err := check(k); err != nil {
			return err
		}
		if k.KeyUsedBy != nil && *k.KeyUsedBy == customerID && k.PaymentInvoiceID != nil {
			paymentID = *k.PaymentInvoiceID
			return nil
		}
		switch {
		case k.PaymentInvoiceID != nil && k.CustomerBuyerID != nil && *k.CustomerBuyerID == customerID:
			paymentID = *k.PaymentInvoiceID // found by corporate number when it was sent
		case k.PaymentInvoiceID != nil:
			return ErrRequestClaimed
		default:
			if paymentID, err = s.linkCustomer(ctx, tx, k.ID, customerID, "buyer", now); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE invoice_requests SET key_used_at = $2, key_used_by = $3 WHERE invoice_id = $1`,
			k.ID, now, customerID)
		return err
	})
	return paymentID, err
}

// RequestKeyMisses counts the buyer's keys that matched nothing since since.
func (s *Store) RequestKeyMisses(ctx context.Context, buyerID int64, since time.Time) (int, error) {
	var n int
	if err := s.DB.GetContext(ctx, &n, `SELECT count(*) FROM request_key_misses WHERE buyer_id = $1 AND at >= $2`, buyerID, since); err != nil {
		return 0, fmt.Errorf("store: key misses of buyer %d: %w", buyerID, err)
	}
	return n, nil
}

// AddRequestKeyMiss records a key of the buyer's that matched nothing.
func (s *Store) AddRequestKeyMiss(ctx context.Context, buyerID int64, now time.Time) error {
	if _, err := s.DB.ExecContext(ctx, `INSERT INTO request_key_misses (buyer_id, at) VALUES ($1, $2)`, buyerID, now); err != nil {
		return fmt.Errorf("store: key miss of buyer %d: %w", buyerID, err)
	}
	return nil
}

// StartRequestPayment starts paying the customer's invoice id of a request with a card:
// the invoice becomes a submission (card pending) under key, authorised for amount +
// the customer's fee on transferDate's schedule. Only one attempt wins: a concurrent or
// repeated one with the same key answers the same row (started false); one with another
// key while an attempt is under way is ErrStateChanged. After a decline the next attempt
// takes the next authorisation number, so the PSP sees a new payment id.
//
// also runs in the same transaction when the attempt starts, with its authorisation
// number: the caller enqueues there the job that settles the attempt should nobody else
// (invoices.SettleJobKind), so that no attempt exists without it. It is required.
func (s *Store) StartRequestPayment(ctx context.Context, customerID, id int64, key string, cardID int64, transferDate time.Time, now time.Time, also func(tx *sqlx.Tx, seq int) error) (Payment, bool, error) {
	if key == "" {
		return Payment{}, false, errors.New("store: request payment without a key")
	}
	if also == nil {
		return Payment{}, false, errors.New("store: request payment without its settle job")
	}
	var started bool
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var seq int
		err := tx.GetContext(ctx, &seq, `UPDATE invoices i SET submit_key = $3, card_id = c.id, card_status = 'pending',
			card_result_code = '', action_url = '', authorized_amount = i.amount + i.fee, transfer_date = $5,
			auth_seq = CASE WHEN i.card_status = 'declined' THEN i.auth_seq + 1 ELSE i.auth_seq END, updated_at = $6
			FROM cards c WHERE c.buyer_id = $1 AND c.id = $4 AND c.deleted_at IS NULL
			AND i.buyer_id = $1 AND i.id = $2 AND i.invoice_type = 2 AND i.examination_status = 7
			AND i.card_status IN ('none', 'declined') AND i.submit_key IS DISTINCT FROM $3
			RETURNING i.auth_seq`, customerID, id, key, cardID, transferDate, now)
		if notFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: start paying request %d: %w", id, err)
		}
		started = true
		return also(tx, seq)
	})
	if err != nil {
		return Payment{}, false, err
	}
	p, err := s.Submission(ctx, customerID, id)
	if err != nil {
		return Payment{}, false, err
	}
	if p.InvoiceType != pay.InvoiceRequestBuyer {
		return Payment{}, false, fmt.Errorf("store: invoice %d is not a request: %w", id, ErrNotFound)
	}
	if !started && (p.SubmitKey == nil || *p.SubmitKey != key) && (p.CardStatus == pay.CardPending || p.CardStatus == pay.CardRequiresAction) {
		return p, false, ErrStateChanged
	}
	return p, started, nil
}
