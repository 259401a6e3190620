package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"cardpay/pay"
)

// ErrDuplicateCard is returned when the buyer already has this card (the same PSP
// fingerprint) saved.
var ErrDuplicateCard = errors.New("store: card already saved")

// ErrTooManyCards is returned when the buyer already keeps pay.MaxSavedCards cards.
var ErrTooManyCards = errors.New("store: too many saved cards")

// ErrPaymentIDTaken is returned when an authorisation is asked for under a payment id
// that another buyer already used: the id is the PSP's idempotency key, so answering it
// would show (or repeat) someone else's authorisation.
var ErrPaymentIDTaken = errors.New("store: payment id belongs to another buyer")

// Card is one of a buyer's saved cards: the PSP's reference and what the buyer needs to
// recognise it. There is no column for a card number or a security code.
type Card struct {
	ID          int64         `db:"id"`
	BuyerID     int64         `db:"buyer_id"`
	Gateway     string        `db:"gateway"`
	Ref         string        `db:"ref"`
	Brand       pay.CardBrand `db:"brand"`
	Last4       string        `db:"last4"`
	ExpMonth    int           `db:"exp_month"`
	ExpYear     int           `db:"exp_year"`
	HolderName  string        `db:"holder_name"`
	Fingerprint string        `db:"fingerprint"`
	IsDefault   bool          `db:"is_default"`
	CreatedAt   time.Time     `db:"created_at"`
	// The billing cycle the buyer gave in the card settings (nil when not given).
	ClosingDay  *int `db:"closing_day"`
	PaymentDay  *int `db:"payment_day"`
	MonthsLater *int `db:"months_later"`
}

// Cycle is the card's billing cycle, or nil when the buyer has not given it.
func (c Card) Cycle() *pay.CardCycle {
	if c.ClosingDay == nil || c.PaymentDay == nil || c.MonthsLater == nil {
		return nil
	}
	cy := pay.CardCycle{ClosingDay: *c.ClosingDay, PaymentDay: *c.PaymentDay, MonthsLater: *c.MonthsLater}
	if !cy.Valid() {
		return nil
	}
	return &cy
}

// SetCardCycle records (or with nil clears) the billing cycle of one of the buyer's cards.
func (s *Store) SetCardCycle(ctx context.Context, buyerID, id int64, cy *pay.CardCycle) error {
	var closing, payment, months *int
	if cy != nil {
		closing, payment, months = &cy.ClosingDay, &cy.PaymentDay, &cy.MonthsLater
	}
	res, err := s.DB.ExecContext(ctx, `UPDATE cards SET closing_day = $3, payment_day = $4, months_later = $5
		WHERE buyer_id = $1 AND id = $2 AND deleted_at IS NULL`, buyerID, id, closing, payment, months)
	if err != nil {
		return fmt.Errorf("store: cycle of card %d: %w", id, err)
	}
	if rowsAffected(res) != 1 {
		return fmt.Errorf("store: cycle of card %d: %w", id, ErrNotFound)
	}
	return nil
}

// Expired reports whether the card can no longer be used at now.
func (c Card) Expired(now time.Time) bool { return pay.CardExpired(c.ExpMonth, c.ExpYear, now) }

// NewCard is a card the PSP has given a reference for.
type NewCard struct {
	Gateway     string        `db:"gateway"`
	Ref         string        `db:"ref"`
	Brand       pay.CardBrand `db:"brand"`
	Last4       string        `db:"last4"`
	ExpMonth    int           `db:"exp_month"`
	ExpYear     int           `db:"exp_year"`
	HolderName  string        `db:"holder_name"`
	Fingerprint string        `db:"fingerprint"`
}

const cardColumns = `id, buyer_id, gateway, ref, brand, last4, exp_month, exp_year, holder_name, fingerprint, is_default, created_at,
	closing_day, payment_day, months_later`

// Cards lists the buyer's saved cards, the default first, then the newest.
func (s *Store) Cards(ctx context.Context, buyerID int64) ([]Card, error) {
	list := []Card{}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+cardColumns+` FROM cards
		WHERE buyer_id = $1 AND deleted_at IS NULL ORDER BY is_default DESC, id DESC`, buyerID); err != nil {
		return nil, fmt.Errorf("store: cards of buyer %d: %w", buyerID, err)
	}
	return list, nil
}

