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
)

// ErrOperatorExists: an operator already signs in with that address.
var ErrOperatorExists = errors.New("store: operator address already in use")

// Operator is a person who runs the service (the operator console, /ops). Operators
// are not buyers: they have their own table and sign-in, and no buyer id.
type Operator struct {
	ID               int64          `db:"id"`
	EmailAddress     string         `db:"email_address"`
	Name             string         `db:"name"`
	PasswordHash     string         `db:"password_hash"`
	TOTPSecretSealed string         `db:"totp_secret_sealed"`
	TOTPLastStep     int64          `db:"totp_last_step"`
	Roles            pq.StringArray `db:"roles"`
	FailedSignIns    int            `db:"failed_sign_ins"`
	LastFailedAt     *time.Time     `db:"last_failed_at"`
	LockedUntil      *time.Time     `db:"locked_until"`
	CreatedAt        time.Time      `db:"created_at"`
	DisabledAt       *time.Time     `db:"disabled_at"`
}

// Has says whether the operator holds role.
func (o Operator) Has(role string) bool {
	for _, r := range o.Roles {
		if r == role {
			return true
		}
	}
	return false
}

// NewOperator is an operator to create; the password is already hashed and the
// authenticator's secret sealed.
type NewOperator struct {
	EmailAddress     string
	Name             string
	PasswordHash     string
	TOTPSecretSealed string
	Roles            []string
}

const operatorColumns = `id, email_address, name, password_hash, totp_secret_sealed, totp_last_step, roles,
	failed_sign_ins, last_failed_at, locked_until, created_at, disabled_at`

// CreateOperator adds an operator; ErrOperatorExists when the address is taken.
func (s *Store) CreateOperator(ctx context.Context, n NewOperator) (Operator, error) {
	o, err := getOne[Operator](ctx, s.DB, "new operator", `INSERT INTO operators
		(email_address, name, password_hash, totp_secret_sealed, roles) VALUES ($1, $2, $3, $4, $5)
		RETURNING `+operatorColumns, strings.TrimSpace(n.EmailAddress), n.Name, n.PasswordHash, n.TOTPSecretSealed, pq.StringArray(n.Roles))
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23505" {
		return Operator{}, ErrOperatorExists
	}
	return o, err
}

// OperatorByEmail finds an operator who may sign in by address (case-insensitive).
func (s *Store) OperatorByEmail(ctx context.Context, email string) (Operator, error) {
	return getOne[Operator](ctx, s.DB, "operator by address", `SELECT `+operatorColumns+`
		FROM operators WHERE lower(email_address) = lower($1) AND disabled_at IS NULL`, strings.TrimSpace(email))
}

// Operator reads an operator who may still work.
func (s *Store) Operator(ctx context.Context, id int64) (Operator, error) {
	return getOne[Operator](ctx, s.DB, fmt.Sprintf("operator %d", id), `SELECT `+operatorColumns+`
		FROM operators WHERE id = $1 AND disabled_at IS NULL`, id)
}

// Operators lists every operator, for the administrator's page.
func (s *Store) Operators(ctx context.Context) ([]Operator, error) {
	var list []Operator
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+operatorColumns+` FROM operators ORDER BY id`); err != nil {
		return nil, fmt.Errorf("store: operators: %w", err)
	}
	return list, nil
}

// UseOperatorTOTPStep records the authenticator step an operator just used, so that the
// same code cannot sign in twice; ErrNotFound when it (or a later one) was used already.
func (s *Store) UseOperatorTOTPStep(ctx context.Context, id, step int64) error {
	return s.execOne(ctx, fmt.Sprintf("totp step of operator %d", id),
		`UPDATE operators SET totp_last_step = $2 WHERE id = $1 AND totp_last_step < $2`, id, step)
}

