package pay_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestReceivedStateOf(t *testing.T) {
	st := func(s ...pay.ExaminationStatus) []pay.ExaminationStatus { return s }
	tests := []struct {
		name     string
		d        pay.Disposition
		payments []pay.ExaminationStatus
		want     pay.ReceivedState
	}{
		{"nothing done", pay.DispositionOpen, nil, pay.ReceivedNew},
		{"marked paid elsewhere", pay.DispositionPaidElsewhere, nil, pay.ReceivedPaid},
		{"marked not to pay", pay.DispositionNotToPay, nil, pay.ReceivedSetAside},
		{"a payment in screening", pay.DispositionOpen, st(pay.InProgress), pay.ReceivedScheduled},
		{"a payment checked", pay.DispositionOpen, st(pay.InProgressExaminationChecked), pay.ReceivedScheduled},
		{"a payment screened, waiting for its transfer", pay.DispositionOpen, st(pay.InProgressExaminationCompleted), pay.ReceivedScheduled},
		{"a payment transferred", pay.DispositionOpen, st(pay.TransferCompleted), pay.ReceivedPaid},
		// The money moved here: the payment says, whatever was marked before.
		{"a payment over a mark", pay.DispositionNotToPay, st(pay.InProgress), pay.ReceivedScheduled},
		{"a payment cancelled: as if none", pay.DispositionOpen, st(pay.Cancel), pay.ReceivedNew},
		{"a payment expired, then marked", pay.DispositionPaidElsewhere, st(pay.Expired), pay.ReceivedPaid},
		// Paid once is paid: a later payment cancelled does not offer it for paying again.
		{"transferred, then another cancelled", pay.DispositionOpen, st(pay.TransferCompleted, pay.Cancel), pay.ReceivedPaid},
		{"cancelled, then another in screening", pay.DispositionOpen, st(pay.Cancel, pay.InProgress), pay.ReceivedScheduled},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, pay.ReceivedStateOf(tc.d, tc.payments), tc.name)
	}
	for _, s := range pay.ReceivedStates {
		assert.True(t, s.Valid())
		assert.NotEqual(t, "不明", s.Label(), s)
	}
	assert.False(t, pay.ReceivedState("deleted").Valid())
}

func TestCheckDisposition(t *testing.T) {
	long := strings.Repeat("あ", pay.MaxDispositionReason+1)
	tests := []struct {
		name      string
		d         pay.Disposition
		reason    string
		byPayment bool
		want      string // the reason kept
		field     string // the field with an error, "" for none
	}{
		{"paid elsewhere without a reason", pay.DispositionPaidElsewhere, "", false, "", ""},
		{"paid elsewhere with one, trimmed", pay.DispositionPaidElsewhere, " 現金で支払済 ", false, "現金で支払済", ""},
		{"not to pay needs a reason", pay.DispositionNotToPay, "  ", false, "", "reason"},
		{"not to pay with a reason", pay.DispositionNotToPay, "二重に届いた請求書", false, "二重に届いた請求書", ""},
		{"open undoes a mark", pay.DispositionOpen, "", false, "", ""},
		{"an unknown disposition", pay.Disposition("deleted"), "", false, "", "disposition"},
		{"a reason too long", pay.DispositionNotToPay, long, false, "", "reason"},
		{"being paid here: no mark", pay.DispositionPaidElsewhere, "", true, "", "disposition"},
		{"paid here: not even open", pay.DispositionOpen, "", true, "", "disposition"},
	}
	for _, tc := range tests {
		got, errs := pay.CheckDisposition(tc.d, tc.reason, tc.byPayment)
		if tc.field == "" {
			assert.Empty(t, errs, tc.name)
			assert.Equal(t, tc.want, got, tc.name)
		} else {
			assert.NotEmpty(t, errs.For(tc.field), tc.name)
		}
	}
}

func TestRetainUntil(t *testing.T) {
	tokyo := pay.Tokyo()
	tests := []struct {
		name     string
		received time.Time
		want     string
	}{
		{"mid-month", time.Date(2026, 11, 25, 10, 0, 0, 0, tokyo), "2035-02-28"},
		{"the year's last day", time.Date(2026, 12, 31, 23, 0, 0, 0, tokyo), "2035-03-31"},
		// 2026-03-31 15:30 UTC is already April 1st in Japan: Japan's date counts.
		{"a UTC evening", time.Date(2026, 3, 31, 15, 30, 0, 0, time.UTC), "2034-07-31"},
		{"a leap February ahead", time.Date(2027, 11, 1, 9, 0, 0, 0, tokyo), "2036-02-29"},
	}
	for _, tc := range tests {
		got := pay.RetainUntil(tc.received)
		assert.Equal(t, tc.want, got.Format(time.DateOnly), tc.name)
		// At least seven years after the end of any fiscal year it falls in and its
		// filing deadline: never sooner than seven years and three months on.
		assert.False(t, got.Before(tc.received.AddDate(7, 3, 0)), tc.name)
	}
}
