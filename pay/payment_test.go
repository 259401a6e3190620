package pay_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

func TestNextPayment(t *testing.T) {
	st := func(s pay.ExaminationStatus, ar bool) pay.PaymentState {
		return pay.PaymentState{Status: s, ActionRequired: ar}
	}
	ok := func(s pay.ExaminationStatus, ar bool) *pay.PaymentState { v := st(s, ar); return &v }
	for _, tc := range []struct {
		from pay.PaymentState
		a    pay.PaymentAction
		want *pay.PaymentState // nil: refused
	}{
		{st(0, false), pay.ActSubmit, ok(pay.InProgress, false)},
		{st(pay.InProgress, false), pay.ActCheck, ok(pay.InProgressExaminationChecked, false)},
		{st(pay.InProgress, true), pay.ActCheck, nil},
		{st(pay.InProgressExaminationChecked, false), pay.ActCheck, nil},
		{st(pay.InProgressExaminationChecked, false), pay.ActComplete, ok(pay.InProgressExaminationCompleted, false)},
		{st(pay.InProgress, false), pay.ActComplete, nil},
		{st(pay.InProgressExaminationChecked, true), pay.ActComplete, nil},
		// 振込完了 only from a file the bank has (TestNextPaymentTransferStage).
		{st(pay.InProgressExaminationCompleted, false), pay.ActTransfer, nil},
		{st(pay.InProgressExaminationChecked, false), pay.ActTransfer, nil},
		{st(pay.InProgressExaminationCompleted, true), pay.ActTransfer, nil},
		{st(pay.InProgress, false), pay.ActSendBack, ok(pay.InProgress, true)},
		{st(pay.InProgressExaminationChecked, false), pay.ActSendBack, ok(pay.InProgressExaminationChecked, true)},
		{st(pay.InProgressExaminationCompleted, false), pay.ActSendBack, ok(pay.InProgressExaminationCompleted, true)},
		{st(pay.InProgress, true), pay.ActSendBack, nil},
		{st(pay.TransferCompleted, false), pay.ActSendBack, nil},
		{st(pay.InProgress, true), pay.ActResubmit, ok(pay.InProgress, false)},
		{st(pay.InProgressExaminationCompleted, true), pay.ActResubmit, ok(pay.InProgress, false)},
		{st(pay.InProgress, false), pay.ActResubmit, nil},
		{st(pay.InProgress, false), pay.ActCancel, ok(pay.Cancel, false)},
		{st(pay.InProgress, true), pay.ActCancel, ok(pay.Cancel, false)},
		{st(pay.InProgressExaminationCompleted, false), pay.ActCancel, ok(pay.Cancel, false)},
		{st(pay.TransferCompleted, false), pay.ActCancel, nil},
		{st(pay.Cancel, false), pay.ActCancel, nil},
		{st(pay.Expired, false), pay.ActCancel, nil},
		// A request not paid yet: the requester cancels it, the deadline expires it.
		{st(pay.WaitingForPayment, false), pay.ActCancel, ok(pay.Cancel, false)},
		{st(pay.BuyerNotRegistered, false), pay.ActCancel, ok(pay.Cancel, false)},
		{st(pay.InProgressExaminationChecked, false), pay.ActExpire, ok(pay.Expired, false)},
		{st(pay.WaitingForPayment, false), pay.ActExpire, ok(pay.Expired, false)},
		{st(pay.BuyerNotRegistered, false), pay.ActExpire, ok(pay.Expired, false)},
		{st(pay.TransferCompleted, false), pay.ActExpire, nil},
		{st(pay.Expired, false), pay.ActExpire, nil},
		{st(0, false), pay.ActRequest, ok(pay.BuyerNotRegistered, false)},
		{st(pay.BuyerNotRegistered, false), pay.ActLink, ok(pay.WaitingForPayment, false)},
		{st(pay.WaitingForPayment, false), pay.ActLink, nil},
		{st(pay.Cancel, false), pay.ActLink, nil},
		{st(pay.InProgress, false), "unknown", nil},
	} {
		got, err := pay.NextPayment(tc.from, tc.a)
		if tc.want == nil {
			assert.True(t, errors.Is(err, pay.ErrTransition), "%s on %+v must be refused", tc.a, tc.from)
			assert.Equal(t, tc.from, got, "a refused change leaves the state")
			continue
		}
		require.NoError(t, err, "%s on %+v", tc.a, tc.from)
		assert.Equal(t, *tc.want, got, "%s on %+v", tc.a, tc.from)
	}
	assert.True(t, pay.BuyerCanCancel(st(pay.InProgressExaminationCompleted, false)))
	assert.False(t, pay.BuyerCanCancel(st(pay.TransferCompleted, false)))
	assert.False(t, pay.BuyerCanCancel(st(pay.WaitingForPayment, false)), "a request not paid is the requester's to cancel")
	assert.True(t, pay.BuyerCanResubmit(st(pay.InProgressExaminationChecked, true)))
	assert.False(t, pay.BuyerCanResubmit(st(pay.InProgressExaminationChecked, false)))
	assert.Equal(t, "差し戻し", pay.ActSendBack.Label())
	assert.True(t, pay.CardAuthorized.Submitted())
	assert.False(t, pay.CardPending.Submitted())
	assert.False(t, pay.CardDeclined.Submitted())
}

