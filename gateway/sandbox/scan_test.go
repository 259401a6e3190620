package sandbox_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/gateway/sandbox"
	"cardpay/pay"
)

// cardNumbers finds the card numbers in s (pay.FindCardNumbers), masked.
func cardNumbers(s string) []string {
	var found []string
	for _, f := range pay.FindCardNumbers(s) {
		found = append(found, f.Masked)
	}
	return found
}

// cardNumbersInTables reads every row of every sandbox table as text and names each
// row that holds a card number.
func cardNumbersInTables(ctx context.Context, db *sqlx.DB) ([]string, error) {
	var tables []string
	if err := db.SelectContext(ctx, &tables, `
		SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_name LIKE 'sandbox\_%' ORDER BY table_name`); err != nil {
		return nil, err
	}
	if len(tables) < 6 {
		return nil, fmt.Errorf("expected the sandbox's tables, found %v", tables)
	}
	var found []string
	for _, tbl := range tables {
		var rows []string
		if err := db.SelectContext(ctx, &rows, `SELECT t::text FROM `+pq.QuoteIdentifier(tbl)+` t`); err != nil {
			return nil, err
		}
		for _, r := range rows {
			for _, n := range cardNumbers(r) {
				found = append(found, tbl+": "+n)
			}
		}
	}
	return found, nil
}

func TestCardNumberScanFindsNumbers(t *testing.T) {
	assert.Len(t, cardNumbers("paid with 4111 1111 1111 1111 today"), 1)
	assert.Len(t, cardNumbers("x 4111-1111-1111-1111 y 3530111333300000"), 2)
	assert.Empty(t, cardNumbers("4111 1111 1111 1112, 2026-05-01 12:00:00, 5000, 1700000000"))
}

// Every test card goes through every way in (tokens, the hosted page, the fields, saving,
// authorising, a challenge, a webhook), then no sandbox table holds a card number. The
// TestMain scan repeats this over everything the package's tests wrote.
func TestNoCardNumberInTables(t *testing.T) {
	h := newHarness(t)
	for _, tc := range sandbox.TestCards {
		resp, _ := h.postToken(t, appOrigin, h.card(tc.Number))
		if tc.Scenario == sandbox.ScenarioRefused {
			require.Equal(t, 400, resp.StatusCode)
			continue
		}
		require.Equal(t, 201, resp.StatusCode, tc.Number[:4])
		if tc.Scenario == sandbox.ScenarioTimeout {
			continue
		}
		tx := h.authorize(t, tc.Number, 1200)
		if tx.Status == gateway.StatusRequiresAction {
			resp, page := h.get(t, tx.ActionURL)
			require.Equal(t, 200, resp.StatusCode)
			h.post(t, tx.ActionURL, url.Values{"action": {"verify"}, "passcode": {passcodeOn(t, page)}})
		}
	}
	hostedURL := h.hostedURL(t, hostedReturn)
	resp, _ := h.post(t, hostedURL, url.Values{"number": {jcb}, "exp": {"12/39"}, "cvc": {"999"}, "name": {"HANAKO SATO"}})
	require.Equal(t, 303, resp.StatusCode)
	// A refused post shows the form again without the number.
	resp, page := h.post(t, h.hostedURL(t, hostedReturn), url.Values{"number": {visa}, "exp": {"13/39"}, "cvc": {"1"}, "name": {""}})
	require.Equal(t, 422, resp.StatusCode)
	assert.Empty(t, cardNumbers(page), "the refused form does not show the number again")
	// The fields page: a card in, a setup finished; a refused card's errors hold no number.
	for _, tc := range sandbox.TestCards {
		setup := h.fieldsSetup(t)
		status, out := h.postFields(t, setup.ID, h.ts.URL, h.card(tc.Number))
		assert.Empty(t, cardNumbers(fmt.Sprint(out)), "the answer holds no card number")
		if tc.Scenario == sandbox.ScenarioRefused {
			require.Equal(t, 400, status)
			continue
		}
		require.Equal(t, 201, status, tc.Number[:4])
		_, err := h.client.FinishCardSetup(t.Context(), setup.ID)
		require.NoError(t, err)
	}

	found, err := cardNumbersInTables(t.Context(), h.db)
	require.NoError(t, err)
	assert.Empty(t, found)
	assert.Empty(t, cardNumbers(logs.String()), "no card number in the sandbox's log lines")
	assert.Contains(t, logs.String(), "last4=1111", "the logs name cards by brand and last 4 digits")
}
