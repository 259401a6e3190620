// Package info holds the pages around the service: the public help and policy pages
// and the terms of service.
package info
