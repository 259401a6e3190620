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

// ErrSupplierInUse is returned when a supplier or account cannot be deleted or changed
// because a payment to it is still in progress: the money would go astray.
var ErrSupplierInUse = errors.New("store: supplier has payments in progress")

// ErrDuplicateAccount is returned when the same bank account is added to a supplier twice.
var ErrDuplicateAccount = errors.New("store: account already registered")

// Supplier is a buyer's registered supplier (SPEC.md §2 registered suppliers).
type Supplier struct {
	ID              int64              `db:"id"`
	BuyerID         int64              `db:"buyer_id"`
	BusinessForm    pay.BusinessForm   `db:"business_form"`
	Name            string             `db:"name"`
	NameKana        string             `db:"name_kana"`
	CorporateNumber string             `db:"corporate_number"`
	BusinessName    string             `db:"business_name"`
	Status          pay.SupplierStatus `db:"status"`
	CreatedAt       time.Time          `db:"created_at"`
	UpdatedAt       time.Time          `db:"updated_at"`
}

// SupplierAccount is one of a supplier's bank accounts.
type SupplierAccount struct {
	ID            int64           `db:"id"`
	BuyerID       int64           `db:"buyer_id"`
	SupplierID    int64           `db:"supplier_id"`
	BankCode      string          `db:"bank_code"`
	BankName      string          `db:"bank_name"`
	BranchCode    string          `db:"branch_code"`
	BranchName    string          `db:"branch_name"`
	AccountType   pay.AccountType `db:"account_type"`
	AccountNumber string          `db:"account_number"`
	HolderName    string          `db:"holder_name"`
	CreatedAt     time.Time       `db:"created_at"`
	UpdatedAt     time.Time       `db:"updated_at"`
	// Origin says who gave the account: the buyer typed it (AccountFromBuyer), or it came
	// with a card-payment request (AccountFromRequest).
	Origin string `db:"origin"`
	// ApprovedAt is when the account was vouched for: as the buyer saved it, or by an
	// operator (ApprovedBy) for one that came with a request. Nil: no transfer goes to
	// it yet.
	ApprovedAt *time.Time `db:"approved_at"`
	ApprovedBy *int64     `db:"approved_by"`
}

// Approved says whether money may be transferred to the account.
func (a SupplierAccount) Approved() bool { return a.ApprovedAt != nil }

// Account origins (supplier_accounts.origin).
const (
	AccountFromBuyer   = "buyer"
	AccountFromRequest = "request"
)

// AccountFields are what a person enters for an account, already normalised and checked
// (pay.AccountInput), with the bank and branch names looked up from the zengin data.
type AccountFields struct {
	BankCode      string
	BankName      string
	BranchCode    string
	BranchName    string
	AccountType   pay.AccountType
	AccountNumber string
	HolderName    string
}

// AccountFieldsOf is the stored form of an account that passed pay.AccountInput.Check.
func AccountFieldsOf(a pay.CheckedAccount) AccountFields {
	return AccountFields{
		BankCode: a.BankCode, BankName: a.BankName, BranchCode: a.BranchCode, BranchName: a.BranchName,
		AccountType: a.AccountType, AccountNumber: a.AccountNumber, HolderName: a.HolderName,
	}
}

const supplierColumns = `id, buyer_id, business_form, name, name_kana, corporate_number, business_name, status, created_at, updated_at`
const accountColumns = `id, buyer_id, supplier_id, bank_code, bank_name, branch_code, branch_name, account_type, account_number, holder_name, created_at, updated_at,
	origin, approved_at, approved_by`

// SupplierFilter selects one page of a buyer's suppliers. Page counts from 0 (SPEC.md
// §9 stats queries); Size 0 means only the total is wanted.
type SupplierFilter struct {
	BuyerID int64
	Group   pay.SupplierGroup
	// Statuses, when given, are the statuses listed instead of Group's (the API's
	// status list).
	Statuses []pay.SupplierStatus
	Page     int
	Size     int
}

