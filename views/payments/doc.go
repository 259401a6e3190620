// Package payments holds the pages of /payments: paying a supplier's invoice by card,
// starting with 請求書のアップロード and the uploaded file's page.
package payments
