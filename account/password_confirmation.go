package account

// CheckPasswordConfirmation is the message for the confirmation field of a new
// password (the password reset and the my-account password change), or "" when it
// repeats the password.
func CheckPasswordConfirmation(password, confirmation string) string {
	switch {
	case confirmation == "":
		return "確認のため、新しいパスワードをもう一度入力してください"
	case confirmation != password:
		return "新しいパスワード（確認用）が一致しません。同じパスワードを入力してください"
	}
	return ""
}
