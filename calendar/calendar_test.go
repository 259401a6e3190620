package calendar_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/calendar"
)

func jst(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, calendar.Tokyo())
}

// officialHolidays are the national holidays (国民の祝日, 振替休日 and
// 国民の休日) as the Cabinet Office (内閣府) publishes them.
var officialHolidays = map[int][]string{
	2026: {
		"01-01 元日", "01-12 成人の日", "02-11 建国記念の日", "02-23 天皇誕生日",
		"03-20 春分の日", "04-29 昭和の日", "05-03 憲法記念日", "05-04 みどりの日",
		"05-05 こどもの日", "05-06 振替休日", "07-20 海の日", "08-11 山の日",
		"09-21 敬老の日", "09-22 国民の休日", "09-23 秋分の日", "10-12 スポーツの日",
		"11-03 文化の日", "11-23 勤労感謝の日",
	},
	2027: {
		"01-01 元日", "01-11 成人の日", "02-11 建国記念の日", "02-23 天皇誕生日",
		"03-21 春分の日", "03-22 振替休日", "04-29 昭和の日", "05-03 憲法記念日",
		"05-04 みどりの日", "05-05 こどもの日", "07-19 海の日", "08-11 山の日",
		"09-20 敬老の日", "09-23 秋分の日", "10-11 スポーツの日", "11-03 文化の日",
		"11-23 勤労感謝の日",
	},
}

// The national holidays must be exactly the official list: none missing,
// none extra, each with its name. The closures that are not national
// holidays (weekends, year end and start) are filtered out by name.
func TestNationalHolidays(t *testing.T) {
	notNational := map[string]bool{"": true, "土曜日": true, "日曜日": true, "年末休業": true, "年始休業": true}
	for year, want := range officialHolidays {
		t.Run(fmt.Sprint(year), func(t *testing.T) {
			var got []string
			for d := jst(year, 1, 1); d.Year() == year; d = d.AddDate(0, 0, 1) {
				if name := calendar.HolidayName(d); !notNational[name] {
					got = append(got, d.Format("01-02")+" "+name)
				}
			}
			assert.Equal(t, want, got)
		})
	}
}

func TestHolidayName(t *testing.T) {
	tests := []struct {
		date time.Time
		want string
	}{
		{jst(2026, 1, 1), "元日"},
		{jst(2026, 1, 2), "年始休業"},                                                 // Friday
		{jst(2026, 1, 3), "年始休業"},                                                 // Saturday: the closure's name wins
		{jst(2026, 1, 4), "日曜日"},                                                  // ordinary Sunday
		{jst(2026, 1, 5), ""},                                                     // first business day of 2026
		{jst(2026, 5, 3), "憲法記念日"},                                                // Sunday
		{jst(2026, 5, 6), "振替休日"},                                                 // for 5/3, after 5/4 and 5/5
		{jst(2026, 9, 22), "国民の休日"},                                               // between 敬老の日 and 秋分の日
		{jst(2026, 12, 26), "土曜日"},                                                // ordinary Saturday
		{jst(2026, 12, 30), ""},                                                   // last business day of 2026
		{jst(2026, 12, 31), "年末休業"},                                               // Thursday
		{jst(2027, 3, 22), "振替休日"},                                                // for 春分の日 on Sunday 3/21
		{jst(2032, 9, 21), "国民の休日"},                                               // the library's last listed one
		{jst(2037, 9, 22), "国民の休日"},                                               // derived by rule: 9/21 敬老の日, 9/23 秋分の日
		{jst(2019, 4, 30), "国民の休日"},                                               // between 昭和の日 and 即位の日
		{jst(2019, 5, 1), "即位の日"},                                                 // one-off holiday of 2019
		{jst(2019, 5, 2), "国民の休日"},                                                // between 即位の日 and 憲法記念日
		{jst(2019, 5, 6), "振替休日"},                                                 // for こどもの日 on Sunday 5/5
		{jst(2019, 12, 23), ""},                                                   // no 天皇誕生日 in 2019
		{jst(2024, 2, 12), "振替休日"},                                                // for 建国記念の日 on Sunday 2/11
		{jst(2025, 11, 24), "振替休日"},                                               // for 勤労感謝の日 on Sunday 11/23
		{jst(2026, 9, 21).Add(23 * time.Hour), "敬老の日"},                            // late evening is still the same day
		{time.Date(2026, 1, 4, 15, 30, 0, 0, time.UTC), ""},                       // 00:30 on Monday 1/5 in Tokyo
		{time.Date(2026, 12, 30, 15, 0, 0, 0, time.UTC), "年末休業"},                  // midnight 12/31 in Tokyo
		{time.Date(2026, 12, 30, 14, 59, 59, 0, time.UTC), ""},                    // 23:59:59 on 12/30 in Tokyo
		{time.Date(2026, 5, 5, 20, 0, 0, 0, time.FixedZone("", -5*3600)), "振替休日"}, // 10:00 on 5/6 in Tokyo
	}
	for _, tt := range tests {
		t.Run(tt.date.Format(time.RFC3339), func(t *testing.T) {
			assert.Equal(t, tt.want, calendar.HolidayName(tt.date))
			assert.Equal(t, tt.want != "", calendar.IsBankHoliday(tt.date))
		})
	}
}

