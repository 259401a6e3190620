package pay

import "time"

// InviterWindow is how long an operator and whoever invited them count as one person for
// dual control: an administrator who invites a confederate must wait this long before
// the two can check and complete a payment together, and the invitation stays in the
// audit log for anyone who looks in the meantime.
const InviterWindow = 30 * 24 * time.Hour

// Invitation says that Inviter proposed or approved the invitation of Invitee, who
// enrolled At.
type Invitation struct {
	Inviter int64     `db:"inviter"`
	Invitee int64     `db:"invitee"`
	At      time.Time `db:"at"`
}

// InvitedEachOther says whether the operator who checked a payment and the one who
// would complete it are linked by an invitation (either way) made within InviterWindow
// before now: dual control then refuses the completion, as if they were one operator.
func InvitedEachOther(checker, completer int64, invitations []Invitation, now time.Time) bool {
	for _, i := range invitations {
		pair := (i.Inviter == checker && i.Invitee == completer) || (i.Inviter == completer && i.Invitee == checker)
		if pair && now.Sub(i.At) < InviterWindow {
			return true
		}
	}
	return false
}
