// Package signup holds the pages of signing up: the address and its code, then the
// registration wizard (business form, details, check answers, result).
package signup