func TestIsBankHoliday(t *testing.T) {
	closed := []time.Time{
		jst(2026, 12, 31), jst(2027, 1, 2), jst(2027, 1, 3), jst(2027, 12, 31), jst(2028, 1, 2), jst(2028, 1, 3),
		jst(2026, 1, 10), jst(2026, 1, 11), jst(2027, 6, 5), jst(2027, 6, 6), // weekends
	}
	for year, days := range officialHolidays {
		for _, d := range days {
			var m, day int
			_, err := fmt.Sscanf(d, "%d-%d", &m, &day)
			require.NoError(t, err)
			closed = append(closed, jst(year, time.Month(m), day))
		}
	}
	for _, d := range closed {
		assert.True(t, calendar.IsBankHoliday(d), "%s must be closed", d.Format(time.DateOnly))
	}

	open := []time.Time{
		jst(2026, 1, 5), jst(2026, 1, 13), jst(2026, 2, 10), jst(2026, 3, 19), jst(2026, 4, 30),
		jst(2026, 5, 1), jst(2026, 5, 7), jst(2026, 9, 24), jst(2026, 12, 28), jst(2026, 12, 30),
		jst(2027, 1, 4), jst(2027, 3, 23), jst(2027, 5, 6), jst(2027, 9, 21), jst(2027, 9, 22),
		jst(2027, 12, 30),
	}
	for _, d := range open {
		assert.False(t, calendar.IsBankHoliday(d), "%s must be open (%s)", d.Format(time.DateOnly), calendar.HolidayName(d))
	}
}

// The number of bank business days in a year, checked independently of
// this code with a short Python script over datetime.date: 2026 and 2027
// each have 261 weekdays (both years start and end on a weekday: 2026 runs
// Thursday to Thursday, 2027 Friday to Friday). Of the official holidays,
// 17 fall on weekdays in 2026 (5/3 is a Sunday) and 16 in 2027 (3/21 is a
// Sunday); of 12/31, 1/2 and 1/3, two fall on weekdays in 2026 (1/3 is a
// Saturday) and one in 2027 (1/2 and 1/3 are a weekend). So 261 − 17 − 2 =
// 242 and 261 − 16 − 1 = 244.
func TestBankBusinessDaysPerYear(t *testing.T) {
	tests := []struct {
		year, businessDays int
	}{
		{2026, 242},
		{2027, 244},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.year), func(t *testing.T) {
			first, last := jst(tt.year, 1, 1), jst(tt.year, 12, 31)
			closed := calendar.BankHolidays(first, last)
			days := last.YearDay()
			assert.Equal(t, tt.businessDays, days-len(closed))

			count := 0
			for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
				if !calendar.IsBankHoliday(d) {
					count++
				}
			}
			assert.Equal(t, tt.businessDays, count)
		})
	}
}

func TestBankHolidays(t *testing.T) {
	// Golden Week 2026, from a time late on 4/28 to early on 5/10 in UTC.
	got := calendar.BankHolidays(time.Date(2026, 4, 28, 14, 0, 0, 0, time.UTC), time.Date(2026, 5, 9, 16, 0, 0, 0, time.UTC))
	want := []time.Time{
		jst(2026, 4, 29), jst(2026, 5, 2), jst(2026, 5, 3), jst(2026, 5, 4),
		jst(2026, 5, 5), jst(2026, 5, 6), jst(2026, 5, 9), jst(2026, 5, 10),
	}
	assert.Equal(t, want, got)
	for _, d := range got {
		assert.Equal(t, calendar.Tokyo(), d.Location())
	}

	// Year end 2026 to year start 2027.
	assert.Equal(t, []time.Time{
		jst(2026, 12, 26), jst(2026, 12, 27), jst(2026, 12, 31), jst(2027, 1, 1),
		jst(2027, 1, 2), jst(2027, 1, 3), jst(2027, 1, 9), jst(2027, 1, 10), jst(2027, 1, 11),
	}, calendar.BankHolidays(jst(2026, 12, 26), jst(2027, 1, 11)))

	assert.Equal(t, []time.Time{jst(2026, 9, 22)}, calendar.BankHolidays(jst(2026, 9, 22), jst(2026, 9, 22)), "one closed day")
	assert.Empty(t, calendar.BankHolidays(jst(2026, 9, 24), jst(2026, 9, 25)), "only business days")
	assert.Empty(t, calendar.BankHolidays(jst(2026, 5, 6), jst(2026, 5, 1)), "to before from")
}

