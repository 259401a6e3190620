package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"cardpay/gateway"
)

// Client is the gateway.Gateway of the sandbox PSP, over its server-to-server API.
type Client struct {
	base          string
	secretKey     string
	webhookSecret string
	http          *http.Client
}

// DefaultTimeout bounds each call when NewClient is given no http.Client. A call that
// takes longer answers gateway.ErrUnavailable: the outcome is unknown and the payment
// must be looked up.
const DefaultTimeout = 10 * time.Second

var _ gateway.Gateway = (*Client)(nil)

// NewClient talks to the sandbox at baseURL (the server-to-server address) with the
// secret key, and verifies webhooks with webhookSecret. A nil httpClient is one with
// DefaultTimeout.
func NewClient(baseURL, secretKey, webhookSecret string, httpClient *http.Client) *Client {
	if httpClient == nil {
		httpClient = &http.Client{Timeout: DefaultTimeout}
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), secretKey: secretKey, webhookSecret: webhookSecret, http: httpClient}
}

// Name is "sandbox".
func (c *Client) Name() string { return "sandbox" }

// SaveCard turns a one-time token into a saved card.
func (c *Client) SaveCard(ctx context.Context, token string) (gateway.Card, error) {
	var card cardJSON
	if err := c.call(ctx, http.MethodPost, "/v1/cards", "", map[string]string{"token": token}, &card); err != nil {
		return gateway.Card{}, fmt.Errorf("sandbox: save card: %w", err)
	}
	return card.card(), nil
}

// Authorize reserves an amount on a saved card, with our payment id as the idempotency key.
func (c *Client) Authorize(ctx context.Context, r gateway.AuthorizeRequest) (gateway.Transaction, error) {
	body := authorizeRequest{PaymentID: r.PaymentID, Card: r.CardRef, Amount: r.Amount, VerifyOnly: r.VerifyOnly, ReturnURL: r.ReturnURL}
	return c.tx(ctx, "authorize", http.MethodPost, "/v1/authorizations", r.PaymentID, body)
}

// Capture takes amount of an authorised payment.
func (c *Client) Capture(ctx context.Context, paymentID string, amount int64) (gateway.Transaction, error) {
	return c.tx(ctx, "capture", http.MethodPost, c.paymentPath(paymentID)+"/capture", "", amountRequest{amount})
}

// Void releases an authorisation.
func (c *Client) Void(ctx context.Context, paymentID string) (gateway.Transaction, error) {
	return c.tx(ctx, "void", http.MethodPost, c.paymentPath(paymentID)+"/void", "", struct{}{})
}

// Refund returns amount of a captured payment.
func (c *Client) Refund(ctx context.Context, paymentID string, amount int64) (gateway.Transaction, error) {
	return c.tx(ctx, "refund", http.MethodPost, c.paymentPath(paymentID)+"/refund", "", amountRequest{amount})
}

// Lookup reads a payment by our id.
func (c *Client) Lookup(ctx context.Context, paymentID string) (gateway.Transaction, error) {
	return c.tx(ctx, "lookup", http.MethodGet, c.paymentPath(paymentID), "", nil)
}

// VerifyWebhook checks the Sandbox-Signature header and decodes the event.
func (c *Client) VerifyWebhook(header http.Header, body []byte, now time.Time) (gateway.Event, error) {
	return Verify(c.webhookSecret, header, body, now)
}

func (c *Client) paymentPath(paymentID string) string {
	return "/v1/authorizations/" + url.PathEscape(paymentID)
}

func (c *Client) tx(ctx context.Context, what, method, path, idempotencyKey string, body any) (gateway.Transaction, error) {
	var t txJSON
	if err := c.call(ctx, method, path, idempotencyKey, body, &t); err != nil {
		return gateway.Transaction{}, fmt.Errorf("sandbox: %s: %w", what, err)
	}
	return t.transaction(), nil
}

// call makes one API call and maps its failures to the gateway's errors: no answer in
// time, no connection or a 5xx is ErrUnavailable (the outcome is unknown).
func (c *Client) call(ctx context.Context, method, path, idempotencyKey string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.secretKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", idempotencyKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", gateway.ErrUnavailable, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("%w: reading the answer: %w", gateway.ErrUnavailable, err)
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("sandbox: unreadable answer: %w", err)
		}
		return nil
	}
	var e apiErrorBody
	_ = json.Unmarshal(data, &e)
	detail := fmt.Sprintf("%s (%s: %s)", resp.Status, e.Error.Code, e.Error.Message)
	switch {
	case resp.StatusCode >= 500:
		return fmt.Errorf("%w: %s", gateway.ErrUnavailable, detail)
	case e.Error.Code == codeTokenInvalid:
		return fmt.Errorf("%w: %s", gateway.ErrBadToken, detail)
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: %s", gateway.ErrNotFound, detail)
	case e.Error.Code == codeInvalidState:
		return fmt.Errorf("%w: %s", gateway.ErrInvalidState, detail)
	}
	return errors.New(detail)
}