// Suppliers answers one page of the buyer's suppliers in group f.Group (or of
// f.Statuses), newest first, and how many there are in all (count_all).
func (s *Store) Suppliers(ctx context.Context, f SupplierFilter) ([]Supplier, int, error) {
	statuses := supplierStatusCodes(f.Group)
	if len(f.Statuses) > 0 {
		statuses = nil
		for _, st := range f.Statuses {
			statuses = append(statuses, int64(st))
		}
	}
	var total int
	if err := s.DB.GetContext(ctx, &total, `SELECT count(*) FROM suppliers
		WHERE buyer_id = $1 AND deleted_at IS NULL AND status = ANY($2)`, f.BuyerID, statuses); err != nil {
		return nil, 0, fmt.Errorf("store: count suppliers of buyer %d: %w", f.BuyerID, err)
	}
	if f.Size <= 0 || total == 0 {
		return nil, total, nil
	}
	list := []Supplier{}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+supplierColumns+` FROM suppliers
		WHERE buyer_id = $1 AND deleted_at IS NULL AND status = ANY($2)
		ORDER BY id DESC LIMIT $3 OFFSET $4`, f.BuyerID, statuses, f.Size, f.Page*f.Size); err != nil {
		return nil, 0, fmt.Errorf("store: suppliers of buyer %d: %w", f.BuyerID, err)
	}
	return list, total, nil
}

// SupplierOption is a supplier as a choice in a list's filter: its id and name.
type SupplierOption struct {
	ID   int64  `db:"id"`
	Name string `db:"name"`
}

// SupplierOptions are the buyer's suppliers of group as filter choices, newest first, at
// most limit: one statement of two columns, for pages that show them on every load.
func (s *Store) SupplierOptions(ctx context.Context, buyerID int64, g pay.SupplierGroup, limit int) ([]SupplierOption, error) {
	var list []SupplierOption
	if err := s.selectPrepared(ctx, &list, `SELECT id, name FROM suppliers
		WHERE buyer_id = $1 AND deleted_at IS NULL AND status = ANY($2) ORDER BY id DESC LIMIT $3`,
		buyerID, supplierStatusCodes(g), limit); err != nil {
		return nil, fmt.Errorf("store: supplier options of buyer %d: %w", buyerID, err)
	}
	return list, nil
}

func supplierStatusCodes(g pay.SupplierGroup) pq.Int64Array {
	var codes pq.Int64Array
	for _, st := range pay.SupplierStatusesIn(g) {
		codes = append(codes, int64(st))
	}
	return codes
}

// Supplier loads one of the buyer's suppliers; another buyer's, or a deleted one, is
// ErrNotFound.
func (s *Store) Supplier(ctx context.Context, buyerID, id int64) (Supplier, error) {
	return getOne[Supplier](ctx, s.DB, fmt.Sprintf("supplier %d", id), `SELECT `+supplierColumns+` FROM suppliers
		WHERE buyer_id = $1 AND id = $2 AND deleted_at IS NULL`, buyerID, id)
}

