// Package receivedinvoices holds the pages of /receipt-invoices (受取請求書, issue 29):
// the suppliers' invoices a buyer received, their lists by state, each invoice's page
// with its file, reading, history and what the buyer can do with it, and the buyer's
// own upload.
package receivedinvoices
