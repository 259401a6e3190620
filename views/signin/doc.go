// Package signin holds the pages of signing in: the sign-in form and the one-time
// password that may follow it.
package signin
