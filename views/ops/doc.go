// Package ops holds the operator console's pages (/ops): sign-in, the screening queue
// and a payment's screening, suppliers' reviews and the audit log. They use
// views.OpsLayout, never a buyer's layout.
package ops