// Card loads one of the buyer's saved cards; another buyer's, or a deleted one, is
// ErrNotFound.
func (s *Store) Card(ctx context.Context, buyerID, id int64) (Card, error) {
	return getOne[Card](ctx, s.DB, fmt.Sprintf("card %d", id), `SELECT `+cardColumns+` FROM cards
		WHERE buyer_id = $1 AND id = $2 AND deleted_at IS NULL`, buyerID, id)
}

// CardByFingerprint finds the buyer's saved card with that PSP fingerprint.
func (s *Store) CardByFingerprint(ctx context.Context, buyerID int64, gateway, fingerprint string) (Card, error) {
	return getOne[Card](ctx, s.DB, "card by fingerprint", `SELECT `+cardColumns+` FROM cards
		WHERE buyer_id = $1 AND gateway = $2 AND fingerprint = $3 AND deleted_at IS NULL`, buyerID, gateway, fingerprint)
}

// CardCount is how many cards the buyer keeps.
func (s *Store) CardCount(ctx context.Context, buyerID int64) (int, error) {
	var n int
	if err := s.DB.GetContext(ctx, &n, `SELECT count(*) FROM cards WHERE buyer_id = $1 AND deleted_at IS NULL`, buyerID); err != nil {
		return 0, fmt.Errorf("store: count cards of buyer %d: %w", buyerID, err)
	}
	return n, nil
}

// lockBuyerCards serialises changes to one buyer's cards (the limit, the duplicate check
// and the one default) by locking the buyer's row: two tabs adding cards at once take
// turns.
func lockBuyerCards(ctx context.Context, tx *sqlx.Tx, buyerID int64) error {
	var id int64
	err := tx.GetContext(ctx, &id, `SELECT id FROM buyers WHERE id = $1 FOR UPDATE`, buyerID)
	if notFound(err) {
		return fmt.Errorf("store: buyer %d: %w", buyerID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("store: lock cards of buyer %d: %w", buyerID, err)
	}
	return nil
}

// CreateCard saves a verified card. It becomes the default when the buyer has no
// usable default at now (no card yet, or the default has expired). A card already saved
// is ErrDuplicateCard; a sixth card is ErrTooManyCards.
func (s *Store) CreateCard(ctx context.Context, buyerID int64, c NewCard, now time.Time) (Card, error) {
	var id int64
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		id, err = insertCard(ctx, tx, buyerID, c, now)
		return err
	})
	if err != nil {
		return Card{}, err
	}
	return s.Card(ctx, buyerID, id)
}

