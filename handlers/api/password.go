package api

import (
	"net/http"

	"github.com/labstack/echo/v5"
)

type passwordResetCodeRequest struct {
	EmailAddress string `json:"email_address"`
}

// sendPasswordResetCode is POST users/send_password_reset_code. The answer is the same
// whether or not the address has an account (only a malformed address is refused).
func (s *server) sendPasswordResetCode(c *echo.Context) error {
	var req passwordResetCodeRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := asError(s.Account.SendPasswordReset(c.Request().Context(), req.EmailAddress)); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, statusAnswer{
		Status:  "sent",
		Message: "ご登録のメールアドレスであれば、パスワード再設定用の確認コードを送信しました。",
	})
}

type passwordResetRequest struct {
	EmailAddress string `json:"email_address"`
	Code         string `json:"code"`
	Password     string `json:"password"`
}

// resetPassword is PUT users/password_reset: the mailed code and a new password. Every
// sign-in of the user ends, pages and API alike. An unknown address fails exactly like
// a wrong code.
func (s *server) resetPassword(c *echo.Context) error {
	var req passwordResetRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := asError(s.Account.ResetPassword(c.Request().Context(), req.EmailAddress, req.Code, req.Password)); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, statusAnswer{Status: "password_reset", Message: "パスワードを再設定しました。新しいパスワードでログインしてください。"})
}
