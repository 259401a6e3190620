package inquiries_test

import (
	"testing"

	"cardpay/handlers/webtest"
)

func TestMain(m *testing.M) { webtest.Main(m) }