func insertCard(ctx context.Context, tx *sqlx.Tx, buyerID int64, c NewCard, now time.Time) (int64, error) {
	if err := lockBuyerCards(ctx, tx, buyerID); err != nil {
		return 0, err
	}
	var existing []Card
	if err := tx.SelectContext(ctx, &existing, `SELECT `+cardColumns+` FROM cards
		WHERE buyer_id = $1 AND deleted_at IS NULL`, buyerID); err != nil {
		return 0, fmt.Errorf("store: create card: %w", err)
	}
	makeDefault := true
	for _, e := range existing {
		if e.Gateway == c.Gateway && e.Fingerprint == c.Fingerprint {
			return 0, fmt.Errorf("store: create card: %w", ErrDuplicateCard)
		}
		if e.IsDefault && !e.Expired(now) {
			makeDefault = false
		}
	}
	if len(existing) >= pay.MaxSavedCards {
		return 0, fmt.Errorf("store: create card: %w", ErrTooManyCards)
	}
	if makeDefault {
		if _, err := tx.ExecContext(ctx, `UPDATE cards SET is_default = false WHERE buyer_id = $1 AND is_default`, buyerID); err != nil {
			return 0, fmt.Errorf("store: create card: %w", err)
		}
	}
	var id int64
	err := tx.GetContext(ctx, &id, `INSERT INTO cards (buyer_id, gateway, ref, brand, last4, exp_month, exp_year, holder_name, fingerprint, is_default)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
		buyerID, c.Gateway, c.Ref, c.Brand, c.Last4, c.ExpMonth, c.ExpYear, c.HolderName, c.Fingerprint, makeDefault)
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23505" {
		return 0, fmt.Errorf("store: create card: %w", ErrDuplicateCard)
	}
	if err != nil {
		return 0, fmt.Errorf("store: create card: %w", err)
	}
	return id, nil
}

// DeleteCard removes one of the buyer's cards. Deleting the default makes the newest
// remaining card the default, so a buyer with cards always has exactly one.
func (s *Store) DeleteCard(ctx context.Context, buyerID, id int64) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockBuyerCards(ctx, tx, buyerID); err != nil {
			return err
		}
		var wasDefault bool
		err := tx.GetContext(ctx, &wasDefault, `SELECT is_default FROM cards
			WHERE buyer_id = $1 AND id = $2 AND deleted_at IS NULL`, buyerID, id)
		if notFound(err) {
			return fmt.Errorf("store: delete card %d: %w", id, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: delete card %d: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE cards SET deleted_at = now(), is_default = false
			WHERE buyer_id = $1 AND id = $2`, buyerID, id); err != nil {
			return fmt.Errorf("store: delete card %d: %w", id, err)
		}
		if !wasDefault {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE cards SET is_default = true WHERE id = (
			SELECT id FROM cards WHERE buyer_id = $1 AND deleted_at IS NULL ORDER BY id DESC LIMIT 1)`, buyerID); err != nil {
			return fmt.Errorf("store: delete card %d: new default: %w", id, err)
		}
		return nil
	})
}

// SetDefaultCard makes one of the buyer's cards the default (the others stop being it).
func (s *Store) SetDefaultCard(ctx context.Context, buyerID, id int64) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockBuyerCards(ctx, tx, buyerID); err != nil {
			return err
		}
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM cards WHERE buyer_id = $1 AND id = $2 AND deleted_at IS NULL`, buyerID, id); err != nil {
			return fmt.Errorf("store: default card %d: %w", id, err)
		}
		if n == 0 {
			return fmt.Errorf("store: default card %d: %w", id, ErrNotFound)
		}
		// Two statements: the unique index on the default is checked row by row, so the
		// old default must be cleared before the new one is set.
		if _, err := tx.ExecContext(ctx, `UPDATE cards SET is_default = false WHERE buyer_id = $1 AND is_default AND id <> $2`, buyerID, id); err != nil {
			return fmt.Errorf("store: default card %d: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE cards SET is_default = true WHERE buyer_id = $1 AND id = $2`, buyerID, id); err != nil {
			return fmt.Errorf("store: default card %d: %w", id, err)
		}
		return nil
	})
}

// Card check statuses (card_checks.status).
const (
	CardCheckPending        = "pending"
	CardCheckRequiresAction = "requires_action"
	CardCheckAuthorized     = "authorized"
	CardCheckDeclined       = "declined"
	CardCheckRefused        = "refused"
)

// Why the service refused a card the PSP had accepted (CardCheck.Refusal).
const (
	RefusalDuplicate = "duplicate"
	RefusalTooMany   = "too_many"
)

// CardCheck is a card being verified before it is saved (card_checks).
type CardCheck struct {
	ID        int64  `db:"id"`
	BuyerID   int64  `db:"buyer_id"`
	PaymentID string `db:"payment_id"`
	NewCard
	Status     string    `db:"status"`
	ResultCode string    `db:"result_code"`
	Refusal    string    `db:"refusal"`
	ActionURL  string    `db:"action_url"`
	CardID     *int64    `db:"card_id"`
	CreatedAt  time.Time `db:"created_at"`
	UpdatedAt  time.Time `db:"updated_at"`
}

// Finished reports whether the check has its outcome.
func (c CardCheck) Finished() bool {
	return c.Status == CardCheckAuthorized || c.Status == CardCheckDeclined || c.Status == CardCheckRefused
}

const cardCheckColumns = `id, buyer_id, payment_id, gateway, ref, brand, last4, exp_month, exp_year, holder_name, fingerprint,
	status, result_code, refusal, action_url, card_id, created_at, updated_at`

