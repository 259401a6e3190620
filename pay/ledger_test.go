package pay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

func sumLines(ps ...pay.Posting) map[pay.LedgerAccount]int64 {
	b := map[pay.LedgerAccount]int64{}
	for _, p := range ps {
		for _, l := range p.Lines {
			b[l.Account] += l.Amount
			if b[l.Account] == 0 {
				delete(b, l.Account)
			}
		}
	}
	return b
}

func TestLedgerPostings(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    pay.PaymentMoney
	}{
		{"payment", pay.PaymentMoney{Amount: 110_000, Fee: 3_300, FullFee: 3_300}},
		{"payment with a promotion", pay.PaymentMoney{Amount: 110_000, Fee: 2_200, FullFee: 3_300}},
		{"free of fee", pay.PaymentMoney{Amount: 1_000, Fee: 0, FullFee: 0}},
		{"request, customer bears the fee", pay.PaymentMoney{Amount: 50_000, Fee: 1_500, FullFee: 1_500}},
		{"request, requester bears the fee", pay.PaymentMoney{Amount: 50_000, PayeeFee: 1_500, FullFee: 1_500}},
		{"odd yen", pay.PaymentMoney{Amount: 1_001, Fee: 30, FullFee: 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			capture, err := pay.CapturePostings(m)
			require.NoError(t, err)
			for _, p := range capture {
				assert.True(t, p.Balanced(), "%+v", p)
			}
			assert.Equal(t, m.Charged(), sumLines(capture...)[pay.AccountCardReceivable], "the card's charge is receivable")
			assert.Equal(t, -m.Payable(), sumLines(capture...)[pay.AccountSupplierPayable], "the payee's money is owed")
			assert.Equal(t, pay.ExpectedBalances(m, pay.CardCaptured, pay.TransferNone), sumLines(capture...))

			refund, err := pay.RefundPosting(m)
			require.NoError(t, err)
			assert.True(t, refund.Balanced())
			assert.Empty(t, sumLines(append(capture, refund)...), "a refund undoes the capture to the yen")

			// The whole transfer: filed, failed, filed again, done.
			filed, _ := pay.TransferPosting(pay.ActFile, m.Payable())
			fail, _ := pay.TransferPosting(pay.ActTransferFail, m.Payable())
			done, _ := pay.TransferPosting(pay.ActTransfer, m.Payable())
			for _, p := range []pay.Posting{filed, fail, done} {
				assert.True(t, p.Balanced(), "%+v", p)
			}
			assert.Equal(t, pay.ExpectedBalances(m, pay.CardCaptured, pay.TransferFiled), sumLines(append(capture, filed)...))
			assert.Equal(t, pay.ExpectedBalances(m, pay.CardCaptured, pay.TransferFailed), sumLines(append(capture, filed, fail)...))
			all := append(capture, filed, fail, filed, done)
			assert.Equal(t, pay.ExpectedBalances(m, pay.CardCaptured, pay.TransferDone), sumLines(all...))
			// Money taken from the card = money sent to the payee + fees kept.
			b := sumLines(all...)
			assert.Equal(t, b[pay.AccountCardReceivable], -b[pay.AccountBank]-b[pay.AccountFeeRevenue]-b[pay.AccountPromotionExpense])
			// A failed transfer returned: the refund leaves nothing.
			assert.Empty(t, sumLines(append(capture, filed, fail, refund)...))
			_, moves := pay.TransferPosting(pay.ActSend, m.Payable())
			assert.False(t, moves, "giving the file to the bank moves no money")
		})
	}
	_, err := pay.CapturePostings(pay.PaymentMoney{Amount: 0})
	assert.Error(t, err)
	_, err = pay.CapturePostings(pay.PaymentMoney{Amount: 100, PayeeFee: 100})
	assert.Error(t, err)
	assert.False(t, pay.Posting{Kind: pay.PostCapture, Lines: []pay.LedgerLine{{pay.AccountBank, 1}, {pay.AccountFeeRevenue, -2}}}.Balanced())
	assert.False(t, pay.Posting{Kind: pay.PostCapture, Lines: []pay.LedgerLine{{pay.AccountBank, 0}, {pay.AccountFeeRevenue, 0}}}.Balanced())
	assert.Empty(t, pay.ExpectedBalances(pay.PaymentMoney{Amount: 1000, Fee: 30}, pay.CardAuthorized, pay.TransferNone))
	assert.Equal(t, "カード売掛金", pay.AccountCardReceivable.Label())
}
