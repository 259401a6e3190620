package account

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

// The rule tables and textFields are written out by hand; this keeps them
// in step with the struct, so no field goes unnormalised or unchecked.
func TestRegistrationTablesCoverEveryField(t *testing.T) {
	var r Registration
	fields := r.textFields()

	typ := reflect.TypeOf(r)
	v := reflect.ValueOf(&r).Elem()
	var jsonNames []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Type.Kind() != reflect.String {
			continue
		}
		jsonNames = append(jsonNames, name)
		if assert.Contains(t, fields, name) {
			assert.Same(t, v.Field(i).Addr().Interface().(*string), fields[name], "%s points at %s", name, f.Name)
		}
		assert.Contains(t, ruleByName, name, "%s has a rule", name)
	}
	assert.Len(t, fields, len(jsonNames))

	for _, rules := range [][]fieldRule{corporationRules, soleProprietorRules, contactRules} {
		seen := map[string]bool{}
		for _, rule := range rules {
			assert.Contains(t, fields, rule.name)
			assert.False(t, seen[rule.name], "%s listed twice", rule.name)
			seen[rule.name] = true
			// A field shared by both forms is normalised one way, so it must
			// be checked the same way in both.
			assert.Equal(t, ruleByName[rule.name].kind, rule.kind, rule.name)
		}
	}
}

func TestAgeOn(t *testing.T) {
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, pay.Tokyo()) }
	tests := []struct {
		birth, today time.Time
		want         int
	}{
		{d(1980, 4, 1), d(2026, 3, 31), 45},
		{d(1980, 4, 1), d(2026, 4, 1), 46},
		{d(2008, 2, 29), d(2026, 2, 28), 17},
		{d(2008, 2, 29), d(2026, 3, 1), 18},
		{d(2008, 2, 29), d(2028, 2, 29), 20},
		{d(2027, 1, 1), d(2026, 12, 31), -1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ageOn(tt.birth, tt.today), "%s on %s", pay.JapaneseDate(tt.birth), pay.JapaneseDate(tt.today))
	}
}
