// Package myaccount holds the signed-in user's account pages: ログイン情報, 会社情報, the
// e-mail address and password changes, and セキュリティ設定 with its two-factor set-up.
package myaccount