func TestAddBankDays(t *testing.T) {
	tests := []struct {
		name string
		from time.Time
		n    int
		want time.Time
	}{
		{"0 on a business day is that day", jst(2026, 6, 1), 0, jst(2026, 6, 1)},
		{"0 on a Saturday is Monday", jst(2026, 6, 6), 0, jst(2026, 6, 8)},
		{"1 from a Friday is Monday", jst(2026, 6, 5), 1, jst(2026, 6, 8)},
		{"1 from a Saturday is Monday", jst(2026, 6, 6), 1, jst(2026, 6, 8)},
		{"3 from a Friday is Wednesday", jst(2026, 6, 5), 3, jst(2026, 6, 10)},
		{"the time of day is dropped", jst(2026, 6, 1).Add(16 * time.Hour), 1, jst(2026, 6, 2)},
		{"Japan's date, not UTC's", time.Date(2026, 6, 4, 16, 0, 0, 0, time.UTC), 1, jst(2026, 6, 8)},

		// Golden Week 2026: 4/29 Wed, 5/2–5/6 closed.
		{"1 before Golden Week", jst(2026, 4, 28), 1, jst(2026, 4, 30)},
		{"3 across Golden Week", jst(2026, 4, 30), 3, jst(2026, 5, 8)},
		{"1 from 5/1", jst(2026, 5, 1), 1, jst(2026, 5, 7)},
		{"0 inside Golden Week", jst(2026, 5, 4), 0, jst(2026, 5, 7)},
		// Golden Week 2027: 4/29 Thu, 5/1–5/5 closed.
		{"3 across Golden Week 2027", jst(2027, 4, 28), 3, jst(2027, 5, 7)},

		// Year end: 12/30/2026 is the last business day, 1/4/2027 the first.
		{"1 across the year end", jst(2026, 12, 30), 1, jst(2027, 1, 4)},
		{"3 across the year end", jst(2026, 12, 28), 3, jst(2027, 1, 4)},
		{"0 on 12/31", jst(2026, 12, 31), 0, jst(2027, 1, 4)},
		{"0 on 1/2", jst(2027, 1, 2), 0, jst(2027, 1, 4)},
		{"3 from 12/31/2027 (Fri) skips 1/1–1/3 and the 1/10 weekend", jst(2027, 12, 31), 3, jst(2028, 1, 6)},

		{"Silver Week 2026", jst(2026, 9, 18), 1, jst(2026, 9, 24)},
		{"a whole year", jst(2025, 12, 31), 242, jst(2026, 12, 30)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := calendar.AddBankDays(tt.from, tt.n)
			assert.Equal(t, tt.want, got, "got %s", got.Format(time.DateOnly))
			assert.Equal(t, calendar.Tokyo(), got.Location())
			assert.False(t, calendar.IsBankHoliday(got))
		})
	}
	assert.Panics(t, func() { calendar.AddBankDays(jst(2026, 6, 1), -1) })
}

// The library computes 春分の日 through shared state; concurrent first
// calls for different years must still agree with the official dates
// (run with -race).
func TestHolidaysConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for year := 2030; year < 2060; year++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			calendar.IsBankHoliday(jst(year, 3, 20))
		}()
	}
	wg.Wait()
	// 春分の日 per 国立天文台's computed table: 2030-03-20, 2035-03-21, 2044-03-20, 2055-03-21.
	for _, d := range []time.Time{jst(2030, 3, 20), jst(2035, 3, 21), jst(2044, 3, 20), jst(2055, 3, 21)} {
		assert.Equal(t, "春分の日", calendar.HolidayName(d), d.Format(time.DateOnly))
	}
}
