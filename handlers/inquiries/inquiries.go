// Package inquiries is the area of お問い合わせ: the form at /inquiry, for anyone
// (signed out it asks who is asking; signed in it names the account and offers the
// buyer's payments), its thanks page with the reference number, and a signed-in
// buyer's inquiries with the operators' answers (/inquiries). The operators answer in
// the console (handlers/ops); the rules are account.Service's SendInquiry.
package inquiries

import (
	"time"

	"cardpay/handlers/web"
)

// Handler serves the inquiry pages.
type Handler struct {
	*web.App
}

var jst = time.FixedZone("JST", 9*60*60)

func dateTime(t time.Time) string { return t.In(jst).Format("2006/01/02 15:04") }
