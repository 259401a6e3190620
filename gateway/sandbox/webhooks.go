package sandbox

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/gateway"
)

// SignatureHeader carries a webhook's signature: "t=<unix seconds>,v1=<hex HMAC-SHA256
// of "<t>.<body>" with the webhook secret>".
const SignatureHeader = "Sandbox-Signature"

// eventJSON is a webhook body.
type eventJSON struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Created int64  `json:"created"`
	Data    txJSON `json:"data"`
}

// addEvent writes a webhook event in the transaction of the change it tells about, due
// at once; Run delivers it (inTx wakes Run once the transaction commits).
func (s *Server) addEvent(ctx context.Context, tx *sqlx.Tx, typ gateway.EventType, t txJSON) error {
	now := s.now()
	ev := eventJSON{ID: newID("evt"), Type: string(typ), Created: now.Unix(), Data: t}
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO sandbox_events (id, type, payment_id, body, created_at, next_attempt_at)
		VALUES ($1, $2, $3, $4, $5, $5)`, ev.ID, ev.Type, t.PaymentID, string(body), now); err != nil {
		return err
	}
	s.wrote.Store(tx, true) // inTx wakes Run once this commits
	return nil
}

// Backoff is the wait after each failed delivery: the n-th failure waits Backoff[n-1];
// after the last the event is marked failed (len(Backoff)+1 attempts in all).
var Backoff = []time.Duration{
	time.Second, 4 * time.Second, 15 * time.Second, time.Minute, 5 * time.Minute, 15 * time.Minute,
	time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour,
}

// deliveryLease keeps a claimed event from a second deliverer while one is posting it.
const deliveryLease = time.Minute

type dueEvent struct {
	ID       string `db:"id"`
	Type     string `db:"type"`
	Body     string `db:"body"`
	Attempts int    `db:"attempts"`
}

// DeliverDue posts every webhook that is due and answers how many were accepted. Events
// are claimed with FOR UPDATE SKIP LOCKED and leased, so several deliverers (two
// instances) never post one event at once; a refused or failed post is retried after
// the Backoff table's wait.
func (s *Server) DeliverDue(ctx context.Context) (int, error) {
	if s.cfg.WebhookURL == "" {
		return 0, nil
	}
	now := s.now()
	var due []dueEvent
	if err := s.db.SelectContext(ctx, &due, `
		UPDATE sandbox_events SET attempts = attempts + 1, next_attempt_at = $2
		WHERE id IN (
			SELECT id FROM sandbox_events
			WHERE status = 'pending' AND next_attempt_at <= $1
			ORDER BY next_attempt_at, seq LIMIT 20
			FOR UPDATE SKIP LOCKED)
		RETURNING id, type, body, attempts`, now, now.Add(deliveryLease)); err != nil {
		return 0, err
	}
	ok := 0
	for _, ev := range due {
		err := s.post(ctx, []byte(ev.Body))
		if err == nil {
			ok++
			s.log.Info("webhook delivered", "event", ev.ID, "type", ev.Type, "attempt", ev.Attempts)
			if _, err := s.db.ExecContext(ctx, `UPDATE sandbox_events SET status = 'delivered', delivered_at = $2, last_error = '' WHERE id = $1`, ev.ID, s.now()); err != nil {
				return ok, err
			}
			continue
		}
		msg := err.Error()
		if len(msg) > 500 {
			msg = msg[:500]
		}
		if ev.Attempts > len(Backoff) {
			s.log.Error("webhook failed for good", "event", ev.ID, "type", ev.Type, "attempts", ev.Attempts, "error", msg)
			_, err = s.db.ExecContext(ctx, `UPDATE sandbox_events SET status = 'failed', last_error = $2 WHERE id = $1`, ev.ID, msg)
		} else {
			wait := Backoff[ev.Attempts-1]
			s.log.Warn("webhook not accepted", "event", ev.ID, "type", ev.Type, "attempt", ev.Attempts, "retry_in", wait, "error", msg)
			_, err = s.db.ExecContext(ctx, `UPDATE sandbox_events SET next_attempt_at = $2, last_error = $3 WHERE id = $1`, ev.ID, s.now().Add(wait), msg)
		}
		if err != nil {
			return ok, err
		}
	}
	return ok, nil
}

// post sends one webhook, signed at the moment of sending; any 2xx is acceptance.
func (s *Server) post(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.WebhookURL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "cardpay-sandbox-psp/1")
	req.Header.Set(SignatureHeader, Sign(s.cfg.WebhookSecret, body, s.cfg.Clock()))
	resp, err := s.cfg.WebhookClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("answered %s", resp.Status)
	}
	return nil
}

// Sign is the SignatureHeader value for body signed with secret at time at.
func Sign(secret string, body []byte, at time.Time) string {
	t := strconv.FormatInt(at.Unix(), 10)
	return "t=" + t + ",v1=" + hex.EncodeToString(mac(secret, t, body))
}

func mac(secret, t string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(t))
	m.Write([]byte("."))
	m.Write(body)
	return m.Sum(nil)
}

// Verify checks a webhook's SignatureHeader against secret and the replay window at now,
// and decodes the event. Every failure is gateway.ErrBadSignature.
func Verify(secret string, header http.Header, body []byte, now time.Time) (gateway.Event, error) {
	sig := header.Get(SignatureHeader)
	if sig == "" || secret == "" {
		return gateway.Event{}, fmt.Errorf("%w: no %s header", gateway.ErrBadSignature, SignatureHeader)
	}
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(sig, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return gateway.Event{}, fmt.Errorf("%w: malformed signature", gateway.ErrBadSignature)
	}
	want := mac(secret, ts, body)
	matched := false
	for _, got := range sigs {
		if hmac.Equal(got, want) {
			matched = true
		}
	}
	if !matched {
		return gateway.Event{}, fmt.Errorf("%w: signature does not match", gateway.ErrBadSignature)
	}
	// The timestamp is signed, so an old message replayed (or one dated ahead) fails here.
	if age := now.Sub(time.Unix(unix, 0)); age > gateway.WebhookTolerance || age < -gateway.WebhookTolerance {
		return gateway.Event{}, fmt.Errorf("%w: signed %s away from now", gateway.ErrBadSignature, age.Round(time.Second))
	}
	var ev eventJSON
	if err := json.Unmarshal(body, &ev); err != nil || ev.ID == "" || ev.Type == "" {
		return gateway.Event{}, errors.New("sandbox: webhook body is not an event")
	}
	return gateway.Event{
		ID: ev.ID, Type: gateway.EventType(ev.Type), Created: time.Unix(ev.Created, 0),
		Transaction: ev.Data.transaction(),
	}, nil
}

// transaction turns the wire form into the gateway's.
func (t txJSON) transaction() gateway.Transaction {
	return gateway.Transaction{
		PaymentID: t.PaymentID, PSPRef: t.ID, Status: gateway.Status(t.Status), Amount: t.Amount,
		Captured: t.Captured, Refunded: t.Refunded, ResultCode: gateway.ResultCode(t.ResultCode),
		ActionURL: t.ActionURL, Card: t.Card.card(),
	}
}

func (c cardJSON) card() gateway.Card {
	return gateway.Card{
		Ref: c.ID, Brand: brandOf(c.Brand), Last4: c.Last4, ExpMonth: c.ExpMonth, ExpYear: c.ExpYear,
		Holder: c.Name, Fingerprint: c.Fingerprint,
	}
}
