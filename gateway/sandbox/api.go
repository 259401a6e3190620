package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/gateway"
	"cardpay/pay"
)

// authRow is an authorisation with its card.
type authRow struct {
	ID                 string         `db:"id"`
	PaymentID          string         `db:"payment_id"`
	CardID             string         `db:"card_id"`
	Amount             int64          `db:"amount"`
	VerifyOnly         bool           `db:"verify_only"`
	Status             string         `db:"status"`
	ResultCode         string         `db:"result_code"`
	Captured           int64          `db:"captured"`
	Refunded           int64          `db:"refunded"`
	ReturnURL          string         `db:"return_url"`
	ChallengeID        sql.NullString `db:"challenge_id"`
	Passcode           sql.NullString `db:"passcode"`
	ChallengeAttempts  int            `db:"challenge_attempts"`
	ChallengeExpiresAt sql.NullTime   `db:"challenge_expires_at"`
	LapsesAt           sql.NullTime   `db:"lapses_at"`
	CreatedAt          time.Time      `db:"created_at"`
	UpdatedAt          time.Time      `db:"updated_at"`
	Card               cardRow        `db:"card"`
}

const authSelect = `
	SELECT a.id, a.payment_id, a.card_id, a.amount, a.verify_only, a.status, a.result_code, a.captured, a.refunded,
	       a.return_url, a.challenge_id, a.passcode, a.challenge_attempts, a.challenge_expires_at, a.lapses_at,
	       a.created_at, a.updated_at,
	       c.id AS "card.id", c.brand AS "card.brand", c.last4 AS "card.last4", c.exp_month AS "card.exp_month",
	       c.exp_year AS "card.exp_year", c.holder AS "card.holder", c.fingerprint AS "card.fingerprint",
	       c.scenario AS "card.scenario", c.decline_code AS "card.decline_code", c.created_at AS "card.created_at"
	FROM sandbox_authorizations a JOIN sandbox_cards c ON c.id = a.card_id`

// txJSON is an authorisation on the wire (API answers and webhook data).
type txJSON struct {
	ID         string   `json:"id"`
	PaymentID  string   `json:"payment_id"`
	Status     string   `json:"status"`
	Amount     int64    `json:"amount"`
	Captured   int64    `json:"captured"`
	Refunded   int64    `json:"refunded"`
	VerifyOnly bool     `json:"verify_only"`
	ResultCode string   `json:"result_code"`
	ActionURL  string   `json:"action_url,omitempty"`
	Card       cardJSON `json:"card"`
	Created    int64    `json:"created"`
	LapsesAt   int64    `json:"lapses_at,omitempty"`
}

func (s *Server) txJSON(a authRow) txJSON {
	t := txJSON{
		ID: a.ID, PaymentID: a.PaymentID, Status: a.Status, Amount: a.Amount, Captured: a.Captured,
		Refunded: a.Refunded, VerifyOnly: a.VerifyOnly, ResultCode: a.ResultCode, Card: a.Card.json(),
		Created: a.CreatedAt.Unix(),
	}
	if a.Status == string(gateway.StatusRequiresAction) && a.ChallengeID.Valid {
		t.ActionURL = s.public.String() + "/3ds/" + a.ChallengeID.String
	}
	if a.LapsesAt.Valid {
		t.LapsesAt = a.LapsesAt.Time.Unix()
	}
	return t
}

func (a authRow) logCard() gateway.Card {
	return gateway.Card{Ref: a.Card.ID, Brand: brandOf(a.Card.Brand), Last4: a.Card.Last4, ExpMonth: a.Card.ExpMonth, ExpYear: a.Card.ExpYear}
}

func brandOf(s string) pay.CardBrand { return pay.CardBrand(s) }

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

type authorizeRequest struct {
	PaymentID  string `json:"payment_id"`
	Card       string `json:"card"`
	Amount     int64  `json:"amount"`
	VerifyOnly bool   `json:"verify_only"`
	ReturnURL  string `json:"return_url"`
}

const maxAmount = 99_999_999

