package pay_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestPaymentBucketOf(t *testing.T) {
	const (
		payment = pay.InvoicePayment
		buyer   = pay.InvoiceRequestBuyer
		seller  = pay.InvoiceRequestSeller
	)
	tests := []struct {
		name           string
		status         pay.ExaminationStatus
		typ            pay.InvoiceType
		actionRequired bool
		want           pay.PaymentBucket
		wantOK         bool
	}{
		{"request waiting for the buyer's card", pay.WaitingForPayment, buyer, false, pay.BucketWaiting, true},
		{"request to a buyer not yet registered", pay.BuyerNotRegistered, buyer, false, pay.BucketWaiting, true},
		{"waiting ignores the action flag", pay.WaitingForPayment, buyer, true, pay.BucketWaiting, true},
		{"own payment is never waiting", pay.WaitingForPayment, payment, false, "", false},
		{"seller side is never waiting", pay.BuyerNotRegistered, seller, false, "", false},

		{"payment in examination", pay.InProgress, payment, false, pay.BucketReview, true},
		{"payment checked", pay.InProgressExaminationChecked, payment, false, pay.BucketReview, true},
		{"request in examination", pay.InProgress, buyer, false, pay.BucketReview, true},
		{"request checked", pay.InProgressExaminationChecked, buyer, false, pay.BucketReview, true},
		{"seller side not in review", pay.InProgress, seller, false, "", false},

		{"payment sent back in examination", pay.InProgress, payment, true, pay.BucketActionRequired, true},
		{"payment sent back after check", pay.InProgressExaminationChecked, payment, true, pay.BucketActionRequired, true},
		{"payment sent back after completion", pay.InProgressExaminationCompleted, payment, true, pay.BucketActionRequired, true},
		{"request sent back in examination", pay.InProgress, buyer, true, pay.BucketActionRequired, true},
		{"request sent back after check", pay.InProgressExaminationChecked, buyer, true, pay.BucketActionRequired, true},
		{"request sent back after completion", pay.InProgressExaminationCompleted, buyer, true, pay.BucketActionRequired, true},
		{"seller side never action required", pay.InProgress, seller, true, "", false},

		{"payment completed", pay.InProgressExaminationCompleted, payment, false, pay.BucketReserved, true},
		{"request completed", pay.InProgressExaminationCompleted, buyer, false, pay.BucketReserved, true},
		{"seller side not reserved", pay.InProgressExaminationCompleted, seller, false, "", false},

		{"transferred", pay.TransferCompleted, payment, false, pay.BucketHistory, true},
		{"cancelled", pay.Cancel, buyer, false, pay.BucketHistory, true},
		{"expired", pay.Expired, buyer, false, pay.BucketHistory, true},
		{"history ignores the action flag", pay.Cancel, payment, true, pay.BucketHistory, true},
		{"seller side not in payment history", pay.TransferCompleted, seller, false, "", false},

		{"undefined status", pay.ExaminationStatus(0), payment, false, "", false},
		{"undefined type", pay.InProgress, pay.InvoiceType(0), false, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := pay.PaymentBucketOf(tt.status, tt.typ, tt.actionRequired)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Whatever PaymentBucketOf decides, the SQL filters built from
// PaymentBucketStatuses and PaymentBucketTypes must find the same invoice.
func TestPaymentBucketOfAgreesWithFilters(t *testing.T) {
	for s := pay.ExaminationStatus(0); s <= 9; s++ {
		for typ := pay.InvoiceType(0); typ <= 4; typ++ {
			for _, action := range []bool{false, true} {
				b, ok := pay.PaymentBucketOf(s, typ, action)
				if !ok {
					continue
				}
				what := fmt.Sprintf("status %d type %d action %v in %s", s, typ, action, b)
				assert.Contains(t, pay.PaymentBucketStatuses(b), s, what)
				assert.Contains(t, pay.PaymentBucketTypes(b), typ, what)
			}
		}
	}
}

func TestPaymentBucketStatuses(t *testing.T) {
	tests := []struct {
		bucket pay.PaymentBucket
		want   []pay.ExaminationStatus
	}{
		{pay.BucketWaiting, []pay.ExaminationStatus{pay.BuyerNotRegistered, pay.WaitingForPayment}},
		{pay.BucketReview, []pay.ExaminationStatus{pay.InProgress, pay.InProgressExaminationChecked}},
		{pay.BucketActionRequired, []pay.ExaminationStatus{pay.InProgress, pay.InProgressExaminationChecked, pay.InProgressExaminationCompleted}},
		{pay.BucketReserved, []pay.ExaminationStatus{pay.InProgressExaminationCompleted}},
		{pay.BucketHistory, []pay.ExaminationStatus{pay.TransferCompleted, pay.Cancel, pay.Expired}},
		{"draft", nil},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.bucket), func(t *testing.T) {
			assert.Equal(t, tt.want, pay.PaymentBucketStatuses(tt.bucket))
		})
	}
}

func TestPaymentBucketStatusesReturnsACopy(t *testing.T) {
	pay.PaymentBucketStatuses(pay.BucketHistory)[0] = pay.InProgress
	assert.Equal(t, pay.TransferCompleted, pay.PaymentBucketStatuses(pay.BucketHistory)[0])
}

func TestPaymentBucketTypes(t *testing.T) {
	both := []pay.InvoiceType{pay.InvoicePayment, pay.InvoiceRequestBuyer}
	tests := []struct {
		bucket pay.PaymentBucket
		want   []pay.InvoiceType
	}{
		{pay.BucketWaiting, []pay.InvoiceType{pay.InvoiceRequestBuyer}},
		{pay.BucketReview, both},
		{pay.BucketActionRequired, both},
		{pay.BucketReserved, both},
		{pay.BucketHistory, both},
		{"draft", nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.bucket), func(t *testing.T) {
			assert.Equal(t, tt.want, pay.PaymentBucketTypes(tt.bucket))
		})
	}
}

