// Package calendar is Japan's calendar as the money rules need it: a date in Japan time
// (Date), the national holidays and the bank business days transfers are made on. It
// imports nothing of the module; pay's transfer dates and the pages' date pickers use it.
package calendar

import (
	"sync"
	"time"

	"github.com/rickar/cal/v2"
	"github.com/rickar/cal/v2/jp"
)

// Japanese banks do not settle transfers on Saturdays, Sundays, national
// holidays (祝日, with 振替休日 and 国民の休日) or on 12/31, 1/2 and 1/3
// (1/1 is a national holiday). Transfer dates must be bank business days
// (DESIGN §4), and every date here is a calendar date in Japan time.
//
// The dates of the national holidays come from github.com/rickar/cal/v2/jp;
// the two rules that derive further days off from them are applied here,
// as 国民の祝日に関する法律 第3条 states them, rather than taken from the
// library:
//   - 振替休日 (§3②): a holiday on a Sunday moves the day off to the
//     nearest following day that is not a holiday. The library instead
//     gives each holiday a fixed offset, which is right only while no two
//     holidays are ever rearranged.
//   - 国民の休日 (§3③): a day between two holidays is a day off. The
//     library lists only the Septembers of 2009, 2015, 2026 and 2032; the
//     rule also covers later years and gave 2019's 4/30 and 5/2.
//
// Two more gaps are worked around: the library puts 天皇誕生日 on 12/23 in
// 2019, a year that had none, and its 春分の日 writes the computed day into
// the shared jp.VernalEquinoxDay on every call, a data race between
// concurrent callers; nationalHolidays therefore calls it under a lock,
// once per year. The library also does not know that 山の日 moved in 2020
// and 2021 (Olympics); dates before 2022 are not relied on anywhere.
// 春分の日 and 秋分の日 are computed by the usual astronomical formula; the
// government fixes them each February for the next year, so a new year's
// official list is worth checking against TestNationalHolidays.

var tokyo = loadTokyo()

func loadTokyo() *time.Location {
	loc, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		// Japan has kept UTC+9 without daylight saving since 1952, so a fixed
		// zone gives the same answer for any date this product shows.
		return time.FixedZone("JST", 9*60*60)
	}
	return loc
}

// Tokyo is Japan's time zone, in which every date shown to users and every
// business cut-off (such as the 15:00 transfer deadline) is reckoned.
func Tokyo() *time.Location { return tokyo }

// Date is a calendar date in Japan.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf is t's date in Japan time.
func DateOf(t time.Time) Date {
	y, m, d := t.In(tokyo).Date()
	return Date{y, m, d}
}

// Midnight is the date's start in Japan time; it also normalises an
// overflowing day (1/32 → 2/1), so dates can be stepped with Day±1.
func (c Date) Midnight() time.Time {
	return time.Date(c.Year, c.Month, c.Day, 0, 0, 0, 0, tokyo)
}

// AddDays is the date n days later (earlier when n < 0).
func (c Date) AddDays(n int) Date {
	return DateOf(Date{c.Year, c.Month, c.Day + n}.Midnight())
}

// holidayDefs are the library's 国民の祝日 with their Japanese names. The
// library's days between holidays are derived by our rule instead.
var holidayDefs = []struct {
	h    *cal.Holiday
	name string
}{
	{jp.NewYear, "元日"},
	{jp.ComingOfAgeDay, "成人の日"},
	{jp.NationalFoundationDay, "建国記念の日"},
	{jp.TheEmperorsBirthday, "天皇誕生日"},
	{jp.VernalEquinoxDay, "春分の日"},
	{jp.ShowaDay, "昭和の日"},
	{jp.ConstitutionMemorialDay, "憲法記念日"},
	{jp.GreeneryDay, "みどりの日"},
	{jp.ChildrensDay, "こどもの日"},
	{jp.MarineDay, "海の日"},
	{jp.MountainDay, "山の日"},
	{jp.RespectForTheAgedDay, "敬老の日"},
	{jp.AutumnalEquinoxDay, "秋分の日"},
	{jp.SportsDay, "スポーツの日"},
	{jp.CultureDay, "文化の日"},
	{jp.LaborThanksgivingDay, "勤労感謝の日"},
	{jp.TheNewEmperorEnthronementDay, "即位の日"},
	{jp.TheNewEmperorEnthronementCeremony, "即位礼正殿の儀の行われる日"},
}

