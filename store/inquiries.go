package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/pay"
)

// ErrNotBuyersPayment is an inquiry naming a payment that is not one of the buyer's own
// submitted payments (another buyer's id, a made-up one, an unsent draft's): the form
// says so at the field and nothing is stored.
var ErrNotBuyersPayment = errors.New("store: not one of the buyer's payments")

// AuditInquiry is the audit rows' object type of an inquiry (answered, closed).
const AuditInquiry = "inquiry"

// Inquiry is one お問い合わせ with what its pages show: the payment it names (its
// supplier and amount) and, when read whole, its answers.
type Inquiry struct {
	ID        int64               `db:"id"`
	BuyerID   *int64              `db:"buyer_id"`
	UserID    *int64              `db:"user_id"`
	Name      string              `db:"name"`
	Email     string              `db:"email"`
	Company   string              `db:"company"`
	Category  pay.InquiryCategory `db:"category"`
	Body      string              `db:"body"`
	InvoiceID *int64              `db:"invoice_id"`
	Status    pay.InquiryStatus   `db:"status"`
	CreatedAt time.Time           `db:"created_at"`
	UpdatedAt time.Time           `db:"updated_at"`
	// The payment named, if any.
	SupplierName  *string `db:"supplier_name"`
	PaymentAmount *int64  `db:"payment_amount"`
	// BuyerForm is the asking buyer's business form (nil for the public form's): the
	// console links a corporation to its page.
	BuyerForm *pay.BusinessForm `db:"business_form"`
	// Answered is how many answers it has (the lists); Answers the answers themselves
	// (one inquiry read whole), oldest first.
	Answered int `db:"answered"`
	Answers  []InquiryAnswer
}

// InquiryAnswer is one operator's answer.
type InquiryAnswer struct {
	ID           int64     `db:"id"`
	InquiryID    int64     `db:"inquiry_id"`
	OperatorID   int64     `db:"operator_id"`
	OperatorName string    `db:"operator_name"`
	Body         string    `db:"body"`
	CreatedAt    time.Time `db:"created_at"`
}

// NewInquiry is an inquiry to store. BuyerID 0 is the public form's (no user, no
// payment); InvoiceID 0 names no payment.
type NewInquiry struct {
	BuyerID, UserID      int64
	Name, Email, Company string
	Category             pay.InquiryCategory
	Body                 string
	InvoiceID            int64
}

const inquiryColumns = `q.id, q.buyer_id, q.user_id, q.name, q.email, q.company, q.category, q.body, q.invoice_id, q.status,
	q.created_at, q.updated_at, s.name AS supplier_name, i.amount AS payment_amount, b.business_form,
	(SELECT count(*) FROM inquiry_answers a WHERE a.inquiry_id = q.id) AS answered`

// The payment is joined through its own buyer: an inquiry can only name the buyer's own
// (CreateInquiry), and the join says so again.
const inquiryFrom = ` FROM inquiries q
	LEFT JOIN invoices i ON i.id = q.invoice_id AND i.buyer_id = q.buyer_id
	LEFT JOIN suppliers s ON s.id = i.supplier_id AND s.buyer_id = i.buyer_id
	LEFT JOIN buyers b ON b.id = q.buyer_id `

