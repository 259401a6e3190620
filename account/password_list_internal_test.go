package account

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/auth/commonpasswords"
)

// The list keeps only entries the length rule lets through; were the rule
// lowered, the shorter common passwords would be missing from it.
func TestCommonPasswordListCoversTheLengthRule(t *testing.T) {
	assert.LessOrEqual(t, commonpasswords.MinRunes, minPasswordRunes,
		"lower commonpasswords.MinRunes and run go generate ./auth/commonpasswords")
}
