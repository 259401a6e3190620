// Package inquiries holds the pages of お問い合わせ: the form (signed out or in), its
// thanks page, and a signed-in buyer's inquiries with the operators' answers.
package inquiries