func TestFee(t *testing.T) {
	for _, tc := range []struct {
		amount int64
		bps    int
		want   int64
	}{
		{100_000, 300, 3_000},
		{1_000, 300, 30},
		{1_033, 300, 30},      // 30.99 rounds down
		{1_066, 300, 31},      // 31.98 rounds down
		{123_456, 300, 3_703}, // 3703.68
		{10_000_000, 300, 300_000},
		{99_999, 275, 2_749}, // 2749.97
		{100_000, 0, 0},
		{100_000, -10, 0},
		{0, 300, 0},
	} {
		assert.Equal(t, tc.want, pay.Fee(tc.amount, tc.bps), "%d at %d bp", tc.amount, tc.bps)
	}
	assert.Equal(t, "3.0%", pay.FeeRateLabel(300))
	assert.Equal(t, "2.75%", pay.FeeRateLabel(275))
	assert.Equal(t, "0.5%", pay.FeeRateLabel(50))
	p := &pay.Promotion{DiscountBasisPoints: 100}
	assert.Equal(t, 200, pay.DiscountedRate(300, p))
	assert.Equal(t, 0, pay.DiscountedRate(300, &pay.Promotion{DiscountBasisPoints: 500}))
	assert.Equal(t, 300, pay.DiscountedRate(300, nil))
}

func TestPromotionMessage(t *testing.T) {
	p := pay.Promotion{Code: "WELCOME", DiscountBasisPoints: 100,
		ValidFrom: time.Date(2026, 11, 1, 0, 0, 0, 0, pay.Tokyo()), ValidTo: time.Date(2026, 12, 1, 0, 0, 0, 0, pay.Tokyo())}
	assert.Equal(t, "", pay.PromotionMessage(p, time.Date(2026, 11, 1, 0, 0, 0, 0, pay.Tokyo()), false))
	assert.Equal(t, pay.MsgPromotionPeriod, pay.PromotionMessage(p, time.Date(2026, 10, 31, 23, 59, 0, 0, pay.Tokyo()), false))
	assert.Equal(t, pay.MsgPromotionPeriod, pay.PromotionMessage(p, time.Date(2026, 12, 1, 0, 0, 0, 0, pay.Tokyo()), false))
	assert.Equal(t, pay.MsgPromotionUsed, pay.PromotionMessage(p, time.Date(2026, 11, 20, 0, 0, 0, 0, pay.Tokyo()), true))
}

// jst is midnight of a date in Japan time.
func jst(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, pay.Tokyo())
}

func at(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, pay.Tokyo())
}

func TestEarliestTransferDate(t *testing.T) {
	for _, tc := range []struct {
		name string
		now  time.Time
		want time.Time
	}{
		{"Monday before the cut-off", at(2026, 11, 9, 14, 59), jst(2026, 11, 12)},
		{"Monday at the cut-off", at(2026, 11, 9, 15, 0), jst(2026, 11, 13)},
		{"Wednesday morning: the weekend is skipped", at(2026, 11, 11, 9, 0), jst(2026, 11, 16)},
		{"Friday after the cut-off counts from Monday", at(2026, 11, 13, 16, 0), jst(2026, 11, 19)},
		{"Saturday counts from Monday", at(2026, 11, 14, 10, 0), jst(2026, 11, 19)},
		{"Sunday counts from Monday", at(2026, 11, 15, 23, 0), jst(2026, 11, 19)},
		{"勤労感謝の日 (Mon 11/23) is skipped", at(2026, 11, 20, 10, 0), jst(2026, 11, 26)},
		{"the year end: 12/31–1/3 are closed", at(2026, 12, 28, 10, 0), jst(2027, 1, 4)},
		{"after the cut-off on 12/30", at(2026, 12, 30, 15, 30), jst(2027, 1, 7)},
		{"a UTC clock just before 15:00 JST", time.Date(2026, 11, 9, 5, 59, 0, 0, time.UTC), jst(2026, 11, 12)},
		{"Golden Week 2026", at(2026, 4, 30, 10, 0), jst(2026, 5, 8)},
	} {
		assert.Equal(t, tc.want, pay.EarliestTransferDate(tc.now), tc.name)
	}
}

