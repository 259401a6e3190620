// Package password holds the signed-out password pages: the reset mail, the reset
// itself, and restarting an unfinished sign-up.
package password