// RecordOperatorFailure counts a failed sign-in towards the throttle.
func (s *Store) RecordOperatorFailure(ctx context.Context, id int64, failures int, at time.Time, lockedUntil *time.Time) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE operators SET failed_sign_ins = $2, last_failed_at = $3, locked_until = $4 WHERE id = $1`,
		id, failures, at, lockedUntil)
	if err != nil {
		return fmt.Errorf("store: sign-in failure of operator %d: %w", id, err)
	}
	return nil
}

// ResetOperatorFailures clears the throttle after a successful sign-in.
func (s *Store) ResetOperatorFailures(ctx context.Context, id int64) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE operators SET failed_sign_ins = 0, last_failed_at = NULL, locked_until = NULL WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("store: reset sign-in failures of operator %d: %w", id, err)
	}
	return nil
}

// Audit is one operator action, as written and as /ops/audit lists it.
type Audit struct {
	ID           int64           `db:"id"`
	OperatorID   int64           `db:"operator_id"`
	OperatorName string          `db:"operator_name"`
	ObjectType   string          `db:"object_type"`
	ObjectID     int64           `db:"object_id"`
	Action       string          `db:"action"`
	Before       json.RawMessage `db:"before"`
	After        json.RawMessage `db:"after"`
	Reason       string          `db:"reason"`
	CreatedAt    time.Time       `db:"created_at"`
}

// Objects an operator acts on.
const (
	AuditPayment  = "payment"
	AuditSupplier = "supplier"
	AuditOperator = "operator"
	AuditBuyer    = "buyer"
	AuditSignIn   = "sign_in"
)

// NewAudit is an audit row to write; Before and After are marshalled to JSON.
type NewAudit struct {
	OperatorID int64
	ObjectType string
	ObjectID   int64
	Action     string
	Before     any
	After      any
	Reason     string
}

// AddAudit writes an audit row on q (the transaction of the change it records, or nil
// for the database).
func (s *Store) AddAudit(ctx context.Context, q sqlx.ExecerContext, a NewAudit, now time.Time) error {
	if q == nil {
		q = s.DB
	}
	js := func(v any) (*string, error) {
		if v == nil {
			return nil, nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		s := string(b)
		return &s, nil
	}
	before, err := js(a.Before)
	if err != nil {
		return fmt.Errorf("store: audit before: %w", err)
	}
	after, err := js(a.After)
	if err != nil {
		return fmt.Errorf("store: audit after: %w", err)
	}
	_, err = q.ExecContext(ctx, `INSERT INTO operator_audit (operator_id, object_type, object_id, action, before, after, reason, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, a.OperatorID, a.ObjectType, a.ObjectID, a.Action, before, after, a.Reason, now)
	if err != nil {
		return fmt.Errorf("store: audit %s %s %d: %w", a.Action, a.ObjectType, a.ObjectID, err)
	}
	return nil
}

// AuditFilter narrows /ops/audit; zero values do not filter.
type AuditFilter struct {
	OperatorID int64
	ObjectType string
	ObjectID   int64
	Offset     int
	Limit      int
}

// AuditLog lists audit rows, newest first, with the total that match.
func (s *Store) AuditLog(ctx context.Context, f AuditFilter) ([]Audit, int, error) {
	var (
		where []string
		args  []any
	)
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if f.OperatorID != 0 {
		add("a.operator_id = $%d", f.OperatorID)
	}
	if f.ObjectType != "" {
		add("a.object_type = $%d", f.ObjectType)
	}
	if f.ObjectID != 0 {
		add("a.object_id = $%d", f.ObjectID)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := s.DB.GetContext(ctx, &total, `SELECT count(*) FROM operator_audit a`+cond, args...); err != nil {
		return nil, 0, fmt.Errorf("store: audit count: %w", err)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	args = append(args, limit, f.Offset)
	var list []Audit
	err := s.DB.SelectContext(ctx, &list, `SELECT a.id, a.operator_id, o.name AS operator_name, a.object_type, a.object_id,
		a.action, COALESCE(a.before, 'null'::jsonb) AS before, COALESCE(a.after, 'null'::jsonb) AS after, a.reason, a.created_at
		FROM operator_audit a JOIN operators o ON o.id = a.operator_id`+cond+
		fmt.Sprintf(` ORDER BY a.created_at DESC, a.id DESC LIMIT $%d OFFSET $%d`, len(args)-1, len(args)), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: audit log: %w", err)
	}
	return list, total, nil
}

// ResetOperatorCredentials gives the operator at address a new password hash and a new
// sealed authenticator secret (the development demo operators, each start).
func (s *Store) ResetOperatorCredentials(ctx context.Context, email, passwordHash, totpSealed string) error {
	return s.execOne(ctx, "operator credentials", `UPDATE operators SET password_hash = $2, totp_secret_sealed = $3,
		totp_last_step = 0, failed_sign_ins = 0, last_failed_at = NULL, locked_until = NULL
		WHERE lower(email_address) = lower($1)`, email, passwordHash, totpSealed)
}