func TestSubmitDeadline(t *testing.T) {
	assert.Equal(t, at(2026, 11, 9, 15, 0), pay.SubmitDeadline(jst(2026, 11, 12)))
	assert.Equal(t, at(2026, 11, 20, 15, 0), pay.SubmitDeadline(jst(2026, 11, 26)), "勤労感謝の日 and the weekend are not counted")
	assert.Equal(t, at(2026, 12, 30, 15, 0), pay.SubmitDeadline(jst(2027, 1, 6)), "12/31–1/3 are not counted")
	// The deadline and the earliest date agree: submitting by the deadline reaches day.
	for _, day := range []time.Time{jst(2026, 11, 12), jst(2026, 11, 26), jst(2027, 1, 6), jst(2026, 5, 8)} {
		dl := pay.SubmitDeadline(day)
		assert.Equal(t, day, pay.EarliestTransferDate(dl.Add(-time.Minute)), "a minute before the deadline of %s", day)
		assert.True(t, pay.EarliestTransferDate(dl).After(day), "at the deadline of %s it is too late", day)
	}
}

func TestTransferDateMessage(t *testing.T) {
	now := at(2026, 11, 24, 10, 0) // Tuesday; earliest is Friday 11/27
	due := jst(2026, 12, 25)
	for _, tc := range []struct {
		name string
		day  time.Time
		due  *time.Time
		want string
	}{
		{"the earliest day", jst(2026, 11, 27), &due, ""},
		{"the due date", jst(2026, 12, 25), &due, ""},
		{"too early", jst(2026, 11, 26), &due, "振込日は2026年11月27日以降の日付を選んでください（審査に3営業日かかるため）"},
		{"a Saturday", jst(2026, 11, 28), &due, "2026年11月28日は金融機関の休業日（土曜日）のため振込できません。別の日付を選んでください"},
		{"after the due date", jst(2026, 12, 28), &due, "振込日は支払期日（2026年12月25日）以前の日付を選んでください"},
		{"year end", jst(2026, 12, 31), nil, "2026年12月31日は金融機関の休業日（年末休業）のため振込できません。別の日付を選んでください"},
		{"too late", jst(2027, 1, 25), nil, "振込日は2027年1月23日以前の日付を選んでください（申請日から60日以内）"},
	} {
		assert.Equal(t, tc.want, pay.TransferDateMessage(tc.day, now, tc.due), tc.name)
	}
	past := jst(2026, 11, 26)
	assert.Equal(t, "支払期日（2026年11月26日）までに振込できません。最短の振込日は2026年11月27日です。取引先と支払期日をご相談のうえ、変更後の支払期日を入力してください",
		pay.TransferDateMessage(jst(2026, 11, 27), now, &past))
	assert.True(t, pay.DueDateUnmet(past, now))
	assert.False(t, pay.DueDateUnmet(jst(2026, 11, 27), now))
}

func TestDefaultTransferDate(t *testing.T) {
	now := at(2026, 11, 24, 10, 0)
	assert.Equal(t, jst(2026, 11, 27), pay.DefaultTransferDate(now, nil))
	due := jst(2026, 12, 27) // a Sunday
	assert.Equal(t, jst(2026, 12, 25), pay.DefaultTransferDate(now, &due), "the business day before a Sunday due date")
	early := jst(2026, 11, 25)
	assert.Equal(t, jst(2026, 11, 27), pay.DefaultTransferDate(now, &early))
	far := jst(2027, 6, 1)
	assert.Equal(t, jst(2027, 1, 22), pay.DefaultTransferDate(now, &far), "no later than the 60-day limit, on a business day")
}

