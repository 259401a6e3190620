package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/gateway"
)

// flexString takes a JSON string or number as its text ("12" or 12), so the island may
// send the expiry either way.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*f = flexString(n.String())
	return nil
}

type tokenRequest struct {
	Number   string     `json:"number"`
	ExpMonth flexString `json:"exp_month"`
	ExpYear  flexString `json:"exp_year"`
	CVC      string     `json:"cvc"`
	Name     string     `json:"name"`
}

type tokenResponse struct {
	Token    string `json:"token"`
	Brand    string `json:"brand"`
	Last4    string `json:"last4"`
	ExpMonth int    `json:"exp_month"`
	ExpYear  int    `json:"exp_year"`
	Name     string `json:"name"`
}

// tokenErrors is the 400 answer: the first error (the contract's shape) and all of them,
// so the island can mark every field at once.
type tokenErrors struct {
	Error  fieldError   `json:"error"`
	Errors []fieldError `json:"errors"`
}

// cors answers whether the request's Origin is one of the app's, and if so allows it.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	w.Header().Add("Vary", "Origin")
	o, err := origin(r.Header.Get("Origin"))
	if err != nil || !s.origins[o] {
		return false
	}
	w.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
	return true
}

func (s *Server) tokensPreflight(w http.ResponseWriter, r *http.Request) {
	if !s.cors(w, r) {
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "POST")
	h.Set("Access-Control-Allow-Headers", "Content-Type")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// createToken is POST /v1/tokens: the browser sends the card here, never to the app.
func (s *Server) createToken(w http.ResponseWriter, r *http.Request) {
	// Only the app's pages may tokenise; anything else (another site, a script without
	// an Origin) is refused before the body is read.
	if !s.cors(w, r) {
		apiError(w, http.StatusForbidden, "origin_not_allowed", "tokenisation is open to the merchant's origins only")
		return
	}
	var req tokenRequest
	if err := decodeJSON(r, &req); err != nil {
		apiError(w, http.StatusBadRequest, codeInvalidRequest, "a JSON object with number, exp_month, exp_year, cvc and name is expected")
		return
	}
	card, errs := check(cardInput{req.Number, string(req.ExpMonth), string(req.ExpYear), req.CVC, req.Name}, s.now())
	if len(errs) > 0 {
		writeJSON(w, http.StatusBadRequest, tokenErrors{Error: errs[0], Errors: errs})
		return
	}
	tok, err := s.insertToken(r.Context(), s.db, card)
	if err != nil {
		s.log.Error("token", "error", err)
		apiError(w, http.StatusInternalServerError, "server_error", "try again")
		return
	}
	writeJSON(w, http.StatusCreated, tok)
}

// insertToken writes a one-time token for a checked card: the number becomes last4 and a
// fingerprint here, and goes no further. db is the server's pool or the transaction that
// also records the token on a setup.
func (s *Server) insertToken(ctx context.Context, db sqlx.ExecerContext, c checkedCard) (tokenResponse, error) {
	now := s.now()
	t := tokenResponse{
		Token: newID("tok"), Brand: string(c.brand), Last4: c.digits[len(c.digits)-4:],
		ExpMonth: c.expMonth, ExpYear: c.expYear, Name: c.holder,
	}
	_, err := db.ExecContext(ctx, `
		INSERT INTO sandbox_tokens (id, brand, last4, exp_month, exp_year, holder, fingerprint, scenario, decline_code, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		t.Token, t.Brand, t.Last4, t.ExpMonth, t.ExpYear, t.Name, fingerprint(s.cfg.SecretKey, c.digits),
		string(c.scenario), declineCode(c), now, now.Add(tokenTTL))
	if err != nil {
		return tokenResponse{}, err
	}
	s.log.Info("token created", "token", t.Token, "brand", t.Brand, "last4", t.Last4, "exp_month", t.ExpMonth, "exp_year", t.ExpYear)
	return t, nil
}

func declineCode(c checkedCard) string {
	if c.scenario == ScenarioDecline || c.scenario == ScenarioChallengeFails {
		return string(c.code)
	}
	return ""
}

// cardJSON is a saved card on the wire.
type cardJSON struct {
	ID          string `json:"id"`
	Brand       string `json:"brand"`
	Last4       string `json:"last4"`
	ExpMonth    int    `json:"exp_month"`
	ExpYear     int    `json:"exp_year"`
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
}

type cardRow struct {
	ID          string    `db:"id"`
	Brand       string    `db:"brand"`
	Last4       string    `db:"last4"`
	ExpMonth    int       `db:"exp_month"`
	ExpYear     int       `db:"exp_year"`
	Holder      string    `db:"holder"`
	Fingerprint string    `db:"fingerprint"`
	Scenario    string    `db:"scenario"`
	DeclineCode string    `db:"decline_code"`
	CreatedAt   time.Time `db:"created_at"`
}

func (c cardRow) json() cardJSON {
	return cardJSON{c.ID, c.Brand, c.Last4, c.ExpMonth, c.ExpYear, c.Holder, c.Fingerprint}
}

// createCard is POST /v1/cards {"token"}: a one-time token becomes a saved card.
func (s *Server) createCard(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Token string `json:"token"`
	}
	if err := decodeJSON(r, &req); err != nil || !strings.HasPrefix(req.Token, "tok_") {
		apiError(w, http.StatusBadRequest, codeTokenInvalid, "a token from /v1/tokens or the hosted page is expected")
		return
	}
	var c cardRow
	err := s.inTx(r.Context(), func(tx *sqlx.Tx) error {
		var err error
		c, err = s.saveToken(r.Context(), tx, req.Token)
		return err
	})
	switch {
	case errors.Is(err, errTokenInvalid):
		apiError(w, http.StatusBadRequest, codeTokenInvalid, "the token is unknown, used or expired")
		return
	case err != nil:
		s.serverError(w, "card", err)
		return
	}
	writeJSON(w, http.StatusCreated, c.json())
}

// errTokenInvalid: the token is unknown, used or expired.
var errTokenInvalid = errors.New("token unknown, used or expired")

// saveToken turns a one-time token into a saved card inside tx: using the token and
// writing the card are one step (a conditional update of the token), so a token saves
// one card, once, whether it comes through POST /v1/cards or a setup being finished.
func (s *Server) saveToken(ctx context.Context, tx *sqlx.Tx, token string) (cardRow, error) {
	now := s.now()
	c := cardRow{ID: newID("card"), CreatedAt: now}
	err := tx.GetContext(ctx, &c, `
		UPDATE sandbox_tokens SET used_at = $2
		WHERE id = $1 AND used_at IS NULL AND expires_at > $2
		RETURNING $3::text AS id, brand, last4, exp_month, exp_year, holder, fingerprint, scenario, decline_code, $2::timestamptz AS created_at`,
		token, now, c.ID)
	if isNoRows(err) {
		return cardRow{}, errTokenInvalid
	}
	if err != nil {
		return cardRow{}, err
	}
	if _, err := tx.NamedExecContext(ctx, `
		INSERT INTO sandbox_cards (id, brand, last4, exp_month, exp_year, holder, fingerprint, scenario, decline_code, created_at)
		VALUES (:id, :brand, :last4, :exp_month, :exp_year, :holder, :fingerprint, :scenario, :decline_code, :created_at)`, c); err != nil {
		return cardRow{}, err
	}
	s.log.Info("card saved", "card", gateway.Card{Ref: c.ID, Brand: brandOf(c.Brand), Last4: c.Last4, ExpMonth: c.ExpMonth, ExpYear: c.ExpYear})
	return c, nil
}

func (s *Server) serverError(w http.ResponseWriter, what string, err error) {
	s.log.Error(what, "error", err)
	apiError(w, http.StatusInternalServerError, "server_error", "try again")
}
