package pay_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

func TestCollectionStatusAndBucketOfEveryState(t *testing.T) {
	for _, tc := range []struct {
		status pay.ExaminationStatus
		want   pay.CollectionStatus
		bucket pay.CollectionBucket
	}{
		{pay.BuyerNotRegistered, pay.CollectionNotRegistered, pay.CollectionRequest},
		{pay.WaitingForPayment, pay.CollectionWaitingPayment, pay.CollectionRequest},
		{pay.InProgress, pay.CollectionInProgress, pay.CollectionRequest},
		{pay.InProgressExaminationChecked, pay.CollectionInProgress, pay.CollectionRequest},
		{pay.InProgressExaminationCompleted, pay.CollectionReviewCompleted, pay.CollectionDecided},
		{pay.TransferCompleted, pay.CollectionDepositCompleted, pay.CollectionHistory},
		{pay.Expired, pay.CollectionExpired, pay.CollectionHistory},
		{pay.Cancel, pay.CollectionCancel, pay.CollectionHistory},
	} {
		got := pay.CollectionStatusOf(tc.status)
		assert.Equal(t, tc.want, got, "%s", tc.status.Label())
		b, ok := pay.CollectionBucketOf(got)
		require.True(t, ok)
		assert.Equal(t, tc.bucket, b, "%s", tc.status.Label())
		assert.Contains(t, pay.ExaminationStatusesOf(tc.bucket), tc.status)
	}
	assert.Equal(t, pay.CollectionStatus(0), pay.CollectionStatusOf(0))
	assert.Len(t, pay.ExaminationStatusesOf(pay.CollectionRequest), 4)
	assert.Equal(t, []pay.ExaminationStatus{pay.InProgressExaminationCompleted}, pay.ExaminationStatusesOf(pay.CollectionDecided))
	assert.Len(t, pay.ExaminationStatusesOf(pay.CollectionHistory), 3)
}

func TestRequestCharges(t *testing.T) {
	c, p := pay.RequestCharges(3000, pay.FeeByCustomer)
	assert.Equal(t, []int64{3000, 0}, []int64{c, p})
	c, p = pay.RequestCharges(3000, pay.FeeByRequester)
	assert.Equal(t, []int64{0, 3000}, []int64{c, p})
	assert.True(t, pay.FeeByCustomer.Valid())
	assert.False(t, pay.FeeBearer("someone").Valid())
	assert.Equal(t, "依頼者（自社）が負担", pay.FeeByRequester.Label())
}

func TestRequestInputCheck(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, pay.Tokyo())
	good := pay.RequestInput{
		CustomerName: " 株式会社　お客さま ", CustomerContactName: "山田 太郎", CustomerEmail: "ＫＥＩＲＩ@Example.JP",
		CustomerCorporateNumber: "５８３５６７８２５６２４６", Amount: "¥1,234,567", InvoiceNumber: "INV-1",
		InvoiceDate: "2026/11/20", Deadline: "2026年12月25日", Message: "いつもお世話になっております。",
	}
	c, errs := good.Check(pay.DefaultLimits, now)
	require.Empty(t, errs)
	assert.Equal(t, "株式会社　お客さま", c.CustomerName, "trimmed; the full-width space is the name's own")
	assert.Equal(t, "KEIRI@example.jp", c.CustomerEmail)
	assert.Equal(t, "5835678256246", c.CustomerCorporateNumber)
	assert.Equal(t, int64(1234567), c.Amount)
	assert.Equal(t, "2026-12-25", pay.ISODate(c.Deadline))
	assert.Equal(t, "2026-11-20", pay.ISODate(*c.InvoiceDate))
	assert.Len(t, c.Fields(), 9)

	for _, tc := range []struct {
		name  string
		edit  func(*pay.RequestInput)
		field string
		msg   string
	}{
		{"no customer", func(in *pay.RequestInput) { in.CustomerName = "" }, "customer_name", "請求先の会社名を入力してください"},
		{"no email", func(in *pay.RequestInput) { in.CustomerEmail = "" }, "customer_email", "請求先のメールアドレス"},
		{"bad email", func(in *pay.RequestInput) { in.CustomerEmail = "keiri@" }, "customer_email", "請求先のメールアドレス"},
		{"short number", func(in *pay.RequestInput) { in.CustomerCorporateNumber = "123" }, "customer_corporate_number", "13桁"},
		{"check digit", func(in *pay.RequestInput) { in.CustomerCorporateNumber = "1835678256246" }, "customer_corporate_number", "正しくありません"},
		{"no amount", func(in *pay.RequestInput) { in.Amount = "" }, "amount", "請求金額を入力してください"},
		{"minus", func(in *pay.RequestInput) { in.Amount = "-5000" }, "amount", "半角数字"},
		{"too small", func(in *pay.RequestInput) { in.Amount = "999" }, "amount", "1,000"},
		{"future invoice date", func(in *pay.RequestInput) { in.InvoiceDate = "2026-11-26" }, "invoice_date", "未来"},
		{"no deadline", func(in *pay.RequestInput) { in.Deadline = "" }, "deadline", "お支払い期限を入力してください"},
		{"deadline today", func(in *pay.RequestInput) { in.Deadline = "2026-11-25" }, "deadline", "明日以降"},
		{"deadline far", func(in *pay.RequestInput) { in.Deadline = "2027-06-01" }, "deadline", "180日以内"},
		{"not a date", func(in *pay.RequestInput) { in.Deadline = "2026-02-30" }, "deadline", "正しい日付"},
		{"long message", func(in *pay.RequestInput) { in.Message = strings.Repeat("あ", 501) }, "message", "500文字以内"},
	} {
		in := good
		tc.edit(&in)
		_, errs := in.Check(pay.DefaultLimits, now)
		assert.Contains(t, errs.For(tc.field), tc.msg, tc.name)
		assert.Len(t, errs, 1, tc.name)
	}
}

