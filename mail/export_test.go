package mail

import "crypto/tls"

// NewSMTPWithTLSConfig is NewSMTP trusting a test server's certificate.
func NewSMTPWithTLSConfig(rawURL, from string, tc *tls.Config) (Sender, error) {
	return newSMTP(rawURL, from, tc)
}

// NewSMTPRequiringTLSWithTLSConfig is NewSMTPRequiringTLS trusting a test server's
// certificate.
func NewSMTPRequiringTLSWithTLSConfig(rawURL, from string, tc *tls.Config) (Sender, error) {
	s, err := newSMTP(rawURL, from, tc)
	if err != nil {
		return nil, err
	}
	s.requireTLS = true
	return s, nil
}