// CreateInquiry stores an inquiry and, in the same transaction, enqueues the job
// mail(id) makes (its acknowledgement, account.Service), so that the mail goes with the
// inquiry or not at all. A payment that is not the buyer's own submitted one is
// ErrNotBuyersPayment, and nothing is stored.
func (s *Store) CreateInquiry(ctx context.Context, n NewInquiry, now time.Time, mail func(id int64) (NewJob, error)) (int64, error) {
	if n.BuyerID == 0 && (n.UserID != 0 || n.InvoiceID != 0) {
		return 0, errors.New("store: a public inquiry has no user and names no payment")
	}
	var id int64
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if n.InvoiceID != 0 {
			var ok bool
			if err := tx.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM invoices WHERE id = $1 AND buyer_id = $2 AND submitted_at IS NOT NULL)`,
				n.InvoiceID, n.BuyerID); err != nil {
				return fmt.Errorf("store: inquiry's payment: %w", err)
			}
			if !ok {
				return ErrNotBuyersPayment
			}
		}
		if err := tx.GetContext(ctx, &id, `INSERT INTO inquiries (buyer_id, user_id, name, email, company, category, body, invoice_id, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING id`,
			nullID(n.BuyerID), nullID(n.UserID), n.Name, n.Email, n.Company, n.Category, n.Body, nullID(n.InvoiceID), now); err != nil {
			return fmt.Errorf("store: create inquiry: %w", err)
		}
		if mail == nil {
			return nil
		}
		j, err := mail(id)
		if err != nil {
			return err
		}
		_, err = enqueueJob(ctx, tx, j)
		return err
	})
	return id, err
}

// InquiryPayment is one of the buyer's payments as the inquiry form offers it.
type InquiryPayment struct {
	ID           int64  `db:"id"`
	SupplierName string `db:"supplier_name"`
	Amount       int64  `db:"amount"`
}

// InquiryPayments are the buyer's newest submitted payments (limit of them), for the
// inquiry form's 関連するお支払い.
func (s *Store) InquiryPayments(ctx context.Context, buyerID int64, limit int) ([]InquiryPayment, error) {
	list := []InquiryPayment{}
	err := s.DB.SelectContext(ctx, &list, `SELECT i.id, s.name AS supplier_name, i.amount
		FROM invoices i JOIN suppliers s ON s.id = i.supplier_id AND s.buyer_id = i.buyer_id
		WHERE i.buyer_id = $1 AND i.submitted_at IS NOT NULL ORDER BY i.id DESC LIMIT $2`, buyerID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: payments of buyer %d for an inquiry: %w", buyerID, err)
	}
	return list, nil
}

// Inquiries are a page of the buyer's inquiries, newest first, and how many there are.
func (s *Store) Inquiries(ctx context.Context, buyerID int64, offset, limit int) ([]Inquiry, int, error) {
	var total int
	if err := s.DB.GetContext(ctx, &total, `SELECT count(*) FROM inquiries WHERE buyer_id = $1`, buyerID); err != nil {
		return nil, 0, fmt.Errorf("store: inquiries of buyer %d: %w", buyerID, err)
	}
	list := []Inquiry{}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+inquiryColumns+inquiryFrom+`WHERE q.buyer_id = $1 ORDER BY q.id DESC LIMIT $2 OFFSET $3`,
		buyerID, limit, offset); err != nil {
		return nil, 0, fmt.Errorf("store: inquiries of buyer %d: %w", buyerID, err)
	}
	return list, total, nil
}

// Inquiry is one of the buyer's inquiries with its answers; another buyer's, or a
// public one, is ErrNotFound.
func (s *Store) Inquiry(ctx context.Context, buyerID, id int64) (Inquiry, error) {
	q, err := getOne[Inquiry](ctx, s.DB, fmt.Sprintf("inquiry %d of buyer %d", id, buyerID),
		`SELECT `+inquiryColumns+inquiryFrom+`WHERE q.buyer_id = $1 AND q.id = $2`, buyerID, id)
	if err != nil {
		return q, err
	}
	q.Answers, err = s.inquiryAnswers(ctx, id)
	return q, err
}

func (s *Store) inquiryAnswers(ctx context.Context, id int64) ([]InquiryAnswer, error) {
	list := []InquiryAnswer{}
	if err := s.DB.SelectContext(ctx, &list, `SELECT a.id, a.inquiry_id, a.operator_id, o.name AS operator_name, a.body, a.created_at
		FROM inquiry_answers a JOIN operators o ON o.id = a.operator_id WHERE a.inquiry_id = $1 ORDER BY a.id`, id); err != nil {
		return nil, fmt.Errorf("store: answers of inquiry %d: %w", id, err)
	}
	return list, nil
}

// InquiryFilter narrows the console's list; a zero Status lists every inquiry.
type InquiryFilter struct {
	Status        pay.InquiryStatus
	Offset, Limit int
}

// OperatorInquiries are the console's inquiries of every buyer and of the public form:
// 受付 (not yet answered) first, then the newest; and how many match. Operators only.
func (s *Store) OperatorInquiries(ctx context.Context, f InquiryFilter) ([]Inquiry, int, error) {
	where, args := ` WHERE TRUE`, []any{}
	if f.Status != "" {
		where, args = ` WHERE q.status = $1`, append(args, f.Status)
	}
	var total int
	if err := s.DB.GetContext(ctx, &total, `SELECT count(*) FROM inquiries q`+where, args...); err != nil {
		return nil, 0, fmt.Errorf("store: inquiries: %w", err)
	}
	args = append(args, f.Limit, f.Offset)
	list := []Inquiry{}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+inquiryColumns+inquiryFrom+where+
		fmt.Sprintf(` ORDER BY q.status = 'open' DESC, q.id DESC LIMIT $%d OFFSET $%d`, len(args)-1, len(args)), args...); err != nil {
		return nil, 0, fmt.Errorf("store: inquiries: %w", err)
	}
	return list, total, nil
}

// OperatorInquiry is any inquiry with its answers, for the console. Operators only.
func (s *Store) OperatorInquiry(ctx context.Context, id int64) (Inquiry, error) {
	q, err := getOne[Inquiry](ctx, s.DB, fmt.Sprintf("inquiry %d", id), `SELECT `+inquiryColumns+inquiryFrom+`WHERE q.id = $1`, id)
	if err != nil {
		return q, err
	}
	q.Answers, err = s.inquiryAnswers(ctx, id)
	return q, err
}

// AnswerInquiry adds an operator's answer to an inquiry that is not closed (ErrStateChanged
// when it is), marks it 回答済み, writes the audit row and runs also on the transaction
// (the answer's mail and the buyer's notification) with the inquiry and the answer's id.
func (s *Store) AnswerInquiry(ctx context.Context, id, operatorID int64, body string, audit NewAudit, now time.Time,
	also func(tx *sqlx.Tx, q Inquiry, answerID int64) error) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		q, err := getOne[Inquiry](ctx, tx, fmt.Sprintf("inquiry %d", id), `SELECT `+inquiryColumns+inquiryFrom+`WHERE q.id = $1 FOR UPDATE OF q`, id)
		if err != nil {
			return err
		}
		if q.Status == pay.InquiryClosed {
			return ErrStateChanged
		}
		var answerID int64
		if err := tx.GetContext(ctx, &answerID, `INSERT INTO inquiry_answers (inquiry_id, operator_id, body, created_at) VALUES ($1, $2, $3, $4) RETURNING id`,
			id, operatorID, body, now); err != nil {
			return fmt.Errorf("store: answer inquiry %d: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE inquiries SET status = 'answered', updated_at = $2 WHERE id = $1`, id, now); err != nil {
			return fmt.Errorf("store: answer inquiry %d: %w", id, err)
		}
		audit.ObjectType, audit.ObjectID = AuditInquiry, id
		if err := s.AddAudit(ctx, tx, audit, now); err != nil {
			return err
		}
		if also == nil {
			return nil
		}
		return also(tx, q, answerID)
	})
}

// CloseInquiry marks an inquiry 対応終了 and writes the audit row; one closed already is
// ErrStateChanged.
func (s *Store) CloseInquiry(ctx context.Context, id int64, audit NewAudit, now time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE inquiries SET status = 'closed', updated_at = $2 WHERE id = $1 AND status <> 'closed'`, id, now)
		if err != nil {
			return fmt.Errorf("store: close inquiry %d: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var exists bool
			if err := tx.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM inquiries WHERE id = $1)`, id); err != nil {
				return fmt.Errorf("store: close inquiry %d: %w", id, err)
			}
			if !exists {
				return fmt.Errorf("store: close inquiry %d: %w", id, ErrNotFound)
			}
			return ErrStateChanged
		}
		audit.ObjectType, audit.ObjectID = AuditInquiry, id
		return s.AddAudit(ctx, tx, audit, now)
	})
}
