package api

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"cardpay/cards"
	"cardpay/handlers/web"
)

// WebhookPath receives the PSP's webhooks (outside /api/v1: the PSP is not a client of
// our API). It has no session and is exempt from the cross-origin check: what
// authenticates a webhook is its signature (HMAC-SHA256 over a timestamp and the body,
// within a replay window), checked before anything is stored.
const WebhookPath = "/webhooks/psp"

// maxWebhookBody bounds a webhook; events are a few hundred bytes.
const maxWebhookBody = 256 << 10

// Webhook serves POST WebhookPath: 200 {"received":true} once the event is stored (a
// redelivery of a processed event is a no-op 200); 400 for a bad or stale signature,
// with nothing stored; 500 when processing failed, so that the PSP delivers it again.
func Webhook(a *web.App) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer := func(code int, v any) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(code)
			_ = json.NewEncoder(w).Encode(v)
		}
		if a.Cards == nil {
			answer(http.StatusServiceUnavailable, newError(http.StatusServiceUnavailable, "unavailable", "カード決済は設定されていません。"))
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
		if err != nil {
			answer(http.StatusRequestEntityTooLarge, errTooLarge)
			return
		}
		err = a.Cards.ReceiveWebhook(r.Context(), r.Header, body)
		switch {
		case errors.Is(err, cards.ErrBadWebhook):
			answer(http.StatusBadRequest, newError(http.StatusBadRequest, "bad_signature", "署名を確認できませんでした。"))
		case err != nil:
			a.Logger.Error("webhook: processing failed; the PSP will deliver it again", "error", err)
			answer(http.StatusInternalServerError, errInternal)
		default:
			answer(http.StatusOK, map[string]bool{"received": true})
		}
	})
}