const (
	substituteHoliday = "振替休日"
	citizensHoliday   = "国民の休日"
)

var holidayCache = struct {
	sync.Mutex
	years map[int]map[Date]string
}{years: map[int]map[Date]string{}}

// nationalHolidays lists year's national holidays, 振替休日 and 国民の休日
// by date, computed once per year.
func nationalHolidays(year int) map[Date]string {
	holidayCache.Lock()
	defer holidayCache.Unlock()
	if m, ok := holidayCache.years[year]; ok {
		return m
	}
	m := make(map[Date]string, 20)
	for _, def := range holidayDefs {
		if def.h == jp.TheEmperorsBirthday && year == 2019 {
			continue // Akihito abdicated on 4/30, Naruhito's birthday came in 2020
		}
		// The library's observed date is ignored: substitutes follow below.
		actual, _ := def.h.Calc(year)
		if actual.IsZero() {
			continue
		}
		y, mo, d := actual.Date() // the library's own zone; only the date counts
		m[Date{y, mo, d}] = def.name
	}
	isShukujitsu := func(c Date) bool { _, ok := m[c]; return ok }
	derived := map[Date]string{}
	for c := (Date{year, time.January, 1}); c.Year == year; c = c.AddDays(1) {
		if isShukujitsu(c) {
			if c.Midnight().Weekday() == time.Sunday {
				sub := c.AddDays(1)
				for isShukujitsu(sub) {
					sub = sub.AddDays(1)
				}
				derived[sub] = substituteHoliday
			}
			continue
		}
		if isShukujitsu(c.AddDays(-1)) && isShukujitsu(c.AddDays(1)) {
			derived[c] = citizensHoliday
		}
	}
	for c, name := range derived {
		m[c] = name
	}
	holidayCache.years[year] = m
	return m
}

// HolidayName is why banks are closed on d's date in Japan time, for
// showing next to a date that cannot be chosen: the holiday's name
// ("元日", "振替休日", "国民の休日"), "年末休業" or "年始休業", else
// "土曜日" or "日曜日"; "" on a bank business day. A holiday's name wins
// over the day of the week, so 5/3 on a Sunday reads 憲法記念日.
func HolidayName(d time.Time) string {
	c := DateOf(d)
	if name, ok := nationalHolidays(c.Year)[c]; ok {
		return name
	}
	switch {
	case c.Month == time.December && c.Day == 31:
		return "年末休業"
	case c.Month == time.January && (c.Day == 2 || c.Day == 3):
		return "年始休業"
	}
	switch c.Midnight().Weekday() {
	case time.Saturday:
		return "土曜日"
	case time.Sunday:
		return "日曜日"
	}
	return ""
}

// IsBankHoliday reports whether banks are closed on d's date in Japan time.
func IsBankHoliday(d time.Time) bool {
	return HolidayName(d) != ""
}

// BankHolidays lists each date in [from, to] (Japan time) on which banks
// are closed, as midnight in Japan time, in ascending order; nil when to
// is before from.
func BankHolidays(from, to time.Time) []time.Time {
	var out []time.Time
	last := DateOf(to).Midnight()
	for c := DateOf(from); !c.Midnight().After(last); c = c.AddDays(1) {
		if HolidayName(c.Midnight()) != "" {
			out = append(out, c.Midnight())
		}
	}
	return out
}

// AddBankDays answers the n-th bank business day after d's date (Japan
// time), as midnight in Japan time: with n = 3, a Friday gives the next
// Wednesday. n = 0 answers d's date itself when it is a business day, else
// the next business day. The time of day is ignored; applying a cut-off
// such as 15:00 is the caller's rule. n must not be negative.
func AddBankDays(d time.Time, n int) time.Time {
	if n < 0 {
		panic("calendar: AddBankDays with negative n")
	}
	c := DateOf(d)
	if n == 0 {
		for IsBankHoliday(c.Midnight()) {
			c = c.AddDays(1)
		}
		return c.Midnight()
	}
	for n > 0 {
		c = c.AddDays(1)
		if !IsBankHoliday(c.Midnight()) {
			n--
		}
	}
	return c.Midnight()
}