func TestRequestKeys(t *testing.T) {
	key, hash, err := pay.NewRequestKey()
	require.NoError(t, err)
	assert.Len(t, key, 43)
	assert.True(t, pay.WellFormedRequestKey(key))
	assert.Equal(t, hash, pay.HashRequestKey(key))
	other, _, err := pay.NewRequestKey()
	require.NoError(t, err)
	assert.NotEqual(t, key, other)
	for _, bad := range []string{"", "abc", key + "A", key[:42] + "!", strings.Repeat("あ", 43)} {
		assert.False(t, pay.WellFormedRequestKey(bad), "%q", bad)
	}

	deadline := time.Date(2026, 12, 25, 0, 0, 0, 0, pay.Tokyo())
	lastMinute := time.Date(2026, 12, 25, 23, 59, 0, 0, pay.Tokyo())
	dayAfter := time.Date(2026, 12, 26, 0, 0, 0, 0, pay.Tokyo())
	for _, tc := range []struct {
		status pay.ExaminationStatus
		now    time.Time
		want   pay.RequestKeyStatus
	}{
		{pay.BuyerNotRegistered, lastMinute, pay.KeyValid},
		{pay.WaitingForPayment, lastMinute, pay.KeyValid},
		{pay.BuyerNotRegistered, dayAfter, pay.KeyExpired},
		{pay.WaitingForPayment, dayAfter, pay.KeyExpired},
		{pay.Cancel, lastMinute, pay.KeyExpired},
		{pay.Expired, lastMinute, pay.KeyExpired},
		// Paid: its key is used, not expired, whenever it is looked at.
		{pay.InProgress, dayAfter, pay.KeyValid},
		{pay.TransferCompleted, dayAfter, pay.KeyValid},
	} {
		assert.Equal(t, tc.want, pay.KeyStatusOf(tc.status, deadline, tc.now), "%s at %s", tc.status.Label(), tc.now)
	}
	assert.False(t, pay.RequestDeadlinePassed(deadline, lastMinute))
	assert.True(t, pay.RequestDeadlinePassed(deadline, dayAfter))

	// A DATE column arrives as midnight UTC, and the clock may be any zone: the day that
	// ends is the deadline's date in Japan all the same (15:00 UTC is midnight there).
	asRead := time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		now  time.Time
		want pay.RequestKeyStatus
	}{
		{time.Date(2026, 12, 24, 16, 0, 0, 0, time.UTC), pay.KeyValid},
		{time.Date(2026, 12, 25, 14, 59, 59, 0, time.UTC), pay.KeyValid},
		{time.Date(2026, 12, 25, 15, 0, 0, 0, time.UTC), pay.KeyExpired},
		{time.Date(2026, 12, 25, 10, 0, 0, 0, time.FixedZone("PST", -8*3600)), pay.KeyExpired},
		{time.Date(2027, 1, 5, 0, 0, 0, 0, time.UTC), pay.KeyExpired},
	} {
		assert.Equal(t, tc.want, pay.KeyStatusOf(pay.WaitingForPayment, asRead, tc.now), "at %s", tc.now)
	}
}
