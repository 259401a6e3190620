package web

import (
	"bytes"
	"encoding/csv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

// The requests' list: what was transferred is the amount less the fee when the
// requester bore it, and the cells a spreadsheet would run are text.
func TestRequestList(t *testing.T) {
	day := time.Date(2026, 11, 30, 15, 0, 0, 0, pay.Tokyo())
	rows := []store.RequestBookRow{
		{Request: store.Request{ID: 5, CustomerName: "=株式会社お客", Amount: 110000, Fee: 3300, FeeBearer: pay.FeeByRequester,
			Deadline: day, InvoiceNumber: "R-1"}, TransferredAt: day},
		{Request: store.Request{ID: 6, CustomerName: "株式会社別", Amount: 55000, Fee: 1650, FeeBearer: pay.FeeByCustomer,
			Deadline: day}, TransferredAt: day},
	}
	b, err := requestList(rows)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(b, []byte("\ufeff")))
	got, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff")))).ReadAll()
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, requestListHeader, got[0])
	assert.Equal(t, []string{pay.InvoiceNumber(5), "'=株式会社お客", "", "R-1", "", "2026-11-30", "110000", "3300", "300",
		pay.FeeByRequester.Label(), "106700", "2026-11-30"}, got[1])
	assert.Equal(t, "55000", got[2][10], "the customer bore the fee: the whole amount")
}