// CreateCardCheck records a card about to be verified; its PaymentID
// ("cardcheck-<id>") is the idempotency key of the verification.
func (s *Store) CreateCardCheck(ctx context.Context, buyerID int64, c NewCard) (CardCheck, error) {
	var cc CardCheck
	err := s.DB.GetContext(ctx, &cc, `INSERT INTO card_checks (buyer_id, gateway, ref, brand, last4, exp_month, exp_year, holder_name, fingerprint)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING `+cardCheckColumns,
		buyerID, c.Gateway, c.Ref, c.Brand, c.Last4, c.ExpMonth, c.ExpYear, c.HolderName, c.Fingerprint)
	if err != nil {
		return CardCheck{}, fmt.Errorf("store: create card check: %w", err)
	}
	return cc, nil
}

// CardCheck loads one of the buyer's card checks by its payment id.
func (s *Store) CardCheck(ctx context.Context, buyerID int64, paymentID string) (CardCheck, error) {
	return getOne[CardCheck](ctx, s.DB, "card check "+paymentID,
		`SELECT `+cardCheckColumns+` FROM card_checks WHERE buyer_id = $1 AND payment_id = $2`, buyerID, paymentID)
}

// PaymentOwner is the buyer a payment id (a card check or an authorisation) belongs to.
// Only a PSP's webhook, whose signature was checked, asks by the id alone: the PSP names
// the payment and nothing else, and every later read goes through the buyer found here.
func (s *Store) PaymentOwner(ctx context.Context, paymentID string) (int64, error) {
	var buyerID int64
	err := s.DB.GetContext(ctx, &buyerID, `SELECT buyer_id FROM card_checks WHERE payment_id = $1
		UNION ALL SELECT buyer_id FROM card_approvals WHERE payment_id = $1
		UNION ALL SELECT buyer_id FROM invoices WHERE payment_ref = $1 LIMIT 1`, paymentID)
	if notFound(err) {
		return 0, fmt.Errorf("store: owner of payment %s: %w", paymentID, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("store: owner of payment %s: %w", paymentID, err)
	}
	return buyerID, nil
}

// SetCardCheckAction records that the PSP asked for a 3-D Secure challenge. A check
// that already has its outcome (a webhook can come first) is left as it is.
func (s *Store) SetCardCheckAction(ctx context.Context, buyerID int64, paymentID, actionURL string) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE card_checks SET status = 'requires_action', action_url = $3, updated_at = now()
		WHERE buyer_id = $1 AND payment_id = $2 AND status IN ('pending', 'requires_action')`, buyerID, paymentID, actionURL)
	if err != nil {
		return fmt.Errorf("store: card check %s: %w", paymentID, err)
	}
	return nil
}

// CardCheckOutcome is the PSP's last word on a card check.
type CardCheckOutcome struct {
	// Authorized: the card passed; it is saved (unless it is a duplicate or one too many).
	Authorized bool
	// ResultCode is the gateway result code (a decline's reason).
	ResultCode string
	// Decline, when set on a decline the issuer gave (not a processor error), counts it
	// against the buyer's day in the transaction that finishes the check, so that each
	// check counts once whichever of the return page and the webhook finishes it.
	Decline *DeclineCount
}

// FinishCardCheck gives a check its outcome exactly once: the buyer's return page and
// the PSP's webhook may both try, and the second finds the first's result. An
// authorised card is saved in the same transaction (CreateCard's rules; a duplicate or
// a card over the limit finishes the check as refused instead).
func (s *Store) FinishCardCheck(ctx context.Context, buyerID int64, paymentID string, o CardCheckOutcome, now time.Time) (CardCheck, error) {
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var cc CardCheck
		err := tx.GetContext(ctx, &cc, `SELECT `+cardCheckColumns+` FROM card_checks
			WHERE buyer_id = $1 AND payment_id = $2 FOR UPDATE`, buyerID, paymentID)
		if notFound(err) {
			return fmt.Errorf("store: finish card check %s: %w", paymentID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: finish card check %s: %w", paymentID, err)
		}
		if cc.Finished() {
			return nil
		}
		status, refusal := CardCheckDeclined, ""
		var cardID *int64
		if o.Authorized {
			// A savepoint, so that a refused insert leaves the transaction usable.
			if _, err := tx.ExecContext(ctx, `SAVEPOINT create_card`); err != nil {
				return fmt.Errorf("store: finish card check %s: %w", paymentID, err)
			}
			id, err := insertCard(ctx, tx, buyerID, cc.NewCard, now)
			switch {
			case err == nil:
				status, cardID = CardCheckAuthorized, &id
			case errors.Is(err, ErrDuplicateCard):
				status, refusal = CardCheckRefused, RefusalDuplicate
			case errors.Is(err, ErrTooManyCards):
				status, refusal = CardCheckRefused, RefusalTooMany
			default:
				return err
			}
			if cardID == nil {
				if _, err := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT create_card`); err != nil {
					return fmt.Errorf("store: finish card check %s: %w", paymentID, err)
				}
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE card_checks SET status = $3, result_code = $4, refusal = $5, card_id = $6, updated_at = now()
			WHERE buyer_id = $1 AND payment_id = $2`, buyerID, paymentID, status, o.ResultCode, refusal, cardID); err != nil {
			return fmt.Errorf("store: finish card check %s: %w", paymentID, err)
		}
		if status == CardCheckDeclined && o.Decline != nil {
			return countDecline(ctx, tx, buyerID, *o.Decline, now)
		}
		return nil
	})
	if err != nil {
		return CardCheck{}, err
	}
	return s.CardCheck(ctx, buyerID, paymentID)
}

// Authorisation statuses (card_approvals.status) are the gateway's (authorized,
// requires_action, declined, …) plus pending before the PSP answers.
const ApprovalPending = "pending"

// CardApproval is an authorisation asked for on a saved card (card_approvals).
type CardApproval struct {
	ID         int64     `db:"id"`
	BuyerID    int64     `db:"buyer_id"`
	CardID     int64     `db:"card_id"`
	PaymentID  string    `db:"payment_id"`
	Amount     int64     `db:"amount"`
	Status     string    `db:"status"`
	ResultCode string    `db:"result_code"`
	ActionURL  string    `db:"action_url"`
	CreatedAt  time.Time `db:"created_at"`
	UpdatedAt  time.Time `db:"updated_at"`
}

const approvalColumns = `id, buyer_id, card_id, payment_id, amount, status, result_code, action_url, created_at, updated_at`

// StartCardApproval records an authorisation before the PSP is asked, or finds the one
// the buyer already asked for under paymentID (created is then false; the caller
// compares card and amount). A payment id another buyer used is ErrPaymentIDTaken.
func (s *Store) StartCardApproval(ctx context.Context, buyerID, cardID int64, paymentID string, amount int64) (a CardApproval, created bool, err error) {
	err = s.DB.GetContext(ctx, &a, `INSERT INTO card_approvals (buyer_id, card_id, payment_id, amount)
		SELECT $1, id, $3, $4 FROM cards WHERE buyer_id = $1 AND id = $2 AND deleted_at IS NULL
		ON CONFLICT (payment_id) DO NOTHING RETURNING `+approvalColumns, buyerID, cardID, paymentID, amount)
	if err == nil {
		return a, true, nil
	}
	if !notFound(err) {
		return a, false, fmt.Errorf("store: start approval %s: %w", paymentID, err)
	}
	// Nothing inserted: the payment id exists already, or the card is not the buyer's.
	a, err = s.CardApproval(ctx, buyerID, paymentID)
	if err == nil {
		return a, false, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return a, false, err
	}
	var taken bool
	if err := s.DB.GetContext(ctx, &taken, `SELECT EXISTS (SELECT 1 FROM card_approvals WHERE payment_id = $1)`, paymentID); err != nil {
		return a, false, fmt.Errorf("store: start approval %s: %w", paymentID, err)
	}
	if taken {
		return a, false, fmt.Errorf("store: start approval %s: %w", paymentID, ErrPaymentIDTaken)
	}
	return a, false, fmt.Errorf("store: start approval %s: card %d: %w", paymentID, cardID, ErrNotFound)
}

// CardApproval loads one of the buyer's authorisations by payment id.
func (s *Store) CardApproval(ctx context.Context, buyerID int64, paymentID string) (CardApproval, error) {
	return getOne[CardApproval](ctx, s.DB, "approval "+paymentID, `SELECT `+approvalColumns+` FROM card_approvals WHERE buyer_id = $1 AND payment_id = $2`, buyerID, paymentID)
}

// SetCardApproval records what the PSP answered for one of the buyer's authorisations.
func (s *Store) SetCardApproval(ctx context.Context, buyerID int64, paymentID, status, resultCode, actionURL string) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE card_approvals SET status = $3, result_code = $4, action_url = $5, updated_at = now()
		WHERE buyer_id = $1 AND payment_id = $2`, buyerID, paymentID, status, resultCode, actionURL)
	if err != nil {
		return fmt.Errorf("store: approval %s: %w", paymentID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: approval %s: %w", paymentID, ErrNotFound)
	}
	return nil
}

