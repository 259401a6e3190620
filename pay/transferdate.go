package pay

import (
	"fmt"
	"time"
)

// Transfer dates (DESIGN.md §4). The buyer picks the day the supplier is paid. Screening
// needs TransferLeadDays bank business days: a payment submitted by TransferCutoffHour
// (15:00 Japan time) on a bank business day counts from that day, later or on a day off
// from the next business day. The date is always a bank business day, never after the
// invoice's due date, and at most MaxTransferDays after submission, while the card's
// authorisation still holds.
const (
	TransferLeadDays   = 3
	TransferCutoffHour = 15
	MaxTransferDays    = 60
)

// receiptDay is the bank business day a submission at t counts from.
func receiptDay(t time.Time) time.Time {
	local := t.In(tokyo)
	day := dateOf(local).midnight()
	if !IsBankHoliday(day) && local.Hour() >= TransferCutoffHour {
		day = dateOf(day).addDays(1).midnight()
	}
	return AddBankDays(day, 0)
}

// EarliestTransferDate is the first day the supplier can be paid for a payment submitted
// at t: a Monday 14:59 submission gives Thursday; 15:00 gives Friday; a Saturday
// submission counts from Monday.
func EarliestTransferDate(t time.Time) time.Time {
	return AddBankDays(receiptDay(t), TransferLeadDays)
}

// LatestTransferDate is the last day the buyer may choose for a submission at t.
func LatestTransferDate(t time.Time) time.Time {
	return dateOf(t).addDays(MaxTransferDays).midnight()
}

// SubmitDeadline is the last moment to submit a payment for the supplier to be paid on
// day: 15:00 Japan time TransferLeadDays bank business days before it.
func SubmitDeadline(day time.Time) time.Time {
	c := dateOf(day)
	for n := TransferLeadDays; n > 0; {
		c = c.addDays(-1)
		if !IsBankHoliday(c.midnight()) {
			n--
		}
	}
	return c.midnight().Add(TransferCutoffHour * time.Hour)
}

// TransferDateMessage says what is wrong with day as the transfer date of a payment
// submitted at now whose invoice is due on due (nil: no due date), or "".
func TransferDateMessage(day, now time.Time, due *time.Time) string {
	earliest := EarliestTransferDate(now)
	if due != nil && dateOf(*due).midnight().Before(earliest) {
		return DueDateUnmetMessage(*due, now)
	}
	switch d := dateOf(day).midnight(); {
	case d.Before(earliest):
		return fmt.Sprintf("振込日は%s以降の日付を選んでください（審査に%d営業日かかるため）", JapaneseDate(earliest), TransferLeadDays)
	case IsBankHoliday(d):
		return fmt.Sprintf("%sは金融機関の休業日（%s）のため振込できません。別の日付を選んでください", JapaneseDate(d), HolidayName(d))
	case due != nil && d.After(dateOf(*due).midnight()):
		return fmt.Sprintf("振込日は支払期日（%s）以前の日付を選んでください", JapaneseDate(*due))
	case d.After(LatestTransferDate(now)):
		return fmt.Sprintf("振込日は%s以前の日付を選んでください（申請日から%d日以内）", JapaneseDate(LatestTransferDate(now)), MaxTransferDays)
	}
	return ""
}

// DueDateUnmet says whether a payment submitted at now can no longer reach the supplier
// by due.
func DueDateUnmet(due, now time.Time) bool {
	return dateOf(due).midnight().Before(EarliestTransferDate(now))
}

// DueDateUnmetMessage explains that the due date cannot be met, with the earliest date.
func DueDateUnmetMessage(due, now time.Time) string {
	return fmt.Sprintf("支払期日（%s）までに振込できません。最短の振込日は%sです。取引先と支払期日をご相談のうえ、変更後の支払期日を入力してください",
		JapaneseDate(due), JapaneseDate(EarliestTransferDate(now)))
}

// DefaultTransferDate proposes a transfer date: the latest bank business day on or before
// the due date, so the buyer keeps the money longest; else the earliest day.
func DefaultTransferDate(now time.Time, due *time.Time) time.Time {
	earliest := EarliestTransferDate(now)
	if due == nil {
		return earliest
	}
	d := dateOf(*due)
	if latest := dateOf(LatestTransferDate(now)); latest.midnight().Before(d.midnight()) {
		d = latest
	}
	for d.midnight().After(earliest) && IsBankHoliday(d.midnight()) {
		d = d.addDays(-1)
	}
	if d.midnight().Before(earliest) {
		return earliest
	}
	return d.midnight()
}

// CardCycle is a card's billing cycle as the buyer gave it in the card settings: the
// statement closes on ClosingDay (31 = month end) and is paid on PaymentDay of the month
// MonthsLater after closing (1: 翌月, 2: 翌々月).
type CardCycle struct {
	ClosingDay, PaymentDay, MonthsLater int
}

// Valid reports whether the cycle's days and months are usable.
func (c CardCycle) Valid() bool {
	return c.ClosingDay >= 1 && c.ClosingDay <= 31 && c.PaymentDay >= 1 && c.PaymentDay <= 31 &&
		c.MonthsLater >= 1 && c.MonthsLater <= 2
}

// Label is "15日締め・翌月10日払い", "末日締め・翌々月27日払い".
func (c CardCycle) Label() string {
	day := func(d int) string {
		if d >= 31 {
			return "末日"
		}
		return fmt.Sprintf("%d日", d)
	}
	month := "翌月"
	if c.MonthsLater == 2 {
		month = "翌々月"
	}
	return day(c.ClosingDay) + "締め・" + month + day(c.PaymentDay) + "払い"
}

// dayIn is day d of the month (clamped to the month's last day).
func dayIn(year int, month time.Month, d int) time.Time {
	last := time.Date(year, month+1, 0, 0, 0, 0, 0, tokyo).Day()
	return time.Date(year, month, min(d, last), 0, 0, 0, 0, tokyo)
}

// ChargeDate is the day the card company debits the buyer for a charge captured on day
// (the card company's own payment day; banks' days off move it to the next business day,
// as card companies do).
func (c CardCycle) ChargeDate(captured time.Time) time.Time {
	d := dateOf(captured)
	closing := dayIn(d.year, d.month, c.ClosingDay)
	if d.midnight().After(closing) {
		closing = dayIn(d.year, d.month+1, c.ClosingDay)
	}
	cl := dateOf(closing)
	return AddBankDays(dayIn(cl.year, cl.month+time.Month(c.MonthsLater), c.PaymentDay), 0)
}

// DeadlinePlan is the timetable the journey shows for a transfer date: submit by, the
// card captured when screening completes (the bank business day before the transfer at
// the latest), the supplier paid, and the buyer's card debited when the cycle is known.
type DeadlinePlan struct {
	SubmitBy     time.Time
	CaptureBy    time.Time
	TransferDate time.Time
	// ChargeDate is zero when the card's cycle is unknown.
	ChargeDate time.Time
}

// PlanFor is the deadline plan for transfer day; cycle may be nil.
func PlanFor(day time.Time, cycle *CardCycle) DeadlinePlan {
	d := dateOf(day)
	capture := d.addDays(-1)
	for IsBankHoliday(capture.midnight()) {
		capture = capture.addDays(-1)
	}
	p := DeadlinePlan{SubmitBy: SubmitDeadline(day), CaptureBy: capture.midnight(), TransferDate: d.midnight()}
	if cycle != nil && cycle.Valid() {
		p.ChargeDate = cycle.ChargeDate(p.CaptureBy)
	}
	return p
}