// authorize is POST /v1/authorizations. The payment id is the idempotency key: the
// first request creates the authorisation, every later one answers it unchanged.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	var req authorizeRequest
	if err := decodeJSON(r, &req); err != nil {
		apiError(w, http.StatusBadRequest, codeInvalidRequest, "a JSON object with payment_id, card, amount, verify_only and return_url is expected")
		return
	}
	switch key := r.Header.Get("Idempotency-Key"); {
	case req.PaymentID == "" || len(req.PaymentID) > 200:
		apiError(w, http.StatusBadRequest, codeInvalidRequest, "payment_id is required (at most 200 characters)")
		return
	case key != "" && key != req.PaymentID:
		apiError(w, http.StatusBadRequest, codeInvalidRequest, "Idempotency-Key must be the payment_id")
		return
	case req.VerifyOnly && req.Amount != 0, !req.VerifyOnly && (req.Amount < 1 || req.Amount > maxAmount):
		apiError(w, http.StatusBadRequest, codeInvalidRequest, "amount must be 1 to 99,999,999 yen (0 with verify_only)")
		return
	}
	if _, ok := s.appURL(req.ReturnURL); !ok {
		apiError(w, http.StatusBadRequest, codeInvalidRequest, "return_url must be an absolute URL on one of the merchant's origins")
		return
	}

	a, created, err := s.createAuthorization(r.Context(), req)
	switch {
	case errors.Is(err, errCardNotFound):
		apiError(w, http.StatusNotFound, codeNotFound, "no saved card by that id")
		return
	case err != nil:
		s.serverError(w, "authorize", err)
		return
	}
	if !created {
		writeJSON(w, http.StatusOK, s.txJSON(a))
		return
	}
	s.log.Info("authorization", "payment_id", a.PaymentID, "status", a.Status, "result", a.ResultCode,
		"amount", a.Amount, "verify_only", a.VerifyOnly, "card", a.logCard())
	if Scenario(a.Card.Scenario) == ScenarioTimeout {
		// The authorisation is committed; the answer comes later than the client waits.
		// The merchant must look the payment up, or authorise again with the same id.
		select {
		case <-r.Context().Done():
			return
		case <-time.After(s.cfg.SlowAnswer):
		}
	}
	writeJSON(w, http.StatusCreated, s.txJSON(a))
}

var errCardNotFound = errors.New("card not found")

// createAuthorization decides a new authorisation from the card's scenario, or answers
// the existing one for the payment id.
func (s *Server) createAuthorization(ctx context.Context, req authorizeRequest) (authRow, bool, error) {
	now := s.now()
	var created bool
	var out authRow
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var c cardRow
		if err := tx.GetContext(ctx, &c, `SELECT * FROM sandbox_cards WHERE id = $1`, req.Card); err != nil {
			if isNoRows(err) {
				// An unknown card may still meet an existing payment: the id wins.
				if a, err := s.authByPayment(ctx, tx, req.PaymentID, false); err == nil {
					out = a
					return nil
				}
				return errCardNotFound
			}
			return err
		}
		a := authRow{
			ID: newID("auth"), PaymentID: req.PaymentID, CardID: c.ID, Amount: req.Amount, VerifyOnly: req.VerifyOnly,
			ReturnURL: req.ReturnURL, CreatedAt: now, UpdatedAt: now, Card: c,
		}
		event := gateway.EventAuthorized
		switch {
		case expired(c.ExpMonth, c.ExpYear, now):
			a.Status, a.ResultCode, event = string(gateway.StatusDeclined), string(gateway.ResultExpiredCard), gateway.EventDeclined
		case Scenario(c.Scenario) == ScenarioDecline:
			a.Status, a.ResultCode, event = string(gateway.StatusDeclined), c.DeclineCode, gateway.EventDeclined
		case !req.VerifyOnly && DeclineAmounts[req.Amount%1000] != "":
			a.Status, a.ResultCode, event = string(gateway.StatusDeclined), string(DeclineAmounts[req.Amount%1000]), gateway.EventDeclined
		case Scenario(c.Scenario) == ScenarioChallenge, Scenario(c.Scenario) == ScenarioChallengeFails:
			a.Status, a.ResultCode, event = string(gateway.StatusRequiresAction), string(gateway.ResultActionRequired), ""
			a.ChallengeID = sql.NullString{String: newID("ch"), Valid: true}
			a.Passcode = sql.NullString{String: passcode(), Valid: true}
			a.ChallengeExpiresAt = sql.NullTime{Time: now.Add(challengeTTL), Valid: true}
		default:
			a.Status, a.ResultCode = string(gateway.StatusAuthorized), string(gateway.ResultApproved)
		}
		if a.Status == string(gateway.StatusAuthorized) && !a.VerifyOnly {
			a.LapsesAt = sql.NullTime{Time: now.Add(s.cfg.AuthorizationTTL), Valid: true}
		}
		res, err := tx.NamedExecContext(ctx, `
			INSERT INTO sandbox_authorizations (id, payment_id, card_id, amount, verify_only, status, result_code, return_url,
				challenge_id, passcode, challenge_expires_at, lapses_at, created_at, updated_at)
			VALUES (:id, :payment_id, :card_id, :amount, :verify_only, :status, :result_code, :return_url,
				:challenge_id, :passcode, :challenge_expires_at, :lapses_at, :created_at, :updated_at)
			ON CONFLICT (payment_id) DO NOTHING`, a)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			// The payment id was authorised before (or just now, by a concurrent call):
			// answer that authorisation and charge nothing more.
			out, err = s.authByPayment(ctx, tx, req.PaymentID, false)
			return err
		}
		created, out = true, a
		if a.LapsesAt.Valid {
			s.wrote.Store(tx, true) // a new lapse time: Run's rest may end sooner
		}
		if event != "" {
			return s.addEvent(ctx, tx, event, s.txJSON(a))
		}
		return nil
	})
	return out, created, err
}