func TestCardCycle(t *testing.T) {
	c := pay.CardCycle{ClosingDay: 15, PaymentDay: 10, MonthsLater: 1}
	assert.Equal(t, "15日締め・翌月10日払い", c.Label())
	assert.Equal(t, jst(2026, 12, 10), c.ChargeDate(jst(2026, 11, 15)), "captured on the closing day")
	assert.Equal(t, jst(2027, 1, 12), c.ChargeDate(jst(2026, 11, 16)), "the next statement; 1/10 is a Sunday, 1/11 成人の日")
	end := pay.CardCycle{ClosingDay: 31, PaymentDay: 27, MonthsLater: 2}
	assert.Equal(t, "末日締め・翌々月27日払い", end.Label())
	assert.Equal(t, jst(2027, 4, 27), end.ChargeDate(jst(2027, 2, 28)), "末日 is 2/28 in 2027")
	assert.Equal(t, jst(2027, 1, 27), end.ChargeDate(jst(2026, 11, 30)))
	assert.False(t, pay.CardCycle{}.Valid())
	assert.False(t, pay.CardCycle{ClosingDay: 15, PaymentDay: 10, MonthsLater: 3}.Valid())

	p := pay.PlanFor(jst(2026, 11, 30), &c) // Monday
	assert.Equal(t, at(2026, 11, 25, 15, 0), p.SubmitBy)
	assert.Equal(t, jst(2026, 11, 27), p.CaptureBy, "the business day before")
	assert.Equal(t, jst(2027, 1, 12), p.ChargeDate)
	assert.True(t, pay.PlanFor(jst(2026, 11, 30), nil).ChargeDate.IsZero())
}

