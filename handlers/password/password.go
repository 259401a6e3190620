// Package password is what a signed-out person does about a password or an unfinished
// sign-up: mail a reset code (/password/sendemail), reset the password with it
// (/password/reset), and restart a sign-up that was never finished
// (/password/reregistration), which continues at the sign-up's code page.
package password

import "cardpay/handlers/web"

// Handler serves the password area.
type Handler struct{ *web.App }

// sessionResetEmail is the address a reset code was last asked for, to fill in the
// reset form.
const sessionResetEmail = "password_reset_email"
