package mail

import "crypto/tls"

// NewSMTPWithTLSConfig is NewSMTP trusting a test server's certificate.
func NewSMTPWithTLSConfig(rawURL, from string, tc *tls.Config) (Sender, error) {
	return newSMTP(rawURL, from, tc)
}