// PSPEvent is a verified webhook (psp_events).
type PSPEvent struct {
	ID          int64           `db:"id"`
	Gateway     string          `db:"gateway"`
	EventID     string          `db:"event_id"`
	Type        string          `db:"type"`
	PaymentID   string          `db:"payment_id"`
	Status      string          `db:"status"`
	ResultCode  string          `db:"result_code"`
	Body        json.RawMessage `db:"body"`
	ReceivedAt  time.Time       `db:"received_at"`
	ProcessedAt *time.Time      `db:"processed_at"`
}

// NewPSPEvent is a webhook whose signature was checked.
type NewPSPEvent struct {
	Gateway    string
	EventID    string
	Type       string
	PaymentID  string
	Status     string
	ResultCode string
	Body       []byte
}

const pspEventColumns = `id, gateway, event_id, type, payment_id, status, result_code, body, received_at, processed_at`

// RecordPSPEvent stores a webhook once: a redelivery (the same gateway and event id)
// answers the stored event with created false and changes nothing.
//
// also, when not nil, runs with the new row in the same transaction (not for a
// redelivery): the caller enqueues there the job that processes the event
// (cards.PSPEventJobKind), so that a stored event is always processed.
func (s *Store) RecordPSPEvent(ctx context.Context, e NewPSPEvent, also func(tx *sqlx.Tx, ev PSPEvent) error) (ev PSPEvent, created bool, err error) {
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &ev, `INSERT INTO psp_events (gateway, event_id, type, payment_id, status, result_code, body)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (gateway, event_id) DO NOTHING RETURNING `+pspEventColumns,
			e.Gateway, e.EventID, e.Type, e.PaymentID, e.Status, e.ResultCode, string(e.Body))
		if notFound(err) {
			err = tx.GetContext(ctx, &ev, `SELECT `+pspEventColumns+` FROM psp_events WHERE gateway = $1 AND event_id = $2`, e.Gateway, e.EventID)
			if err != nil {
				return fmt.Errorf("store: event %s: %w", e.EventID, err)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: record event %s: %w", e.EventID, err)
		}
		created = true
		if also != nil {
			return also(tx, ev)
		}
		return nil
	})
	return ev, created, err
}

// PSPEvent loads a stored webhook by our row id.
func (s *Store) PSPEvent(ctx context.Context, id int64) (PSPEvent, error) {
	return getOne[PSPEvent](ctx, s.DB, fmt.Sprintf("event %d", id), `SELECT `+pspEventColumns+` FROM psp_events WHERE id = $1`, id)
}

// MarkPSPEventProcessed records that the event has been acted on.
func (s *Store) MarkPSPEventProcessed(ctx context.Context, id int64) error {
	if _, err := s.DB.ExecContext(ctx, `UPDATE psp_events SET processed_at = now() WHERE id = $1 AND processed_at IS NULL`, id); err != nil {
		return fmt.Errorf("store: event %d: %w", id, err)
	}
	return nil
}

// CardAny loads one of the buyer's cards even when deleted: a payment's page still names
// the card it was paid with.
func (s *Store) CardAny(ctx context.Context, buyerID, id int64) (Card, error) {
	return getOne[Card](ctx, s.DB, fmt.Sprintf("card %d", id), `SELECT `+cardColumns+` FROM cards
		WHERE buyer_id = $1 AND id = $2`, buyerID, id)
}
