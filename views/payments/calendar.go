package payments

import (
	"time"

	"cardpay/calendar"
	"cardpay/pay"
)

// CalendarDay is one day of the transfer-date calendar. Only bank business days between
// the earliest transfer date and the latest (the due date, or the 60-day limit) can be
// chosen; the others say why not.
type CalendarDay struct {
	Value      string // 2006-01-02
	Day        int
	Label      string // 12月25日（金）
	Selectable bool
	Checked    bool
	// Note is why the day cannot be chosen: a holiday's name, 審査期間, 支払期日の後.
	Note string
}

// CalendarMonth is one month of the calendar, as weeks from Sunday; a nil day pads.
type CalendarMonth struct {
	Label string
	Weeks [][]*CalendarDay
}

var weekdays = []string{"日", "月", "火", "水", "木", "金", "土"}

// Weekdays are the column headings, Sunday first.
func Weekdays() []string { return weekdays }

// BankCalendar lays out the months from the earliest transfer date of a submission at
// now to the latest allowed, with chosen checked. The pure layout lives here because it
// is the calendar's shape; the rules are pay's.
func BankCalendar(now time.Time, due *time.Time, chosen time.Time) []CalendarMonth {
	tz := pay.Tokyo()
	earliest := pay.EarliestTransferDate(now)
	latest := pay.LatestTransferDate(now)
	if due != nil && due.Before(latest) {
		latest = time.Date(due.Year(), due.Month(), due.Day(), 0, 0, 0, 0, tz)
	}
	today := time.Date(now.In(tz).Year(), now.In(tz).Month(), now.In(tz).Day(), 0, 0, 0, 0, tz)
	chosenISO := pay.ISODate(chosen)
	var months []CalendarMonth
	first := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, tz)
	last := latest
	if last.Before(earliest) {
		last = earliest
	}
	for m := first; !m.After(last); m = m.AddDate(0, 1, 0) {
		cm := CalendarMonth{Label: m.Format("2006年1月")}
		week := make([]*CalendarDay, 7)
		for d := m; d.Month() == m.Month(); d = d.AddDate(0, 0, 1) {
			wd := int(d.Weekday())
			cd := &CalendarDay{Value: pay.ISODate(d), Day: d.Day(), Label: d.Format("1月2日") + "（" + weekdays[wd] + "）"}
			switch name := calendar.HolidayName(d); {
			case d.Before(today):
			case name != "":
				cd.Note = name
			case d.Before(earliest):
				cd.Note = "審査期間"
			case d.After(latest):
				if due != nil && d.After(*due) {
					cd.Note = "支払期日の後"
				}
			default:
				cd.Selectable = true
				cd.Checked = cd.Value == chosenISO
			}
			week[wd] = cd
			if wd == 6 {
				cm.Weeks = append(cm.Weeks, week)
				week = make([]*CalendarDay, 7)
			}
		}
		if week[0] != nil || week[1] != nil || week[2] != nil || week[3] != nil || week[4] != nil || week[5] != nil {
			cm.Weeks = append(cm.Weeks, week)
		}
		months = append(months, cm)
	}
	return months
}
