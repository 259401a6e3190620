// Package pay holds the product's domain rules for paying supplier invoices
// by credit card: statuses and the list buckets built on them, card brands,
// invoice file types, landing pages, display formats, reference data and
// the corporate-number check digit.
//
// It does no I/O, so handlers, the store and the operator console can share
// one definition of each rule and test it without a database or a browser.
// Anything a person reads is Japanese.
package pay