// authByPayment reads the authorisation of a payment id, locked for update when lock is
// set, after lapsing it if its time is up.
func (s *Server) authByPayment(ctx context.Context, tx *sqlx.Tx, paymentID string, lock bool) (authRow, error) {
	q := authSelect + ` WHERE a.payment_id = $1`
	if lock {
		q += ` FOR UPDATE OF a`
	}
	var a authRow
	if err := tx.GetContext(ctx, &a, q, paymentID); err != nil {
		return authRow{}, err
	}
	return s.lapseIfDue(ctx, tx, a)
}

// lapseIfDue releases an authorisation whose time is up, the moment anyone reads it.
func (s *Server) lapseIfDue(ctx context.Context, tx *sqlx.Tx, a authRow) (authRow, error) {
	now := s.now()
	if a.Status != string(gateway.StatusAuthorized) || !a.LapsesAt.Valid || a.LapsesAt.Time.After(now) {
		return a, nil
	}
	res, err := tx.ExecContext(ctx, `UPDATE sandbox_authorizations SET status = 'lapsed', updated_at = $2 WHERE id = $1 AND status = 'authorized'`, a.ID, now)
	if err != nil {
		return a, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		// The sweep lapsed it meanwhile and wrote the event.
		a.Status = string(gateway.StatusLapsed)
		return a, nil
	}
	a.Status, a.UpdatedAt = string(gateway.StatusLapsed), now
	s.log.Info("authorization lapsed", "payment_id", a.PaymentID, "amount", a.Amount)
	return a, s.addEvent(ctx, tx, gateway.EventLapsed, s.txJSON(a))
}

func (s *Server) inTx(ctx context.Context, f func(tx *sqlx.Tx) error) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	defer s.wrote.Delete(tx) // a rolled-back transaction's mark

	if err := f(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// The events the change wrote are now visible to Run's deliverer.
	if _, wrote := s.wrote.LoadAndDelete(tx); wrote {
		s.wakeUp()
	}
	return nil
}

// lookup is GET /v1/authorizations/{payment_id}.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) {
	var a authRow
	err := s.inTx(r.Context(), func(tx *sqlx.Tx) error {
		var err error
		a, err = s.authByPayment(r.Context(), tx, r.PathValue("payment_id"), false)
		return err
	})
	s.answer(w, "lookup", a, err)
}

// errState is a call that does not fit the payment's state.
type errState string

func (e errState) Error() string { return string(e) }

func (s *Server) answer(w http.ResponseWriter, what string, a authRow, err error) {
	var st errState
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, s.txJSON(a))
	case isNoRows(err):
		apiError(w, http.StatusNotFound, codeNotFound, "no authorization for that payment_id")
	case errors.As(err, &st):
		apiError(w, http.StatusConflict, codeInvalidState, st.Error())
	default:
		s.serverError(w, what, err)
	}
}

type amountRequest struct {
	Amount int64 `json:"amount"`
}

