package webtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/store"
)

// GiveFactor records that every live session of u gave its second factor at at: the
// tests' stand-in for a step-up (account.StepUp), for tests about something else.
func GiveFactor(t *testing.T, u store.User, at time.Time) {
	t.Helper()
	_, err := Store().DB.ExecContext(context.Background(), `UPDATE user_sessions SET factor_at = $3
		WHERE buyer_id = $1 AND user_id = $2 AND ended_at IS NULL`, u.BuyerID, u.ID, at)
	require.NoError(t, err)
}
