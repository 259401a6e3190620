// Package payments is the area of /payments: paying a supplier's invoice by card.
package payments

import "cardpay/handlers/web"

// Handler serves the payment pages.
type Handler struct {
	*web.App
}