func TestPaymentBucketLabel(t *testing.T) {
	tests := []struct {
		bucket pay.PaymentBucket
		value  string
		label  string
	}{
		{pay.BucketWaiting, "waiting", "支払待ち"},
		{pay.BucketReview, "review", "審査中"},
		{pay.BucketActionRequired, "action_required", "要対応"},
		{pay.BucketReserved, "reserved", "振込予定"},
		{pay.BucketHistory, "history", "履歴"},
		{"draft", "draft", "不明"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			assert.Equal(t, tt.value, string(tt.bucket))
			assert.Equal(t, tt.label, tt.bucket.Label())
		})
	}
}

func TestCollectionBucketOf(t *testing.T) {
	tests := []struct {
		status pay.CollectionStatus
		want   pay.CollectionBucket
		wantOK bool
	}{
		{pay.CollectionNotRegistered, pay.CollectionRequest, true},
		{pay.CollectionWaitingPayment, pay.CollectionRequest, true},
		{pay.CollectionInProgress, pay.CollectionRequest, true},
		{pay.CollectionReviewCompleted, pay.CollectionDecided, true},
		{pay.CollectionDepositCompleted, pay.CollectionHistory, true},
		{pay.CollectionExpired, pay.CollectionHistory, true},
		{pay.CollectionCancel, pay.CollectionHistory, true},
		{pay.CollectionStatus(0), "", false},
		{pay.CollectionStatus(8), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.status.Label(), func(t *testing.T) {
			got, ok := pay.CollectionBucketOf(tt.status)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCollectionBucketLabel(t *testing.T) {
	tests := []struct {
		bucket pay.CollectionBucket
		value  string
		label  string
	}{
		{pay.CollectionRequest, "request", "依頼中"},
		{pay.CollectionDecided, "decided", "支払確定"},
		{pay.CollectionHistory, "history", "履歴"},
		{"draft", "draft", "不明"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			assert.Equal(t, tt.value, string(tt.bucket))
			assert.Equal(t, tt.label, tt.bucket.Label())
		})
	}
}