// change runs one state change of a payment: f checks and changes the locked row, and
// the change is written with its webhook in one transaction.
func (s *Server) change(w http.ResponseWriter, r *http.Request, what string, f func(a *authRow) (gateway.EventType, error)) {
	var a authRow
	err := s.inTx(r.Context(), func(tx *sqlx.Tx) error {
		var err error
		if a, err = s.authByPayment(r.Context(), tx, r.PathValue("payment_id"), true); err != nil {
			return err
		}
		event, err := f(&a)
		if err != nil || event == "" {
			return err
		}
		a.UpdatedAt = s.now()
		if _, err := tx.NamedExecContext(r.Context(), `
			UPDATE sandbox_authorizations SET status = :status, result_code = :result_code, captured = :captured,
				refunded = :refunded, updated_at = :updated_at
			WHERE id = :id`, a); err != nil {
			return err
		}
		return s.addEvent(r.Context(), tx, event, s.txJSON(a))
	})
	if err == nil {
		s.log.Info(what, "payment_id", a.PaymentID, "status", a.Status, "captured", a.Captured, "refunded", a.Refunded)
	}
	s.answer(w, what, a, err)
}

// capture is POST …/capture {"amount"}: the whole authorised amount or less (the rest is
// released). Capturing again with the same amount answers the capture (a retry).
func (s *Server) capture(w http.ResponseWriter, r *http.Request) {
	var req amountRequest
	if err := decodeJSON(r, &req); err != nil || req.Amount < 1 {
		apiError(w, http.StatusBadRequest, codeInvalidRequest, "amount (yen, at least 1) is expected")
		return
	}
	s.change(w, r, "capture", func(a *authRow) (gateway.EventType, error) {
		switch {
		case a.Status == string(gateway.StatusCaptured) && a.Captured == req.Amount:
			return "", nil
		case a.Status != string(gateway.StatusAuthorized):
			return "", errState("only an authorized payment can be captured; this one is " + a.Status)
		case req.Amount > a.Amount:
			return "", errState("the capture is more than the authorized amount")
		}
		a.Status, a.Captured, a.ResultCode = string(gateway.StatusCaptured), req.Amount, string(gateway.ResultApproved)
		return gateway.EventCaptured, nil
	})
}

// void is POST …/void: releases an authorisation (or abandons a pending challenge).
func (s *Server) void(w http.ResponseWriter, r *http.Request) {
	s.change(w, r, "void", func(a *authRow) (gateway.EventType, error) {
		switch a.Status {
		case string(gateway.StatusVoided):
			return "", nil
		case string(gateway.StatusAuthorized), string(gateway.StatusRequiresAction):
			a.Status = string(gateway.StatusVoided)
			return gateway.EventVoided, nil
		}
		return "", errState("only an authorized payment can be voided; this one is " + a.Status)
	})
}

// refund is POST …/refund {"amount"}: the refunds of a payment add up to at most what
// was captured.
func (s *Server) refund(w http.ResponseWriter, r *http.Request) {
	var req amountRequest
	if err := decodeJSON(r, &req); err != nil || req.Amount < 1 {
		apiError(w, http.StatusBadRequest, codeInvalidRequest, "amount (yen, at least 1) is expected")
		return
	}
	s.change(w, r, "refund", func(a *authRow) (gateway.EventType, error) {
		switch {
		case a.Status != string(gateway.StatusCaptured) && a.Status != string(gateway.StatusPartiallyRefunded):
			return "", errState("only a captured payment can be refunded; this one is " + a.Status)
		case a.Refunded+req.Amount > a.Captured:
			return "", errState("the refunds would be more than the captured amount")
		}
		a.Refunded += req.Amount
		a.Status = string(gateway.StatusPartiallyRefunded)
		if a.Refunded == a.Captured {
			a.Status = string(gateway.StatusRefunded)
		}
		return gateway.EventRefunded, nil
	})
}

// SweepLapsed lapses every authorisation whose time is up, each with its webhook, and
// answers how many. Run calls it; tests call it after moving the clock.
func (s *Server) SweepLapsed(ctx context.Context) (int, error) {
	n := 0
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var ids []string
		if err := tx.SelectContext(ctx, &ids, `
			SELECT payment_id FROM sandbox_authorizations
			WHERE status = 'authorized' AND lapses_at <= $1
			ORDER BY lapses_at LIMIT 100 FOR UPDATE SKIP LOCKED`, s.now()); err != nil {
			return err
		}
		for _, id := range ids {
			var a authRow
			if err := tx.GetContext(ctx, &a, authSelect+` WHERE a.payment_id = $1`, id); err != nil {
				return err
			}
			if _, err := s.lapseIfDue(ctx, tx, a); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}