// CreateSupplier adds a supplier, as Unapproved, together with its first account when
// acct is not nil, in one transaction: the wizard's last step either saves everything or
// nothing.
func (s *Store) CreateSupplier(ctx context.Context, buyerID int64, in pay.SupplierInput, acct *AccountFields) (Supplier, error) {
	var id int64
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &id, `INSERT INTO suppliers (buyer_id, business_form, name, name_kana, corporate_number, business_name, status)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
			buyerID, in.BusinessForm, in.Name, in.NameKana, in.CorporateNumber, in.BusinessName, pay.SupplierUnapproved); err != nil {
			return fmt.Errorf("store: create supplier: %w", err)
		}
		if acct != nil {
			if _, err := insertAccount(ctx, tx, buyerID, id, *acct); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Supplier{}, err
	}
	return s.Supplier(ctx, buyerID, id)
}

// inProgress are the examination statuses of a payment whose money has not yet reached
// the supplier or been given back: everything outside the history bucket.
var inProgress = func() pq.Int64Array {
	var codes pq.Int64Array
	for st := pay.InProgress; st <= pay.Expired; st++ {
		if st != pay.TransferCompleted && st != pay.Cancel && st != pay.Expired {
			codes = append(codes, int64(st))
		}
	}
	return codes
}()

// supplierBusyQuery asks whether a supplier has a payment in progress ($3 = inProgress):
// a submission the PSP has not answered counts (it may become a payment), a declined one
// never became one.
const supplierBusyQuery = `SELECT EXISTS (SELECT 1 FROM invoices
	WHERE buyer_id = $1 AND supplier_id = $2 AND examination_status = ANY($3) AND card_status <> 'declined')`

// DeleteSupplier removes a supplier from the buyer's lists. Its row stays (deleted_at)
// so that past payments still name it; what its invoices taught (SupplierHistory) is
// forgotten. A supplier with a payment in progress is ErrSupplierInUse and stays as it is.
func (s *Store) DeleteSupplier(ctx context.Context, buyerID, id int64) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		// Lock the supplier first so that a payment cannot start between the check and
		// the delete.
		if err := lockSupplier(ctx, tx, buyerID, id); err != nil {
			return err
		}
		var busy bool
		if err := tx.GetContext(ctx, &busy, supplierBusyQuery, buyerID, id, inProgress); err != nil {
			return fmt.Errorf("store: delete supplier %d: %w", id, err)
		}
		if busy {
			return fmt.Errorf("store: delete supplier %d: %w", id, ErrSupplierInUse)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE suppliers SET deleted_at = now(), updated_at = now() WHERE buyer_id = $1 AND id = $2`, buyerID, id); err != nil {
			return fmt.Errorf("store: delete supplier %d: %w", id, err)
		}
		return forgetSupplierHistory(ctx, tx, buyerID, id)
	})
}

// SupplierAccounts lists a supplier's accounts, oldest first.
func (s *Store) SupplierAccounts(ctx context.Context, buyerID, supplierID int64) ([]SupplierAccount, error) {
	list := []SupplierAccount{}
	err := s.DB.SelectContext(ctx, &list, `SELECT `+accountColumns+` FROM supplier_accounts
		WHERE buyer_id = $1 AND supplier_id = $2 ORDER BY id`, buyerID, supplierID)
	if err != nil {
		return nil, fmt.Errorf("store: accounts of supplier %d: %w", supplierID, err)
	}
	return list, nil
}

// SupplierAccount loads one account of one of the buyer's suppliers.
func (s *Store) SupplierAccount(ctx context.Context, buyerID, supplierID, id int64) (SupplierAccount, error) {
	return getOne[SupplierAccount](ctx, s.DB, fmt.Sprintf("account %d", id), `SELECT `+accountColumns+` FROM supplier_accounts
		WHERE buyer_id = $1 AND supplier_id = $2 AND id = $3 AND supplier_id IN
		(SELECT id FROM suppliers WHERE buyer_id = $1 AND deleted_at IS NULL)`, buyerID, supplierID, id)
}

// CreateSupplierAccount adds an account to one of the buyer's suppliers. A new account
// sends an approved supplier back to Unapproved: operators check where money goes before
// it goes there.
func (s *Store) CreateSupplierAccount(ctx context.Context, buyerID, supplierID int64, f AccountFields) (SupplierAccount, error) {
	var id int64
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockSupplier(ctx, tx, buyerID, supplierID); err != nil {
			return err
		}
		var err error
		if id, err = insertAccount(ctx, tx, buyerID, supplierID, f); err != nil {
			return err
		}
		return reexamine(ctx, tx, buyerID, supplierID)
	})
	if err != nil {
		return SupplierAccount{}, err
	}
	return s.SupplierAccount(ctx, buyerID, supplierID, id)
}