func TestParseYenAndDate(t *testing.T) {
	for in, want := range map[string]int64{"1234": 1234, "1,234,567": 1234567, "¥1,234": 1234, "１２３４円": 1234, " 5000 ": 5000, "￥９，８００": 9800} {
		got, ok := pay.ParseYen(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "12.5", "-100", "abc", "1e6", "99999999999999999999"} {
		_, ok := pay.ParseYen(in)
		assert.False(t, ok, in)
	}
	for in, want := range map[string]time.Time{"2026-12-25": jst(2026, 12, 25), "2026/1/5": jst(2026, 1, 5), "2026年12月5日": jst(2026, 12, 5), "２０２６／１２／２５": jst(2026, 12, 25)} {
		got, ok := pay.ParseDate(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "2026-02-30", "2026-13-01", "26-12-25", "2026-12", "tomorrow", "2026-12-25-1"} {
		_, ok := pay.ParseDate(in)
		assert.False(t, ok, in)
	}
}

func TestInvoiceInputCheck(t *testing.T) {
	now := at(2026, 11, 24, 10, 0)
	good := pay.InvoiceInput{Amount: "110,000", InvoiceNumber: " INV-2026-001 ", InvoiceDate: "2026/11/20",
		DueDate: "2026-12-25", RegistrationNumber: "T1180301018771", Memo: "11月分", TransferDate: "2026年12月25日"}
	c, errs := good.Check(pay.DefaultLimits, now)
	require.Empty(t, errs)
	assert.Equal(t, int64(110000), c.Amount)
	assert.Equal(t, "INV-2026-001", c.InvoiceNumber)
	assert.Equal(t, jst(2026, 12, 25), c.TransferDate)
	assert.Empty(t, c.Warnings)
	assert.Equal(t, "¥110,000", c.Fields()[0].Value)

	for _, tc := range []struct {
		name  string
		edit  func(*pay.InvoiceInput)
		field string
		msg   string
	}{
		{"no amount", func(in *pay.InvoiceInput) { in.Amount = "" }, "amount", "請求金額を入力してください"},
		{"a decimal amount", func(in *pay.InvoiceInput) { in.Amount = "1000.5" }, "amount", "請求金額は半角数字で、円単位で入力してください（例：123456）"},
		{"under the limit", func(in *pay.InvoiceInput) { in.Amount = "999" }, "amount", "請求金額は¥1,000から¥10,000,000までの範囲で入力してください"},
		{"over the limit", func(in *pay.InvoiceInput) { in.Amount = "10000001" }, "amount", "請求金額は¥1,000から¥10,000,000までの範囲で入力してください"},
		{"a long invoice number", func(in *pay.InvoiceInput) { in.InvoiceNumber = string(make([]rune, 51)) + "あ" }, "invoice_number", "請求書番号は50文字以内で入力してください"},
		{"an invoice date in the future", func(in *pay.InvoiceInput) { in.InvoiceDate = "2026-11-25" }, "invoice_date", "請求日に未来の日付は入力できません"},
		{"a bad invoice date", func(in *pay.InvoiceInput) { in.InvoiceDate = "2026-11-31" }, "invoice_date", "請求日を正しい日付で入力してください（例：2026-12-25）"},
		{"no due date", func(in *pay.InvoiceInput) { in.DueDate = "" }, "due_date", "支払期日を入力してください"},
		{"due before invoice", func(in *pay.InvoiceInput) { in.DueDate = "2026-11-19" }, "due_date", "支払期日は請求日以降の日付を入力してください"},
		{"due too soon", func(in *pay.InvoiceInput) { in.DueDate = "2026-11-26" }, "due_date", pay.DueDateUnmetMessage(jst(2026, 11, 26), now)},
		{"a malformed registration number", func(in *pay.InvoiceInput) { in.RegistrationNumber = "T12345" }, "registration_number", "登録番号は「T」に続く13桁の数字で入力してください（例：T1234567890123）"},
		{"a long memo", func(in *pay.InvoiceInput) { in.Memo = string(make([]rune, 201)) }, "memo", "メモは200文字以内で入力してください"},
		{"no transfer date", func(in *pay.InvoiceInput) { in.TransferDate = "" }, "transfer_date", "振込日を選んでください"},
		{"a holiday", func(in *pay.InvoiceInput) { in.TransferDate = "2026-12-26" }, "transfer_date", "2026年12月26日は金融機関の休業日（土曜日）のため振込できません。別の日付を選んでください"},
	} {
		in := good
		tc.edit(&in)
		_, errs := in.Check(pay.DefaultLimits, now)
		assert.Equal(t, tc.msg, errs.For(tc.field), tc.name)
	}
	// A registration number given as 13 digits gets its T; a wrong check digit is a
	// warning, not a refusal.
	in := good
	in.RegistrationNumber = "１１８０３０１０１８７７２"
	c, errs = in.Check(pay.DefaultLimits, now)
	require.Empty(t, errs)
	assert.Equal(t, "T1180301018772", c.RegistrationNumber)
	assert.Contains(t, c.Warnings.For("registration_number"), "チェックディジットが一致しません")
	// Configured limits apply.
	in = good
	in.Amount = "200000"
	_, errs = in.Check(pay.Limits{MinAmount: 1000, MaxAmount: 100000, FeeBasisPoints: 300}, now)
	assert.Equal(t, "請求金額は¥1,000から¥100,000までの範囲で入力してください", errs.For("amount"))
}

func TestPaymentCountsOf(t *testing.T) {
	c := pay.PaymentCounts{ActionRequired: 1, Review: 2, Reserved: 3, History: 4, Draft: 5, Waiting: 6}
	for b, want := range map[pay.PaymentBucket]int{pay.BucketReviewAll: 3, pay.BucketReview: 2, pay.BucketActionRequired: 1,
		pay.BucketReserved: 3, pay.BucketHistory: 4, pay.BucketWaiting: 6, "unknown": 0} {
		assert.Equal(t, want, c.Of(b), b)
	}
	assert.Equal(t, "審査中", pay.BucketReviewAll.Label())
}

// Once a payment is in a transfer file, no buyer or screening action may change it: the
// only ways on are the bank's result (done, failed) and, for a failed transfer, the
// operators' retry or return (組戻し).
func TestNextPaymentTransferStage(t *testing.T) {
	completed := func(tr pay.TransferStage, card pay.CardStatus) pay.PaymentState {
		return pay.PaymentState{Status: pay.InProgressExaminationCompleted, Transfer: tr, Card: card, EverFiled: tr != pay.TransferNone}
	}
	with := func(s pay.PaymentState, f func(*pay.PaymentState)) *pay.PaymentState { f(&s); return &s }
	captured := completed(pay.TransferNone, pay.CardCaptured)
	filed := completed(pay.TransferFiled, pay.CardCaptured)
	sent := completed(pay.TransferSent, pay.CardCaptured)
	failed := completed(pay.TransferFailed, pay.CardCaptured)
	retried := *with(captured, func(s *pay.PaymentState) { s.EverFiled = true })
	for _, tc := range []struct {
		from pay.PaymentState
		a    pay.PaymentAction
		want *pay.PaymentState
	}{
		{captured, pay.ActFile, &filed},
		{completed(pay.TransferNone, pay.CardAuthorized), pay.ActFile, nil}, // no capture, no transfer
		{completed(pay.TransferNone, pay.CardRefunded), pay.ActFile, nil},
		{*with(captured, func(s *pay.PaymentState) { s.ActionRequired = true }), pay.ActFile, nil},
		{pay.PaymentState{Status: pay.InProgressExaminationChecked, Card: pay.CardCaptured}, pay.ActFile, nil},
		{filed, pay.ActFile, nil},
		{filed, pay.ActSend, &sent},
		{captured, pay.ActSend, nil},
		{sent, pay.ActSend, nil},
		{sent, pay.ActTransfer, with(sent, func(s *pay.PaymentState) { s.Status, s.Transfer = pay.TransferCompleted, pay.TransferDone })},
		{filed, pay.ActTransfer, nil}, // the bank does not have the file yet
		{failed, pay.ActTransfer, nil},
		{sent, pay.ActTransferFail, &failed},
		{filed, pay.ActTransferFail, nil},
		// A retried transfer waits for a later file, still in the operators' hands.
		{failed, pay.ActRetry, &retried},
		{retried, pay.ActFile, &filed},
		{retried, pay.ActReturn, with(retried, func(s *pay.PaymentState) { s.Status, s.Transfer = pay.Cancel, pay.TransferReturned })},
		{sent, pay.ActRetry, nil},
		{failed, pay.ActReturn, with(failed, func(s *pay.PaymentState) { s.Status, s.Transfer = pay.Cancel, pay.TransferReturned })},
		{sent, pay.ActReturn, nil},
		{captured, pay.ActReturn, nil},
	} {
		got, err := pay.NextPayment(tc.from, tc.a)
		if tc.want == nil {
			assert.ErrorIs(t, err, pay.ErrTransition, "%s on %+v must be refused", tc.a, tc.from)
			continue
		}
		require.NoError(t, err, "%s on %+v", tc.a, tc.from)
		assert.Equal(t, *tc.want, got, "%s on %+v", tc.a, tc.from)
	}
	// Every buyer and screening action is refused at every stage in the bank's hands, and
	// once a retry of a failed transfer is arranged.
	for _, stage := range []pay.TransferStage{pay.TransferFiled, pay.TransferSent, pay.TransferFailed, pay.TransferDone, pay.TransferReturned, pay.TransferNone} {
		for _, status := range []pay.ExaminationStatus{pay.InProgress, pay.InProgressExaminationChecked, pay.InProgressExaminationCompleted, pay.TransferCompleted} {
			for _, ar := range []bool{false, true} {
				from := pay.PaymentState{Status: status, ActionRequired: ar, Transfer: stage, Card: pay.CardCaptured, EverFiled: true}
				for _, a := range []pay.PaymentAction{pay.ActCheck, pay.ActComplete, pay.ActSendBack, pay.ActResubmit, pay.ActCancel, pay.ActExpire} {
					_, err := pay.NextPayment(from, a)
					assert.ErrorIs(t, err, pay.ErrTransition, "%s on %+v", a, from)
				}
				assert.False(t, pay.BuyerCanCancel(from), "%+v", from)
				assert.False(t, pay.BuyerCanResubmit(from), "%+v", from)
			}
		}
	}
	assert.False(t, pay.ActFile.ForBuyer())
	assert.True(t, pay.ActTransfer.ForBuyer())
	assert.True(t, pay.ActReturn.ForBuyer())
}

func TestNextCard(t *testing.T) {
	for _, tc := range []struct {
		from, to pay.CardStatus
		change   bool
		refused  bool
	}{
		{pay.CardPending, pay.CardAuthorized, true, false},
		{pay.CardAuthorized, pay.CardCaptured, true, false},
		{pay.CardAuthorized, pay.CardVoided, true, false},
		{pay.CardAuthorized, pay.CardRefunded, true, false}, // a capture never recorded, refunded
		{pay.CardCaptured, pay.CardRefunded, true, false},
		{pay.CardCaptured, pay.CardCaptured, false, false},
		{pay.CardRefunded, pay.CardCaptured, false, true}, // a capture answered after the refund
		{pay.CardVoided, pay.CardCaptured, false, true},
		{pay.CardCaptured, pay.CardVoided, false, true},
		{pay.CardRefunded, pay.CardAuthorized, false, true},
		{pay.CardDeclined, pay.CardAuthorized, false, true},
	} {
		change, err := pay.NextCard(tc.from, tc.to)
		assert.Equal(t, tc.change, change, "%s → %s", tc.from, tc.to)
		if tc.refused {
			assert.ErrorIs(t, err, pay.ErrCardTransition, "%s → %s", tc.from, tc.to)
		} else {
			assert.NoError(t, err, "%s → %s", tc.from, tc.to)
		}
	}
}
