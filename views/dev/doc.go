// Package dev holds the development mailbox pages.
package dev