// UpdateSupplierAccount replaces an account's details. An account that a payment in
// progress will transfer to is ErrSupplierInUse: changing it would redirect money the
// operators have already checked.
func (s *Store) UpdateSupplierAccount(ctx context.Context, buyerID, supplierID, id int64, f AccountFields) (SupplierAccount, error) {
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockSupplier(ctx, tx, buyerID, supplierID); err != nil {
			return err
		}
		var busy bool
		if err := tx.GetContext(ctx, &busy, `SELECT EXISTS (SELECT 1 FROM invoices
			WHERE buyer_id = $1 AND account_id = $2 AND examination_status = ANY($3) AND card_status <> 'declined')`, buyerID, id, inProgress); err != nil {
			return fmt.Errorf("store: update account %d: %w", id, err)
		}
		if busy {
			return fmt.Errorf("store: update account %d: %w", id, ErrSupplierInUse)
		}
		// The buyer typed the new details: an account the buyer or an operator vouched
		// for stays approved, now by the buyer; one still waiting for the operators
		// keeps waiting (a request's account does not become trusted by being edited).
		res, err := tx.ExecContext(ctx, `UPDATE supplier_accounts SET bank_code = $4, bank_name = $5, branch_code = $6,
			branch_name = $7, account_type = $8, account_number = $9, holder_name = $10, updated_at = now(),
			approved_at = CASE WHEN approved_at IS NULL THEN NULL ELSE now() END, approved_by = NULL
			WHERE buyer_id = $1 AND supplier_id = $2 AND id = $3`,
			buyerID, supplierID, id, f.BankCode, f.BankName, f.BranchCode, f.BranchName, f.AccountType, f.AccountNumber, f.HolderName)
		if err != nil {
			return accountWriteError(id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: update account %d: %w", id, ErrNotFound)
		}
		return reexamine(ctx, tx, buyerID, supplierID)
	})
	if err != nil {
		return SupplierAccount{}, err
	}
	return s.SupplierAccount(ctx, buyerID, supplierID, id)
}

func lockSupplier(ctx context.Context, tx *sqlx.Tx, buyerID, supplierID int64) error {
	var id int64
	err := tx.GetContext(ctx, &id, `SELECT id FROM suppliers WHERE buyer_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`, buyerID, supplierID)
	if notFound(err) {
		return fmt.Errorf("store: supplier %d: %w", supplierID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("store: supplier %d: %w", supplierID, err)
	}
	return nil
}

func insertAccount(ctx context.Context, tx *sqlx.Tx, buyerID, supplierID int64, f AccountFields) (int64, error) {
	var id int64
	err := tx.GetContext(ctx, &id, `INSERT INTO supplier_accounts (buyer_id, supplier_id, bank_code, bank_name,
		branch_code, branch_name, account_type, account_number, holder_name)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
		buyerID, supplierID, f.BankCode, f.BankName, f.BranchCode, f.BranchName, f.AccountType, f.AccountNumber, f.HolderName)
	if err != nil {
		return 0, accountWriteError(0, err)
	}
	return id, nil
}

func accountWriteError(id int64, err error) error {
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23505" {
		return fmt.Errorf("store: account %d: %w", id, ErrDuplicateAccount)
	}
	return fmt.Errorf("store: account %d: %w", id, err)
}

// reexamine sends an Approved or Escalation supplier back to Unapproved after its
// accounts changed. A Rejected supplier stays rejected.
func reexamine(ctx context.Context, tx *sqlx.Tx, buyerID, supplierID int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE suppliers SET status = $3, updated_at = now()
		WHERE buyer_id = $1 AND id = $2 AND status IN ($4, $5)`,
		buyerID, supplierID, pay.SupplierUnapproved, pay.SupplierApproved, pay.SupplierEscalation)
	if err != nil {
		return fmt.Errorf("store: supplier %d status: %w", supplierID, err)
	}
	return nil
}

// SetSupplierStatus records the operators' verdict. It is scoped by buyer like every
// other write; the operator console passes the supplier's buyer.
func (s *Store) SetSupplierStatus(ctx context.Context, buyerID, id int64, st pay.SupplierStatus) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE suppliers SET status = $3, updated_at = now()
		WHERE buyer_id = $1 AND id = $2 AND deleted_at IS NULL`, buyerID, id, st)
	if err != nil {
		return fmt.Errorf("store: supplier %d status: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: supplier %d status: %w", id, ErrNotFound)
	}
	return nil
}

// SupplierHasPaymentsInProgress says whether a payment to the supplier has not yet
// reached its end, so that the delete screen can say so before the person confirms.
func (s *Store) SupplierHasPaymentsInProgress(ctx context.Context, buyerID, id int64) (bool, error) {
	var busy bool
	err := s.DB.GetContext(ctx, &busy, supplierBusyQuery, buyerID, id, inProgress)
	if err != nil {
		return false, fmt.Errorf("store: payments of supplier %d: %w", id, err)
	}
	return busy, nil
}
