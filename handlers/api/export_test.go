package api

import "cardpay/oauth"

// PartnerScopes are the routes a partner's token may call, for the tests that hold
// openapi.json to them.
func PartnerScopes() map[string]oauth.Scope { return partnerScopes }
