package pay

import (
	"fmt"
	"time"

	"cardpay/calendar"
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
	day := calendar.DateOf(local).Midnight()
	if !calendar.IsBankHoliday(day) && local.Hour() >= TransferCutoffHour {
		day = calendar.DateOf(day).AddDays(1).Midnight()
	}
	return calendar.AddBankDays(day, 0)
}

// EarliestTransferDate is the first day the supplier can be paid for a payment submitted
// at t: a Monday 14:59 submission gives Thursday; 15:00 gives Friday; a Saturday
// submission counts from Monday.
func EarliestTransferDate(t time.Time) time.Time {
	return calendar.AddBankDays(receiptDay(t), TransferLeadDays)
}

// LatestTransferDate is the last day the buyer may choose for a submission at t.
func LatestTransferDate(t time.Time) time.Time {
	return calendar.DateOf(t).AddDays(MaxTransferDays).Midnight()
}

// SubmitDeadline is the last moment to submit a payment for the supplier to be paid on
// day: 15:00 Japan time TransferLeadDays bank business days before it.
func SubmitDeadline(day time.Time) time.Time {
	c := calendar.DateOf(day)
	for n := TransferLeadDays; n > 0; {
		c = c.AddDays(-1)
		if !calendar.IsBankHoliday(c.Midnight()) {
			n--
		}
	}
	return c.Midnight().Add(TransferCutoffHour * time.Hour)
}

// TransferDateMessage says what is wrong with day as the transfer date of a payment
// submitted at now whose invoice is due on due (nil: no due date), or "".
func TransferDateMessage(day, now time.Time, due *time.Time) string {
	earliest := EarliestTransferDate(now)
	if due != nil && calendar.DateOf(*due).Midnight().Before(earliest) {
		return DueDateUnmetMessage(*due, now)
	}
	switch d := calendar.DateOf(day).Midnight(); {
	case d.Before(earliest):
		return fmt.Sprintf("振込日は%s以降の日付を選んでください（審査に%d営業日かかるため）", JapaneseDate(earliest), TransferLeadDays)
	case calendar.IsBankHoliday(d):
		return fmt.Sprintf("%sは金融機関の休業日（%s）のため振込できません。別の日付を選んでください", JapaneseDate(d), calendar.HolidayName(d))
	case due != nil && d.After(calendar.DateOf(*due).Midnight()):
		return fmt.Sprintf("振込日は支払期日（%s）以前の日付を選んでください", JapaneseDate(*due))
	case d.After(LatestTransferDate(now)):
		return fmt.Sprintf("振込日は%s以前の日付を選んでください（申請日から%d日以内）", JapaneseDate(LatestTransferDate(now)), MaxTransferDays)
	}
	return ""
}

// DueDateUnmet says whether a payment submitted at now can no longer reach the supplier
// by due.
func DueDateUnmet(due, now time.Time) bool {
	return calendar.DateOf(due).Midnight().Before(EarliestTransferDate(now))
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
	d := calendar.DateOf(*due)
	if latest := calendar.DateOf(LatestTransferDate(now)); latest.Midnight().Before(d.Midnight()) {
		d = latest
	}
	for d.Midnight().After(earliest) && calendar.IsBankHoliday(d.Midnight()) {
		d = d.AddDays(-1)
	}
	if d.Midnight().Before(earliest) {
		return earliest
	}
	return d.Midnight()
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
	d := calendar.DateOf(captured)
	closing := dayIn(d.Year, d.Month, c.ClosingDay)
	if d.Midnight().After(closing) {
		closing = dayIn(d.Year, d.Month+1, c.ClosingDay)
	}
	cl := calendar.DateOf(closing)
	return calendar.AddBankDays(dayIn(cl.Year, cl.Month+time.Month(c.MonthsLater), c.PaymentDay), 0)
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
	d := calendar.DateOf(day)
	capture := d.AddDays(-1)
	for calendar.IsBankHoliday(capture.Midnight()) {
		capture = capture.AddDays(-1)
	}
	p := DeadlinePlan{SubmitBy: SubmitDeadline(day), CaptureBy: capture.Midnight(), TransferDate: d.Midnight()}
	if cycle != nil && cycle.Valid() {
		p.ChargeDate = cycle.ChargeDate(p.CaptureBy)
	}
	return p
}
